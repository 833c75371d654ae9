"""The reference interpreter: a stack machine with explicit frames.

Script calls push a Frame and never recurse in Python, so a script can stop
at a decision (DECIDE, DECIDE_ACTION) and be resumed later with the answer:
run() returns a Decision, resume(answer) continues. Every run is bounded by a
step budget spent at backward jumps (every turn of a loop passes one) and
calls; running out is a ScriptError naming the script and its source line,
never a hang.

The dispatch loop is generated when this module loads, from the opcode table
(runtime/opcodes.py) and one body per opcode (BODIES below): an if/elif chain
over small integers. The table numbers opcodes by how often they run in real
matches (measured on the built-in packs, see docs/PERFORMANCE.md), and the
chain is split into ranges (DISPATCH_RANGES): the number of comparisons is most
of an instruction's cost, so the hottest opcodes are reached in one to four
tests. An opcode the table marks "changes" clears the memo before its body; one
marked "spends" writes SPEND where it spends a step, and only those may.

Functions that only read the game (decided by the compiler) are called with
CALL_MEMO: their result is kept for the same arguments until any opcode
changes the game, which clears the memo. Decision enumeration and policy
ratings ask the same questions many times between two moves.
"""
from __future__ import annotations

import ast
from typing import Optional

from . import opcodes as O
from .builtins import BUILTINS, ScriptFault
from .scripting import (CALL_BUDGET, DEFAULT_BUDGET, MAX_DEPTH, SCRIPT_FAILURES, Decision, OutOfSteps, ScriptError,
                        behaviour, divide_down, divide_up, index_item, make_decision, narrate, no_choice_here, no_player,
                        not_an_entry, remainder, check_nesting, script_error, secret_choice, too_deep)
from .scripting import INT_BOUND, checked_budget, sized
from .world import Event, World, Zone, owner_of

class Frame:
    __slots__ = ("fn", "pc", "locals", "stack", "memo_key")

    def __init__(self, fn, args, memo_key=None):
        self.fn = fn
        self.pc = 0
        locs = [None] * fn.nlocals  # one allocation: the parameters are the first locals
        locs[:len(args)] = args
        self.locals = locs
        self.stack: list = []
        self.memo_key = memo_key  # set by CALL_MEMO: the result is remembered on return


class VM:
    def __init__(self, program, world: World, budget: int = DEFAULT_BUDGET):
        self.program = program
        self.functions = program.functions
        self.world = world
        self.budget = checked_budget(budget)
        self.entries_of = program.kinds
        self.memo: dict = {}
        self.answer_first = None  # per seat, (ask, view) or None: ask(view, player, group) answers ASK_FIRST
        self.frames: list[Frame] = []
        self.result = None
        self.done = False
        self.asking = None  # a secret choice waiting for more answers (secret_choice)

    # ---------------------------------------------------------------- driving
    def start(self, fn_index: int, args=()) -> None:
        self.frames = [Frame(self.functions[fn_index], args)]
        self.done = False
        self.result = None

    def run(self) -> Optional[Decision]:
        """Run until the script finishes (None) or asks a Decision."""
        return self._run()

    def resume(self, answer) -> Optional[Decision]:
        if self.asking is not None:  # one answer of a secret choice: the next question, or all answers
            try:
                return self.asking.send(answer)
            except StopIteration as done:
                self.asking = None
                answer = done.value
        self.frames[-1].stack.append(answer)
        return self._run()

    def call(self, fn_index: int, args=()):
        """Run a function to completion (scores, ratings). It may not ask anything."""
        saved = (self.frames, self.done, self.result, self.budget, self.asking)
        self.budget = CALL_BUDGET
        try:
            self.start(fn_index, args)
            decision = self._run()
            if decision is not None:
                raise no_choice_here(self.functions[fn_index])
            return self.result
        finally:
            self.frames, self.done, self.result, self.budget, self.asking = saved

    def call_each(self, calls) -> list:
        """`call` for each (fn_index, args) in turn, their answers in a list (a policy's
        ratings of one decision's options; the fast engine binds once for them all)."""
        call = self.call
        return [call(fn_index, args) for fn_index, args in calls]

    def ask_first(self, player, group: str):
        """ASK_FIRST: the answer the player's asker in `answer_first` (set by the match) gives,
        or none. It runs in the middle of a run as `call` does: the run's frames and budget are kept."""
        askers = self.answer_first
        if askers is None or player is None:  # (none: the act site fails on it as it would have)
            return None
        asker = askers[player.seat]
        if asker is None:
            return None
        ask, view = asker
        return ask(view, player, group)

    def aside(self, fn_index: int, args=()):
        """Run a question in the middle of a run (a log line's narration), as `call` does,
        with a memo of its own: the run's memo decides where steps are spent, so it must be
        as if the question had never been asked. Python runs it nested, one level deep (a
        narration function cannot narrate); script calls inside it keep their own frames."""
        memo, self.memo = self.memo, {}
        try:
            return self.call(fn_index, args)
        finally:
            self.memo = memo

    def _narrate(self, arg, stack: list, private: bool):
        fn_index, argc = arg
        args = tuple(stack[len(stack) - argc:])
        del stack[len(stack) - argc:]
        return narrate(self, fn_index, args, private)


# ------------------------------------------------------------------ the dispatch loop
# Each body runs with these names: op, arg (the instruction), pc (already past it),
# code, stack, locs, frame, frames, world, memo, steps (the budget left), self (the VM).
# Macros: SPEND spends one step (SPEND n: n steps); ENTER(function, args, memo_key) pushes a script frame.
# DECIDE and DECIDE_ACTION: suspend with a Decision of their kind (one option or none: no question).
_SUSPEND = """\
player = stack.pop()
options = stack.pop()
if player is None:
    no_player()
if len(options) <= 1:  # nothing to decide
    stack.append(options[0] if options else None)
    continue
frame.pc = pc
self.budget = steps
return make_decision(player, "{kind}", arg, list(options))
"""

# A script call once its function and arguments are on the stack: spend a step, open a
# frame with the arguments (memo_key: where its answer is remembered, or None).
_CALL = """\
SPEND
if len(frames) > MAX_DEPTH:
    too_deep()
args = stack[len(stack) - argc:] if argc else ()
if argc:
    del stack[-argc:]
ENTER(self.functions[fn_index], args, {memo_key})
"""

BODIES: dict[str, str] = {
    "LOAD_LOCAL": "stack.append(locs[arg])",
    "CONST": "stack.append(arg)",
    "FOR_ITER_LOAD": """\
items_slot, index_slot, var_slot, end, push_slot = arg
items = locs[items_slot]
i = locs[index_slot]
if i < len(items):
    locs[var_slot] = items[i]
    locs[index_slot] = i + 1
    stack.append(locs[push_slot])
else:
    pc = end
""",
    "JUMP_IF_FALSE": """\
if not stack.pop():
    pc = arg
""",
    "STORE_LOAD": """\
locs[arg[0]] = stack.pop()
stack.append(locs[arg[1]])
""",
    "JUMP": """\
if arg < pc:
    SPEND
pc = arg
""",
    "JUMP_IF_NE_CONST": """\
if stack.pop() != arg[0]:
    pc = arg[1]
""",
    "CALL_BUILTIN": """\
index, argc = arg
args = stack[len(stack) - argc:]
del stack[len(stack) - argc:]
stack.append(BUILTINS[index].impl(world, *args))
""",
    "STORE_LOCAL": "locs[arg] = stack.pop()",
    "JUMP_IF_VAR_NE": """\
slot, var, value, target = arg
if locs[slot].vars[var] != value:
    pc = target
""",
    "ADD": """\
b = stack.pop()
v = stack[-1] + b
stack[-1] = v if type(v) is int and -INT_BOUND < v < INT_BOUND else sized(v)
""",
    "ITER_START": """\
v = stack.pop()
locs[arg[0]] = tuple(v.items) if type(v) is Zone else v
locs[arg[1]] = 0
""",
    "RETURN": """\
value = stack.pop()
if frames.pop().memo_key is not None:
    memo[frame.memo_key] = value
if not frames:
    self.result = value
    self.done = True
    return None
frame = frames[-1]
code, pc, stack, locs = frame.fn.code, frame.pc, frame.stack, frame.locals
stack.append(value)
""",
    "ENTRY_FIELD": "stack[-1] = world.entries[stack[-1]][arg]",
    "ZONE": "stack.append(world.zones[arg])",
    "BUILD_LIST": """\
if arg:
    items = tuple(stack[-arg:])
    del stack[-arg:]
    stack.append(items)
else:
    stack.append(())
""",
    "LOAD_LOCAL2": """\
stack.append(locs[arg[0]])
stack.append(locs[arg[1]])
""",
    "PLAYER_VAR": "stack[-1] = stack[-1].vars[arg]",
    "IN": """\
b = stack.pop()
stack[-1] = stack[-1] in (b.items if type(b) is Zone else b)
""",
    "LOCAL_PLAYER_VAR": "stack.append(locs[arg[0]].vars[arg[1]])",
    "CALL_MEMO": """\
fn_index, argc = arg
key = (fn_index, *stack[len(stack) - argc:])
if key in memo:  # a read-only function: its answer stands while the game is unchanged
    if argc:
        del stack[-argc:]
    stack.append(memo[key])
    continue
""" + _CALL.format(memo_key="key"),
    "CALL": "fn_index, argc = arg\n" + _CALL.format(memo_key="None"),
    "SWITCH_VAR": """\
target = arg[2].get(locs[arg[0]].vars[arg[1]], arg[3])
if target != pc - 1:
    pc = target
""",
    "LOCAL_EVENT_FIELD": """\
ev = locs[arg[0]]
stack.append(ev.cancelled if arg[1] == "cancelled" else ev.fields[arg[1]])
""",
    "ZONE_OF": "stack[-1] = world.zones[arg][stack[-1].seat]",
    "AS_ENTRY": """\
v = stack[-1]
if v not in self.entries_of.get(arg, ()) and v is not None:
    not_an_entry(v, arg)
""",
    "JUMP_IF_TRUE": """\
if stack.pop():
    pc = arg
""",
    "LOCAL_FACE": "stack.append(locs[arg].face)",
    "JUMP_IF_CANCELLED": """\
if locs[arg[0]].cancelled:
    pc = arg[1]
""",
    "THING_ENTRY": "stack[-1] = stack[-1].entry",
    "NEW_LIST": "stack.append([])",
    "APPEND": "locs[arg].append(stack.pop())",
    "SUB": """\
b = stack.pop()
v = stack[-1] - b
stack[-1] = v if -INT_BOUND < v < INT_BOUND else sized(v)
""",
    "THING_FACE": "stack[-1] = stack[-1].face",
    "POP": "stack.pop()",
    "GT": """\
b = stack.pop()
stack[-1] = stack[-1] > b
""",
    "LOAD_GLOBAL": "stack.append(world.globals[arg])",
    "JUMP_IF_EQ_CONST": """\
if stack.pop() == arg[0]:
    pc = arg[1]
""",
    "ENTRIES": "stack.append(self.entries_of[arg])",
    "EQ": """\
b = stack.pop()
stack[-1] = stack[-1] == b
""",
    "FOR_ITER": """\
items_slot, index_slot, var_slot, end = arg
items = locs[items_slot]
i = locs[index_slot]
if i < len(items):
    locs[var_slot] = items[i]
    locs[index_slot] = i + 1
else:
    pc = end
""",
    "MOVE": """\
zone = stack.pop()
world.move(stack.pop(), zone, arg)
""",
    "EVENT_FIELD": """\
ev = stack[-1]
stack[-1] = ev.cancelled if arg == "cancelled" else ev.fields[arg]
""",
    "MUL": """\
b = stack.pop()
v = stack[-1] * b
stack[-1] = v if -INT_BOUND < v < INT_BOUND else sized(v)
""",
    "NEW_EVENT": """\
name, fields = arg
n = len(fields)
values = stack[len(stack) - n:] if n else ()
if n:
    del stack[-n:]
stack.append(Event(name, dict(zip(fields, values))))
""",
    "DUP": "stack.append(stack[-1])",
    "INDEX": """\
i = stack.pop()
stack[-1] = index_item(stack[-1], i)
""",
    "NE": """\
b = stack.pop()
stack[-1] = stack[-1] != b
""",
    "LT": """\
b = stack.pop()
stack[-1] = stack[-1] < b
""",
    "LE": """\
b = stack.pop()
stack[-1] = stack[-1] <= b
""",
    "GE": """\
b = stack.pop()
stack[-1] = stack[-1] >= b
""",
    "MOD": """\
b = stack.pop()
stack[-1] = remainder(stack[-1], b)
""",
    "DIV_UP": """\
b = stack.pop()
stack[-1] = divide_up(stack[-1], b)
""",
    "DIV_DOWN": """\
b = stack.pop()
stack[-1] = divide_down(stack[-1], b)
""",
    "NEG": "stack[-1] = -stack[-1]",
    "NOT": "stack[-1] = not stack[-1]",
    "STORE_GLOBAL": "world.globals[arg] = stack.pop()",
    "LOAD_OPTION": "stack.append(world.options[arg])",
    "SET_PLAYER_VAR": """\
v = stack.pop()
stack.pop().vars[arg] = v
""",
    "THING_VAR": "stack[-1] = stack[-1].vars[arg]",
    "SET_THING_VAR": """\
v = stack.pop()
stack.pop().vars[arg] = v
""",
    "SET_FACE": """\
v = stack.pop()
world.set_face(stack.pop(), v)
""",
    "THING_OWNER": "stack[-1] = owner_of(stack[-1])",
    "THING_ZONE": "stack[-1] = stack[-1].zone",
    "ZONE_OWNER": "stack[-1] = stack[-1].owner",
    "PLAYER_SEAT": "stack[-1] = stack[-1].seat + 1",
    "SET_EVENT_FIELD": """\
v = stack.pop()
stack.pop().fields[arg] = v
""",
    "PLAYERS": "stack.append(world.players_tuple)",
    "TO_LIST": """\
v = stack[-1]
if type(v) is Zone:
    stack[-1] = tuple(v.items)
""",
    "FREEZE": "stack[-1] = tuple(stack[-1])",
    "CREATE": """\
zone = stack.pop()
stack[-1] = world.create(stack[-1], zone)
""",
    "CREATE_MANY": """\
count = stack.pop()
zone = stack.pop()
entry = stack.pop()
made = world.create_many(entry, zone, count, steps + 1)
SPEND made
if made < count:  # the zone is full: the next turn's `create` fails
    world.create(entry, zone)
""",
    "DESTROY": "world.destroy(stack.pop())",
    "ROLL": "world.roll(stack.pop())",
    "SHUFFLE": "world.shuffle(stack.pop())",
    "RANDOM_FROM": "stack[-1] = world.random_from(stack[-1])",
    "TEXT": """\
parts = stack[len(stack) - arg:]
del stack[len(stack) - arg:]
stack.append(world.text_of(parts))
""",
    "NARRATE": "world.narration.append(self._narrate(arg, stack, False))",
    "CANCEL": "locs[arg].cancelled = True",
    "DECIDE": _SUSPEND.format(kind="choice"),
    "DECIDE_ACTION": _SUSPEND.format(kind="action"),
    "PERFORM": """\
player = stack.pop()
option = stack.pop()
action = self.program.actions[option[0]]
ENTER(self.functions[action.body], (player, *option[1:]), None)
""",
    "SKIP_IF_QUIET": """\
if world.quiet:
    pc = arg
""",
    "EQ_CONST": "stack[-1] = stack[-1] == arg",
    "NE_CONST": "stack[-1] = stack[-1] != arg",
    "NARRATE_TO": "world.narration.append(self._narrate(arg, stack, True))",
    "CHECK_NESTING": "check_nesting(stack[-1])",
    "CALL_FIELD": """\
kind, field, argc = arg
args = stack[len(stack) - argc:] if argc else ()
if argc:
    del stack[-argc:]
fn_index = behaviour(world.entries, stack.pop(), kind, field)
SPEND
if len(frames) > MAX_DEPTH:
    too_deep()
ENTER(self.functions[fn_index], args, None)
""",
    "ASK_FIRST": "stack[-1] = self.ask_first(stack[-1], arg)",
    "HOLDERS": "stack.append(world.holders(*arg))",
    "PLACE": """\
tile = stack.pop()
world.place(stack.pop(), tile)
""",
    "DECIDE_SECRET": """\
players = stack.pop()
asking = secret_choice(world, players, stack.pop(), arg)
try:
    decision = next(asking)
except StopIteration as done:  # nobody had anything to decide
    stack.append(done.value)
    continue
frame.pc = pc
self.budget = steps
self.asking = asking
return decision
""",
}

DISPATCH_RANGES = (8, 16, 32)  # the chain's groups: codes below 8, below 16, below 32, the rest

_PROLOGUE = """\
def _run(self):
    frames = self.frames
    frame = frames[-1]
    code = frame.fn.code
    pc = frame.pc
    stack = frame.stack
    locs = frame.locals
    world = self.world
    memo = self.memo  # results of read-only functions; every change to the game clears it
    steps = self.budget
    try:
        while True:
            op, arg = code[pc]
            pc += 1
"""
_EPILOGUE = """\
    except ScriptError:
        raise
    except SCRIPT_FAILURES as err:
        frame.pc = pc - 1  # the failing instruction; a caller's pc is past its call
        raise script_error(err, [(f.fn, f.pc - (f is not frame)) for f in frames] or [(frame.fn, pc - 1)]) from None
    finally:
        self.budget = steps
"""
_SPEND = "steps -= {}\nif steps < 0:\n    raise OutOfSteps()"
_ENTER = """\
frame.pc = pc
frame = Frame({0}, {1}, {2})
frames.append(frame)
code, pc, stack, locs = frame.fn.code, 0, frame.stack, frame.locals"""


def _expand(body: str) -> str:
    """A body with its macros written out."""
    lines = []
    for line in body.splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        stripped = line.strip()
        if stripped.split()[:1] == ["SPEND"]:  # SPEND, or SPEND n: one step, or n
            text = _SPEND.format(stripped[len("SPEND"):].strip() or 1)
        elif stripped.startswith("ENTER("):
            call = ast.parse(stripped, mode="eval").body
            text = _ENTER.format(*(ast.get_source_segment(stripped, a) for a in call.args))
        else:
            lines.append(line)
            continue
        lines.extend(indent + part for part in text.splitlines())
    return "\n".join(lines)


def _branch(op: O.OpInfo) -> str:
    body = BODIES[op.name]
    if op.spends != ("SPEND" in body.split()):
        raise AssertionError(f"{op.name}: the table says spends={op.spends}, its body disagrees")
    if op.changes:
        body = "if memo:\n    memo.clear()\n" + body
    return f"if op == {op.code}:  # {op.name}\n" + _indent(_expand(body), 1)


def _indent(text: str, levels: int) -> str:
    pad = "    " * levels
    return "\n".join(pad + line if line else line for line in text.splitlines()) + "\n"


def dispatch_source(count: str = "") -> str:
    """The interpreter's `_run`, written from the table. `count` is a statement run after
    each fetch (benchmarks/counting_vm.py counts instructions with it)."""
    missing = [op.name for op in O.OPS if op.name not in BODIES]
    unknown = sorted(set(BODIES) - set(O.BY_NAME))
    if missing or unknown:
        raise AssertionError(f"interpreter bodies missing for {missing}, or for unknown opcodes {unknown}")
    bounds = [*DISPATCH_RANGES, len(O.OPS)]
    chain, lo = [], 0
    for i, hi in enumerate(bounds):
        ops = O.OPS[lo:hi]
        group = "".join(("" if j == 0 else "el") + _branch(op) for j, op in enumerate(ops))
        if hi == bounds[-1]:
            group += 'else:\n    raise ScriptFault(f"unknown opcode {op}")\n'
        guard = "else:" if hi == bounds[-1] else f"{'if' if i == 0 else 'elif'} op < {hi}:"
        chain.append(guard + "\n" + _indent(group, 1))
        lo = hi
    loop = (_indent(count, 3) if count else "") + _indent("".join(chain), 3)
    return _PROLOGUE + loop + _EPILOGUE


def dispatch_function(count: str = "", names: dict | None = None):
    """`_run` compiled from dispatch_source, its names those of this module (and `names`)."""
    namespace = {**globals(), **(names or {})}
    exec(compile(dispatch_source(count), "<runebook interpreter dispatch>", "exec"), namespace)  # noqa: S102
    return namespace["_run"]


VM._run = dispatch_function()
