"""A match is determined by its seed, never by Python's hash order.

Hash randomisation (PYTHONHASHSEED) changes the iteration order of sets and
of dicts built from them; nothing in the engine may depend on it. A fresh
interpreter runs a few Dungeon Roll matches under two different hash seeds
and both must print the same event logs, byte for byte.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import json
from runebook.compiler.pack import compile_pack
from runebook.runtime.agents import RandomAgent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

program, diags, _ = compile_pack("dungeon_roll")
assert program is not None, [str(d) for d in diags]
logs = []
for players in (1, 2):
    for seed in range(1, 6):
        agents = [RandomAgent(seed, seat) for seat in range(players)]
        match = Match(program, agents, seed, resolve_options(program, {}), players, record=True)
        result = match.run()
        logs.append({"players": players, "seed": seed, "scores": result.scores, "events": match.events})
print(json.dumps(logs, sort_keys=True))
"""


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, str]:
    """stdout of the script under PYTHONHASHSEED=1 and =2, run side by side."""
    cache = tmp_path_factory.mktemp("cache")
    procs = {}
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, RUNEBOOK_CACHE=str(cache / hash_seed))
        procs[hash_seed] = subprocess.Popen([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, text=True,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = {}
    for hash_seed, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-3000:]
        out[hash_seed] = stdout
    return out


def test_event_logs_do_not_depend_on_hash_seed(outputs):
    logs = json.loads(outputs["1"])
    assert len(logs) == 10
    assert all(log["events"][0]["type"] == "start" and log["events"][-1]["type"] == "end" for log in logs)
    assert any(e["type"] == "decision" for log in logs for e in log["events"])
    assert outputs["1"] == outputs["2"]


def test_different_seeds_give_different_matches(outputs):
    logs = json.loads(outputs["1"])
    distinct = {json.dumps(log["events"][1:], sort_keys=True) for log in logs}
    assert len(distinct) == len(logs)


# ---------------------------------------------------------------- quiet vs recorded
def _play(pack: str, seed: int, record: bool, players: int = 1):
    from runebook.compiler.pack import compile_pack
    from runebook.runtime.agents import RandomAgent
    from runebook.runtime.match import Match
    from runebook.runtime.options import resolve_options

    program, diags, _ = compile_pack(pack)
    assert program is not None, [str(d) for d in diags]
    agents = [RandomAgent(seed, seat) for seat in range(players)]
    result = Match(program, agents, seed, resolve_options(program, {}), players, record=record).run()
    return result.scores, result.winners, result.titles, result.decisions


def test_skipped_narration_never_changes_a_match():
    """A quiet match (a simulation) skips narration; the holes it skips call fns with
    locals, recursion and an event query, and the game must not notice."""
    pack = str(ROOT / "tests" / "packs" / "narration")
    for seed in (1, 2, 3):
        assert _play(pack, seed, record=True) == _play(pack, seed, record=False)


def test_quiet_and_recorded_dungeon_roll_matches_agree():
    for seed in (1, 2, 3):
        assert _play("dungeon_roll", seed, True, players=2) == _play("dungeon_roll", seed, False, players=2)


@pytest.mark.parametrize("optimisation", ["memo", "switch"])
def test_optimisations_never_change_a_match(monkeypatch, optimisation):
    """CALL_MEMO reuses a read-only function's result until the game changes;
    SWITCH_VAR jumps over a chain of guards. The same matches compiled without
    them must log exactly the same events."""
    from runebook.compiler import inlining, peephole
    from runebook.compiler.pack import compile_pack
    from runebook.runtime.agents import make_agent
    from runebook.runtime.match import Match
    from runebook.runtime.options import resolve_options

    def logs():
        program, _, _ = compile_pack("dungeon_roll")
        options = resolve_options(program, {})
        out = []
        for seed in range(1, 16):
            for agent in ("random", "policy:greedy"):
                match = Match(program, [make_agent(agent, program, seed, 0)], seed, options, 1, record=True)
                match.run()
                out.append(match.events)
        return out

    optimised = logs()
    if optimisation == "memo":
        monkeypatch.setattr(inlining, "fn_reads_only", lambda syms, name: False)
    else:
        monkeypatch.setattr(peephole, "MIN_SWITCH", 10**9)
    assert logs() == optimised


def test_the_worlds_draws_are_randoms_own():
    """World.below is Random.randrange(n) written out (rolls, shuffles, random_from and
    random_int all draw through it): the same seed gives the same numbers, so logs made
    before it was written out still replay."""
    import random

    from runebook.compiler.pack import load_program
    from runebook.runtime.world import World, Zone

    program = load_program("dungeon_roll")
    world, reference = World(program, 7, {}, 1), random.Random(7)
    for n in [1, 2, 3, 5, 6, 7, 8, 64, 1000, 2**40 + 3] * 30:
        assert world.below(n) == reference.randrange(n)
    assert [world.random_int(-3, 4) for _ in range(50)] == [reference.randint(-3, 4) for _ in range(50)]
    zone, items = Zone("deck", None), list(range(40))
    zone.items = list(items)
    world.shuffle(zone)
    reference.shuffle(items)
    assert zone.items == items
    die = world.create("party_die", zone)
    faces = program.dice["party_die"]
    for _ in range(30):
        world.roll(die)
        assert die.face == faces[reference.randrange(len(faces))]
    dice = tuple(world.create("party_die", zone) for _ in range(6))
    for _ in range(10):  # several dice in one roll: each draws in turn
        world.roll(dice)
        assert [d.face for d in dice] == [faces[reference.randrange(len(faces))] for _ in dice]
