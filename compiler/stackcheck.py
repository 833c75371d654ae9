"""The operand stack of every compiled function, checked against the opcode table.

Each instruction's effect (values popped, values pushed) comes from the table
(runtime/opcodes.stack_effect). Following every path through a function, the
stack must never be popped below empty, must have the same depth wherever paths
join (a loop's head, the end of an if), and no path may run past the last
instruction. The fast path keeps the stack as Python expressions and names its
slots by depth at each join, so a wrong depth there would be wrong Python;
this check turns a compiler bug into a clear failure at compile time instead.
"""
from __future__ import annotations

from runebook.runtime import opcodes as O


class StackMismatch(AssertionError):
    """A compiler bug: the code it emitted does not keep the stack balanced."""


def verify(name: str, code: list) -> None:
    """Raise StackMismatch, naming the function and instruction, if the stack is unbalanced."""
    depth_at = {0: 0}
    pending = [0]
    while pending:
        pc = pending.pop()
        depth = depth_at[pc]
        op, arg = code[pc]
        pops, pushes = O.stack_effect(op, arg)
        if depth < pops:
            _fail(name, pc, code, f"pops {pops} values from a stack of {depth}")
        if op == O.RETURN:
            continue
        for target, arrives in _successors(op, arg, pc, depth - pops, pushes):
            if target >= len(code):
                _fail(name, pc, code, "runs past the last instruction")
            known = depth_at.get(target)
            if known is None:
                depth_at[target] = arrives
                pending.append(target)
            elif known != arrives:
                _fail(name, pc, code, f"reaches pc {target} with {arrives} values, another path with {known}")


def _successors(op: int, arg, pc: int, popped: int, pushes: int):
    """(next pc, stack depth on arrival) for each way the instruction may go on."""
    after = popped + pushes
    if op == O.JUMP:
        return [(arg, after)]
    if op == O.SWITCH_VAR:
        return [(pc + 1, after)] + [(t, after) for t in (*arg[2].values(), arg[3])]
    if op in O.JUMP_TARGET:
        # a loop step pushes its item only when it goes on with the loop
        jumped = popped if op in O.PUSHES_ONLY_FALLING_THROUGH else after
        return [(pc + 1, after), (O.jump_target(op, arg), jumped)]
    return [(pc + 1, after)]


def _fail(name: str, pc: int, code: list, what: str) -> None:
    op, arg = code[pc]
    raise StackMismatch(f"compiler bug in '{name}': pc {pc} ({O.OPS[op].name} {arg!r}) {what}")
