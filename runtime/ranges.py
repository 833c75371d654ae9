"""Which arithmetic of a compiled function can never leave the bounds of a number.

Every `+ - *` of a script is checked against scripting.INT_BOUND (E0504), and a `+`
whose operands may be lists or texts tests their type too. The fast path writes
those checks in place; this analysis proves, over one function's bytecode, where
they cannot fail, so the translator (runtime/pysource.py) writes the bare operation
there. A check that cannot fail changes nothing observable, so the interpreter keeps
checking everywhere and both engines still agree.

The analysis is an interval analysis (abstract interpretation to a fixed point):
each local and stack value is either unknown (None) or a number known to lie in
[lo, hi] (a number of which nothing more is known lies within the language's bounds,
ANY_NUMBER; infinities remain only for the lengths of tuples). Numbers come from constants,
counts and lengths (never negative, never beyond what a Python list can hold),
arithmetic on numbers, loop indexes, entry fields that are numbers in every entry,
int options (runtime/options.py refuses one past the bounds or its declared range),
and the results of functions whose every `return` gives such a number. Comparisons
on a branch narrow the locals they read (`while k < 3` keeps `k + 1` small; `if n > 0`
makes `n - 1` non-negative), and a local that only steps by small numbers drifts only
so far in the turns a budget allows (_drifting). A loop
head whose ranges keep growing is widened after a few turns, to the next of the
numbers the function writes (and their neighbours) and then to the bounds, so the
analysis always ends; what stays unknown stays checked.

Besides numbers, a value may be known to be a list or a text (SEQUENCE): lists and
texts made in place, sums with one, builtins and functions that return one, and an
entry field that holds one in every entry. An instruction that takes a list or a
zone (`in`, `len`, a loop) then reads such an operand as it is: it is never a zone.
A tuple (ListOf) is known further: its length's range and what its items hold, so an
index inside the shortest length it may have cannot fail (IN_BOUNDS).
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from . import opcodes as O
from .builtins import BUILTINS, INT_BOUND
from .options import int_option_range
from .scripting import MAX_BUDGET, MAX_LENGTH

INF = float("inf")
LARGEST = INT_BOUND - 1
# Every number a script holds lies within the bounds (docs/language.md, Limits): numbers
# written out are refused past them (E0205), every + - * is checked or proved here, and
# options (runtime/options.py), compiled packs (runtime/program.py), builtins and the
# engine's own numbers (seats, counts, tiles) keep within them too. So a number of which
# nothing else is known still lies within them, and `n - 1` where `n > 0` cannot fail.
ANY_NUMBER = (-LARGEST, LARGEST)
COUNT = (0, 1 << 63)       # a length or a count: a Python sequence holds fewer items
# How often the loops of one call may turn, at most: each turn ends in a backward JUMP,
# which spends a step of a budget of at most MAX_BUDGET; the count of a list's items is
# added so the bound holds even were a loop over a list charged its steps all at once.
MAX_TURNS = MAX_BUDGET + COUNT[1]
WIDEN_AFTER = 6            # changes of a block's state before its growing ranges are widened
MAX_CALLEES_DEEP = 40      # a chain of calls followed for what they return (Python's stack)

SEQUENCE = "sequence"      # a list or a text (what `+` joins), or a tuple (ListOf) as below

# The verdicts the translator reads, per pc of an ADD, SUB or MUL:
BARE = "bare"              # both operands are numbers (or tuples) and the result stays in bounds
NUMBERS = "numbers"        # an operand is a number, so the sum is one (an ADD needs no type test)
SEQUENCES = "sequences"    # an ADD with an operand that is a list or a text: its sum is one too
# and per pc of an instruction that takes a list or a zone (_TAKES_COLLECTION): a frozenset
# of the depths (0: the top) of its operands known to be lists or texts, never zones, so
# the translator reads them as they are instead of testing for a zone when they run;
IN_BOUNDS = "in bounds"    # and per pc of an INDEX: the index lies inside the tuple's length

_ARITHMETIC = (O.ADD, O.SUB, O.MUL)
_TAKES_COLLECTION = {O.IN: lambda arg: 1, O.TO_LIST: lambda arg: 1, O.ITER_START: lambda arg: 1,
                     O.CALL_BUILTIN: lambda arg: arg[1]}
_ANALYSED = set(_ARITHMETIC) | set(_TAKES_COLLECTION) | {O.INDEX}
_COUNTING_BUILTINS = {"len", "count_face", "count_of"}
# Instructions whose result is a list or a text (a list is a tuple or a Python list).
_MAKES_SEQUENCE = {O.NEW_LIST, O.TO_LIST, O.FREEZE, O.TEXT, O.PLAYERS}


class ListOf(NamedTuple):
    """A tuple (never changed in place, unlike a list made by NEW_LIST and appended to):
    its length's range and what is known of every item. An item is never itself a ListOf
    (it is SEQUENCE then), so nesting cannot grow without end in a loop."""
    length: tuple
    item: object


def _sequence(v) -> bool:
    return v == SEQUENCE or type(v) is ListOf


def _as_item(v):
    return SEQUENCE if type(v) is ListOf else v


def _list_of(values: list) -> ListOf:
    item = _as_item(values[0]) if values else None
    for v in values[1:]:
        item = _join(item, _as_item(v))
    return ListOf((len(values), len(values)), item)


_BUILTIN_NAMES = [b.name for b in BUILTINS]


def _constant(value):
    if type(value) is int:
        return (value, value)
    if type(value) is tuple:
        return _list_of([_constant(v) for v in value])
    return SEQUENCE if type(value) is str else None


def _number(v) -> bool:
    return type(v) is tuple


def _join(a, b):
    if a == b:
        return a
    if type(a) is tuple and type(b) is tuple:  # two numbers (see _number)
        return (min(a[0], b[0]), max(a[1], b[1]))
    if type(a) is ListOf and type(b) is ListOf:
        return ListOf(_join(a.length, b.length), _join(a.item, b.item))
    return SEQUENCE if _sequence(a) and _sequence(b) else None


def _known(v) -> bool:
    return _number(v) and -LARGEST <= v[0] and v[1] <= LARGEST


def _clip(v):
    """A result that passed its bounds check lies inside the bounds."""
    return (max(v[0], -LARGEST), min(v[1], LARGEST)) if v[0] <= LARGEST and v[1] >= -LARGEST else ANY_NUMBER


def _arith(op: int, a, b):
    """The range of `a op b` (ADD, SUB, MUL) for two number ranges."""
    if op == O.ADD:
        return (a[0] + b[0], a[1] + b[1])
    if op == O.SUB:
        return (a[0] - b[1], a[1] - b[0])
    if not (_known(a) and _known(b)):
        return ANY_NUMBER  # an infinite side times 0 has no value (nan)
    corners = [x * y for x in a for y in b]
    return (min(corners), max(corners))


def _divided(op: int, a, b):
    """DIV_UP, DIV_DOWN, MOD by a non-zero divisor (a zero one fails before anything uses it)."""
    if op == O.MOD:  # the remainder takes the divisor's sign
        if b[0] > 0 and b[1] < INF:
            return (0, b[1] - 1)
        if b[1] < 0 and b[0] > -INF:
            return (b[0] + 1, 0)
        return ANY_NUMBER
    if _known(a):
        size = max(abs(a[0]), abs(a[1]))  # a whole divisor never makes a number larger
        return (-size, size)
    return ANY_NUMBER


# A comparison read as a relation, and the one that holds when it is false.
_NEGATED = {O.LT: O.GE, O.GE: O.LT, O.GT: O.LE, O.LE: O.GT, O.EQ: O.NE, O.NE: O.EQ}


def _narrowed(op: int, x, y):
    """What `x op y` being true says of x (an interval or None), given y's interval."""
    if not _number(y) or not (x is None or _number(x)):
        return x
    lo, hi = x if x is not None else ANY_NUMBER
    if op == O.LT:
        hi = min(hi, y[1] - 1)
    elif op == O.LE:
        hi = min(hi, y[1])
    elif op == O.GT:
        lo = max(lo, y[0] + 1)
    elif op == O.GE:
        lo = max(lo, y[0])
    elif op == O.EQ and x is not None:
        lo, hi = max(lo, y[0]), min(hi, y[1])
    else:
        return x  # `!=`, or `==` on a value that may not be a number (a text is never 3)
    return (lo, hi) if lo <= hi else x


_FLIPPED = {O.LT: O.GT, O.GT: O.LT, O.LE: O.GE, O.GE: O.LE, O.EQ: O.EQ, O.NE: O.NE}


class _Item:
    """A stack value: its range, the local it was read from (while unchanged), for a
    comparison's result the comparison, so a branch on it can narrow its operands, and for
    a local's value plus or minus a number (`n - 1`) that local and the number's range."""
    __slots__ = ("value", "slot", "test", "step")

    def __init__(self, value=None, slot=None, test=None, step=None):
        self.value, self.slot, self.test, self.step = value, slot, test, step


class _Context:
    """What the analysis of one function reads besides its bytecode, and what it learns of
    how its locals change: per local, the largest step a store moves it by (`n -= 1`) and
    the largest number any other store gives it (float infinity when unknown)."""
    __slots__ = ("returned", "fields", "options", "changes", "drifting")

    def __init__(self, returned, fields: dict, options: dict, drifting: dict):
        self.returned, self.fields, self.options = returned, fields, options
        self.changes: dict = {}
        self.drifting = drifting  # local -> a bound its value never passes (see _drifting)


def _jumps_back(pc: int, op: int, arg) -> bool:
    """Whether an instruction other than JUMP (which spends a step when it goes back) may go back."""
    if op == O.SWITCH_VAR:  # its own pc as a target goes on to the next instruction
        return any(t < pc for t in (*arg[2].values(), arg[3]))
    return op != O.JUMP and op in O.JUMP_TARGET and O.jump_target(op, arg) <= pc


def _magnitude(v) -> float:
    return max(-v[0], v[1]) if _number(v) else INF


def _drifting(fn, changes: dict) -> dict:
    """Locals whose every store either steps them by a small number or gives them a small
    one, and the bound they stay within because of it: a store runs at most once per
    turn of the loops around it plus once, and a call's loops turn at most MAX_TURNS
    times, so a local cannot drift further than its code has stores times that many
    turns times the largest step. This bounds a count lowered in a loop where no
    comparison says it stays above 0 (which intervals alone must widen to the bounds).
    Parameters are left out: the caller gives them any number."""
    if any(_jumps_back(pc, op, arg) for pc, (op, arg) in enumerate(fn.code)):
        return {}  # a turn that would not spend a step: no such bytecode is compiled
    drifting = {}
    for slot, (step, given) in changes.items():
        if slot >= fn.nparams and 0 < step:
            bound = given + len(fn.code) * (MAX_TURNS + 1) * step
            if bound < LARGEST:
                drifting[slot] = bound
    return drifting


def _narrow_locals(locs: dict, test, truth: bool) -> dict:
    op, left, right = test
    if not truth:
        op = _NEGATED[op]
    out = dict(locs)
    if left.slot is not None:
        _set(out, left.slot, _narrowed(op, out.get(left.slot), right.value))
    if right.slot is not None:
        _set(out, right.slot, _narrowed(_FLIPPED[op], out.get(right.slot), left.value))
    return out


def _set(locs: dict, slot: int, value) -> None:
    """Locals are kept sparse: a missing one is unknown (most of a large function's are)."""
    if value is None:
        locs.pop(slot, None)
    else:
        locs[slot] = value


class Ranges:
    """The verdicts for each function of a program, worked out when first asked."""

    def __init__(self, program):
        self.program = program
        self._fields = None        # entry field -> what every entry holding it holds (see _field_kinds)
        self._options = None       # option name -> the range of an int option's values
        self._returns: dict = {}   # function index -> range of what it returns (None: unknown)
        self._verdicts: dict = {}  # function index -> {pc: a verdict (see above)}
        self._depth = 0            # callees being analysed for a caller's analysis

    def verdicts(self, index: int) -> dict:
        fn = self.program.functions[index]
        if not any(op in _ANALYSED for op, _ in fn.code):
            return {}
        known = self._verdicts.get(index)
        if known is None or known[0] is not fn:
            verdicts, returns = _analyse(fn, self._returned, self._field_kinds(), self._option_ranges())
            self._returns[index] = (fn, returns)
            known = self._verdicts[index] = (fn, verdicts)
        return known[1]

    def _field_kinds(self) -> dict:
        """A field that is a list or a text in every entry that has it reads as one, and
        one that is a number in every entry reads as a number between the least and the
        largest of them (reading it from an entry without it fails before any value is
        made; entries never change while a match runs)."""
        if self._fields is None:
            kinds: dict = {}
            for fields in self.program.entries.values():
                for name, value in fields.items():
                    kind = _constant(value)
                    kinds[name] = _join(kinds[name], kind) if name in kinds else kind
            self._fields = {name: kind for name, kind in kinds.items() if _sequence(kind) or _known(kind)}
        return self._fields

    def _option_ranges(self) -> dict:
        if self._options is None:
            self._options = {name: int_option_range(spec) for name, spec in self.program.options.items()
                             if spec["type"] == "int"}
        return self._options

    def _returned(self, index: int):
        functions = self.program.functions
        if not 0 <= index < len(functions) or self._depth >= MAX_CALLEES_DEEP:
            return None
        fn = functions[index]
        known = self._returns.get(index)
        if known is not None and known[0] is fn:
            return known[1]
        self._returns[index] = (fn, None)  # a call of itself on the way: unknown
        self._depth += 1
        try:
            verdicts, returns = _analyse(fn, self._returned, self._field_kinds(), self._option_ranges())
        finally:
            self._depth -= 1
        self._returns[index] = (fn, returns)
        self._verdicts[index] = (fn, verdicts)
        return returns


def _analyse(fn, returned, fields: dict, options: dict) -> tuple[dict, object]:
    """({pc: verdict} for the function's ADD/SUB/MUL and collection operands, the range of
    what it returns). When some local proves to drift only a little (_drifting), the
    function is analysed again with that bound held at its every store."""
    ctx = _Context(returned, fields, options, {})
    found = _analysed(fn, ctx)
    drifting = _drifting(fn, ctx.changes)
    if not drifting:
        return found
    return _analysed(fn, _Context(returned, fields, options, drifting))


def _analysed(fn, ctx: "_Context") -> tuple[dict, object]:
    """One pass of the analysis to a fixed point (see _analyse).

    States are kept where blocks start (where a jump lands or after a branch); a block
    runs straight from its state to its branch."""
    code = fn.code
    leaders = {0}
    for pc, (op, arg) in enumerate(code):
        if op == O.SWITCH_VAR:
            leaders.update((*arg[2].values(), arg[3], pc + 1))
        elif op in O.JUMP_TARGET:
            leaders.update((O.jump_target(op, arg), pc + 1))
        elif op == O.RETURN:
            leaders.add(pc + 1)
    states: dict = {0: ({}, [])}
    visits: dict = {}
    thresholds = _thresholds(code, ctx.drifting)
    pending = [0]              # block starts to run, lowest first: most joins are then
    queued = {0}               # reached from every way in before what follows them runs
    verdicts: dict = {}
    returns: list = []
    while pending:
        pc = heapq.heappop(pending)
        queued.discard(pc)
        locs, stack = states[pc]
        locs, stack = dict(locs), list(stack)
        while True:
            op, arg = code[pc]
            if op == O.RETURN:
                returns.append(stack[-1].value)
                break
            takes = _TAKES_COLLECTION.get(op)
            if takes is not None:
                verdicts[pc] = frozenset(depth for depth in range(takes(arg))
                                         if _sequence(stack[-1 - depth].value)) or None
            out = _step(op, arg, pc, locs, stack, verdicts, ctx)
            if len(out) == 1 and out[0][0] == pc + 1 and pc + 1 not in leaders:
                pc, (locs, stack) = out[0][0], out[0][1]
                continue
            for target, state in out:
                if _merge(states, visits, target, state, thresholds) and target not in queued:
                    heapq.heappush(pending, target)
                    queued.add(target)
            break
    # A block's state only grows, and it runs again whenever it does: its last verdicts,
    # made from everything that reaches it, are the ones that hold.
    returned_range = returns[0] if returns else None
    for value in returns[1:]:
        returned_range = _join(returned_range, value)
    return {pc: v for pc, v in verdicts.items() if v is not None}, returned_range


# The numbers an instruction writes out, read as thresholds.
_CONSTANT_OPERANDS = {O.CONST: lambda arg: arg, O.EQ_CONST: lambda arg: arg, O.NE_CONST: lambda arg: arg,
                      O.JUMP_IF_NE_CONST: lambda arg: arg[0], O.JUMP_IF_EQ_CONST: lambda arg: arg[0]}


def _thresholds(code, drifting: dict) -> list:
    """Where a growing range is widened to before infinity: the numbers the function
    writes and their neighbours (a count down to `> 0` settles at 0, a count up to
    `< 3` at 3), a count's largest, and the bounds of a number. Widening only guesses:
    a guess that does not hold grows on to the next, and the set is finite, so the
    analysis still ends, and only a state that holds on every way in is kept."""
    marks = {0, COUNT[1], LARGEST, -LARGEST, *drifting.values(), *(-b for b in drifting.values())}
    for op, arg in code:
        operand = _CONSTANT_OPERANDS.get(op)
        if operand is not None and type(value := operand(arg)) is int and -LARGEST < value < LARGEST:
            marks.update((value - 1, value, value + 1))
    return sorted(marks)


def _merge(states: dict, visits: dict, target: int, state, thresholds: list) -> bool:
    """Join a state into what reaches `target`; True when that changed (visit it again)."""
    old = states.get(target)
    if old is None:
        states[target] = state
        return True
    locs, stack = state
    old_locs, old_stack = old
    joined_locs = _join_locals(old_locs, locs)
    joined_stack = [_join_item(a, b) for a, b in zip(old_stack, stack)]
    if joined_locs == old_locs and [_key(i) for i in joined_stack] == [_key(i) for i in old_stack]:
        return False
    visits[target] = visits.get(target, 0) + 1
    if visits[target] > WIDEN_AFTER:  # still growing: what grows goes to the next threshold
        joined_locs = {slot: w for slot, v in joined_locs.items()
                       if (w := _widen(old_locs[slot], v, thresholds)) is not None}
        joined_stack = [_Item(_widen(a.value, b.value, thresholds), b.slot, b.test)
                        for a, b in zip(old_stack, joined_stack)]
    states[target] = (joined_locs, joined_stack)
    return True


def _join_item(a: "_Item", b: "_Item") -> "_Item":
    """What a stack value was read from (or compared) holds only if it does on every way in."""
    slot = a.slot if a.slot == b.slot else None
    test = None
    if a.test and b.test and a.test[0] == b.test[0] and _key(a.test[1])[1:] == _key(b.test[1])[1:] \
            and _key(a.test[2])[1:] == _key(b.test[2])[1:]:
        test = (a.test[0], _join_item(a.test[1], b.test[1]), _join_item(a.test[2], b.test[2]))
    return _Item(_join(a.value, b.value), slot, test)


def _key(item: "_Item") -> tuple:
    test = item.test and (item.test[0], _key(item.test[1]), _key(item.test[2]))
    return item.value, item.slot, test


def _join_locals(a: dict, b: dict) -> dict:
    return {slot: v for slot in (a.keys() & b.keys()) if (v := _join(a[slot], b[slot])) is not None}


def _widen(old, new, thresholds: list):
    if type(old) is ListOf and type(new) is ListOf:
        return ListOf(_widen(old.length, new.length, thresholds), _widen(old.item, new.item, thresholds))
    if not (_number(old) and _number(new)):
        return _join(old, new)
    lo, hi = old
    if new[0] < lo:
        below = bisect_right(thresholds, new[0])
        lo = thresholds[below - 1] if below else -INF
    if new[1] > hi:
        above = bisect_left(thresholds, new[1])
        hi = thresholds[above] if above < len(thresholds) else INF
    return (lo, hi)


def _store(ctx: "_Context", locs: dict, stack: list, slot: int, value, step=None) -> None:
    """A local changes: values read from it earlier no longer say anything about it. A
    store that adds `step` to the local itself is noted as a step, any other as a value."""
    change = ctx.changes.setdefault(slot, [0, 0])
    if step is not None:
        change[0] = max(change[0], _magnitude(step))
    else:
        change[1] = max(change[1], _magnitude(value))
    bound = ctx.drifting.get(slot)
    if bound is not None and _number(value) and value[0] <= bound and -bound <= value[1]:
        value = (max(value[0], -bound), min(value[1], bound))
    _set(locs, slot, value)
    for i, item in enumerate(stack):
        if item.slot == slot or (item.test and slot in (item.test[1].slot, item.test[2].slot)) \
                or (item.step and item.step[0] == slot):
            stack[i] = _Item(item.value)


def _store_item(ctx: "_Context", locs: dict, stack: list, slot: int, item: "_Item") -> None:
    step = item.step
    _store(ctx, locs, stack, slot, item.value, step[1] if step is not None and step[0] == slot else None)


def _load(locs: dict, stack: list, slot: int) -> None:
    stack.append(_Item(locs.get(slot), slot))


def _step(op: int, arg, pc: int, locs: dict, stack: list, verdicts: dict, ctx: "_Context") -> list:
    """Run one instruction on the abstract state; [(next pc, state)] for where it goes."""
    after = pc + 1
    if op in _ARITHMETIC:
        b, a = stack.pop(), stack.pop()
        if _number(a.value) and _number(b.value):
            value = _arith(op, a.value, b.value)
            verdicts[pc] = BARE if _known(value) else NUMBERS
            stack.append(_Item(_clip(value), step=_stepped(op, a, b)))
        elif op == O.ADD and (_sequence(a.value) or _sequence(b.value)):
            # a list or text added to anything is a list or text, or fails
            if type(a.value) is ListOf and type(b.value) is ListOf:  # two tuples: a tuple
                length = _arith(O.ADD, a.value.length, b.value.length)
                verdicts[pc] = BARE if length[1] <= MAX_LENGTH else SEQUENCES
                stack.append(_Item(ListOf(length, _join(a.value.item, b.value.item))))
            else:
                verdicts[pc] = SEQUENCES
                stack.append(_Item(SEQUENCE))
        else:
            # a number added to anything else is a number or fails; `- *` only make numbers
            number = op != O.ADD or _number(a.value) or _number(b.value)
            verdicts[pc] = NUMBERS if number else None
            stack.append(_Item(ANY_NUMBER if number else None))
        return [(after, (locs, stack))]
    if op == O.CONST:
        stack.append(_Item(_constant(arg)))
    elif op == O.LOAD_LOCAL:
        _load(locs, stack, arg)
    elif op == O.LOAD_LOCAL2:
        _load(locs, stack, arg[0])
        _load(locs, stack, arg[1])
    elif op == O.STORE_LOCAL:
        _store_item(ctx, locs, stack, arg, stack.pop())
    elif op == O.STORE_LOAD:
        _store_item(ctx, locs, stack, arg[0], stack.pop())
        _load(locs, stack, arg[1])
    elif op == O.DUP:
        stack.append(stack[-1])
    elif op == O.CHECK_NESTING:
        stack.append(_Item(stack.pop().value))  # gives its list back
    elif op in _NEGATED:
        b, a = stack.pop(), stack.pop()
        stack.append(_Item(test=(op, a, b)))
    elif op in (O.EQ_CONST, O.NE_CONST):
        a = stack.pop()
        const = _Item(_constant(arg))
        stack.append(_Item(test=(O.EQ if op == O.EQ_CONST else O.NE, a, const)))
    elif op == O.NOT:
        item = stack.pop()
        stack.append(_Item(test=(_NEGATED[item.test[0]], *item.test[1:]) if item.test else None))
    elif op in (O.DIV_UP, O.DIV_DOWN, O.MOD):
        b, a = stack.pop(), stack.pop()
        stack.append(_Item(_divided(op, *(v if _number(v) else ANY_NUMBER for v in (a.value, b.value)))))
    elif op == O.NEG:
        a = stack.pop().value
        stack.append(_Item((-a[1], -a[0]) if _number(a) else ANY_NUMBER))
    elif op == O.BUILD_LIST:
        values = [item.value for item in stack[len(stack) - arg:]] if arg else []
        del stack[len(stack) - arg:]
        stack.append(_Item(_list_of(values)))
    elif op == O.INDEX:
        i, a = stack.pop().value, stack.pop().value
        listed = type(a) is ListOf
        verdicts[pc] = IN_BOUNDS if listed and _number(i) and 0 <= i[0] and i[1] < a.length[0] else None
        stack.append(_Item(a.item if listed else None))
    elif op in _MAKES_SEQUENCE:
        pops, _ = O.stack_effect(op, arg)
        if pops:
            del stack[len(stack) - pops:]
        stack.append(_Item(SEQUENCE))
    elif op == O.CALL_BUILTIN:
        _builtin(arg, stack)
    elif op == O.ENTRY_FIELD:
        stack[-1] = _Item(ctx.fields.get(arg))
    elif op == O.LOAD_OPTION:
        stack.append(_Item(ctx.options.get(arg)))
    elif op in (O.CALL, O.CALL_MEMO):
        del stack[len(stack) - arg[1]:]
        stack.append(_Item(ctx.returned(arg[0])))
    elif op == O.PLAYER_SEAT:
        stack.pop()
        stack.append(_Item((1, COUNT[1])))
    elif op == O.ITER_START:
        stack.pop()
        _store(ctx, locs, stack, arg[0], None)
        _store(ctx, locs, stack, arg[1], (0, 0))
    elif op in (O.FOR_ITER, O.FOR_ITER_LOAD):
        items, index, var, end = arg[:4]
        looping = dict(locs)
        stack_in = list(stack)
        _store(ctx, looping, stack_in, var, None)
        _store(ctx, looping, stack_in, index, COUNT)
        if op == O.FOR_ITER_LOAD:
            _load(looping, stack_in, arg[4])
        return [(after, (looping, stack_in)), (end, (locs, stack))]
    elif op in (O.JUMP_IF_FALSE, O.JUMP_IF_TRUE):
        test = stack.pop().test
        jumped, fell = (locs, locs) if test is None else \
            (_narrow_locals(locs, test, op == O.JUMP_IF_TRUE), _narrow_locals(locs, test, op != O.JUMP_IF_TRUE))
        return [(after, (fell, stack)), (arg, (jumped, list(stack)))]
    elif op in (O.JUMP_IF_NE_CONST, O.JUMP_IF_EQ_CONST):
        item = stack.pop()
        const = _Item(_constant(arg[0]))
        test = (O.EQ, item, const)
        equal, unequal = _narrow_locals(locs, test, True), _narrow_locals(locs, test, False)
        if op == O.JUMP_IF_NE_CONST:
            return [(after, (equal, stack)), (arg[1], (unequal, list(stack)))]
        return [(after, (unequal, stack)), (arg[1], (equal, list(stack)))]
    elif op == O.JUMP:
        return [(arg, (locs, stack))]
    elif op == O.SWITCH_VAR:
        return [(after, (locs, stack))] + [(t, (locs, list(stack))) for t in (*arg[2].values(), arg[3])]
    elif op == O.RETURN:
        return []
    else:
        pops, pushes = O.stack_effect(op, arg)
        if pops:
            del stack[len(stack) - pops:]
        stack.extend(_Item() for _ in range(pushes))
        if op in O.JUMP_TARGET:
            return [(after, (locs, stack)), (O.jump_target(op, arg), (locs, list(stack)))]
    return [(after, (locs, stack))]


def _stepped(op: int, a: "_Item", b: "_Item"):
    """(local, range) when `a op b` is a local's value plus or minus a number."""
    if op == O.ADD:
        return (a.slot, b.value) if a.slot is not None else (b.slot, a.value) if b.slot is not None else None
    if op == O.SUB and a.slot is not None:
        return (a.slot, (-b.value[1], -b.value[0]))
    return None


def _builtin(arg, stack: list) -> None:
    index, argc = arg
    args = [item.value for item in stack[len(stack) - argc:]]
    del stack[len(stack) - argc:]
    name = _BUILTIN_NAMES[index]
    value = None
    if name == "len" and type(args[0]) is ListOf:
        value = args[0].length
    elif name in _COUNTING_BUILTINS:
        value = COUNT
    elif BUILTINS[index].returns.startswith("list"):
        value = SEQUENCE
    elif name in ("min", "max"):  # one of its arguments, compared as numbers: a number
        pick = min if name == "min" else max
        known = all(_number(a) for a in args)
        value = (pick(args[0][0], args[1][0]), pick(args[0][1], args[1][1])) if known else ANY_NUMBER
    elif name == "abs" and _number(args[0]):
        lo, hi = args[0]
        value = (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
    stack.append(_Item(value))
