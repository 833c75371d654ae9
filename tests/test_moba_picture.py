"""The MOBA board drawn at each round's end shows whose each hero is: red's initials in
lower case, blue's in upper case, at the spaces the narration lists (content/moba,
board.rune's board_picture)."""
from __future__ import annotations

import re

import pytest

from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

from packmaker import compiled  # tests/packmaker.py

HERO_AT = re.compile(r"^(\w+) \((red|blue)\) at \((\d+),(\d+)\), facing")


def round_ends(lines: list[str]):
    """Each round end: the heroes' listed spaces and the picture drawn after them."""
    listed = []
    for i, line in enumerate(lines):
        found = HERO_AT.match(line)
        if found:
            listed.append(found.groups())
        elif line.startswith("Key: "):
            yield listed, lines[i - 1].split("\n")
            listed = []


@pytest.mark.parametrize("engine", ["fast", "interp"])
def test_the_round_end_picture_marks_each_hero_by_team(engine):
    prog = compiled("moba")
    agents = [make_agent("random", prog, 5, seat) for seat in range(2)]
    match = Match(prog, agents, 5, resolve_options(prog, {"max_rounds": 3}), 2, record=True, engine=engine)
    match.run()
    lines = [e["text"] for e in match.events if e["type"] == "say"]
    sides = set()
    for listed, rows in round_ends(lines):
        drawn = [row.split() for row in rows]
        assert len(drawn) == 9
        for name, side, x, y in listed:
            glyph = drawn[int(y)][int(x)]
            assert glyph == (name[0].lower() if side == "red" else name[0].upper()), (name, side, x, y)
            sides.add(side)
        heroes_drawn = sum(g not in ".-RBCDN" for row in drawn for g in row)
        assert heroes_drawn == len(listed)        # no hero drawn where none is listed
    assert sides == {"red", "blue"}
