"""The MOBA hex map reconstruction (content/moba/battlefield.board, RULINGS.md): it
compiles, it is fair to both teams, and its areas block movement and sight as the
rulebook says."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from runebook.compiler.pack import compile_pack
from runebook.runtime import board as B


MOBA = Path(__file__).resolve().parent.parent / "content" / "moba"
SWAP_TEAMS = {"camp_red": "camp_blue", "camp_blue": "camp_red"}
SWAP_SIDES = {"castle": "town", "town": "castle"}


@pytest.fixture(scope="module")
def board():
    program, diags, _ = compile_pack(str(MOBA))
    assert program is not None and diags == [], [str(d) for d in diags]
    return B.Board(0, program.boards["battlefield"])


def on_map(board) -> list:
    return [t for t in board.tiles if "outside" not in t.regions]


def swapped(regions: tuple, swap: dict) -> set:
    return {swap.get(r, r) for r in regions}


def test_the_map_has_two_camps_and_three_objective_areas(board):
    assert (board.width, board.height) == (11, 9)
    sizes = {name: len(board.regions[name]) for name in ("camp_red", "camp_blue", "castle", "dark_tower", "town")}
    assert sizes == {"camp_red": 3, "camp_blue": 3, "castle": 4, "dark_tower": 1, "town": 4}
    assert {t.y for t in board.regions["camp_red"]} == {0} and {t.y for t in board.regions["camp_blue"]} == {8}
    for t in board.regions["camp"] + board.regions["objective"]:
        assert t.blocked and t.opaque                        # neither walked over nor seen through
    assert all(t.blocked and not t.opaque for t in board.regions["outside"])


def test_the_map_mirrors_top_to_bottom_with_the_teams_swapped(board):
    for t in board.tiles:
        assert set(board.at(t.x, board.height - 1 - t.y).regions) == swapped(t.regions, SWAP_TEAMS)


def test_the_map_mirrors_west_to_east_with_castle_and_town_swapped(board):
    for t in on_map(board):
        mirror = board.at((10 if t.y % 2 == 0 else 9) - t.x, t.y)  # odd rows sit half a hex right
        assert set(mirror.regions) == swapped(t.regions, SWAP_SIDES)


def test_each_objective_area_is_as_far_from_either_camp(board):
    for area in ("castle", "dark_tower", "town"):
        far = [min(B.distance(a, c) for a in board.regions[area] for c in board.regions[camp])
               for camp in ("camp_red", "camp_blue")]
        assert far == [4, 4]


def test_each_camp_has_room_for_five_heroes_to_enter_and_every_open_space_is_reachable(board):
    open_spaces = {t.index for t in board.tiles if not t.blocked}
    for camp in ("camp_red", "camp_blue"):
        entries = {n.index for t in board.regions[camp] for n in t.adjacent if not n.blocked}
        assert len(entries) >= 5
        start = board.tiles[min(entries)]
        assert set(B.steps_from(start)) == open_spaces


def sees(board, a: tuple, b: tuple, heroes: list = ()) -> bool:
    things = [object() for _ in heroes]
    world = SimpleNamespace(positions={x: board.at(*p) for x, p in zip(things, heroes)})
    return B.in_sight(world, board.at(*a), board.at(*b), things)


def test_the_dark_tower_blocks_a_line_it_crosses_but_not_one_it_only_skims(board):
    assert not sees(board, (3, 4), (7, 4))                     # straight through the tower
    # (4,4) to (5,5) runs along the edge between the tower (5,4) and (4,5)
    assert set(B.crossed(board.geometry, (4, 4), (5, 5), 1)) ^ set(B.crossed(board.geometry, (4, 4), (5, 5), -1)) \
        == {(5, 4), (4, 5)}
    assert sees(board, (4, 4), (5, 5))                         # shifted past the tower
    assert not sees(board, (4, 4), (5, 5), heroes=[(4, 5)])    # a hero on the other side: no shift helps
