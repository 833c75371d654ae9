"""What a function's bytecode does with its control and its locals, for the fast path's
translation (runtime/pysource.py): where each instruction may go next (switch chains read
back as the guards they replaced), which locals some path reads before any instruction
sets them, and which copies of locals can stand for their originals.

These read the bytecode only; they neither translate nor run it.
"""
from __future__ import annotations

from . import opcodes as O

BRANCHES = set(O.JUMP_TARGET) | {O.SWITCH_VAR, O.RETURN}


def branch_targets(code: list, pc: int, heads: frozenset = frozenset()) -> list:
    """Where the instruction at pc may go next (empty for RETURN); `heads`: switch_heads(code)."""
    op, arg = code[pc]
    if op == O.RETURN:
        return []
    if op == O.JUMP:
        return [arg]
    if op == O.SWITCH_VAR:
        miss = switch_as_guard(arg, pc)[1]
        return [pc + 1, miss] + ([arg[3]] if pc in heads and miss != arg[3] else [])
    if op in O.JUMP_TARGET:
        return [pc + 1, O.jump_target(op, arg)]
    return [pc + 1]


def switch_as_guard(arg, pc: int) -> tuple:
    """A SWITCH_VAR read back as the guard it replaced: (its own value, where a miss goes).

    The interpreter jumps from a switch straight to the first later block whose
    value matches; Python has no such jump, and a switch's many targets make the
    structurer nest loops and flags. Taken one guard at a time, the chain is plain
    sequential `if`s: a miss goes to the next guard testing another value (a guard
    testing the same value would miss too), and nothing but reading the variable
    happens between two guards, so the behaviour is the same.
    """
    table, end = arg[2], arg[3]
    own = next(value for value, target in table.items() if target == pc)
    later = [target for target in table.values() if target > pc]
    return own, min(later) if later else end


def switch_heads(code: list) -> frozenset:
    """The first switch of each chain (its guards share where a miss leaves them). Its table
    holds every value the chain tests, so a value outside it leaves the chain at once, as
    the interpreter's lookup does: one test instead of one per guard."""
    first: dict = {}
    for pc, (op, arg) in enumerate(code):
        if op == O.SWITCH_VAR:
            first.setdefault((arg[0], arg[1], arg[3]), pc)
    return frozenset(first.values())


# ------------------------------------------------------------------ locals given a start value
# The locals each instruction reads and sets, by opcode: (read, set, read after setting).
# A loop step sets its item and index only when it goes on (not on its jump out).
_READS = {O.LOAD_LOCAL: lambda a: (a,), O.APPEND: lambda a: (a,), O.LOCAL_FACE: lambda a: (a,),
          O.CANCEL: lambda a: (a,), O.LOAD_LOCAL2: lambda a: a, O.LOCAL_PLAYER_VAR: lambda a: a[:1],
          O.JUMP_IF_VAR_NE: lambda a: a[:1], O.SWITCH_VAR: lambda a: a[:1],
          O.LOCAL_EVENT_FIELD: lambda a: a[:1], O.JUMP_IF_CANCELLED: lambda a: a[:1],
          O.FOR_ITER: lambda a: a[:2], O.FOR_ITER_LOAD: lambda a: a[:2]}
_SETS = {O.STORE_LOCAL: lambda a: (a,), O.STORE_LOAD: lambda a: a[:1], O.ITER_START: lambda a: a}
_STEP_SETS = {O.FOR_ITER: lambda a: a[1:3], O.FOR_ITER_LOAD: lambda a: a[1:3]}
_READS_AFTER = {O.STORE_LOAD: lambda a: a[1:], O.FOR_ITER_LOAD: lambda a: a[4:]}


def locals_set(code: list, top: int, back: int) -> set:
    """The locals some instruction from top to back sets."""
    out: set = set()
    for op, arg in code[top:back + 1]:
        for sets in (_SETS.get(op), _STEP_SETS.get(op)):
            if sets:
                out.update(sets(arg))
    return out


def _bits(slots) -> int:
    out = 0
    for slot in slots:
        out |= 1 << slot
    return out


def read_before_set(fn, code: list | None = None) -> list:
    """The locals (not parameters) some path may read before any instruction sets them.

    The interpreter starts every local at none; Python has no value for a local never
    assigned. Only these need `= None` at the top of the function: a forward pass over
    the code keeps, at each instruction, the locals some path to it left unset.
    """
    code = fn.code if code is None else code
    heads = switch_heads(code)
    unset_at = [None] * (len(code) + 1)
    unset_at[0] = _bits(range(fn.nparams, fn.nlocals))
    needed, work = 0, [0]
    while work:
        pc = work.pop()
        if pc >= len(code):
            continue
        op, arg = code[pc]
        unset = unset_at[pc]
        reads = _READS.get(op)
        if reads:
            needed |= unset & _bits(reads(arg))
        sets = _SETS.get(op)
        if sets:
            unset &= ~_bits(sets(arg))
        after = _READS_AFTER.get(op)
        targets = branch_targets(code, pc, heads) if op in BRANCHES else [pc + 1]
        for target in targets:
            out = unset
            if target == pc + 1 and op in _STEP_SETS:
                out &= ~_bits(_STEP_SETS[op](arg))
                if after:
                    needed |= out & _bits(after(arg))
            elif after and op not in _STEP_SETS:
                needed |= out & _bits(after(arg))
            known = unset_at[target]
            merged = out if known is None else known | out
            if merged != known:
                unset_at[target] = merged
                work.append(target)
    return [slot for slot in range(fn.nparams, fn.nlocals) if needed >> slot & 1]


# ------------------------------------------------------------------ copies of locals
# Where each opcode names locals it reads, to read another local instead: opcode -> (arg, f) -> arg.
_RENAME_READS = {
    O.LOAD_LOCAL: lambda a, f: f(a), O.APPEND: lambda a, f: f(a), O.LOCAL_FACE: lambda a, f: f(a),
    O.CANCEL: lambda a, f: f(a), O.LOAD_LOCAL2: lambda a, f: (f(a[0]), f(a[1])),
    O.STORE_LOAD: lambda a, f: (a[0], f(a[1])), O.FOR_ITER_LOAD: lambda a, f: (*a[:4], f(a[4])),
    **{op: (lambda a, f: (f(a[0]), *a[1:])) for op in (
        O.LOCAL_PLAYER_VAR, O.JUMP_IF_VAR_NE, O.SWITCH_VAR, O.LOCAL_EVENT_FIELD, O.JUMP_IF_CANCELLED)}}
# What pushes a local's value last (the value a store right after it would copy).
_PUSHES_LOCAL = {O.LOAD_LOCAL: lambda a: a, O.LOAD_LOCAL2: lambda a: a[1], O.STORE_LOAD: lambda a: a[1]}


def propagate_copies(fn) -> list:
    """The function's code with each copy of a local that can stand for its original
    (`let b = a`, an inlined call's parameter bound to the caller's local) read from the
    original instead: every read of the copy reads the original, and the copy's store
    stores the original into itself, which the translation writes as nothing.

    A copy `y = x` stands for x when that store is y's only one, no path reads y before
    it (read_before_set), and no path from it sets x before reading y (such a read must
    see the value the copy took). Only where the fast path keeps a value changes: the
    interpreter runs the code as compiled, so steps and failures are the same, and no
    one reads a local but the function's own code (a failure ends the run). Repeated
    while copies are found, so a copy of a copy reads the first original."""
    code = list(fn.code)
    heads = switch_heads(code)
    leaders = {t for pc, (op, arg) in enumerate(code) if op in BRANCHES for t in branch_targets(code, pc, heads)}
    while True:
        aliases = _standing_copies(fn, code, heads, leaders)
        if not aliases:
            return code
        originals = dict(aliases.values())
        for pc, (op, arg) in enumerate(code):
            rename = _RENAME_READS.get(op)
            if rename is not None:
                code[pc] = (op, rename(arg, lambda slot: originals.get(slot, slot)))
        for pc, (alias, original) in aliases.items():
            op, arg = code[pc]
            code[pc] = (op, original) if op == O.STORE_LOCAL else (op, (original, arg[1]))


def _pushed_local(code: list, pc: int, leaders: set):
    """The local whose value the store at pc takes, when the instruction before pushes it."""
    if pc == 0 or pc in leaders:
        return None
    op, arg = code[pc - 1]
    pushes = _PUSHES_LOCAL.get(op)
    return pushes(arg) if pushes else None


def _stores_itself(code: list, pc: int, leaders: set) -> bool:
    """A store of a local's own value into it (what an applied copy leaves): it changes nothing."""
    local = stored_local(code, pc)
    return local is not None and local == _pushed_local(code, pc, leaders)


def stored_local(code: list, pc: int):
    """The local the instruction at pc stores the top of the stack in, else None."""
    op, arg = code[pc]
    return arg if op == O.STORE_LOCAL else arg[0] if op == O.STORE_LOAD else None


def _standing_copies(fn, code: list, heads: frozenset, leaders: set) -> dict:
    """Copies that can stand for their originals (propagate_copies), as {store pc: (alias,
    original)}, no local both an alias and an original (each is renamed on its own)."""
    sets: dict = {}  # local -> how many instructions set it
    for pc in range(len(code)):
        for slot in _local_sets(code, pc, leaders):
            sets[slot] = sets.get(slot, 0) + 1
    unset_first = set(read_before_set(fn, code))
    found: dict = {}
    aliases, originals = set(), set()
    for pc in range(len(code)):
        alias, original = stored_local(code, pc), _pushed_local(code, pc, leaders)
        if (alias is None or original is None or alias == original or alias < fn.nparams or sets.get(alias) != 1
                or alias in unset_first or alias in originals or original in aliases):
            continue
        if _original_kept(code, heads, pc, alias, original, leaders):
            found[pc] = (alias, original)
            aliases.add(alias)
            originals.add(original)
    return found


def _original_kept(code: list, heads: frozenset, at: int, alias: int, original: int, leaders: set) -> bool:
    """Whether no path from the copy's store at `at` sets the original and then reads the
    copy before passing the store again."""
    seen, work = set(), [(at + 1, False)]
    while work:
        pc, changed = work.pop()
        if pc >= len(code) or pc == at or (pc, changed) in seen:
            continue
        seen.add((pc, changed))
        op, arg = code[pc]
        if changed and alias in _local_reads(op, arg, _READS):
            return False
        if original in _local_sets(code, pc, leaders):
            changed = True
        if changed and alias in _local_reads(op, arg, _READS_AFTER):
            return False
        for target in (branch_targets(code, pc, heads) if op in BRANCHES else [pc + 1]):
            work.append((target, changed))
    return True


def _local_sets(code: list, pc: int, leaders: set) -> tuple:
    """The locals the instruction at pc may set (a loop step's too; a store of a local's
    own value into it sets nothing)."""
    op, arg = code[pc]
    sets = _SETS.get(op) or _STEP_SETS.get(op)
    return tuple(sets(arg)) if sets and not _stores_itself(code, pc, leaders) else ()


def _local_reads(op, arg, table: dict) -> tuple:
    reads = table.get(op)
    return tuple(reads(arg)) if reads else ()
