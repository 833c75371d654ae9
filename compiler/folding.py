"""Constant folding over a function's bytecode: `CONST 6, CONST 0, MUL` is `CONST 0`.

Run before the peephole pass fuses pairs, on the whole function, so it folds what
compiling in place leaves behind: a small function inlined with constant arguments
(`step(0, 2)` whose body is `1 + 6 * face + 2 * target`) becomes one CONST, where
folding the source's literals alone could not see it. Both engines run the folded
code, so they stay identical.

Only what cannot fail is folded: a result beyond the bounds of a number, a division
by zero or an index outside a list is left as written, to fail when it runs (with
the same words, at the same place) on both engines alike. An instruction a jump
lands on is never folded into the one before it.
"""
from __future__ import annotations

import operator

from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O
from runebook.runtime.scripting import divide_down, divide_up, remainder

# Two whole numbers into one, as the interpreter's instruction computes it (its helper
# where it has one); a zero divisor is never folded, so the helpers never fail here.
_BINARY = {
    O.ADD: operator.add, O.SUB: operator.sub, O.MUL: operator.mul,
    O.MOD: remainder, O.DIV_UP: divide_up, O.DIV_DOWN: divide_down,
}
_DIVIDES = (O.MOD, O.DIV_UP, O.DIV_DOWN)


def _number(value) -> bool:
    return type(value) is int  # not a truth value: the language keeps the two apart


def _binary(op: int, a, b):
    """The folded value of `CONST a, CONST b, op`, or None when it must run."""
    if op == O.INDEX:
        if type(a) is tuple and _number(b) and 0 <= b < len(a):
            return (a[b],)
        return None
    fold = _BINARY.get(op)
    if fold is None or not (_number(a) and _number(b)) or (op in _DIVIDES and b == 0):
        return None
    value = fold(a, b)
    return (value,) if -B.INT_BOUND < value < B.INT_BOUND else None


def _unary(op: int, a):
    """The folded value of `CONST a, op`, or None."""
    if op == O.NEG and _number(a):
        return (-a,)  # the bounds are symmetric: a negated number stays inside them
    return None


def fold_constants(code: list, columns: tuple) -> tuple[list, tuple]:
    """The code with constant arithmetic and indexing done, and its columns to match
    (a folded CONST keeps the columns of its first instruction: it cannot fail)."""
    targets = {O.jump_target(op, arg) for op, arg in code if op in O.JUMP_TARGET}
    out: list = []          # (op, arg, first original pc)
    new_pc = [0] * (len(code) + 1)  # each original pc's instruction in `out` (and the end, a jump may land there)
    for pc, (op, arg) in enumerate(code):
        folded = None
        if pc not in targets:
            if len(out) >= 2 and out[-1][0] == O.CONST and out[-2][0] == O.CONST and out[-1][2] not in targets:
                folded = _binary(op, out[-2][1], out[-1][1])
                if folded is not None:
                    start = out[-2][2]
                    del out[-2:]
            if folded is None and out and out[-1][0] == O.CONST:
                folded = _unary(op, out[-1][1])
                if folded is not None:
                    start = out[-1][2]
                    del out[-1:]
        if folded is None:
            out.append((op, arg, pc))
        else:
            out.append((O.CONST, folded[0], start))
        new_pc[pc] = len(out) - 1
    new_pc[len(code)] = len(out)
    if len(out) == len(code):
        return code, columns
    new_code = [(op, O.with_jump_target(op, arg, new_pc[O.jump_target(op, arg)])) if op in O.JUMP_TARGET
                else (op, arg) for op, arg, _ in out]
    return new_code, tuple([column[start] for _, _, start in out] for column in columns)
