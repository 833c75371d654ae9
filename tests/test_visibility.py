"""Hidden information: private zones, what agents may see, and private log entries.

The pack tests/packs/hidden deals two cards from a private deck into each
player's private hand; each player then plays one. Its policies try, in turn,
to read their own hand (allowed), to count the other hand (allowed), and to read
the other hand, the deck, or a remembered answer about the other hand (all
refused with a script error). Every match runs on both engines.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.scripting import ScriptError

from packmaker import compiled  # tests/packmaker.py

PACK = Path(__file__).resolve().parent / "packs" / "hidden"
ENGINES = ("fast", "interp")
HIDDEN = "that thing is in a private zone this player cannot see"


@pytest.fixture(scope="module")
def prog():
    return compiled(PACK)


def match(prog, agents: str, engine: str, seed: int = 3, record: bool = True):
    specs = agents.split(",")
    seats = [make_agent(spec, prog, seed, seat) for seat, spec in enumerate(specs)]
    m = Match(prog, seats, seed, {}, len(specs), record=record, engine=engine)
    return m, m.run()


def hand_values(events, seat: int) -> list[int]:
    return [int(e["text"].split()[-1].rstrip(".")) for e in events
            if e["type"] == "say" and e.get("private") == seat]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_policy_reads_its_own_hand(prog, engine):
    m, result = match(prog, "policy:fair,policy:fair", engine)
    for seat in (1, 2):  # each plays the higher of the two cards only it was told about
        assert result.scores[seat - 1] == max(hand_values(m.events, seat))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_policy_may_count_another_hand(prog, engine):
    _, fair = match(prog, "policy:fair,policy:fair", engine)
    _, counter = match(prog, "policy:counter,policy:counter", engine)
    assert counter.scores == fair.scores  # len(hand of other) works and does not change the best card


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", ["spy", "deck_spy", "memo_spy"])
def test_a_policy_cannot_read_another_hand_or_the_deck(prog, engine, policy):
    """spy reads a card in the other hand, deck_spy one in the deck, memo_spy asks a
    question the game answered (and remembered) before the decision: all three see only
    hidden things, and reading what one is stops the match at the rating's line."""
    with pytest.raises(ScriptError) as info:
        match(prog, f"policy:{policy},random", engine)
    err = info.value
    assert err.code == "E0502" and HIDDEN in err.message
    assert err.function in (f"rate play_card ({policy})", "fn total")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_remembered_answer_about_another_hand_is_not_handed_to_a_policy(prog, engine):
    """At the first decision the game has just asked total(p) of both hands, and the
    engine remembers the answers (the memo of read-only functions). A rating asking the
    same question about the other hand must not be given the remembered answer."""
    from runebook.runtime.fastvm import make_vm
    from runebook.runtime.visibility import SeatView
    from runebook.runtime.world import World
    world = World(prog, 3, {}, 2)
    vm = make_vm(engine, prog, world)
    vm.start(prog.entry_points["play"])
    decision = vm.run()
    assert len(vm.memo) == 2                      # total(Player 1), total(Player 2)
    rating = prog.policies["memo_spy"]["choice"]["play_card"]
    view = SeatView(vm, world, decision.player.seat)
    with pytest.raises(ScriptError, match=HIDDEN):
        view.call(rating, (decision.player, decision.options[0]))
    assert vm.memo == {}                           # nothing seen masked is remembered either


@pytest.mark.parametrize("engine", ENGINES)
def test_a_view_counts_another_hand_as_it_is_at_each_decision(prog, engine):
    """Which zones a seat cannot see is worked out once per view, but what it counts in
    them is their size at each decision: a card the other player played is gone from the
    hand the next rating counts."""
    from runebook.runtime.fastvm import make_vm
    from runebook.runtime.visibility import SeatView, new_decision
    from runebook.runtime.world import World
    world = World(prog, 3, {}, 2)
    vm = make_vm(engine, prog, world)
    vm.start(prog.entry_points["play"])
    rating = prog.policies["counter"]["choice"]["play_card"]  # value * 10 + len(hand of the other)
    second = world.players[1]
    view = SeatView(vm, world, second.seat)
    hands = next(z for z in world.zones if isinstance(z, list) and z[0].name == "hand")

    def first_hand_as_counted() -> int:
        new_decision(view)  # as the match does before the seat's agent is asked
        card = hands[second.seat].items[0]  # its own card: readable
        return view.call(rating, (second, card)) - 10 * world.entries[card.entry]["value"]

    decision = vm.run()
    assert decision.player is world.players[0] and first_hand_as_counted() == 2
    decision = vm.resume(decision.options[0])
    assert decision.player is second and first_hand_as_counted() == 1


def test_the_engines_agree_on_hidden_matches(prog):
    for agents in ("policy:fair,policy:counter", "random,first", "policy:counter,random,policy:fair"):
        for seed in range(1, 8):
            fast, fast_result = match(prog, agents, "fast", seed)
            interp, interp_result = match(prog, agents, "interp", seed)
            assert fast.events == interp.events and fast_result.scores == interp_result.scores


def test_the_log_marks_what_only_one_player_may_read(prog):
    m, _ = match(prog, "policy:fair,random", "fast")
    says = [e for e in m.events if e["type"] == "say"]
    private = [(e["private"], e["text"]) for e in says if "private" in e]
    assert [seat for seat, _ in private] == [1, 1, 2, 2]          # `log to p`: two draws each
    assert all(text.startswith("You draw the ") for _, text in private)
    public = [e["text"] for e in says if "private" not in e]
    assert "Player 1 draws two cards (2 in hand, 4 left in the deck)." in public
    assert not any("You draw" in text for text in public)
    decisions = [e for e in m.events if e["type"] == "decision"]
    # choosing among one's own hidden cards is private to the chooser
    assert [d.get("private") for d in decisions] == [d["player"] for d in decisions]


def test_an_agent_is_handed_only_a_view(prog):
    seen = []

    class Curious:
        name = "curious"

        def choose(self, decision, view):
            seen.append(sorted(a for a in dir(view) if not a.startswith("_")))
            return 0

    m = Match(prog, [Curious(), Curious()], 3, {}, 2)
    m.run()
    assert seen and all(attrs == ["call", "call_each", "labels", "own_private_zones", "readable_labels", "seat"] for attrs in seen)


def test_the_game_sees_everything_again_after_a_rating(prog):
    """Zones are masked only while a rating runs: the moves after each decision use the
    real hands (the card played is the one chosen, and scores are the real values)."""
    for engine in ENGINES:
        m, result = match(prog, "policy:counter,policy:counter", engine, seed=5)
        plays = [e["text"] for e in m.events if e["type"] == "say" and " plays the " in e["text"]]
        assert [int(t.split()[-1].rstrip(".")) for t in plays] == result.scores


def test_narration_shows_private_lines_only_to_their_human_player(prog):
    from runebook.cli.commands_play import Narrator
    from runebook.cli.render import Out

    m, _ = match(prog, "policy:fair,random", "fast")
    for humans, shown_seat in (([False, False], None), ([True, False], 1), ([False, True], 2)):
        stream = io.StringIO()
        narrate = Narrator(Out(stream), humans)
        for event in m.events:
            narrate(event)
        text = stream.getvalue()
        for seat in (1, 2):
            for value in hand_values(m.events, seat):
                line = f"You draw the {value}."
                assert (line in text) == (seat == shown_seat)
        assert "draws two cards (2 in hand" in text         # counts are public
        assert "chooses (hidden)" in text                   # an AI's choice of its own cards


def test_a_log_with_private_entries_replays(prog, tmp_path):
    from typer.testing import CliRunner

    from runebook.cli.main import app
    log = tmp_path / "hidden.jsonl"
    runner = CliRunner()
    played = runner.invoke(app, ["play", str(PACK), "--seed", "4", "--agents", "policy:fair,random",
                                 "--log", str(log)])
    assert played.exit_code == 0, played.output
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert any("private" in e for e in events)
    for engine in ENGINES:
        replayed = runner.invoke(app, ["replay", str(log), "--engine", engine])
        assert replayed.exit_code == 0, replayed.output


@pytest.mark.parametrize("engine", ENGINES)
def test_ratings_run_at_once_answer_as_one_by_one(prog, engine):
    """A masking view's call_each (a policy's ratings of one decision, the zones masked once)
    gives each rating's answer as `call` does, each run with its own budget, and a failing
    one fails with the same error; the game's zones and memo come back the same."""
    from runebook.runtime.fastvm import make_vm
    from runebook.runtime.visibility import SeatView
    from runebook.runtime.world import World

    def at_first_decision():
        world = World(prog, 3, {}, 2)
        vm = make_vm(engine, prog, world)
        vm.start(prog.entry_points["play"])
        decision = vm.run()
        return vm, world, decision, SeatView(vm, world, decision.player.seat)

    for policy in ("counter", "spy"):
        rating = prog.policies[policy]["choice"]["play_card"]
        answers = []
        for at_once in (False, True):
            vm, world, decision, view = at_first_decision()
            zones = [z for z in world.zones]
            runs = [(rating, (decision.player, option)) for option in decision.options]
            try:
                got = view.call_each(runs) if at_once else [view.call(fn, args) for fn, args in runs]
            except ScriptError as err:
                got = ("error", str(err))
            answers.append((got, vm.budget, dict(vm.memo)))
            assert world.zones == zones
        assert answers[0] == answers[1]
        assert (policy == "spy") == (answers[0][0][0] == "error")
