"""Loops that count their steps in locals on the fast path spend the interpreter's steps.

A loop (with the loops inside it) that spends no step but at its ways back counts its
turns in locals and spends them once however it is left: run out, a `break`, a `return`,
a failure in a turn, or running out of steps (runtime/pysource.py TALLY,
runtime/structure.py Tally). These tests play a pack whose loops leave in every such
way, with budgets tight enough to run out anywhere, and demand the interpreter's result,
log, error and budget left, on both layouts; and a pack whose loops call procedures that
loop, fail or decide, so a budget a call leaves wrong (were such loops to count in locals
too) fails a test.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runebook.runtime.pysource import translate

from packmaker import compiled, write_pack  # tests/packmaker.py
from test_fastpath import compare

LOOPS = """\
die coin: heads, tails
zone table
option size: int = 6
option stop: int = 0
option back: int = 0
option fail: int = 0
var total: int = 0

fn found(xs: list[int], k: int) -> int {
  for x in xs {
    if x == k { return x * 10 }
  }
  return 0
}

fn shares(xs: list[int], d: int) -> int {
  let a = count(x in xs where x > d)
  for x in xs {
    a += 24 / (x - d) rounded up
  }
  return a
}

proc play() {
  repeat size {
    create coin in table
    total += 1          # not a lone create: a loop of turns, not one CREATE_MANY
  }
  roll table
  let xs = take([1, 2, 3, 4, 5, 6, 7, 8], size)
  for x in xs {
    total += 12 / (x - fail) rounded down
    if x == stop { break }
  }
  total += found(xs, back)
  total += shares(xs, fail)
  for x in xs {
    for y in xs { total += y }
  }
  let k = 0
  while k < size {
    k += 1
    if k == stop + 1 { continue }
    total += found(xs, k)
  }
  for x in xs {
    let n = x
    while n > 0 { n -= 2 }
    if n < 0 and x == back { return }
  }
  let heads_up = each(t in table where t.face == heads)
  total += len(heads_up) + count(t in table where t.face == tails)
  log "total {total}"
}

fn score(p: player) -> int { return total }
"""


def _pack(tmp_path):
    return compiled(write_pack(tmp_path / "loopsteps", {"loops.rune": LOOPS}, players="{min: 1, max: 1}"))


def source(text: str, prog, name: str) -> str:
    """The generated Python of one function."""
    start = text.index(f"def f{next(i for i, f in enumerate(prog.functions) if f.name == name)}(")
    return text[start:text.index("\n\n", start)]


def test_only_loops_that_spend_no_step_otherwise_count_in_locals(tmp_path):
    """The loops without a call count in locals, a nest as one (its inner loops' steps in
    the outer loop's tally); a loop that calls a function spends each step as it goes; a
    function that spends steps only in its loops has one tally for them all."""
    prog = _pack(tmp_path)
    text = translate(prog).text
    play = source(text, prog, "proc play")
    # `repeat`, the first loop, the two nests (one tally each), `each` and `count`
    assert play.count("_lb, _lt = _steps, 0") == 6
    assert play.count("_lt += 1") == 8           # every way back of theirs, the inner loops' too
    # `while k < size` calls `found` (a step for the call, unless remembered, and one per turn)
    assert play.count("_steps -= 1") == 5  # and one for the call of `shares`
    shares = source(text, prog, "fn shares")
    assert shares.count("_lb, _lt = _steps, 0") == 1 and shares.count("_lt += 1") == 2
    assert "_steps -= 1" not in shares


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(0, 130), size=st.integers(0, 8), stop=st.integers(0, 9), back=st.integers(0, 9),
       fail=st.integers(0, 9), seed=st.integers(0, 3))
def test_charged_loops_spend_the_interpreters_steps(tmp_path, budget, size, stop, back, fail, seed):
    """Same result, log, error (E0501 at the same turn, a failure in a turn) and budget left
    on both engines and both layouts, whether the budget covers the loops or runs out in them."""
    prog = _pack(tmp_path)
    options = {"size": size, "stop": stop, "back": back, "fail": fail}
    for outcome in compare(prog, ("fast", "dispatch"), "first", seed, 1, options, budget):
        assert (outcome.budget == -1) == (outcome.error is not None and outcome.error[0] == "E0501")


def test_a_budget_that_just_covers_the_game_and_one_short_of_it(tmp_path):
    """The budget at the boundary: every step used and none left, or running out at the last
    one (inside a loop counting in locals), as the interpreter does."""
    prog = _pack(tmp_path)
    options = {"size": 3, "stop": 9, "back": 9, "fail": 0}
    enough = compare(prog, ("fast",), "first", 0, 1, options, 10_000)[0]
    used = 10_000 - enough.budget
    assert enough.error is None
    exact = compare(prog, ("fast", "dispatch"), "first", 0, 1, options, used)[0]
    assert exact.error is None and exact.budget == 0
    short = compare(prog, ("fast", "dispatch"), "first", 0, 1, options, used - 1)[0]
    assert short.error is not None and short.error[0] == "E0501" and short.budget == -1


CALLS = """\
option size: int = 4
option fail: int = 0
option pick: int = 0
var total: int = 0

proc add(x: int) {
  let n = x
  while n > 0 {
    n -= 1
    total += 1
  }
  total += 12 / (x - fail) rounded down
}

proc asks() {
  for p in players {
    total += choose n from [1, 2, 3] for p
  }
}

proc play() {
  let xs = take([1, 2, 3, 4, 5, 6, 7, 8], size)
  for x in xs {
    add(x)
    if x == pick { asks() }
  }
  let k = 0
  while k < size {
    k += 1
    add(k)
    add(k + 1)
  }
  log "total {total}"
}

fn score(p: player) -> int { return total }
"""


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(0, 120), size=st.integers(0, 8), fail=st.integers(0, 9), pick=st.integers(0, 9),
       seed=st.integers(0, 3))
def test_loops_that_call_spend_the_interpreters_steps(tmp_path, budget, size, fail, pick, seed):
    """A loop that calls a procedure (which loops, fails or decides in turn): the same
    result, log, error and budget left, whether the budget runs out in the loop, in the
    callee, or the callee fails with steps spent."""
    prog = compiled(write_pack(tmp_path / "callsteps", {"calls.rune": CALLS}, players="{min: 1, max: 1}"))
    options = {"size": size, "fail": fail, "pick": pick}
    for outcome in compare(prog, ("fast", "dispatch"), "first", seed, 1, options, budget):
        assert (outcome.budget == -1) == (outcome.error is not None and outcome.error[0] == "E0501")
