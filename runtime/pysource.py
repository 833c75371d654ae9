"""The fast path's translator: a compiled pack's bytecode as Python source.

Each script function becomes one Python function (`f12` for function 12).
Its locals become Python locals (`l3`), the operand stack becomes expressions
(`l3.vars[2] + 1`) that are stored in stack variables (`_s0`, `_s1`) only
where the stack outlives a basic block, and jumps become `if`/`while`
(runtime/structure.py). A function that can reach a decision is a generator:
a decision is a `yield`, a call of such a function a `yield from`.

Behaviour is the interpreter's, to the step (runtime/vm.py is the reference):
  * operands are evaluated in the order the bytecode pushed them: a pending
    expression is stored before any statement runs, so draws from the RNG,
    failures and reads of the game happen in the same order;
  * steps are spent where the interpreter spends them (backward jumps and
    calls that are not remembered) from the global `_steps`;
  * a generated line never mixes instructions from two source lines, so a
    failure maps back (through `line_pcs`) to the instruction, and to the
    same `file:line`, the interpreter would name.

Safety: content text only ever appears as repr()-ed constants; every name in
the source is made here (`f`, `l`, `_s` plus a number, or a fixed helper
name); the only attributes used are those in ATTRIBUTES (tests/test_fastpath.py
checks the generated source against it); the code runs without builtins,
given only the helpers in runtime/fastvm.py.
"""
from __future__ import annotations

import ast
import copy
import re

from dataclasses import dataclass
from typing import NamedTuple

from . import opcodes as O
from .builtins import BUILTINS
from .fieldtables import table_keys
from .ranges import BARE, IN_BOUNDS, NUMBERS, SEQUENCES, Ranges
from .scripting import MAX_DEPTH, loops_of
from .localflow import (BRANCHES, branch_targets, locals_set, propagate_copies, read_before_set, stored_local,
                        switch_as_guard, switch_heads)
from .structure import Arm, Block, Tally, Unstructured, dispatch, structure


# Every attribute the generated code may touch (checked by a test on every pack).
ATTRIBUTES = frozenset({"vars", "face", "entry", "zone", "owner", "seat", "items", "fields",
                        "cancelled", "append", "clear", "get", "move", "destroy", "roll",
                        "shuffle", "set_face", "create", "create_many", "random_from", "narration", "quiet",
                        "holders", "place", "ask_first", "move_all", "remove", "insert"})

STEP = "_steps -= 1\nif _steps < 0: _oos()"
# A loop that spends no step but at its ways back (tallied_loops) counts its turns in `_lt`
# against the budget it started with (`_lb`), locals being cheaper than the global, and
# spends them once when it is left, by any way (a failure too); running out is the same
# test at the same turn, leaving the same budget (-1).
TALLY = Tally(step=STEP, counted="_lt += 1\nif _lt > _lb: _oos()", enter="_lb, _lt = _steps, 0",
              leave="if _lt: _steps = _lb - _lt")
CLEAR_MEMO = "if _M: _M.clear()"

# Kinds of values on the symbolic stack, by what may change them before they are used:
# CONST a constant and SLOT a stack variable (`_s2`): nothing; LOCAL a local read (`l3`):
# a store to that local (flush_local); STABLE an expression that reads nothing a statement
# changes (`_Z[4]`); EXPR any other expression: any statement (flush evaluates it first).
CONST, LOCAL, SLOT, STABLE, EXPR = range(5)

# What a stack item is known to hold, where its instruction tells (its `ref`): a zone
# (ZONE, ZONE_OF), or never a zone (an entry's field, a builtin's list). A collection
# that may be either is told apart when it runs (`_type(...) is _Zone`); a known one
# needs no test.
ZONE_VALUE, NOT_ZONE = "zone", "not a zone"


def _const(value) -> str:
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


# ------------------------------------------------------------------ one basic block
class _BlockWriter:
    """Translates one basic block, keeping the operand stack as Python expressions."""

    def __init__(self, ctx: "_Context", stack: list, joins: dict, heads: frozenset = frozenset(),
                 after_miss: frozenset = frozenset(), checks_depth: bool = False, arithmetic: dict | None = None):
        self.ctx = ctx
        self.checks_depth = checks_depth  # its calls test the depth (DepthPlan.checked)
        self.stack = stack
        self.joins = joins          # instructions where blocks join -> the names the stack arrives in (join_names)
        self.heads = heads          # the first switch of each chain (switch_heads)
        self.after_miss = after_miss  # switches reached only by another switch's miss
        self.stmts: list = []
        self.arms: list = []
        self.pushed: dict = {}      # target -> values an arm adds to the stack it passes on
        self.pc = 0
        self.key = None
        self.foreach = None
        self.code: list = []        # the function's bytecode (what comes next)
        self.end = 0                # where this block ends
        self.movable: set = set()   # the function's loop lists whose ITER_START value cannot fail (shared)
        self.counting = None        # the faces counted by the last pass over some things (_count_faces)
        self.tallies = None         # the function's counts answered from a tally of faces (FaceTallies)
        self.steady: set = set()    # the ITER_STARTs of loops whose bodies cannot change the game (shared)
        self.arithmetic = arithmetic or {}  # pc -> what runtime/ranges.py proved there (ranges.Ranges.verdicts)

    # ---- the symbolic stack
    def push(self, text: str, kind: int = EXPR, ref=None) -> None:
        self.stack.append((text, kind, ref))

    def pop(self) -> str:
        return self.stack.pop()[0]

    def pop_item(self):
        return self.stack.pop()

    def pops(self, n: int) -> list:
        if not n:
            return []
        items = [t for t, _, _ in self.stack[-n:]]
        del self.stack[-n:]
        return items

    def _emit(self, text: str) -> None:
        self.stmts.append((text, self.pc))

    def _store(self, positions: list, names: list | None = None) -> None:
        """Evaluate the items at these stack positions into their stack variables (or the
        given stack items' names), in order: one assignment, so every value is read before
        any is set."""
        if not positions:
            return
        items = [names[i] if names else (f"_s{i}", SLOT, None) for i in positions]
        values = [self.stack[i][0] for i in positions]
        self._emit(f"{', '.join(text for text, _, _ in items)} = {', '.join(values)}")
        for i, item in zip(positions, items):
            self.stack[i] = item

    def flush(self) -> None:
        """Evaluate every pending expression: something with an effect is about to run."""
        self._store([i for i, (_, kind, _) in enumerate(self.stack) if kind == EXPR])

    def flush_local(self, slot: int) -> None:
        """Local `slot` is about to change: stack items that read it must be evaluated first."""
        self._store([i for i, (_, kind, ref) in enumerate(self.stack) if kind == LOCAL and ref == slot])

    def stmt(self, *lines: str) -> None:
        self.flush()
        for line in lines:
            self._emit(line)

    def next_slot(self) -> str:
        """The variable the next pushed value is assigned to by statements (result()): the
        local the next instruction stores it in, when that instruction is in this block
        (the value is set there one instruction early: nothing runs in between), else
        the stack variable it would occupy."""
        local = self.stored_next()
        return f"l{local}" if local is not None else f"_s{len(self.stack)}"

    def stored_next(self):
        """The local the next instruction, in this block, stores the top of the stack in
        (or the one after a DUP, which keeps a copy on the stack: the local itself)."""
        at = self.pc + 1
        if at < self.end and self.code[at][0] == O.DUP:
            at += 1
        return stored_local(self.code, at) if at < self.end else None

    def result(self, *lines: str) -> None:
        """Statements whose value (assigned to next_slot()) is pushed: calls, decisions."""
        self.push_assigned(self.next_slot(), lines)

    def push_assigned(self, name: str, lines, ref=None) -> None:
        """Run statements that assign `name` (next_slot()) and push it: a local's old value
        still pending on the stack is evaluated first, as the local's store would."""
        if not name.startswith("_s"):
            self.flush_local(int(name[1:]))
        self.stmt(*lines)
        self.push(name, *((LOCAL, int(name[1:])) if not name.startswith("_s") else (SLOT, ref)))

    def target(self, text: str, kind: int) -> str:
        """An assignment target must be evaluated before the value, as the bytecode did."""
        if kind == EXPR:
            self._emit(f"_u = {text}")
            return "_u"
        return text

    # ---- terminators
    def branch(self, cond: str, target: int, other: int) -> None:
        self.end_block((target, other))
        self.arms = [Arm(cond, self.pc, [], target), Arm(None, self.pc, [], other)]

    def end_block(self, targets: tuple = ()) -> None:
        """Before a branch: pending expressions are evaluated; the stack is put in _s0, _s1, ...
        unless every target has this block as its only way in (then it is passed on as it is)."""
        if any(t in self.joins for t in targets) or not targets:
            names = self.join_stack(targets[0] if len(targets) == 1 else None, len(self.stack))
            self._store([i for i, (text, _, _) in enumerate(self.stack) if text != names[i][0]], names)
        else:
            self.flush()

    def join_stack(self, target, depth: int) -> list:
        """The stack as it arrives at a join: `_s0`, `_s1`, ..., or its top already in the
        local the join stores it in (join_names; only a block's one way on)."""
        names = [(f"_s{i}", SLOT, None) for i in range(depth)]
        top = self.joins.get(target)
        if top is not None:
            names[-1] = (top, LOCAL, int(top[1:]))
        return names


class _Context:
    """What the translation of one function needs to know about the whole program."""

    def __init__(self, program, generators: set, depth: "DepthPlan"):
        self.program = program
        self.generators = generators
        self.depth = depth
        self.kinds = program.kinds
        self.field_tables = {key: f"_F{n}" for n, key in enumerate(table_keys(program))}
        self._ranges = None

    def arithmetic(self, index: int) -> dict:
        """What is proved of function `index`'s arithmetic (runtime/ranges.py)."""
        if self._ranges is None or self._ranges.program is not self.program:
            self._ranges = Ranges(self.program)  # a card test's copy of the program
        return self._ranges.verdicts(index)

    def classify(self, index: int) -> None:
        """Decide for a function added after analyse() (a card test's step) whether it is a
        generator, and whether it knows its depth. Such a function is only ever started
        at depth 1 (the depth plan left a level for it), so it never tests the depth: it
        knows it only to pass it on to callees that do."""
        fn = self.program.functions[index]
        callees = _callees(fn, self.program)
        if _suspends_itself(fn) or any(t in self.generators for t in callees):
            self.generators.add(index)
        else:
            self.generators.discard(index)
        counted = self.depth.counted
        self.depth.checked.discard(index)
        if any(t in counted for t in callees) or (_performs(fn) and self.depth.bodies_counted(self.program)):
            counted.add(index)
        else:
            counted.discard(index)


# ------------------------------------------------------------------ opcode translations
def _binary(template: str):
    """Two operands into one expression: "({a} + {b})", "_index({a}, {b})"."""
    def emit(w: _BlockWriter, arg) -> None:
        b = w.pop()
        a = w.pop()
        w.push(template.format(a=a, b=b))
    return emit


def _by_constant(call: str, written_out: str):
    """A division (or remainder) calls the helper that refuses a zero divisor; by a number
    written out that is not zero it is the helper's own expression, in place. (Neither
    result needs a bounds test: dividing by a whole number never grows a number.)"""
    def emit(w: _BlockWriter, arg) -> None:
        b = w.pop()
        a = w.pop()
        literal = _INT_LITERAL.fullmatch(b) is not None and int(b) != 0
        w.push((written_out if literal else call).format(a=a, b=b))
    return emit


_INT_LITERAL = re.compile(r"-?\d+")


def _unary(template: str):
    def emit(w: _BlockWriter, arg) -> None:
        w.push(template.format(x=w.pop(), arg=arg))
    return emit


def _unary_const(template: str):
    def emit(w: _BlockWriter, arg) -> None:
        w.push(template.format(x=w.pop(), arg=_const(arg)))
    return emit


def _mutation(template: str, n: int):
    """An effect on the game: operands popped, the memo cleared, one statement."""
    def emit(w: _BlockWriter, arg) -> None:
        args = w.pops(n)
        w.stmt(CLEAR_MEMO, template.format(*args, arg=_const(arg)))
    return emit


def _set_var(template: str):
    """An assignment into something on the stack (a variable, an event's field)."""
    def emit(w: _BlockWriter, arg) -> None:
        value = w.pop_item()
        owner = w.pop_item()
        w.flush()
        target = w.target(owner[0], owner[1])
        w.stmt(CLEAR_MEMO, template.format(target, value[0], arg=_const(arg)))
    return emit


def _field(ev: str, field: str) -> str:
    return f"{ev}.cancelled" if field == "cancelled" else f"{ev}.fields[{_const(field)}]"


def _load_local(w, slot):
    w.push(f"l{slot}", LOCAL, slot)


def _load_local2(w, arg):
    _load_local(w, arg[0])
    _load_local(w, arg[1])


def _store_local(w, slot):
    value = w.pop()
    if value == f"l{slot}":  # already there: a copy that stands for its original (propagate_copies),
        return               # a value a join's ways in, or a result, were stored in (join_names, next_slot)
    w.flush_local(slot)
    w.stmt(f"l{slot} = {value}")


def _store_load(w, arg):
    _store_local(w, arg[0])
    _load_local(w, arg[1])


class KindTested(NamedTuple):
    """The `ref` of an AS_ENTRY's value left for the ENTRY_FIELD after it, whose table tests the kind."""
    kind: str


def _entry_field(w, name):
    """After an AS_ENTRY that left it the value (_as_entry), the kind's table of the field
    tests the kind too (runtime/fieldtables.py)."""
    value, _, ref = w.pop_item()
    if type(ref) is KindTested:
        table = w.ctx.field_tables[(ref.kind, name)]
        text = f"({table}[_t] if (_t := {value}) in {table} else _field_miss(_t, {_const(ref.kind)}, {_const(name)}))"
    else:
        text = f"_E[{value}][{_const(name)}]"
    w.push(text, EXPR, NOT_ZONE)  # entries hold constants, never a zone


def _zone(w, z):
    w.push(f"_Z[{z}]", STABLE, ZONE_VALUE)


def _zone_of(w, z):
    w.push(f"_Z[{z}][{w.pop()}.seat]", EXPR, ZONE_VALUE)


def _entries(w, kind):
    values = w.ctx.kinds.get(kind)
    w.push(_const(values) if values is not None else f"_KIND[{_const(kind)}]", CONST if values is not None else EXPR)


def _items_of(item, snapshot: bool = False) -> str:
    """The things of a list-or-zone stack item: a zone's items, or the list itself.

    With snapshot, a zone's items are copied, so later moves cannot change them.
    """
    text, kind, ref = item
    zone_items = "_tuple({}.items)" if snapshot else "{}.items"
    if ref == ZONE_VALUE:
        return zone_items.format(text)
    if kind == CONST or ref == NOT_ZONE:
        return text
    return f"({zone_items.format('_t')} if _type(_t := {text}) is _Zone else _t)"


def _in(w, arg):
    collection = w.pop_item()
    a = w.pop()
    w.push(f"({a} in {_items_of(collection)})")


# The ref of a TO_LIST of a known zone: its items as they are, uncopied (what ROLL reads)
ZONE_ITEMS = "a zone's items"


def _to_list(w, arg):
    item = w.pop_item()
    if item[2] == ZONE_VALUE:
        w.push(_items_of(item, snapshot=True), EXPR, (ZONE_ITEMS, _items_of(item)))
    else:
        w.push(_items_of(item, snapshot=True))


# The ref of a FREEZE: the list it copies, which a move, a roll or a decision taking it at
# once reads instead (World.move and World.roll read a list as a tuple and keep neither; a
# decision gives the agent a list of its own)
FROZEN = "a list frozen"


def _freeze(w, arg):
    x = w.pop()
    w.push(f"_tuple({x})", EXPR, (FROZEN, x))


def _in_place(text: str, _kind, ref) -> str:
    """A collection for a reader that keeps none of it (a move, a roll, a decision's
    options): a zone's own list or a list before its freezing, with no copy made."""
    if type(ref) is tuple and ref[0] in (ZONE_ITEMS, FROZEN):
        return ref[1]
    return text


def _move(w, arg):
    """Every thing of a zone still pending on the stack moves from its own list (move_all),
    with no copy made first: the same moves as one by one, in its order."""
    zone = w.pop_item()
    text, kind, ref = w.pop_item()
    whole_zone = type(ref) is tuple and ref[0] == ZONE_ITEMS
    text = _in_place(text, kind, ref)
    if whole_zone:
        w.stmt(CLEAR_MEMO, f"_mt, _md = {text}, {zone[0]}\nif _mt: _W.move_all(_mt, _md, {_const(arg)})")
    else:  # one thing, most moves, written in place (World.move's own steps); else World.move
        join = "_md.items.insert(0, _mt)" if arg == "top" else "_md.items.append(_mt)"
        w.stmt(CLEAR_MEMO, f"_mt, _md = {text}, {zone[0]}\n"
                           f"if _type(_mt) is _Thing:\n"
                           f"    if (_mo := _mt.zone) is not None: _mo.items.remove(_mt)\n"
                           f"    _mt.zone = _md\n    {join}\n"
                           f"else: _W.move(_mt, _md, {_const(arg)})")


def _roll(w, arg):
    """A roll changes faces, never a zone's order: a zone's things still pending on the
    stack are rolled from its own list, with no copy made first."""
    w.stmt(CLEAR_MEMO, f"_W.roll({_in_place(*w.pop_item())})")


def _build_list(w, n):
    items = w.pops(n)
    w.push(f"({', '.join(items)},)" if items else "()", EXPR if items else CONST)


def _text(w, n):
    parts = w.pops(n)
    w.push(f"_text(_W, ({', '.join(parts)},))" if parts else "''")


def _new_event(w, arg):
    name, fields = arg
    values = w.pops(len(fields))
    pairs = ", ".join(f"{_const(f)}: {v}" for f, v in zip(fields, values))
    w.push(f"_Event({_const(name)}, {{{pairs}}})")


def _dup(w, arg):
    text, kind, ref = w.pop_item()
    if kind == EXPR:
        w.push(text, kind)
        w.flush()
        text, kind, ref = w.pop_item()
    w.push(text, kind, ref)
    w.push(text, kind, ref)


def _pop(w, arg):
    text, kind, _ = w.pop_item()
    if kind == EXPR:
        w.stmt(text)


# Builtins written in place instead of called: each argument appears exactly once, so it
# is evaluated once and in order, as the call would; the results are the registry's.
_INLINE_BUILTINS = {
    "min": "_min({0}, {1})",
    "max": "_max({0}, {1})",
    "is_die": "({0}.entry in _DICE)",
}


def _call_builtin(w, arg):
    index, argc = arg
    builtin = BUILTINS[index]
    if builtin.name == "len":
        w.push(f"_len({_items_of(w.pop_item())})")
        return
    if builtin.name == "count_face" and w.tallies is not None and w.tallies.answers(w, w.stack[-2]):
        _count_from_tally(w)
        return
    if builtin.name == "count_face" and w.stack[-1][1] == CONST:
        _count_faces(w)
        return
    loop = _LOOP_BUILTINS.get(builtin.name)
    if loop is not None:
        _loop_builtin(w, builtin, loop)
        return
    args = w.pops(argc)
    inline = _INLINE_BUILTINS.get(builtin.name)
    if inline is not None:
        w.push(inline.format(*args))
        return
    w.push(f"_b{index}(_W, {', '.join(args)})", EXPR, NOT_ZONE if builtin.returns.startswith("list") else None)


# Builtins written out as statements where they run, each as runtime/builtins.py runs it
# (the same reads of each thing, in the same order, so a failure is the same failure):
# the decisions of a match call them many times on a few things, and a loop in place
# costs less than the call. `_qi` holds the first argument (a collection's things: a
# zone's items or the list itself), `_qf` the second; `{out}` is the result's variable.
_LOOP_BUILTINS = {
    "count_face": ("{out} = 0",
                   "for _q in _qi:\n    if _q.face == _qf: {out} += 1"),
    "one_per_face": ("_qf, _qo = [], []",
                     "for _q in _qi:\n    if _q.face not in _qf:\n        _qf.append(_q.face)\n        _qo.append(_q)",
                     "{out} = {frozen}(_qo)"),
    "faces_in": ("_qf = []",
                 "for _q in _qi:\n    if _q.face not in _qf: _qf.append(_q.face)",
                 "{out} = {frozen}(_qf)"),
    "with_entry": ("_qo = []",
                   "for _q in _qi:\n    if _q.entry == _qf: _qo.append(_q)",
                   "{out} = {frozen}(_qo)"),
    "partners": ("_qo = []",
                 "for _q in _qi:\n    if _len(_q) > 1 and _q[0] == _qf: _qo.append(_q[1])",
                 "{out} = {frozen}(_qo)"),
    "take": ("{out} = {frozen}(_qi[:_qf]) if _qf > 0 else ()",),
}


def _loop_builtin(w, builtin, lines: tuple) -> None:
    """A builtin of _LOOP_BUILTINS in place: its arguments evaluated in order, then its lines.
    Its result is made immutable (`{frozen}`), unless a loop starts on it at once (the list
    goes straight into the loop's own list, which nothing but the loop's steps reads, and
    no later line of a builtin changes a list it did not just make) or a roll or a move
    takes it at once (_moved_or_rolled_next)."""
    first, *rest = w.stack[-len(builtin.params):]
    del w.stack[-len(builtin.params):]
    things = _items_of(first) if builtin.params[0].startswith("coll") else first[0]
    at = w.pc + 1
    loop = at < w.end and w.code[at][0] == O.ITER_START
    out = f"l{w.code[at][1][0]}" if loop else w.next_slot()  # set only after `_qi` and `_qf` hold the arguments
    frozen = "" if loop or _moved_or_rolled_next(w) else "_tuple"
    w.push_assigned(out, [f"_qi = {things}", *(f"_qf = {text}" for text, _, _ in rest),
                          *(line.format(out=out, frozen=frozen) for line in lines)],
                    NOT_ZONE if builtin.returns.startswith("list") else None)


def _moved_or_rolled_next(w) -> bool:
    """Whether the next instructions roll the value just made, or move it to a zone named
    outright: World.roll and World.move read a list as a tuple and keep neither."""
    code, at = w.code, w.pc + 1
    if at < w.end and code[at][0] == O.ROLL:
        return True
    return at + 1 < w.end and code[at][0] == O.ZONE and code[at + 1][0] == O.MOVE


def _count_faces(w) -> None:
    """count_face of a face written out. Counts of several faces of the same things, one
    after the other with only their results stored between (`let a = count_face(z, x)`,
    `let b = count_face(z, y)`) or values left pending on the stack (`len(z) -
    count_face(z, x) - count_face(z, y)`), share one pass over the things: nothing run
    between them can change the things, each reads every thing's face as the first one
    does, so the first one fails where any of them would, and a pending value that fails
    still fails after the first count. Each count's result is `_c<pc>`, or the local the
    next instruction stores it in, counted there directly (a failure ends the run, so
    nobody sees a local half counted)."""
    face = w.pop()
    things = _items_of(w.pop_item())
    counter = f"_c{w.pc}"
    local = w.stored_next()
    if local is not None and not re.search(rf"\bl{local}\b", things):
        # counted straight into the local the count is stored in next (its store then has
        # nothing to do); stack items reading the local are evaluated first, as its store would
        w.flush_local(local)
        counter = f"l{local}"
    group = w.counting
    if (group is not None and group["things"] == things and _only_stores(w, group, things)
            and counter not in group["faces"].values()):  # a local counting two faces would add them up
        face_counter = group["faces"].setdefault(face, counter)
        w.stmts[group["at"] - 1] = (f"{' = '.join(dict.fromkeys(group['faces'].values()))} = 0", group["pc"])
        w.stmts[group["at"]] = (_face_pass(group["faces"]), group["pc"])
        w.push(*_counter_item(face_counter))
        return
    w.stmt(f"_qi = {things}", f"{counter} = 0", _face_pass({face: counter}))
    w.counting = {"things": things, "at": len(w.stmts) - 1, "pc": w.pc, "faces": {face: counter}}
    w.push(*_counter_item(counter))


def _counter_item(counter: str) -> tuple:
    """A count's result on the stack: its own `_c<pc>`, or the local it was counted in."""
    return (counter, LOCAL, int(counter[1:])) if counter.startswith("l") else (counter, SLOT, None)


def _face_pass(faces: dict) -> str:
    """One loop over the things in `_qi` counting each face in its own counter."""
    if len(faces) == 1:
        (face, counter), = faces.items()
        return f"for _q in _qi:\n    if _q.face == {face}: {counter} += 1"
    tests = "\n".join(f"    {'if' if i == 0 else 'elif'} _qf == {face}: {counter} += 1"
                      for i, (face, counter) in enumerate(faces.items()))
    return f"for _q in _qi:\n    _qf = _q.face\n{tests}"


_STORE_OF_COUNT = re.compile(r"(l\d+) = _c\d+")


def _only_stores(w, group: dict, things: str) -> bool:
    """Whether only counts' results went into locals since the group's pass, none of which
    the things are read through."""
    counted_in = [c for c in group["faces"].values() if c.startswith("l")]  # counted straight into locals
    for text, _ in w.stmts[group["at"] + 1:]:
        store = _STORE_OF_COUNT.fullmatch(text)
        if store is None:
            return False
        counted_in.append(store[1])
    return not any(re.search(rf"\b{local}\b", things) for local in counted_in)


_LOCAL_NAME = re.compile(r"l\d+")
_THINGS_ENTRY = re.compile(r"l\d+\.entry")


class FaceTallies:
    """Counts of faces answered from a tally, in a function that only reads the game.

    Nothing such a function runs can move, roll or make a thing, so the faces of a
    zone's items (or of a list) stay as they were at its first count for the whole call.
    A count in a loop whose turns all read the same things (`count_face(z, f)` for each
    face `f` of a list) is answered from a dict made by the first count that reads them
    (`_h<n>`, face -> how many), keyed on the very list it was made from (`_hi<n>`), so
    things reached through a local that changes are tallied again when the list differs.
    The tally reads every thing's face in order, as that count's loop would, so a thing
    that cannot be read fails where the count fails.

    Things named only through locals the function never sets (`party of p`, p a
    parameter) are the same list at every count of the call: those counts skip both
    naming them again and the key, and test only whether the tally was made (`_h<n>`
    starts as None).

    A tally costs about two and a half counts of one face and a lookup a fifth of one
    (callgrind, five to seven things): counts that are not repeated by a loop stay loops.
    The translation runs twice: first noting the things counted in such loops, then
    answering their counts from tallies (`tallied`).
    """

    def __init__(self, fn, tallied: tuple = ()):
        self.tallied = tallied
        self.looped: dict = {}      # things counted in a loop whose turns all read them (an ordered set)
        self.loops = [(top, back, locals_set(fn.code, top, back)) for _, top, back in loops_of(fn)]
        self.fixed = {f"l{i}" for i in range(fn.nlocals)} - {f"l{i}" for i in locals_set(fn.code, 0, len(fn.code))}
        self.keyed: set = set()     # the tallies some count tests by their key (`_hi<n>`)

    @classmethod
    def of(cls, fn):
        """For a function that reads only and counts faces in a loop, else None."""
        counts = any(op == O.CALL_BUILTIN and BUILTINS[arg[0]].name == "count_face" for op, arg in fn.code)
        return cls(fn) if counts and _reads_only(fn.code) and loops_of(fn) else None

    def answers(self, w, item) -> bool:
        """Whether the count about to run (its things the stack item `item`) reads a tally."""
        things = _items_of(item)
        if things in self.tallied:
            return True
        # a zone's list or a local's (not one made for the count), the same one at every turn
        if (item[1] == LOCAL or item[2] == ZONE_VALUE or _LOCAL_NAME.fullmatch(things)) and self._repeated(w.pc, things):
            self.looped[things] = None
        return False

    def _repeated(self, pc: int, things: str) -> bool:
        """Whether the count at pc is in a loop whose turns all read the same things."""
        read = {int(slot) for slot in re.findall(r"\bl(\d+)\b", things)}
        return any(top <= pc <= back and not read & changed for top, back, changed in self.loops)

    def steady(self, things: str) -> bool:
        """Whether the things are named only through locals the function never sets (and
        the zones' table): the same list wherever the call counts them."""
        return set(re.findall(r"[A-Za-z_]\w*", things)) <= self.fixed | _NAMING_A_ZONE

    def head(self) -> list:
        """The tallies' start values: none made, and the key no list is."""
        steady = [f"_h{n}" for n, things in enumerate(self.tallied) if self.steady(things)]
        keyed = [f"_hi{n}" for n in sorted(self.keyed)]
        return ([f"{' = '.join(steady)} = None"] if steady else []) + ([f"{' = '.join(keyed)} = _MISS"] if keyed else [])


# The names in the things of a count besides locals: a zone (`_Z[1][l0.seat].items`) or a
# collection told apart when it runs (_items_of).
_NAMING_A_ZONE = {"_Z", "seat", "items", "_t", "_type", "_Zone", "if", "else", "is"}


# What may change a thing's face or a zone's things, or run code that may: a read-only
# function's callees are called through the memo (CALL_MEMO), so a plain call may act.
_MAY_CHANGE_THINGS = {op.code for op in O.OPS if op.changes} | {
    O.CALL, O.CALL_FIELD, O.PERFORM, O.DECIDE, O.DECIDE_ACTION, O.DECIDE_SECRET, O.ASK_FIRST,
    O.NARRATE, O.NARRATE_TO}


def _reads_only(code: list) -> bool:
    """Whether no instruction of the code may change a thing's face or a zone's things."""
    return all(op not in _MAY_CHANGE_THINGS for op, _ in code)


def steady_loops(fn) -> set:
    """The ITER_STARTs of the `for` loops whose bodies (from the top to the way back, where
    compiler/codegen.py lays them, inner loops included) cannot change the game: no zone
    changes while such a loop walks it, so it walks the zone's own list, with no copy.
    The list is the loop's own hidden local, read by its steps only: it escapes nowhere."""
    code = fn.code
    out = set()
    for kind, top, back in loops_of(fn):
        if kind != "for" or not _reads_only(code[top:back + 1]):
            continue
        at = top - 1
        while at >= 0 and (code[at][0] != O.ITER_START or tuple(code[at][1]) != tuple(code[top][1][:2])):
            at -= 1
        if at >= 0:
            out.add(at)
    return out


def _count_from_tally(w) -> None:
    """count_face answered from the tally of its things (FaceTallies), made by the first
    count that reads them (or again when they are another list): the things are evaluated,
    then the face, as the count's loop would."""
    face_text, face_kind, _ = w.pop_item()
    things = _items_of(w.pop_item())
    n = w.tallies.tallied.index(things)
    out = w.next_slot()
    tally = f"for _q in _qi:\n    _hf = _q.face\n    if _hf in _h{n}: _h{n}[_hf] += 1\n    else: _h{n}[_hf] = 1"
    if face_kind != EXPR and w.tallies.steady(things):  # naming the things again can neither fail nor differ
        made = f"if _h{n} is None:\n    _qi, _h{n} = {things}, {{}}\n    " + tally.replace("\n", "\n    ")
        w.stmt(made, f"{out} = _h{n}.get({face_text}, 0)")
    else:
        lines = [f"_qi = {things}"]
        if face_kind == EXPR:  # evaluated after the things, before the tally reads a face
            lines.append(f"_qf = {face_text}")
            face_text = "_qf"
        w.tallies.keyed.add(n)
        made = f"if _qi is not _hi{n}:\n    _hi{n}, _h{n} = _qi, {{}}\n    " + tally.replace("\n", "\n    ")
        w.stmt(*lines, made, f"{out} = _h{n}.get({face_text}, 0)")
    w.push(out, SLOT)


def _index(w, arg):
    """INDEX tests the bounds in place and calls _index (which says what is wrong) only when
    they fail (not at all where runtime/ranges.py proved the index inside a tuple's
    length). An index that is neither a number written out nor a local is evaluated first,
    into `_n`, where the list is a constant or a local (reading it cannot fail, and nothing
    the index does changes it); otherwise the call keeps the interpreter's order, in which
    the list's evaluation may fail before the index's."""
    i = w.pop()
    a, a_kind, _ = w.pop_item()
    if w.arithmetic.get(w.pc) == IN_BOUNDS:  # runtime/ranges.py proved it: no test
        w.push(f"({a})[{i}]")
    elif _LOCAL_NAME.fullmatch(a) and i.isdigit():  # a number written out is never negative
        w.push(f"({a}[{i}] if {i} < _len({a}) else _index({a}, {i}))")
    elif _LOCAL_NAME.fullmatch(a) and _LOCAL_NAME.fullmatch(i):
        w.push(f"({a}[{i}] if 0 <= {i} < _len({a}) else _index({a}, {i}))")
    elif i.isdigit():
        w.push(f"(_t[{i}] if {i} < _len(_t := {a}) else _index(_t, {i}))")
    elif a_kind in (CONST, LOCAL, SLOT):  # read after the index, as nothing the index does can change it
        w.push(f"({a}[_n] if 0 <= (_n := {i}) < {_length_of(a, a_kind)} else _index({a}, _n))")
    else:
        w.push(f"_index({a}, {i})")


def _length_of(text: str, kind: int) -> str:
    """A list's length: written out when it is a constant."""
    value = ast.literal_eval(text) if kind == CONST else None
    return str(len(value)) if type(value) in (tuple, str) else f"_len({text})"


def _as_entry(w, kind):
    """The interpreter's AS_ENTRY test, in place; or left to the field read just after it,
    where the value is a thing's entry (a text: a dict's test cannot fail on a list)."""
    value, entries = w.pop(), w.ctx.kinds.get(kind, ())
    at = w.pc + 1
    if (at < w.end and w.code[at][0] == O.ENTRY_FIELD and _THINGS_ENTRY.fullmatch(value)
            and (kind, w.code[at][1]) in w.ctx.field_tables):
        w.push(value, EXPR, KindTested(kind))
        return
    w.push(f"(_t if (_t := {value}) in {_const(entries)} or _t is None else _not_entry(_t, {_const(kind)}))")


def _iter_start(w, arg):
    """A loop's list: a zone's things copied, so that moves in its body leave the things it
    walks as they were at its start, unless its body cannot change the game (steady_loops)."""
    items, index = arg
    item = w.pop_item()
    w.flush_local(index)
    if item[1] != EXPR:  # evaluating it cannot fail: it may move into a `for` (structure.Block.foreach)
        w.movable.add(items)
    if item[0] == f"l{items}":  # a builtin's list, made in it already (_loop_builtin)
        w.stmt(f"l{index} = 0")
        return
    value = _items_of(item, snapshot=w.pc not in w.steady)
    w.flush_local(items)
    w.stmt(f"l{items} = {value}", f"l{index} = 0")


def _create(w, arg):
    zone = w.pop()
    entry = w.pop()
    w.result(CLEAR_MEMO, f"{w.next_slot()} = _W.create({entry}, {zone})")


def _create_many(w, arg):
    w.flush()  # the entry and the zone are read again when the zone is full
    count, zone, entry = w.pops(3)[::-1]
    w.stmt(CLEAR_MEMO, f"_n = _W.create_many({entry}, {zone}, _c := {count}, _steps + 1)",
           "_steps -= _n\nif _steps < 0: _oos()", f"if _n < _c: _W.create({entry}, {zone})")


def _ask_first(w, arg):
    player = w.pop()
    w.result(f"{w.next_slot()} = _V.ask_first({player}, {_const(arg)})")


def _call(w, arg, memo: bool):
    fn_index, argc = arg
    w.flush()  # the arguments too: they were evaluated before the call spent its step
    args = w.pops(argc)
    ctx = w.ctx
    if fn_index in ctx.depth.counted:  # the callee knows its depth (_dp): the interpreter's frame count
        nparams = ctx.program.functions[fn_index].nparams
        args_text = ", ".join(args + ["None"] * (nparams - len(args)) + ["_dp + 1"])
    else:
        args_text = ", ".join(args)
    call = _invoke(f"f{fn_index}", args_text, fn_index in ctx.generators)
    guard = _call_guard(w)
    slot = w.next_slot()
    if memo:
        key = f"({fn_index}, {', '.join(args)},)" if args else f"({fn_index},)"
        # the result goes through _r: the first argument's stack variable is also the result's
        w.result(f"_k = {key}", "_r = _M.get(_k, _MISS)",
                 "if _r is _MISS:\n    " + guard.replace("\n", "\n    ") + f"\n    _r = _M[_k] = {call}",
                 f"{slot} = _r")
    else:
        w.result(guard, f"{slot} = {call}")


def _call_field(w, arg):
    """CALL_FIELD: the entry's function is found first (as the interpreter does), then the
    step is spent and the call made; all of a field's functions are generators or none is."""
    kind, field, argc = arg
    w.flush()
    args = w.pops(argc)
    entry = w.pop()
    ctx = w.ctx
    targets = behaviour_targets(ctx.program, kind, field)  # all counted or none (analyse)
    args_text = ", ".join(args + (["_dp + 1"] if targets[0] in ctx.depth.counted else []))
    call = _invoke("_FN[_c]", args_text, targets[0] in ctx.generators)
    w.result(f"_c = _behaviour(_ENTRIES, {entry}, {_const(kind)}, {_const(field)})", _call_guard(w),
             f"{w.next_slot()} = {call}")


def _invoke(callee: str, args_text: str, generator: bool) -> str:
    call = f"{callee}({args_text})"
    return f"(yield from {call})" if generator else call


def _call_guard(w) -> str:
    """What a call does before it starts: spend a step, and (where calls may nest deep) check the depth."""
    return STEP + (f"\nif _dp > {MAX_DEPTH}: _deep()" if w.checks_depth else "")


def _holders(w, arg):
    entry, places = arg
    w.push(f"_W.holders({_const(entry)}, {_const(places)})", EXPR, NOT_ZONE)


def _decide(kind: str):
    def emit(w, tag):
        """The options are read where the decision is made, the agent given a list of its
        own (`_list`): a zone's things or a list a loop built need no snapshot first."""
        player = w.pop_item()
        options = _in_place(*w.pop_item())
        slot = w.next_slot()
        w.result(f"_o = {options}", f"_p = {player[0]}",
                 "if _p is None: _no_player()",
                 f"if _len(_o) <= 1: {slot} = _o[0] if _o else None",
                 f"else: {slot} = yield _Decision(_p, {kind!r}, {_const(tag)}, _list(_o))")
    return emit


def _decide_secret(w, tag):
    players = w.pop()
    options = w.pop()
    w.result(f"_o = {options}", f"_p = {players}",  # evaluated in the bytecode's order
             f"{w.next_slot()} = yield from _secret(_W, _p, _o, {_const(tag)})")


def _perform(w, arg):
    player = w.pop()
    option = w.pop()
    depth = ", _dp=_dp + 1" if w.ctx.depth.bodies_counted(w.ctx.program) else ""
    w.result(f"_o = {option}", f"_p = {player}", f"{w.next_slot()} = yield from _ACT[_o[0]](_p, *_o[1:]{depth})")


def _narration_line(w, arg, private: bool):
    fn_index, argc = arg
    args = "".join(f"{a}, " for a in w.pops(argc))
    w.stmt(f"_W.narration.append(_narrate(_V, {fn_index}, ({args}), {private}))")


def _return(w, arg):
    value = w.pop()
    w.flush()
    w._emit(f"return {value}")
    w.stack.clear()


def _jump(w, target):
    w.end_block((target,))
    w.arms = [Arm(None, w.pc, [(STEP, w.pc)] if target <= w.pc else [], target)]


def _jump_if(template: str):
    def emit(w, arg):
        cond = template.format(x=w.pop())
        w.branch(cond, arg, w.pc + 1)
    return emit


def _jump_if_const(symbol: str):
    def emit(w, arg):
        value, target = arg
        w.branch(f"{w.pop()} {symbol} {_const(value)}", target, w.pc + 1)
    return emit


def _jump_if_var_ne(w, arg):
    slot, var, value, target = arg
    w.branch(f"l{slot}.vars[{var}] != {_const(value)}", target, w.pc + 1)


def _jump_if_cancelled(w, arg):
    w.branch(f"l{arg[0]}.cancelled", arg[1], w.pc + 1)


def _skip_if_quiet(w, target):
    w.branch("_W.quiet", target, w.pc + 1)


def _for_iter(w, arg, push_slot=None):
    items, index, var, end = arg[:4]
    w.flush_local(var)  # the step assigns var: stack items reading it keep the old value
    w.end_block((w.pc + 1, end))
    pre = [(f"l{var} = l{items}[l{index}]\nl{index} += 1", w.pc)]
    w.foreach = (f"l{var}", f"l{items}", f"l{index}", items in w.movable)
    if push_slot is not None:
        if w.pc + 1 in w.joins:
            pre.append((f"{w.next_slot()} = l{push_slot}", w.pc))
            w.pushed[w.pc + 1] = [(w.next_slot(), SLOT, None)]
        else:
            w.pushed[w.pc + 1] = [(f"l{push_slot}", LOCAL, push_slot)]
    w.arms = [Arm(f"l{index} < _len(l{items})", w.pc, pre, w.pc + 1), Arm(None, w.pc, [], end)]


def _switch_var(w, arg):
    """A switch read back as its guard (switch_as_guard). The value read is kept in `_v`: a
    switch whose only way in is another's miss (nothing ran since) tests `_v` again."""
    slot, var, table, end = arg
    own, miss = switch_as_guard(arg, w.pc)
    value = "_v" if w.pc in w.after_miss else f"(_v := l{slot}.vars[{var}])"
    # The miss last: a chain of switches each reached by the last one's miss is written
    # `if ... elif ...` (runtime/structure.py), not nested one level deeper per guard.
    hit, rest = Arm(f"{value} == {_const(own)}", w.pc, [], w.pc + 1), Arm(None, w.pc, [], miss)
    if w.pc not in w.heads or miss == end:
        w.end_block((w.pc + 1, miss))
        w.arms = [hit, rest]
        return
    values = ", ".join(_const(v) for v in table)
    w.end_block((end, miss, w.pc + 1))
    hit.cond = f"_v == {_const(own)}"
    w.arms = [Arm(f"{value} not in {{{values}}}", w.pc, [], end), hit, rest]


# Numbers stay within scripting.INT_BOUND (E0504), checked inline as the interpreter does:
# a chained comparison with a constant costs little, and only a result out of bounds (or a
# list or text, for ADD) calls _sized. `_n` holds the result just made; nested uses
# finish before the outer one assigns it. `_NB` is -_B, made once (negating a number of
# that size in place would make a new one at every test).
BOUNDED = "(_n if _NB < (_n := {{a}} {op} {{b}}) < _B else _sized(_n))"


# A sum of unknown type: a number in bounds, or a list or text no longer than
# scripting.MAX_LENGTH, is the answer as it stands; only what _sized would refuse calls it.
JOINED = ("(_n if ((_nt := _type(_n := {a} + {b})) is _int and _NB < _n < _B)"
          " or (_nt is not _int and _len(_n) <= _L) else _sized(_n))")
# A sum known to be a list or a text: only its length is tested.
JOINED_SEQUENCES = "(_n if _len(_n := {a} + {b}) <= _L else _sized(_n))"


def _arithmetic(symbol: str):
    """ADD, SUB, MUL: bare where runtime/ranges.py proved the result stays within the bounds;
    else bounds-tested; an ADD known to join lists or texts tests the length alone, and
    one of which nothing is known tests the type too."""
    bounded = BOUNDED.format(op=symbol)

    def emit(w: _BlockWriter, arg) -> None:
        b = w.pop()
        a = w.pop()
        proved = w.arithmetic.get(w.pc)
        if proved == BARE:
            template = f"({{a}} {symbol} {{b}})"
        elif proved == NUMBERS or symbol != "+":
            template = bounded
        elif proved == SEQUENCES:
            template = JOINED_SEQUENCES
        else:
            template = JOINED
        w.push(template.format(a=a, b=b))
    return emit


TRANSLATIONS = {
    "LOAD_LOCAL": _load_local,
    "CONST": lambda w, v: w.push(_const(v), CONST),
    "FOR_ITER_LOAD": lambda w, arg: _for_iter(w, arg, push_slot=arg[4]),
    "JUMP_IF_FALSE": _jump_if("not {x}"),
    "STORE_LOAD": _store_load,
    "JUMP": _jump,
    "JUMP_IF_NE_CONST": _jump_if_const("!="),
    "CALL_BUILTIN": _call_builtin,
    "STORE_LOCAL": _store_local,
    "JUMP_IF_VAR_NE": _jump_if_var_ne,
    "ADD": _arithmetic("+"),
    "ITER_START": _iter_start,
    "RETURN": _return,
    "ENTRY_FIELD": _entry_field,
    "ZONE": _zone,
    "BUILD_LIST": _build_list,
    "LOAD_LOCAL2": _load_local2,
    "PLAYER_VAR": _unary("{x}.vars[{arg}]"),
    "IN": _in,
    "LOCAL_PLAYER_VAR": lambda w, arg: w.push(f"l{arg[0]}.vars[{arg[1]}]"),
    "CALL_MEMO": lambda w, arg: _call(w, arg, memo=True),
    "CALL": lambda w, arg: _call(w, arg, memo=False),
    "SWITCH_VAR": _switch_var,
    "LOCAL_EVENT_FIELD": lambda w, arg: w.push(_field(f"l{arg[0]}", arg[1])),
    "ZONE_OF": _zone_of,
    "AS_ENTRY": _as_entry,
    "JUMP_IF_TRUE": _jump_if("{x}"),
    "LOCAL_FACE": lambda w, slot: w.push(f"l{slot}.face"),
    "JUMP_IF_CANCELLED": _jump_if_cancelled,
    "THING_ENTRY": _unary("{x}.entry"),
    "NEW_LIST": lambda w, arg: w.push("[]"),
    "APPEND": lambda w, slot: w.stmt(f"l{slot}.append({w.pop()})"),
    "SUB": _arithmetic("-"),
    "THING_FACE": _unary("{x}.face"),
    "POP": _pop,
    "GT": _binary("({a} > {b})"),
    "LOAD_GLOBAL": lambda w, slot: w.push(f"_G[{slot}]"),
    "JUMP_IF_EQ_CONST": _jump_if_const("=="),
    "ENTRIES": _entries,
    "EQ": _binary("({a} == {b})"),
    "FOR_ITER": _for_iter,
    "MOVE": _move,
    "EVENT_FIELD": lambda w, field: w.push(_field(w.pop(), field)),
    "MUL": _arithmetic("*"),
    "NEW_EVENT": _new_event,
    "DUP": _dup,
    "INDEX": _index,
    "NE": _binary("({a} != {b})"),
    "LT": _binary("({a} < {b})"),
    "LE": _binary("({a} <= {b})"),
    "GE": _binary("({a} >= {b})"),
    "MOD": _by_constant("_mod({a}, {b})", "(({a}) % {b})"),
    "DIV_UP": _by_constant("_div_up({a}, {b})", "(-(-({a}) // {b}))"),
    "DIV_DOWN": _by_constant("_div_down({a}, {b})", "(({a}) // {b})"),
    "NEG": _unary("(-{x})"),
    "NOT": _unary("(not {x})"),
    "STORE_GLOBAL": _mutation("_G[{arg}] = {0}", 1),
    "LOAD_OPTION": lambda w, name: w.push(f"_O[{_const(name)}]"),
    "SET_PLAYER_VAR": _set_var("{0}.vars[{arg}] = {1}"),
    "THING_VAR": _unary("{x}.vars[{arg}]"),
    "SET_THING_VAR": _set_var("{0}.vars[{arg}] = {1}"),
    "SET_FACE": _mutation("_W.set_face({0}, {1})", 2),
    "THING_OWNER": _unary("_owner({x})"),
    "THING_ZONE": _unary("{x}.zone"),
    "ZONE_OWNER": _unary("{x}.owner"),
    "PLAYER_SEAT": _unary("({x}.seat + 1)"),
    "SET_EVENT_FIELD": _set_var("{0}.fields[{arg}] = {1}"),
    "PLAYERS": lambda w, arg: w.push("_P", STABLE),
    "TO_LIST": _to_list,
    "FREEZE": _freeze,
    "CREATE": _create,
    "CREATE_MANY": _create_many,
    "DESTROY": _mutation("_W.destroy({0})", 1),
    "ROLL": _roll,
    "SHUFFLE": _mutation("_W.shuffle({0})", 1),
    "RANDOM_FROM": _unary("_W.random_from({x})"),
    "TEXT": _text,
    "NARRATE": lambda w, arg: _narration_line(w, arg, private=False),
    "NARRATE_TO": lambda w, arg: _narration_line(w, arg, private=True),
    "CHECK_NESTING": _unary("_check_nesting({x})"),
    "CALL_FIELD": _call_field,
    "ASK_FIRST": _ask_first,
    "HOLDERS": _holders,
    "PLACE": _mutation("_W.place({0}, {1})", 2),
    "CANCEL": lambda w, slot: w.stmt(CLEAR_MEMO, f"l{slot}.cancelled = True"),
    "DECIDE": _decide("choice"),
    "DECIDE_ACTION": _decide("action"),
    "DECIDE_SECRET": _decide_secret,
    "PERFORM": _perform,
    "SKIP_IF_QUIET": _skip_if_quiet,
    "EQ_CONST": _unary_const("({x} == {arg})"),
    "NE_CONST": _unary_const("({x} != {arg})"),
}
_BY_CODE = [TRANSLATIONS[op.name] for op in O.OPS]


def _mark_sequences(w: _BlockWriter, depths) -> None:
    """The operands runtime/ranges.py proved to be lists or texts are never zones. The
    instruction about to run takes them off the stack, so a local's value (LOCAL) may be
    read as a plain expression: no store can come between."""
    if type(depths) is not frozenset:
        return
    for depth in depths:
        text, kind, ref = w.stack[-1 - depth]
        if ref != ZONE_VALUE:
            w.stack[-1 - depth] = (text, STABLE if kind == LOCAL else kind, NOT_ZONE)


# ------------------------------------------------------------------ one function
def _blocks(fn, ctx: _Context, index: int, arithmetic: dict, tallies: "FaceTallies | None" = None) -> list:
    """The function's basic blocks, translated, indexed from 0 (the entry)."""
    code = fn.code
    heads = switch_heads(code)
    leaders = {0}
    for pc, (op, _) in enumerate(code):
        if op in BRANCHES:
            leaders.update(t for t in branch_targets(code, pc, heads) if t < len(code))
            if pc + 1 < len(code):
                leaders.add(pc + 1)
    starts = sorted(leaders)
    number = {pc: i for i, pc in enumerate(starts)}
    bounds = list(zip(starts, starts[1:] + [len(code)]))
    ways_in: dict = {}
    only_way: dict = {}  # pc -> whether every way into it is its block's one forward way on
    for start, end in bounds:
        last = end - 1
        targets = branch_targets(code, last, heads) if code[last][0] in BRANCHES else [end]
        for t in targets:
            ways_in[t] = ways_in.get(t, 0) + 1
            only_way[t] = only_way.get(t, True) and len(targets) == 1 and t > last
    joins = join_names(code, only_way, {pc for pc, n in ways_in.items() if n > 1})
    after_miss = frozenset(miss for pc, (op, arg) in enumerate(code) if op == O.SWITCH_VAR
                           for miss in [switch_as_guard(arg, pc)[1]]
                           if ways_in.get(miss) == 1 and miss < len(code) and code[miss][0] == O.SWITCH_VAR)
    tallied = tallied_loops(fn)
    steady = steady_loops(fn)
    stack_in: dict = {0: []}
    blocks: dict = {}
    movable: set = set()
    pending = [0]
    while pending:  # translate blocks as they are reached, so each knows the stack it starts with
        b = pending.pop()
        if b in blocks:
            continue
        start, end = bounds[b]
        w = _BlockWriter(ctx, stack_in[b], joins, heads, after_miss, index in ctx.depth.checked, arithmetic)
        w.movable = movable  # a loop's ITER_START block is translated before its FOR_ITER block
        w.code, w.end = code, end
        w.tallies = tallies
        w.steady = steady
        w.pc = start
        for pc in range(start, end):
            key = fn.source_at(pc)
            if key != w.key:
                w.flush()  # one generated line never mixes two source lines (tagged with the last pc)
                w.key = key
            w.pc = pc
            op, arg = code[pc]
            _mark_sequences(w, arithmetic.get(pc))
            _BY_CODE[op](w, arg)
        if code[end - 1][0] not in BRANCHES:
            w.end_block((end,) if end < len(code) else ())
            if end < len(code):
                w.arms = [Arm(None, end - 1, [], end)]
            else:
                w._emit("_ran_off()")
        arms = [Arm(a.cond, a.pc, a.pre, number[a.target]) for a in w.arms]
        blocks[b] = Block(w.stmts, arms, w.foreach if start == end - 1 else None, TALLY if start in tallied else None)
        for a in w.arms:
            t = number[a.target]
            if t not in stack_in:
                if a.target in joins:
                    stack_in[t] = w.join_stack(a.target, len(w.stack) + len(w.pushed.get(a.target, ())))
                else:
                    stack_in[t] = list(w.stack) + w.pushed.get(a.target, [])
                pending.append(t)
    # unreachable blocks become empty stubs: nothing branches to them
    return [blocks.get(i, Block([("_ran_off()", 0)])) for i in range(len(starts))]


def join_names(code: list, only_way: dict, joins: set) -> dict:
    """Where blocks join, the local the top of the stack arrives in, else None (it arrives
    in `_s<depth>` as the rest of the stack does). A value the join's first instruction
    stores in a local (`STORE_LOCAL 9`) arrives in that local itself when every way in is
    its block's one way on and goes forward (`only_way`): the value is set where the
    interpreter still holds it on its stack, but nothing runs in between (a forward jump
    spends no step, reads nothing and cannot fail), so no read, failure or step can tell.
    The join's store then has nothing left to do."""
    names = dict.fromkeys(joins)
    for pc in joins:
        local = stored_local(code, pc) if pc < len(code) and only_way[pc] else None
        if local is not None:
            names[pc] = f"l{local}"
    return names


# What a loop may not do to count its steps in locals: spend a step otherwise than at a way
# back (a call), or let other code run while the budget can be seen (a decision, a question
# asked of an agent).
_SPENDS_OR_YIELDS = ({op.code for op in O.OPS if op.spends} - {O.JUMP}) | {
    O.DECIDE, O.DECIDE_ACTION, O.DECIDE_SECRET, O.PERFORM, O.ASK_FIRST}


def tallied_loops(fn) -> set:
    """The loop tops whose loops may count their steps in locals (TALLY): nothing from the
    top to the way back (compiler/codegen.py lays every loop's body there, inner loops
    included) spends a step but the jumps back."""
    code = fn.code
    return {top for _, top, back in loops_of(fn)
            if all(code[at][0] not in _SPENDS_OR_YIELDS for at in range(top, back))}


def _loops_only_spend(fn) -> bool:
    """Whether a function's loops are all it spends steps in: one tally serves them all."""
    return bool(loops_of(fn)) and all(op not in _SPENDS_OR_YIELDS for op, _ in fn.code)


@dataclass
class FunctionSource:
    index: int
    lines: list          # (text, pc) of the whole `def`, pc -1 where no instruction is behind it
    generator: bool
    structured: bool     # False: laid out as a dispatch loop


# Python refuses a block nested 100 levels deep (its tokenizer's limit): a structured
# function nested deeper than this (a long chain of tests, each in the last's `else`) is
# laid out as a dispatch loop instead, which nests a few levels whatever its size.
MAX_INDENT = 80


def translate_function(fn, index: int, ctx: _Context, force_dispatch: bool = False) -> FunctionSource:
    arithmetic = ctx.arithmetic(index)
    fn = copy.copy(fn)
    fn.code = propagate_copies(fn)  # the same instructions, some reading another local
    tallies = FaceTallies.of(fn)
    blocks = _blocks(fn, ctx, index, arithmetic, tallies)
    if tallies is not None and tallies.looped:  # again, the things counted in loops tallied
        tallies = FaceTallies(fn, tuple(tallies.looped))
        blocks = _blocks(fn, ctx, index, arithmetic, tallies)
    body, uses_flag, structured = None, False, False
    if not force_dispatch:
        try:
            body, uses_flag = structure(blocks, TALLY if _loops_only_spend(fn) else None)
            structured = True
        except Unstructured:
            pass
        if structured and max((indent for indent, _, _ in body), default=0) > MAX_INDENT:
            body, uses_flag, structured = None, False, False  # Python would refuse to compile it
    if body is None:
        body = dispatch(blocks)
    generator = index in ctx.generators
    params = [f"l{i}=None" for i in range(fn.nparams)] + (["_dp=1"] if index in ctx.depth.counted else [])
    head = [(f"def f{index}({', '.join(params)}):", -1), ("    global _steps", -1)]
    others = [f"l{i}" for i in read_before_set(fn)]
    if others:
        head.append((f"    {' = '.join(others)} = None", -1))
    if uses_flag:
        head.append(("    _go = 0", -1))
    head.extend((f"    {line}", -1) for line in (tallies.head() if tallies is not None else ()))
    if generator:
        head.append(("    if False: yield  # a generator even when it never decides", -1))
    lines = list(head)
    for indent, text, pc in body:
        pad = "    " * (indent + 1)
        for part in text.split("\n"):
            lines.append((pad + part, pc))
    return FunctionSource(index, lines, generator, structured)


# ------------------------------------------------------------------ the program
def _callees(fn, program) -> list:
    """The functions a function may call: named ones, and every entry's code for a behaviour field."""
    out = []
    for op, arg in fn.code:
        if op == O.CALL or op == O.CALL_MEMO:
            out.append(arg[0])
        elif op == O.CALL_FIELD:
            out.extend(behaviour_targets(program, arg[0], arg[1]))
    return out


def behaviour_targets(program, kind: str, field: str) -> list:
    """The function of each entry of a kind for one behaviour field (defaults shared)."""
    entries = program.entries
    return list(dict.fromkeys(entries[e][field] for e in program.kinds[kind]))


def _behaviour_groups(program) -> list:
    """Each behaviour field's functions: one call site may reach any of them, so they are
    all generators or none is."""
    return [behaviour_targets(program, kind, field)
            for kind, fields in program.behaviours.items() if program.kinds[kind] for field in fields]


def _suspends_itself(fn) -> bool:
    """Asks a decision, or runs an action body (PERFORM), which is always a generator."""
    return any(op in (O.DECIDE, O.DECIDE_ACTION, O.DECIDE_SECRET, O.PERFORM) for op, _ in fn.code)


def analyse(program) -> _Context:
    """Which functions are generators, and which know (and test) how deep calls nest."""
    functions = program.functions
    performs = [_performs(fn) for fn in functions]
    bodies = sorted({a.body for a in program.actions})
    # What each function may start: the functions it calls, and every action body if it performs.
    edges = [_callees(fn, program) + (bodies if p else []) for fn, p in zip(functions, performs)]
    # Action bodies are generators where some function performs one (PERFORM runs it as one).
    generators = set(bodies if any(performs) else ()) | {i for i, fn in enumerate(functions) if _suspends_itself(fn)}
    groups = _behaviour_groups(program)
    changed = True
    while changed:  # a function that starts a generator is one (the same rule as classify())
        changed = False
        for i, targets in enumerate(edges):
            if i not in generators and any(t in generators for t in targets):
                generators.add(i)
                changed = True
        for group in groups:
            if any(t in generators for t in group) and not generators.issuperset(group):
                generators.update(group)
                changed = True
    # One call site (PERFORM, a behaviour field) may start any of a group: all know their depth or none.
    return _Context(program, generators, _depth_plan(edges, groups + [bodies]))


def _performs(fn) -> bool:
    return any(op == O.PERFORM for op, _ in fn.code)


@dataclass
class DepthPlan:
    """Where the fast path follows the interpreter's depth limit.

    The interpreter refuses a call made from its frame number MAX_DEPTH + 1 (runaway
    recursion). A function whose frames can never be that deep tests nothing; only a
    function reached through a cycle of calls, or at the end of a very long chain, does
    (`checked`). A function knows its depth (its `_dp` parameter, the interpreter's frame
    count) when it tests it or passes it on to a callee that knows it (`counted`); the
    others take no parameter and their callers pass none.
    """
    counted: set
    checked: set

    def bodies_counted(self, program) -> bool:
        """Whether PERFORM passes the depth (action bodies are all counted or none is)."""
        return bool(program.actions) and program.actions[0].body in self.counted


def _depth_plan(edges: list, groups: list) -> DepthPlan:
    deepest = _deepest_frames(edges)
    # `+ 1`: a card test's step, added later, may start any function from one level down.
    checked = {n for n, d in enumerate(deepest) if edges[n] and (d is None or d + 1 > MAX_DEPTH)}
    callers: list = [[] for _ in edges]
    for n, targets in enumerate(edges):
        for t in set(targets):
            callers[t].append(n)
    counted: set = set()
    pending = list(checked)
    while pending:
        while pending:  # whoever calls a function that knows its depth passes it on
            n = pending.pop()
            if n not in counted:
                counted.add(n)
                pending.extend(callers[n])
        for group in groups:
            if any(t in counted for t in group):
                pending.extend(t for t in group if t not in counted)
    return DepthPlan(counted, checked)


def _deepest_frames(edges: list) -> list:
    """The deepest frame number each function may run at when any function may be started
    at frame 1, or None when a cycle of calls leads to it (any depth).

    A function's deepest frame is known once its callers' are: functions are taken in that
    order; those left over are on a cycle or below one.
    """
    callees = [set(targets) for targets in edges]
    waiting = [0] * len(edges)
    for targets in callees:
        for t in targets:
            waiting[t] += 1
    deepest = [1] * len(edges)
    done = [False] * len(edges)
    ready = [n for n, w in enumerate(waiting) if w == 0]
    while ready:
        n = ready.pop()
        done[n] = True
        for t in callees[n]:
            deepest[t] = max(deepest[t], deepest[n] + 1)
            waiting[t] -= 1
            if waiting[t] == 0:
                ready.append(t)
    return [d if ok else None for d, ok in zip(deepest, done)]


@dataclass
class ModuleSource:
    text: str
    line_pcs: list       # per line (1-based line = index + 1): (function index, pc)
    functions: list      # [FunctionSource]


def translate(program, indexes=None, ctx: _Context | None = None, force_dispatch: bool = False) -> ModuleSource:
    """Python source for the given functions (default: all of them)."""
    ctx = ctx or analyse(program)
    indexes = range(len(program.functions)) if indexes is None else indexes
    out, line_pcs, sources = [], [], []
    for i in indexes:
        src = translate_function(program.functions[i], i, ctx, force_dispatch)
        sources.append(src)
        for text, pc in src.lines:
            out.append(text)
            line_pcs.append((i, pc))
        out.append("")
        line_pcs.append((i, -1))
    return ModuleSource("\n".join(out) + "\n", line_pcs, sources)
