"""Reading a board file: a map drawn as text, with a legend.

    ; comment lines start with ';' (at the start of the line: indented, ';' is a glyph)
    geometry: square                 # square (8 neighbours), square4 (4) or hex
    regions: ground                  # the symbol set whose members name regions
    blocked: wall, water             # regions no move may enter or cross
    legend:                          # a glyph, then the regions of a tile drawn with it
      # wall
      . 
      a start_a, marsh
    things:                          # how things are drawn: a glyph, then an entry or a kind
      P pawn
    layer:                           # rows of glyphs, indented; spaces between glyphs are ignored
      #####
      #a.P#

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
SECTIONS = ("legend", "things", "layer")
SETTINGS = ("geometry", "regions", "blocked")
MAX_TILES = 10_000  # a board is drawn by hand: anything larger is a mistake or an attack


class _Reader:
    def __init__(self, text: str, file: str, syms):
        self.file, self.syms, self.diags = file, syms, []
        self.lines = text.split("\n")
        self.settings: dict = {}       # setting -> (value, line)
        self.legend: dict = {}         # glyph -> [(region, line, col)], checked once the set is known
        self.things: dict = {}         # entry or kind -> glyph
        self.layers: list = []         # [[(line number, [(col, glyph)])]]

    def error(self, code: str, message: str, line: int, col: int = 1, width: int = 1, hint: Optional[str] = None):
        self.diags.append(Diagnostic(code, message, Span(self.file, line, col, line, col + width), hint))

    def read(self) -> None:
        section = None
        for number, raw in enumerate(self.lines, 1):
            text = raw.rstrip("\r")
            stripped = text.strip()
            if not stripped or text.startswith(";"):  # a comment starts the line: ';' may be a glyph
                if section == "layer" and not stripped:
                    section = None  # a blank line ends a layer
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
                self.layers[-1].append((number, [(i + 1, c) for i, c in enumerate(text) if not c.isspace()]))

    def header(self, text: str, number: int) -> Optional[str]:
        key, colon, value = text.partition(":")
        key = key.strip()
        if not colon or key not in SECTIONS + SETTINGS:
            self.error("E0420", f"'{text.strip()[:40]}' is not a line of a board file", number, width=len(key) or 1,
                       hint="a board file has the settings geometry:, regions:, blocked: and the "
                            "sections legend:, things:, layer:")
            return None
        if key in SETTINGS:
            if key in self.settings:
                self.error("E0420", f"'{key}' is given twice", number, width=len(key))
            self.settings[key] = (value.strip(), number, len(text) - len(value.lstrip()) + 1)
            return None
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

    def region_name(self, name: str, number: int, col: int) -> bool:
        members = self.syms.symbol_sets.get(self.region_set or "", [])
        if name not in members:
            self.error("E0423", f"'{name}' is not a region of this board (a member of '{self.region_set}')",
                       number, col, len(name),
                       did_you_mean(name, members) or f"add it to 'symbols {self.region_set}: ...'")
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
    @property
    def region_set(self) -> Optional[str]:
        value = self.settings.get("regions")
        return value[0] if value else None

    def check_settings(self) -> bool:
        geometry = self.settings.get("geometry")
        if geometry is None:
            self.error("E0420", "the board file does not say its geometry", 1,
                       hint=f"add a line 'geometry: {' | '.join(GEOMETRIES)}'")
        elif geometry[0] not in GEOMETRIES:
            self.error("E0423", f"unknown geometry '{geometry[0]}'", geometry[1], geometry[2], max(1, len(geometry[0])),
                       did_you_mean(geometry[0], list(GEOMETRIES)) or f"one of {', '.join(GEOMETRIES)}")
        regions = self.settings.get("regions")
        if regions is None:
            self.error("E0420", "the board file does not name its regions", 1,
                       hint="add a line 'regions: SET', naming a 'symbols SET: ...' declaration")
        elif regions[0] not in self.syms.symbol_sets:
            self.error("E0423", f"'{regions[0]}' is not a symbol set", regions[1], regions[2], max(1, len(regions[0])),
                       did_you_mean(regions[0], list(self.syms.symbol_sets)) or
                       "declare the regions with 'symbols SET: name, name'")
        return not self.diags

    def blocked(self) -> list:
        value = self.settings.get("blocked")
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


def read_board(name: str, text: str, file: str, syms) -> tuple:
    """(the board as plain data, or None; diagnostics) of one board file."""
    reader = _Reader(text, file, syms)
    if not NAME.match(name):
        reader.error("E0420", f"the board's name '{name}' (its file's name) is not a lower_snake_case name", 1,
                     hint="name the file like 'arena.board'")
    reader.read()
    if not reader.check_settings():
        return None, reader.diags
    blocked = reader.blocked()
    reader.check_legend()
    grid = reader.grid()
    if grid is None or reader.diags:
        return None, reader.diags
    width, height, regions, glyphs = grid
    return {"name": name, "geometry": reader.settings["geometry"][0], "width": width, "height": height,
            "regions": regions, "glyphs": glyphs, "blocked": blocked, "things": reader.things}, []
