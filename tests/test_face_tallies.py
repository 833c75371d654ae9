"""Counts of faces answered from a tally (runtime/pysource.py, FaceTallies).

In a function that only reads the game, a count_face in a loop whose turns all read the
same things is answered on the fast path from one tally of their faces, made by the first
count and keyed on the list it was made from. tests/packs/tallies counts zones, lists,
each player's shelf through a local that changes, a zone a procedure changes between
counts, and a private zone another seat cannot read: the fast path must give the
interpreter's counts, steps and failures (and where they happen) in every case.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runebook.runtime.pysource import translate

from test_fastpath import compare, play, program  # the differential harness

PACK = str(Path(__file__).parent / "packs" / "tallies")
AGENTS = ["first", "random", "policy:own", "policy:peek"]


def generated(name: str) -> str:
    """The generated Python of the pack's function `name`."""
    prog = program(PACK)
    index = next(i for i, fn in enumerate(prog.functions) if fn.name == name)
    text = translate(prog, [index]).text
    assert text.startswith(f"def f{index}(")
    return text


@pytest.mark.parametrize("name", ["fn spread", "fn spread_list", "fn shelves", "fn kinds", "fn by_index"])
def test_counts_in_a_read_only_loop_read_a_tally(name):
    text = generated(name)
    assert "_h0.get(" in text
    assert "if _q.face == " not in text  # no count is left a loop of its own


@pytest.mark.parametrize("name", ["rate keep (own)", "rate keep (peek)"])
def test_a_count_outside_the_loop_stays_a_loop(name):
    """A rating counts in the loop it inlined (a tally) and once more outside it, of other
    things (a loop: a tally would cost more than the count)."""
    text = generated(name)
    assert "_h0.get(" in text and "_h1" not in text and text.count("if _q.face == ") == 1


def test_a_procedure_counts_afresh_every_time():
    """A procedure changes the things between its counts: none of them may read a tally."""
    text = generated("proc moving")
    assert "_h0" not in text and text.count("if _q.face == ") == 2


@pytest.mark.parametrize("case", ["fine", "none_thing", "bad_face", "none_in_row", "bad_between"])
@pytest.mark.parametrize("agents", AGENTS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_both_engines_count_and_fail_alike(case, agents, n):
    """Same logs (every count is in them), results, steps and errors, structured and as a
    dispatch loop, over several seeds (the dice differ, so do the shelves)."""
    for seed in range(1, 5):
        recorded, quiet = compare(PACK, ("fast", "dispatch"), agents, seed, n, {"case": case})
        if case == "fine" and not (agents == "policy:peek" and n > 1):
            assert recorded.error is None and quiet.error is None
            assert any("shelves" in str(e) for e in recorded.events)


def test_the_failures_happen_at_the_counts():
    """The cases fail where the interpreter fails, at the count that reads the things (or
    the face) it cannot read; the fast path matches it (test above)."""
    lines = (Path(PACK) / "tallies.rune").read_text().splitlines()

    def failing_line(case: str, agents: str, n: int) -> str:
        error = play(PACK, "interp", agents, 1, n, True, {"case": case}).error
        assert error is not None, (case, agents)
        return lines[error[3] - 1]

    assert "count_face(xs, f)" in failing_line("none_thing", "first", 1)        # a none among the things
    assert "faces[i]" in failing_line("bad_face", "first", 1)                   # the face, after the tally
    assert "count_face(z, f)" in failing_line("fine", "policy:peek", 2)        # another seat's private tray
    # counts in a row share one pass: it fails at the first count, and a value between
    # them that fails still fails after the first count
    assert "count_face(things, three)" in failing_line("none_in_row", "first", 1)
    assert "picks[len(bag)]" in failing_line("bad_between", "first", 1)


def test_counts_in_a_row_share_one_pass_with_a_value_pending_between():
    text = generated("proc play")
    assert re.search(r"_c\d+ = _c\d+ = 0\n *for _q in _qi:\n *_qf = _q.face\n *if _qf == 'one'", text)


def test_a_tally_answers_what_counting_answers():
    """The logged counts are the counts: each player's shelf its own, a spread the same
    face twice over, and a procedure's second count sees the move made since its first."""
    events = play(PACK, "fast", "first", 3, 3, True, {}).events
    text = "\n".join(str(e) for e in events)
    spread = [int(x) for x in re.search(r"spread ([\d, ]+) \|", text)[1].split(", ")]
    assert spread[:3] == spread[3:] and sum(spread[:3]) == 7
    shelves = [int(x) for x in re.search(r"shelves ([\d, ]+) \|", text)[1].split(", ")]
    assert len(shelves) == 9 and all(sum(shelves[i:i + 3]) == 4 for i in (0, 3, 6))
    assert len({tuple(shelves[i:i + 3]) for i in (0, 3, 6)}) > 1  # shelves that differ: one tally each
    moved = re.findall(r"(one|two|three): (\d+) then (\d+)", text)
    assert any(int(before) > 0 for _, before, _ in moved)
    assert all(int(after) == max(int(before) - 1, 0) for _, before, after in moved)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(1, 10_000), budget=st.integers(1, 400), n=st.integers(1, 3))
def test_budgets_run_out_alike_in_and_around_the_tallies(seed, budget, n):
    compare(PACK, ("fast",), "policy:own", seed, n, {"case": "bad_face"}, budget=budget)
