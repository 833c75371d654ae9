"""What a script call costs, with the same results and errors on both engines.

Small `fn`s of more shapes than `let`/`if C { return V }` chains are compiled where they
are called (compiler/inlining.py): bodies with `if`/`elif`/`else`, assignments to their own
names and to their parameters. The fast path passes and tests a call's depth only where
a call may be made more than 200 frames deep (runtime/pysource.py, DepthPlan), even in a
program that has a cycle of calls elsewhere.
"""
from __future__ import annotations

from pathlib import Path

from runebook.compiler import inlining
from runebook.compiler.pack import compile_pack
from runebook.runtime import opcodes as O
from runebook.runtime.pysource import translate

from packmaker import write_pack  # tests/packmaker.py
from test_fastpath import compare, play, program

CHOOSERS = """
symbols done, deep_in_helper, deep_in_cycle, bad_ratio, bad_bump, fine
option case: one of [deep_in_helper, deep_in_cycle, bad_ratio, bad_bump, fine] = fine
var tally: int = 0

# The index of the biggest of three (the first on a tie), -1 when none is over 1.
fn biggest(g: int, s: int, o: int) -> int {
  let best = 0 - 1
  let size = 1
  if g > size { best = 0; size = g }
  if s > size { best = 1; size = s }
  if o > size { best = 2 }
  return best
}

# Assigns its parameters: the caller's locals passed to it must not change.
fn clamp(x: int, lo: int) -> int {
  if x < lo { x = lo } elif x > 10 { x = 10 } else { x += 0 }
  lo = 99
  return x
}

fn sign(x: int) -> int {
  if x > 0 { return 1 } elif x < 0 { return 0 - 1 }
  return 0
}

fn positive(x: int) -> bool {
  let s = sign(x)
  if s > 0 { return true } elif s == 0 { s = 5 } else { return false }
  return s == 4
}

# Fails on its third line when d is 0: the error names this function and line.
fn ratio(n: int, d: int) -> int {
  let r = 0
  if n > 0 { r = n / d rounded down }
  return r
}

# A procedure: returns early, changes a global, fails when n is 100.
proc bump(n: int) {
  if n < 0 { return } elif n > 5 and n != 100 { tally += 5; return }
  if n == 100 { tally += 1 / (n - 100) rounded down }
  tally += n
}

fn inc(n: int) -> int {
  return n + 1
}

fn leaf(n: int) -> int {
  let m = inc(n)
  for k in [1] { m += k }
  return m
}

fn helper(n: int) -> int {
  let m = leaf(n)
  for k in [1] { m += k }
  return m
}

proc recurse(n: int) {
  let m = helper(n)
  if case == deep_in_helper or n < 5 { recurse(n + 1) }
}

proc cycle_a(n: int) {
  if n > 0 { cycle_b(n - 1) }
}

proc cycle_b(n: int) {
  cycle_a(n)
}

proc play() {
  let x = 0 - 3
  let lo = 2
  let c = clamp(x, lo)
  log "clamp {c} from {x} and {lo}; {clamp(50, 1)} {clamp(5, 1)}"
  log "biggest {biggest(1, 3, 3)} {biggest(0, 1, 1)} {biggest(2, 5, 7)}"
  log "signs {sign(4)} {sign(0 - 4)} {sign(0)} {positive(3)} {positive(0 - 3)}"
  if positive(x) { log "wrong" } elif not positive(c) { log "wrong too" } else { log "right" }
  let total = 0
  let i = 0
  while i < 6 {
    total += biggest(i, 6 - i, 3) + clamp(i, 2) + sign(i - 3)
    i += 1
  }
  log "total {total} {ratio(0, 0)}"
  bump(0 - 1)
  bump(9)
  bump(2)
  log "tally {tally}"
  recurse(0)
  if case == deep_in_cycle { cycle_a(300) } else { cycle_a(3) }
  if case == bad_ratio { let r = ratio(1, 0) }
  if case == bad_bump { bump(100) }
}

fn score(p: player) -> int {
  return 1
}
"""


def _pack(tmp_path: Path, inlined: bool = True):
    """The pack compiled; with inlined=False, only `let`/`if C { return V }` chains are
    compiled in place (as before the other shapes were)."""
    folder = tmp_path / "calls"  # errors name the folder and the file: the same for both
    write_pack(folder, {"calls.rune": CHOOSERS}, players="{min: 1, max: 1}", name="calls")
    if inlined:
        return program(str(folder))
    saved = inlining.MAX_INLINED_STATEMENTS
    inlining.MAX_INLINED_STATEMENTS = 0
    try:
        return compile_pack(str(folder))[0]
    finally:
        inlining.MAX_INLINED_STATEMENTS = saved


def _called(prog, caller: str) -> set:
    fn = next(f for f in prog.functions if f.name == caller)
    return {prog.functions[arg[0]].name for op, arg in fn.code if op in (O.CALL, O.CALL_MEMO)}


def test_small_functions_of_more_shapes_are_compiled_in_place(tmp_path):
    """if/elif/else bodies, assignments (to their own names, to parameters, to globals),
    procedures and nested small calls are compiled in place; a body with a loop is still
    called."""
    prog = _pack(tmp_path)
    small = {"fn biggest", "fn clamp", "fn sign", "fn positive", "fn ratio", "proc bump", "fn inc"}
    assert _called(prog, "proc play") & small == set()
    assert "proc recurse" in _called(prog, "proc recurse")  # never copied into itself
    assert _called(prog, "fn leaf") == set()  # inc is compiled in place
    assert _called(prog, "fn helper") == {"fn leaf"}


def test_functions_compiled_in_place_give_the_same_answers_and_errors(tmp_path):
    """The answers are the called function's, the caller's locals passed to a function that
    assigns its parameters are unchanged, and an error inside the inlined body names the
    function, line, column and call chain it names when the function is called, on both
    engines, both layouts."""
    prog = _pack(tmp_path)
    recorded, quiet = compare(prog, ("fast", "dispatch"), "first", 1, 1, {"case": "fine"})
    texts = [e.get("text", "") for e in recorded.events]
    assert "clamp 2 from -3 and 2; 10 5" in texts
    assert "biggest 1 -1 2" in texts
    assert "signs 1 -1 0 yes no" in texts and "right" in texts
    total = 0  # the loop of play, worked out here
    for i in range(6):
        sizes = [i, 6 - i, 3]
        best, size = -1, 1
        for k, v in enumerate(sizes):
            if v > size:
                best, size = k, v
        total += best + min(max(i, 2), 10) + (1 if i > 3 else -1 if i < 3 else 0)
    assert f"total {total} 0" in texts and "tally 7" in texts
    assert recorded.error is None and quiet.error is None
    called = _pack(tmp_path / "called", inlined=False)
    assert {"fn ratio", "proc bump"} <= _called(called, "proc play")
    for case, name, where in (("bad_ratio", "fn ratio", "r = n / d"), ("bad_bump", "proc bump", "1 / (n - 100)")):
        recorded, quiet = compare(prog, ("fast", "dispatch"), "first", 1, 1, {"case": case})
        code, function, file, line, _message, _hint, col, chain = recorded.error
        failing = next(n for n, text in enumerate(CHOOSERS.splitlines(), 1) if where in text)
        assert (code, function, Path(file).name, line) == ("E0502", name, "calls.rune", failing)
        assert quiet.error == recorded.error
        expected = play(called, "interp", "first", 1, 1, True, {"case": case}).error
        assert expected[1:7] == recorded.error[1:7]  # function, file, line, message, hint, column
        # the chain: the same frames and lines (a caller's column is its statement's when inlined)
        assert [frame[:3] for frame in expected[7]] == [frame[:3] for frame in recorded.error[7]]


def test_depth_is_counted_only_where_a_call_may_be_too_deep(tmp_path):
    """With a cycle in the program, functions reached from it test the depth; a function
    no cycle reaches takes no depth; one that calls a counted function passes its own."""
    prog = _pack(tmp_path)
    text = translate(prog).text
    index = {f.name: i for i, f in enumerate(prog.functions)}

    def source(name: str) -> str:
        start = text.index(f"def f{index[name]}(")
        return text[start:text.index("\n\n", start)]

    assert "_dp > 200" in source("proc cycle_b") and "_dp > 200" in source("proc recurse")
    assert "_dp > 200" in source("fn helper")  # called from the cycle: it may be 200 deep
    assert "_dp" not in source("fn leaf")      # calls nothing (inc is compiled in place)
    assert "_dp" not in source("fn ratio")
    assert "_dp > 200" not in source("proc play") and "_dp + 1" in source("proc play")


def test_the_depth_limit_fires_at_the_same_call_on_both_engines(tmp_path):
    """Runaway recursion stops with the same error, function, line and steps spent on both
    engines, whether the too-deep call is the cycle's own or a helper's below it."""
    prog = _pack(tmp_path)
    functions = []
    for case in ("deep_in_helper", "deep_in_cycle"):
        recorded, _quiet = compare(prog, ("fast", "dispatch"), "first", 1, 1, {"case": case})
        assert recorded.error[0] == "E0502" and "200 deep" in recorded.error[4], recorded.error
        functions.append(recorded.error[1])
    assert functions == ["fn helper", "proc cycle_b"]
