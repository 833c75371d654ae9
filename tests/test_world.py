"""A game's starting world: what it copies from the program's layout (worked out once
per program) must stay its own, and `create` must make things as it always has."""
from __future__ import annotations

import pytest

from runebook.runtime.builtins import ScriptFault
from runebook.runtime.agents import FirstAgent
from runebook.runtime.match import Match
from runebook.runtime.world import World

from packmaker import compiled, write_pack  # tests/packmaker.py

SOURCE = """\
die coin: heads, tails
kind card { value: int }
card ace { value: 1 }
zone table
zone hand per player
var marks: int per thing = 5
var seen: list[int] per player = []
var tally: int = 0

proc play() {
  let a = create ace in table
  let b = create ace in table
  let c = create coin in hand of players[0]
  a.marks += 1
  players[0].seen += [1]
  tally += 7
  log "marks {a.marks} {b.marks} coin {c} seen {players[0].seen} {players[1].seen} tally {tally}"
}
fn score(p: player) -> int { return tally }
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    folder = write_pack(tmp_path_factory.mktemp("starting_world") / "t", {"main.rune": SOURCE},
                        players="{min: 2, max: 2}")
    return compiled(folder, warnings=True)


@pytest.mark.parametrize("engine", ["interp", "fast"])
def test_each_thing_player_and_game_keeps_its_own_variables(program, engine):
    said = []
    for seed in (1, 2):  # the second game starts from the same layout as the first
        match = Match(program, [FirstAgent(), FirstAgent()], seed, {}, 2, record=True, engine=engine)
        match.run()
        said += [e["text"] for e in match.events if e["type"] == "say"]
    line = "marks 6 5 coin heads seen 1 nothing tally 7"
    assert said == [line, line]


def test_create_numbers_things_and_starts_a_die_on_its_first_face(program):
    world = World(program, 3, {}, 2)
    table, hands = world.zones[0], world.zones[1]
    card, coin = world.create("ace", table), world.create("coin", hands[1])
    assert (card.id, card.entry, card.face, card.zone) == (1, "ace", None, table)
    assert (coin.id, coin.face, coin.zone, world.faces_of(coin)) == (2, "heads", hands[1], ("heads", "tails"))
    assert table.items == [card] and hands[1].items == [coin] and hands[0].items == []
    assert card.vars == [5] and coin.vars == [5] and card.vars is not coin.vars


def test_create_refuses_an_unknown_entry(program):
    world = World(program, 3, {}, 2)
    with pytest.raises(ScriptFault, match="cannot create 'joker': no such entry"):
        world.create("joker", world.zones[0])
    assert world.zones[0].items == [] and world.next_id == 1


def test_worlds_of_one_program_share_no_state(program):
    first, second = World(program, 1, {}, 2), World(program, 1, {}, 2)
    first.globals[0] = 9
    first.players[1].vars[0] = (4,)
    assert second.globals == [0] and [p.vars for p in second.players] == [[()], [()]]
    assert first.zones[1][0] is not second.zones[1][0] and first.zones[1][0].owner is first.players[0]
    assert [z.name for z in second.zones[1]] == ["hand", "hand"]
