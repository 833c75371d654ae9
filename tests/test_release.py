"""Match.run(keep=False): a caller that reads only the result lets the match free its world
at once (World.release breaks the cycles of things and zones); the result is the same, and
the default keeps the world readable after the match, and a released match leaves no cycle for
the cyclic collector to walk."""
from __future__ import annotations

import pytest

from runebook.compiler.pack import load_program
from runebook.runtime.agents import PolicyAgent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options


def _match(program, seed: int, engine: str) -> Match:
    options = resolve_options(program, {})
    return Match(program, [PolicyAgent(program, "greedy")], seed, options, 1, engine=engine)


@pytest.mark.parametrize("engine", ["fast", "interp"])
def test_released_match_gives_the_same_result(engine):
    program = load_program("dungeon_roll")
    for seed in (1, 2, 3):
        kept = _match(program, seed, engine).run()
        released = _match(program, seed, engine).run(keep=False)
        assert (released.scores, released.winners, released.titles, released.decisions) == \
               (kept.scores, kept.winners, kept.titles, kept.decisions)


def test_kept_match_world_stays_readable():
    program = load_program("dungeon_roll")
    match = _match(program, 1, "fast")
    result = match.run()
    zones = [z for zone in match.world.zones for z in (zone if type(zone) is list else (zone,))]
    assert all(thing.zone is z for z in zones for thing in z.items)
    assert [match.vm.call(program.entry_points["score"], (p,)) for p in match.world.players] == result.scores


def test_released_world_unlinks_its_things_and_zones():
    program = load_program("dungeon_roll")
    match = _match(program, 1, "fast")
    world = match.world
    zones = [z for zone in world.zones for z in (zone if type(zone) is list else (zone,))]
    match.run(keep=False)
    # no zone is left holding a thing that points back at it: reference counting frees them
    assert zones and all(not z.items for z in zones)
    assert not world.__dict__


@pytest.mark.parametrize("engine", ["fast", "interp"])
@pytest.mark.parametrize("pack", ["dungeon_roll", "dominaria"])  # dominaria: private zones, masked views
def test_released_match_leaves_nothing_to_the_cyclic_collector(pack, engine):
    """Everything a released match made is freed by reference counting: no cycle is left
    for the collector to find (which would walk it at every collection until then)."""
    import gc

    program = load_program(pack)
    options = resolve_options(program, {})
    seats = program.players["default"]

    def play(seed):
        agents = [PolicyAgent(program, "greedy") for _ in range(seats)]
        Match(program, agents, seed, options, seats, engine=engine).run(keep=False)

    play(1)  # anything made once per program (its fast module, layouts) made before counting
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        play(2)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []
