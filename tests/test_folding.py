"""Constant folding over bytecode (compiler/folding.py): what is folded, what is left to
fail when it runs, and that both engines still agree on both."""
from __future__ import annotations

import pytest

from runebook.compiler.folding import fold_constants
from runebook.runtime import opcodes as O
from runebook.runtime.builtins import INT_BOUND

from packmaker import compiled, run_to_failure, write_pack  # tests/packmaker.py


def folded(code: list) -> list:
    new_code, (column,) = fold_constants(code, (list(range(len(code))),))
    assert len(column) == len(new_code)
    return new_code


def test_nested_constant_arithmetic_becomes_one_constant():
    # 1 + 6 * 0 + 2 * 3 + (-(4) / 3 rounded up)
    code = [(O.CONST, 1), (O.CONST, 6), (O.CONST, 0), (O.MUL, None), (O.ADD, None),
            (O.CONST, 2), (O.CONST, 3), (O.MUL, None), (O.ADD, None),
            (O.CONST, 4), (O.NEG, None), (O.CONST, 3), (O.DIV_UP, None), (O.ADD, None), (O.RETURN, None)]
    assert folded(code) == [(O.CONST, 6), (O.RETURN, None)]


def test_a_literal_list_indexed_by_a_constant_is_its_item():
    assert folded([(O.CONST, ("a", "b")), (O.CONST, 1), (O.INDEX, None)]) == [(O.CONST, "b")]


@pytest.mark.parametrize("code", [
    [(O.CONST, 7), (O.CONST, 0), (O.DIV_DOWN, None)],                  # division by zero
    [(O.CONST, 7), (O.CONST, 0), (O.MOD, None)],
    [(O.CONST, INT_BOUND - 1), (O.CONST, 1), (O.ADD, None)],          # beyond the bounds
    [(O.CONST, ("a", "b")), (O.CONST, 2), (O.INDEX, None)],           # outside the list
    [(O.CONST, True), (O.CONST, 1), (O.ADD, None)],                   # not two numbers
    [(O.CONST, "a"), (O.CONST, "b"), (O.ADD, None)],
], ids=["div0", "mod0", "bound", "index", "bool", "text"])
def test_what_would_fail_or_is_not_a_number_is_left_to_run(code):
    assert folded(code) == code


def test_no_instruction_a_jump_lands_on_is_folded_into_the_one_before():
    code = [(O.CONST, True), (O.JUMP_IF_FALSE, 4), (O.CONST, 1), (O.JUMP, 5),
            (O.CONST, 2), (O.CONST, 10), (O.ADD, None), (O.RETURN, None)]
    assert folded(code) == code
    # but a jump may land on the first constant of what is folded, and is moved with it
    code = [(O.CONST, True), (O.JUMP_IF_FALSE, 3), (O.JUMP, 6),
            (O.CONST, 2), (O.CONST, 10), (O.ADD, None), (O.RETURN, None)]
    assert folded(code) == [(O.CONST, True), (O.JUMP_IF_FALSE, 3), (O.JUMP, 4), (O.CONST, 12), (O.RETURN, None)]


SOURCE = """
fn step(face: int, target: int) -> int {
  return 1 + 6 * face + 2 * target
}
fn share(total: int, parts: int) -> int {
  return total / parts rounded down
}
proc play() {
  let a = step(2, 1)
  let b = [5, 6, 7][step(0, 0)]
  log "{a} {b} {share(9, 2)}"
  let c = share(9, 0)
  log "{c}"
}
fn score(p: player) -> int { return 0 }
"""



def test_inlined_constant_arithmetic_is_folded_and_a_folded_away_failure_still_fails(tmp_path):
    write_pack(tmp_path, {"main.rune": SOURCE})
    prog = compiled(tmp_path)
    play_fn = next(fn for fn in prog.functions if fn.name == "proc play")
    ops = [op for op, _ in play_fn.code]
    assert O.MUL not in ops and O.ADD not in ops and O.INDEX not in ops  # step(...) inlined, then folded
    assert O.DIV_DOWN in ops                                            # share(9, 0) left to fail
    said_interp, err_interp = run_to_failure(prog, "interp")
    said_fast, err_fast = run_to_failure(prog, "fast")
    assert said_interp == said_fast and "15 6 4" in str(said_interp)
    assert (err_interp.code, err_interp.message, err_interp.line) == (err_fast.code, err_fast.message, err_fast.line)
    assert "division by zero" in err_interp.message and err_interp.line == 6
