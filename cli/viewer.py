"""The match viewer's data: one step per decision (and one for the end), each with the
narration that led to it, the decision in words and its options, and the state of every
zone and player as the decision was made; written into one self-contained HTML page
(viewer.html: its script draws the steps, and the board from the pack's view.yaml).

A page for one seat holds only what that seat could see: other players' private
narration is left out, their private decisions are shown as hidden, and a private zone
it does not own is given as a count of things. The data is cut here, before it is
written, so the page itself has nothing to hide.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

TEMPLATE = Path(__file__).with_name("viewer.html")


class PageRecorder:
    """Match.on_event: gathers the steps of the page as the match runs (or is replayed)."""

    def __init__(self, program, presentation, seen: list, seat: Optional[int] = None):
        self.program = program
        self.presentation = presentation
        self.seen = seen          # the agents' (decision, choice); the last is this event's
        self.seat = seat          # 1-based; None: everything is shown
        self.phraser = None       # set once the match's world exists
        self.pending: list = []   # narration since the last step
        self.steps: list = []
        self.result: Optional[dict] = None
        self.start: dict = {}

    def may_read(self, event: dict) -> bool:
        private = event.get("private")
        return self.seat is None or private is None or private == self.seat

    def __call__(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "start":
            self.start = event
        elif kind == "say" and self.may_read(event):
            self.pending.append(event["text"])
        elif kind == "reveal":
            from .commands_play import reveal_text
            self.pending.append(reveal_text(event))
        elif kind == "decision":
            self.steps.append({"say": self.pending, "decision": self._decision(event), "state": self._state()})
            self.pending = []
        elif kind == "end":
            self.result = {"scores": event["scores"], "winners": event["winners"], "titles": event["titles"]}
            self.steps.append({"say": self.pending, "decision": None, "state": self._state(), "end": True})
            self.pending = []

    def _decision(self, event: dict) -> dict:
        from .commands_play import decision_text
        readable = self.may_read(event)
        shown = {"player": event["player"], "kind": event["kind"], "tag": event["tag"],
                 "text": decision_text(event, self.phraser, self.seen[-1], readable)}
        if readable:  # options in words, as the narration tells a choice; the code form as their tooltip
            shown.update(options=self.phraser.options(self.seen[-1][0]), codes=event["options"],
                         choice=event["choice"], label=event["label"])
        else:
            # not even how many options: their number can follow from the hidden things
            shown.update(options=[], codes=[], choice=None, label=None, hidden=True)
        return shown

    # ------------------------------------------------------------ the state at a step
    def _state(self) -> dict:
        world, program = self.phraser.world, self.program
        players = [{"name": f"Player {p.seat + 1}", "colour": self._colour(p),
                    "vars": {v.name: self._value(p.vars[i]) for i, v in enumerate(program.player_vars)}}
                   for p in world.players]
        zones = []
        for zone_or_seats in world.zones:
            for zone in zone_or_seats if isinstance(zone_or_seats, list) else (zone_or_seats,):
                zones.append(self._zone(zone))
        state = {"players": players, "zones": zones,  # a name with '<' is the engine's own (no script names it)
                 "globals": {v.name: self._value(world.globals[i]) for i, v in enumerate(program.globals)
                             if not v.name.startswith("<")}}
        if self.presentation.board is not None:
            state["board"] = self._board(self.presentation.board)
        if world.boards:
            from .viewer_tiles import tile_tokens
            state["tokens"] = tile_tokens(world, program, self.presentation.tiles, self.phraser.name,
                                          self.phraser.owner, self._sees)
        return state

    def _colour(self, player) -> Optional[str]:
        """The player's colour by view.yaml's `player_colours` (players of one side alike),
        else None: the page gives each seat its own."""
        by = self.presentation.player_colours
        if by is None:
            return None
        names = [v.name for v in self.program.player_vars]
        value = player.vars[names.index(by["var"])] if by["var"] in names else None
        return by["colours"].get(value) if isinstance(value, str) else None

    def _sees(self, zone) -> bool:
        if self.seat is None or zone is None or not zone.private:
            return True
        return zone.owner is not None and zone.owner.seat == self.seat - 1

    def _zone(self, zone) -> dict:
        shown = {"name": zone.name.replace("_", " "), "owner": zone.owner.seat + 1 if zone.owner else None,
                 "count": len(zone.items), "private": zone.private}
        # The heading of a player's zone names the player: its things need not.
        shown["items"] = [self._item(t, zone.owner is None) for t in zone.items] if self._sees(zone) else None
        return shown

    def _item(self, thing, tell_apart: bool) -> dict:
        """A thing of a zone the seat sees: its name, and its variables that are not at
        their first value (a figure's HP, a space's tokens)."""
        initial = self.phraser.world.thing_initial
        return {"name": self.phraser.name(thing, tell_apart),
                "vars": {v.name: self._value(thing.vars[i]) for i, v in enumerate(self.program.thing_vars)
                         if thing.vars[i] != initial[i]}}

    def _value(self, value, tell_apart: bool = True):
        """A value as the page shows it; a thing this seat cannot see is only 'hidden'."""
        from runebook.runtime.world import Thing
        if isinstance(value, Thing) and not self._sees(value.zone):
            return "hidden"
        if isinstance(value, (tuple, list)):
            return [self._value(v, tell_apart) for v in value]
        if value is None or type(value) is int:
            return value
        return self.phraser.name(value, tell_apart)

    def _board(self, board: dict) -> dict:
        """The spaces (with their counters) and the pieces standing on them."""
        from runebook.runtime.world import Thing
        world, program = self.phraser.world, self.program
        slots = {v.name: i for i, v in enumerate(program.thing_vars)}
        spaces = []
        for thing in _zone_items(world, program, board["spaces"]):
            if not self._sees(thing.zone):
                continue
            marks = []
            for counter in board.get("counters", []):
                held = thing.vars[slots[counter["var"]]] if counter["var"] in slots else 0
                if held is True or (type(held) is int and held > 0):
                    marks.append(counter["glyph"] if held is True else f"{counter['glyph']}{held}")
            colour = world.entries.get(thing.entry, {}).get(board.get("colour_field", ""))
            spaces.append({"id": thing.entry, "label": self.phraser.name(thing, tell_apart=False),
                           "colour": board.get("colours", {}).get(str(colour)), "marks": marks})
        pieces = []
        for piece in board.get("pieces", []):
            at = slots.get(piece["at"])
            facing = slots.get(piece.get("facing", ""))
            for thing in _zone_items(world, program, piece["zone"]):
                if at is None or not self._sees(thing.zone):
                    continue
                where = thing.vars[at]
                owner = self.phraser.owner(thing)
                pieces.append({"at": where.entry if isinstance(where, Thing) else where,
                               "owner": owner.seat + 1 if owner is not None else None,
                               "glyph": piece.get("glyph", ""),
                               "facing": thing.vars[facing] if facing is not None else None})
        return {"spaces": spaces, "pieces": pieces}

    # ------------------------------------------------------------ the page
    def page(self, title: str) -> dict:
        board = self.presentation.board
        layout = None
        if board is not None:
            layout = {"grid": board["grid"], "positions": board["positions"], "links": self._links(board)}
        from .viewer_tiles import tile_layout
        return {"title": title, "seed": self.start.get("seed"), "players": self.start.get("players"),
                "seat": self.seat, "unit": self.presentation.score_unit, "layout": layout,
                "tile_boards": tile_layout(self.phraser.world, self.presentation.tiles),
                "steps": self.steps, "result": self.result}

    def _links(self, board: dict) -> list:
        links = board.get("links")
        if links is None:
            return []
        pairs = self.program.entries.get(links["entry"], {}).get(links["field"], ())
        return [list(p) for p in pairs if isinstance(p, (list, tuple)) and len(p) == 2]


def _zone_items(world, program, name: str) -> list:
    """Every thing of the zone called `name` (all players' copies of a per-player zone)."""
    for index, info in enumerate(program.zones):
        if info.name == name:
            zones = world.zones[index]
            return [t for z in (zones if isinstance(zones, list) else (zones,)) for t in z.items]
    return []


def page_html(data: dict) -> str:
    """The page: the template with the match's data in it. Every '<' of the data is written
    as the JSON escape \\u003c, so that no text of the match can end (or, with '<!--', alter
    the parsing of) the script element it sits in."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    template = TEMPLATE.read_text(encoding="utf-8")
    return template.replace("__TITLE__", _escape(data["title"])).replace("__DATA__", text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_page(path: Path, data: dict) -> None:
    from .errors import usage_error
    try:
        path.write_text(page_html(data), encoding="utf-8")
    except OSError as err:
        usage_error(f"cannot write the page '{path}': {err.strerror or err}")
