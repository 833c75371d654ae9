"""Interrupt windows (`interrupt GROUP on EVENT for PLAYERS when COND`): the engine offers
the group's actions after the event, to each listed player, never during another interrupt.

tests/packs/interrupts: players step forward in turn; whenever one steps, each other
player holding a trap may spring it (sending the stepper back and leaping forward, itself
a step). Its card tests drive the rules scenario by scenario on both engines; here whole
matches check that the windows open where the rules say and nowhere else.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from runebook.cli.cardtests import run_card_tests
from runebook.runtime.agents import ScriptedAgent, make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

from packmaker import compiled  # tests/packmaker.py

PACK = Path(__file__).resolve().parent / "packs" / "interrupts"
ENGINES = ("fast", "interp")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_card_tests_pass(engine):
    results, diags = run_card_tests([str(PACK)], engine=engine)
    assert not diags and len(results) == 6
    assert all(r.ok for r in results), [(r.name, r.failures) for r in results]


def play(agents: list, engine: str, seed: int = 1):
    prog = compiled(PACK)
    seats = [make_agent(spec, prog, seed, seat) if isinstance(spec, str) else spec for seat, spec in enumerate(agents)]
    m = Match(prog, seats, seed, resolve_options(prog, {}), len(seats), record=True, engine=engine)
    m.run()
    slot = {v.name: i for i, v in enumerate(prog.player_vars)}
    return m, [{name: p.vars[i] for name, i in slot.items()} for p in m.world.players]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("n", [2, 3])
def test_every_trap_is_offered_and_sprung_once_never_inside_another_interrupt(engine, n):
    m, players = play(["policy:trapper"] * n, engine)
    asked = [e for e in m.events if e["type"] == "decision"]
    # each player springs its one trap at the first step of someone else: the leap that
    # follows is a step too, but it happens inside the interrupt, so it opens no window
    assert [e["label"] for e in asked] == ["spring_trap"] * n
    assert sorted(e["player"] for e in asked) == list(range(1, n + 1))
    assert all(p["springs"] == 1 and p["traps"] == 0 for p in players)
    # 3 rounds of one activation each, plus the one the interrupt counts as
    assert all(p["activations"] == 4 for p in players)


@pytest.mark.parametrize("engine", ENGINES)
def test_declining_costs_nothing(engine):
    declines = [ScriptedAgent(["let_it_pass"] * 3) for _ in range(2)]
    m, players = play(declines, engine)
    asked = [e for e in m.events if e["type"] == "decision"]
    assert asked[0]["options"] == ["spring_trap", "let_it_pass"]
    assert len(asked) == 6  # every step forward of the other player (3 rounds), for each player
    assert all(p["position"] == 3 and p["traps"] == 1 and p["activations"] == 3 for p in players)


def test_the_engines_flag_is_no_state_a_page_shows(tmp_path):
    from typer.testing import CliRunner
    from runebook.cli.main import app
    page = tmp_path / "page.html"
    done = CliRunner().invoke(app, ["play", str(PACK), "--agents", "random", "--seed", "2", "--html", str(page)])
    assert done.exit_code == 0, done.output
    assert "interrupting" not in page.read_text()
