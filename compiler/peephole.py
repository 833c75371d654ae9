"""Peephole pass: fuse frequent instruction pairs into super-instructions.

In a Python-hosted VM most of an instruction's cost is dispatch, so doing two
steps in one dispatch pays. Only pairs that no jump lands between are fused,
and every jump target is remapped afterwards. The fused opcodes are ordinary
rows of the opcode table (runtime/opcodes.py).
"""
from __future__ import annotations

from runebook.runtime import opcodes as O

from .folding import fold_constants

# (first, second) -> how to build the fused instruction from their operands
_PAIRS = {
    (O.LOAD_LOCAL, O.LOAD_LOCAL): lambda a, b: (O.LOAD_LOCAL2, (a, b)),
    (O.LOAD_LOCAL, O.PLAYER_VAR): lambda a, b: (O.LOCAL_PLAYER_VAR, (a, b)),
    (O.LOAD_LOCAL, O.THING_FACE): lambda a, b: (O.LOCAL_FACE, a),
    (O.CONST, O.EQ): lambda a, b: (O.EQ_CONST, a),
    (O.CONST, O.NE): lambda a, b: (O.NE_CONST, a),
    (O.EQ_CONST, O.JUMP_IF_FALSE): lambda a, b: (O.JUMP_IF_NE_CONST, (a, b)),
    (O.NE_CONST, O.JUMP_IF_FALSE): lambda a, b: (O.JUMP_IF_EQ_CONST, (a, b)),
    (O.EQ_CONST, O.JUMP_IF_TRUE): lambda a, b: (O.JUMP_IF_EQ_CONST, (a, b)),
    (O.NE_CONST, O.JUMP_IF_TRUE): lambda a, b: (O.JUMP_IF_NE_CONST, (a, b)),
    (O.LOCAL_PLAYER_VAR, O.JUMP_IF_NE_CONST): lambda a, b: (O.JUMP_IF_VAR_NE, (a[0], a[1], b[0], b[1])),
    (O.FOR_ITER, O.LOAD_LOCAL): lambda a, b: (O.FOR_ITER_LOAD, (*a, b)),
    (O.STORE_LOCAL, O.LOAD_LOCAL): lambda a, b: (O.STORE_LOAD, (a, b)),
    (O.LOAD_LOCAL, O.EVENT_FIELD): lambda a, b: (O.LOCAL_EVENT_FIELD, (a, b)),
}

# Pairs whose result fuses again (a player's variable tested against a constant becomes
# JUMP_IF_VAR_NE, then part of a switch): fused even when the instruction before could
# fuse with their first half (STORE_LOCAL, LOAD_LOCAL, PLAYER_VAR: the last two).
_FIRST = {(O.LOAD_LOCAL, O.PLAYER_VAR)}


def _thread_jumps(code: list, columns: tuple) -> tuple[list, tuple]:
    """A jump to an unconditional JUMP goes straight to that JUMP's target.

    The step budget is spent by backward JUMPs (and calls): every loop, a
    `for` loop too, turns back through one. So a conditional jump is never
    threaded to a backward target: it would turn back without spending. An
    unconditional JUMP threaded to a backward target becomes a back-edge
    itself and takes the source line of the back-edge it jumps for (the
    loop's line), so that running out of steps there names the line it
    would have named had the jump not been threaded.
    """
    columns = tuple(list(column) for column in columns)

    def final(at: int, t: int) -> tuple[int, int]:
        """(where the jump at `at` ends, the first JUMP on the way that turns back, or -1)."""
        turn = -1
        for _ in range(8):
            if t >= len(code) or code[t][0] != O.JUMP:
                break
            nxt = code[t][1]
            if nxt <= at and code[at][0] != O.JUMP:
                break
            if nxt <= t and turn < 0:
                turn = t
            t = nxt
        return t, turn

    out = []
    for i, (op, arg) in enumerate(code):
        if op in O.JUMP_TARGET and op not in _LOOPS:
            target, turn = final(i, O.jump_target(op, arg))
            if target <= i and turn >= 0:
                for column in columns:
                    column[i] = column[turn]
            arg = O.with_jump_target(op, arg, target)
        out.append((op, arg))
    return out, columns


_LOOPS = (O.FOR_ITER, O.FOR_ITER_LOAD)


def optimise(code: list, *columns: list) -> tuple:
    """The optimised code and its per-instruction columns (source lines, origins)."""
    code, columns = fold_constants(code, columns)
    code, columns = _thread_jumps(code, columns)
    for _ in range(3):  # fused results may fuse again (CONST+EQ, then +JUMP_IF_FALSE)
        new_code, new_columns = _fuse_once(code, columns)
        if len(new_code) == len(code):
            break
        code, columns = new_code, new_columns
    code = _switch_chains(code)
    unspent = turns_back_unspent(code)
    if unspent:  # a compiler bug, not a content error: a loop could turn without spending
        raise RuntimeError(f"internal error: conditional jumps go backward at {unspent}")
    return (code, *columns)


def turns_back_unspent(code: list) -> list:
    """Where a conditional jump goes backward. The step budget is spent by backward
    JUMPs (and calls) only, so there must be none: every loop turn, a `continue` or a
    `where` filter too, passes the loop's back-edge JUMP (codegen's _loop_body).
    (A SWITCH_VAR only ever jumps forward: to a later guard of its chain, or past it.)"""
    return [pc for pc, (op, arg) in enumerate(code)
            if op in O.JUMP_TARGET and op != O.JUMP and O.jump_target(op, arg) <= pc]


MIN_SWITCH = 3


def _switch_chains(code: list) -> list:
    """Turn chains of guards on one variable into switches (same length, same targets).

    An act site tests each action's guard in turn, and most guards ask one thing:
    `actor.role == X`. When a test fails, control goes straight to the next test
    of the same variable, so from any test the first block whose value matches
    is known in advance: SWITCH_VAR jumps there (or falls through when that is
    its own block, or leaves the chain) in one dictionary lookup.
    """
    code = list(code)
    for start, (op, arg) in enumerate(code):  # a guard already made a switch is no JUMP_IF_VAR_NE
        if op != O.JUMP_IF_VAR_NE:
            continue
        chain, at = [], start
        while at < len(code) and code[at][0] == O.JUMP_IF_VAR_NE and code[at][1][:2] == arg[:2] \
                and (not chain or at > chain[-1]):
            chain.append(at)
            at = code[at][1][3]
        if len(chain) < MIN_SWITCH:
            continue
        end = code[chain[-1]][1][3]
        for k, block in enumerate(chain):
            table: dict = {}
            for later in reversed(chain[k:]):  # the first matching block at or after this one
                table[code[later][1][2]] = later
            slot, var = code[block][1][:2]
            code[block] = (O.SWITCH_VAR, (slot, var, table, end))
    return code


def _fuse_once(code: list, columns: tuple) -> tuple[list, tuple]:
    targets = {O.jump_target(op, arg) for op, arg in code if op in O.JUMP_TARGET}
    out, out_columns, where = [], tuple([] for _ in columns), [0] * (len(code) + 1)
    i = 0
    while i < len(code):
        where[i] = len(out)
        op, arg = code[i]
        if i + 1 < len(code) and (i + 1) not in targets:
            op2, arg2 = code[i + 1]
            make = _PAIRS.get((op, op2))
            if make is not None and i + 2 < len(code) and (i + 2) not in targets \
                    and (op2, code[i + 2][0]) in _FIRST:
                make = None
            if make is not None:
                out.append(make(arg, arg2))
                for src, dst in zip(columns, out_columns):
                    dst.append(src[i])  # a fused instruction keeps its first half's origin
                where[i + 1] = len(out) - 1
                i += 2
                continue
        out.append((op, arg))
        for src, dst in zip(columns, out_columns):
            dst.append(src[i])
        i += 1
    where[len(code)] = len(out)
    fixed = [(op, O.with_jump_target(op, arg, where[O.jump_target(op, arg)])) if op in O.JUMP_TARGET else (op, arg)
             for op, arg in out]
    return fixed, out_columns
