"""A game's starting world: what it copies from the program's layout (worked out once
per program) must stay its own, and `create` must make things as it always has. Rolls and
shuffles, written out for speed, must draw as random.Random does (the same seed, the same game)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.runtime.builtins import ScriptFault
from runebook.runtime.agents import FirstAgent
from runebook.runtime.match import Match
from runebook.runtime.world import World

from packmaker import compiled, write_pack  # tests/packmaker.py

SOURCE = """\
die coin: heads, tails
die pip: one, two, three, four, five
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


def _dice(world, zone, kinds: str) -> list:
    """Dice made in `zone`, one per letter: c a coin, p a pip die, a an ace (no die)."""
    return [world.create({"c": "coin", "p": "pip", "a": "ace"}[k], zone) for k in kinds]


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_a_roll_of_mixed_dice_draws_each_die_as_random_does(program, seed):
    """Each die of a roll, in order, draws Random.randrange(its number of faces): a roll looks a
    kind of die up once while the kind repeats, which must not change a draw."""
    world, reference = World(program, seed, {}, 2), random.Random(seed)
    dice = _dice(world, world.zones[0], "ccppcpcppc")
    for roll in [dice, tuple(dice), dice[3], dice[4:6], (dice[0],), [], dice[::-1]] * 5:
        world.roll(roll)
        for die in (roll if isinstance(roll, (list, tuple)) else (roll,)):
            faces = program.dice[die.entry]
            assert die.face == faces[reference.randrange(len(faces))]
    assert world.below(1000) == reference.randrange(1000)  # nothing drawn besides


def test_forced_faces_come_first_then_dice_draw_as_random_does(program):
    world, reference = World(program, 5, {}, 2), random.Random(5)
    dice = _dice(world, world.zones[0], "cpcp")
    world.forced_rolls.extend(["tails", "four"])
    world.roll(dice)
    drawn = [program.dice[d.entry][reference.randrange(len(program.dice[d.entry]))] for d in dice[2:]]
    assert [d.face for d in dice] == ["tails", "four"] + drawn and not world.forced_rolls
    world.forced_rolls.append("six")
    with pytest.raises(ScriptFault, match=r"forced roll 'six' is not a face of 'pip' \(one, two, three, four, five\)"):
        world.roll(dice[1])


@pytest.mark.parametrize("forced", [False, True])
def test_rolling_what_is_not_a_die_is_refused_where_it_stands(program, forced):
    """The dice before it are rolled (or take their forced face), as a roll one die at a time would."""
    world, reference = World(program, 9, {}, 2), random.Random(9)
    coin, pip, card = _dice(world, world.zones[0], "cpa")
    if forced:
        world.forced_rolls.extend(["tails", "five"])
    with pytest.raises(ScriptFault, match="'ace' is not a die and cannot be rolled"):
        world.roll((coin, pip, card, coin))
    if forced:
        assert (coin.face, pip.face) == ("tails", "five")
    else:
        assert (coin.face, pip.face) == (("heads", "tails")[reference.randrange(2)],
                                         program.dice["pip"][reference.randrange(5)])


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(size=st.integers(0, 300), seed=st.integers(0, 2**32))
def test_a_shuffle_is_randoms_own(program, size, seed):
    """World.shuffle draws as Random.shuffle does (the bits of each draw kept as the bound falls):
    the same order, and the draws after it the same."""
    world, reference = World(program, seed, {}, 2), random.Random(seed)
    zone, items = world.zones[0], list(range(size))
    zone.items = list(items)
    world.shuffle(zone)
    reference.shuffle(items)
    assert zone.items == items
    assert world.below(97) == reference.randrange(97)
