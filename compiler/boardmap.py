"""Reading a board file: a map drawn as text, with a legend.

    ; comment lines start with ';' (at the start of the line: indented, ';' is a glyph)
    geometry: square                 # square (8 neighbours), square4 (4) or hex
    regions: ground                  # the symbol set whose members name regions
    blocked: wall, water             # regions no move may enter or cross
    opaque: wall                     # regions that stop lines of sight (in_sight)
    patterns: shapes                 # the symbol set whose members name patterns
    legend:                          # a glyph, then the regions of a tile drawn with it
      # wall
      . 
      a start_a, marsh
    things:                          # how things are drawn: a glyph, then an entry or a kind
      P pawn
    layer:                           # rows of glyphs, indented; spaces between glyphs are ignored
      #####
      #a.P#
    pattern: cone                    # tiles relative to a thing on '@' facing direction 0
      . x x                          # x: covered, .: not, @: the thing, *: the thing, covered
       @ x x

A board may have several layers of the same size: a tile is in the regions of its glyph in
each, so overlapping areas (a marsh crossing a road) are drawn as separate pictures. The
first layer's glyphs are how the board is drawn. The board is named after its file
(`maps/arena.board` is `arena`). Every problem is a diagnostic at its line and column.
"""
from __future__ import annotations

import re
from typing import Optional

from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.span import Span
from runebook.runtime.board import GEOMETRIES

NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")
SECTIONS = ("legend", "things", "layer", "pattern")
SETTINGS = ("geometry", "regions", "blocked", "opaque", "patterns")
ORIGIN, COVERED = "@*", "x*"  # a pattern's glyphs: '.' is a tile it does not cover
MAX_TILES = 10_000  # a board is drawn by hand: anything larger is a mistake or an attack


class _Reader:
    def __init__(self, text: str, file: str, syms):
        self.file, self.syms, self.diags = file, syms, []
        self.lines = text.split("\n")
        self.settings: dict = {}       # setting -> (value, line)
        self.legend: dict = {}         # glyph -> [(region, line, col)], checked once the set is known
        self.things: dict = {}         # entry or kind -> glyph
        self.layers: list = []         # [[(line number, [(col, glyph)])]]
        self.patterns: list = []       # [(name, line, col, [(line number, [(col, glyph)])])]

    def error(self, code: str, message: str, line: int, col: int = 1, width: int = 1, hint: Optional[str] = None):
        self.diags.append(Diagnostic(code, message, Span(self.file, line, col, line, col + width), hint))

    def read(self) -> None:
        section = None
        for number, raw in enumerate(self.lines, 1):
            text = raw.rstrip("\r")
            stripped = text.strip()
            if not stripped or text.startswith(";"):  # a comment starts the line: ';' may be a glyph
                if section in ("layer", "pattern") and not stripped:
                    section = None  # a blank line ends a layer or a pattern
                continue
            if not text[0].isspace():
                section = self.header(text, number)
            elif section is None:
                self.error("E0420", "an indented line outside a 'legend:', 'things:' or 'layer:' section",
                           number, hint="start the section with its header at the start of a line")
            elif section == "legend":
                self.legend_line(text, number)
            elif section == "things":
                self.thing_line(text, number)
            else:
                rows = self.layers[-1] if section == "layer" else self.patterns[-1][3]
                rows.append((number, [(i + 1, c) for i, c in enumerate(text) if not c.isspace()]))

    def header(self, text: str, number: int) -> Optional[str]:
        key, colon, value = text.partition(":")
        key = key.strip()
        if not colon or key not in SECTIONS + SETTINGS:
            self.error("E0420", f"'{text.strip()[:40]}' is not a line of a board file", number, width=len(key) or 1,
                       hint="a board file has the settings geometry:, regions:, blocked:, opaque:, patterns: "
                            "and the sections legend:, things:, layer:, pattern: NAME")
            return None
        if key in SETTINGS:
            if key in self.settings:
                self.error("E0420", f"'{key}' is given twice", number, width=len(key))
            self.settings[key] = (value.strip(), number, len(text) - len(value.lstrip()) + 1)
            return None
        if key == "pattern":
            name = value.strip()
            self.patterns.append((name, number, len(text) - len(value.lstrip()) + 1, []))
            if not NAME.match(name):
                self.error("E0420", f"'pattern:' takes the pattern's name, not '{name}'", number, width=len(key),
                           hint="write 'pattern: NAME', then its rows below it, indented")
            return key
        if value.strip():
            self.error("E0420", f"'{key}:' takes its lines below it, indented", number, width=len(key))
        if key == "layer":
            self.layers.append([])
        return key

    def _glyph_and_rest(self, text: str) -> tuple:
        start = len(text) - len(text.lstrip())
        return start + 1, text[start], text[start + 1:]

    def legend_line(self, text: str, number: int) -> None:
        col, glyph, rest = self._glyph_and_rest(text)
        if glyph in self.legend:
            self.error("E0420", f"the legend gives '{glyph}' twice", number, col)
        self.legend[glyph] = [(m.group(), number, col + 1 + m.start()) for m in re.finditer(r"[^,\s]+", rest)]

    def region_name(self, name: str, number: int, col: int, setting: str = "regions", what: str = "region") -> bool:
        chosen = self.settings.get(setting)
        chosen = chosen[0] if chosen else None
        members = self.syms.symbol_sets.get(chosen or "", [])
        if name not in members:
            self.error("E0423", f"'{name}' is not a {what} of this board (a member of '{chosen}')",
                       number, col, len(name),
                       did_you_mean(name, members) or f"add it to 'symbols {chosen}: ...'")
            return False
        return True

    def thing_line(self, text: str, number: int) -> None:
        col, glyph, rest = self._glyph_and_rest(text)
        name = rest.strip()
        known = name in self.syms.entries or name in self.syms.kinds
        if not known:
            self.error("E0423", f"'{name}' is neither an entry nor a kind", number, col + 1 + rest.find(name) if name
                       else col, max(1, len(name)),
                       did_you_mean(name, list(self.syms.entries) + list(self.syms.kinds)) or
                       "write a glyph, then the entry or kind it draws")
        elif name in self.things:
            self.error("E0420", f"'{name}' is given a glyph twice", number, col)
        else:
            self.things[name] = glyph

    # ---------------------------------------------------------------- the whole board
    def check_settings(self) -> bool:
        geometry = self.settings.get("geometry")
        if geometry is None:
            self.error("E0420", "the board file does not say its geometry", 1,
                       hint=f"add a line 'geometry: {' | '.join(GEOMETRIES)}'")
        elif geometry[0] not in GEOMETRIES:
            self.error("E0423", f"unknown geometry '{geometry[0]}'", geometry[1], geometry[2], max(1, len(geometry[0])),
                       did_you_mean(geometry[0], list(GEOMETRIES)) or f"one of {', '.join(GEOMETRIES)}")
        if self.settings.get("regions") is None:
            self.error("E0420", "the board file does not name its regions", 1,
                       hint="add a line 'regions: SET', naming a 'symbols SET: ...' declaration")
        if self.patterns and self.settings.get("patterns") is None:
            self.error("E0420", "the board file draws patterns but does not name them", self.patterns[0][1],
                       hint="add a line 'patterns: SET', naming a 'symbols SET: ...' declaration")
        for setting in ("regions", "patterns"):
            value = self.settings.get(setting)
            if value is not None and value[0] not in self.syms.symbol_sets:
                self.error("E0423", f"'{value[0]}' is not a symbol set", value[1], value[2], max(1, len(value[0])),
                           did_you_mean(value[0], list(self.syms.symbol_sets)) or
                           f"declare the {setting} with 'symbols SET: name, name'")
        return not self.diags

    def region_list(self, setting: str) -> list:
        """The regions a setting such as 'blocked:' lists."""
        value = self.settings.get(setting)
        if value is None:
            return []
        text, number, col = value
        return [m.group() for m in re.finditer(r"[^,\s]+", text) if self.region_name(m.group(), number, col + m.start())]

    def check_legend(self) -> None:
        self.legend = {glyph: [name for name, number, col in regions if self.region_name(name, number, col)]
                       for glyph, regions in self.legend.items()}

    def grid(self) -> Optional[tuple]:
        """(width, height, [regions per tile], [glyph per tile]) from the layers."""
        if not self.layers or not any(self.layers):
            self.error("E0422", "the board has no map", len(self.lines),
                       hint="draw it under a 'layer:' line, one indented line per row")
            return None
        first = self.layers[0]
        height, width = len(first), len(first[0][1])
        regions = [[] for _ in range(width * height)]
        glyphs = []
        for k, layer in enumerate(self.layers):
            if len(layer) != height:
                self.error("E0422", f"this layer has {len(layer)} rows, the first has {height}",
                           (layer[0][0] if layer else 1) - 1)
                continue
            for y, (number, row) in enumerate(layer):
                if len(row) != width:
                    self.error("E0422", f"this row has {len(row)} tiles, the first has {width}", number,
                               row[0][0] if row else 1)
                    continue
                for x, (col, glyph) in enumerate(row):
                    if glyph not in self.legend:
                        self.error("E0421", f"'{glyph}' is not in the legend", number, col,
                                   hint="give every glyph of the map a line under 'legend:'")
                        continue
                    tile = regions[y * width + x]
                    tile.extend(r for r in self.legend[glyph] if r not in tile)
                    if k == 0:
                        glyphs.append(glyph)
        if width * height > MAX_TILES:
            self.error("E0422", f"the board has {width * height:,} tiles, more than {MAX_TILES:,}", first[0][0])
        return width, height, regions, glyphs

    def drawn_patterns(self, geometry) -> dict:
        """name -> the native offsets each pattern covers, from the thing on its '@' (or '*')."""
        out = {}
        for name, number, col, rows in self.patterns:
            if not NAME.match(name) or not self.region_name(name, number, col, "patterns", "pattern"):
                continue  # a bad name is reported once, by header()
            if name in out:
                self.error("E0420", f"the pattern '{name}' is drawn twice", number, col, len(name))
            marks = [((x, y), glyph, line, c) for y, (line, row) in enumerate(rows) for x, (c, glyph) in enumerate(row)]
            for _, glyph, line, c in marks:
                if glyph not in ORIGIN + COVERED + ".":
                    self.error("E0421", f"'{glyph}' is not a glyph of a pattern", line, c,
                               hint="draw a pattern with '@' (the thing), 'x' (covered), '.' (not covered) "
                                    "and '*' (the thing, covered)")
            origins = [p for p, glyph, _, _ in marks if glyph in ORIGIN]
            if len(origins) != 1:
                self.error("E0422", f"the pattern '{name}' has {len(origins)} tiles marked '@' or '*', not one",
                           number, col, len(name), hint="mark the tile of the thing the pattern is seen from")
                continue
            oq, orr = geometry.native(origins[0])
            out[name] = [[q - oq, r - orr] for (q, r) in (geometry.native(p) for p, glyph, _, _ in marks
                                                           if glyph in COVERED)]
        return out


def read_board(name: str, text: str, file: str, syms) -> tuple:
    """(the board as plain data, or None; diagnostics) of one board file."""
    reader = _Reader(text, file, syms)
    if not NAME.match(name):
        reader.error("E0420", f"the board's name '{name}' (its file's name) is not a lower_snake_case name", 1,
                     hint="name the file like 'arena.board'")
    reader.read()
    if not reader.check_settings():
        return None, reader.diags
    blocked, opaque = reader.region_list("blocked"), reader.region_list("opaque")
    reader.check_legend()
    grid = reader.grid()
    geometry = reader.settings["geometry"][0]
    patterns = reader.drawn_patterns(GEOMETRIES[geometry])
    if grid is None or reader.diags:
        return None, reader.diags
    width, height, regions, glyphs = grid
    return {"name": name, "geometry": geometry, "width": width, "height": height,
            "regions": regions, "glyphs": glyphs, "blocked": blocked, "opaque": opaque,
            "patterns": patterns, "things": reader.things}, []
