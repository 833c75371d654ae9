"""Every built-in pack validates cleanly, passes its card tests and plays."""
from __future__ import annotations

import pytest

from runebook.compiler.pack import builtin_packs, compile_pack
from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

PACKS = builtin_packs()


@pytest.mark.parametrize("pack", PACKS)
def test_pack_validates_without_errors_or_warnings(pack):
    program, diags, _ = compile_pack(pack)
    assert program is not None, [str(d) for d in diags]
    assert [str(d) for d in diags] == []


@pytest.mark.parametrize("pack", PACKS)
def test_card_tests_pass(pack):
    from runebook.cli.cardtests import run_card_tests

    results, diags = run_card_tests([pack])
    assert [str(d) for d in diags] == []
    failed = [(r.file, r.line, r.name, r.failures) for r in results if not r.ok]
    assert failed == []
    assert len(results) >= 40


@pytest.mark.parametrize("pack", PACKS)
@pytest.mark.parametrize("agent", ["random", "first", "policy:greedy"])
def test_matches_finish_for_every_player_count(pack, agent):
    program, _, _ = compile_pack(pack)
    players = program.players
    for n in range(players["min"], players["max"] + 1):
        for seed in range(1, 6):
            agents = [make_agent(agent, program, seed, seat) for seat in range(n)]
            result = Match(program, agents, seed, resolve_options(program, {}), n).run()
            assert len(result.scores) == n
            assert result.winners


def test_dungeon_roll_every_hero_plays():
    """Each hero, novice start, a handful of seeds with the greedy policy and random play."""
    program, _, _ = compile_pack("dungeon_roll")
    heroes = program.kinds["hero"]
    assert len(heroes) == 26  # 8 basic + 10 Hero Pack 1 + 8 Hero Pack 2
    for hero in heroes:
        options = resolve_options(program, {"play_as": hero})
        for seed in range(1, 4):
            for agent in ("random", "policy:greedy"):
                Match(program, [make_agent(agent, program, seed, 0)], seed, options, 1).run()


def test_greedy_beats_random_at_dungeon_roll():
    program, _, _ = compile_pack("dungeon_roll")
    options = resolve_options(program, {})

    def mean(agent):
        scores = [Match(program, [make_agent(agent, program, s, 0)], s, options, 1).run().scores[0]
                  for s in range(1, 61)]
        return sum(scores) / len(scores)

    assert mean("policy:greedy") > mean("random") + 3
