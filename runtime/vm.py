"""The reference interpreter: a stack machine with explicit frames.

Script calls push a Frame and never recurse in Python, so a script can stop
at a decision (DECIDE, DECIDE_ACTION) and be resumed later with the answer:
run() returns a Decision, resume(answer) continues. Every run is bounded by a
step budget spent at backward jumps (every turn of a loop passes one) and
calls; running out is a ScriptError naming the script and its source line,
never a hang.

Dispatch is an if/elif chain over small integers. The opcode table numbers
opcodes by how often they run in real matches (measured on the built-in packs, see
docs/PERFORMANCE.md), and the chain is split into ranges (< 8, < 16, < 32,
the rest): the number of comparisons is most of an instruction's cost, so
the hottest opcodes are reached in one to four tests.

Functions that only read the game (decided by the compiler) are called with
CALL_MEMO: their result is kept for the same arguments until any opcode
changes the game, which clears the memo. Decision enumeration and policy
ratings ask the same questions many times between two moves.
"""
from __future__ import annotations

from typing import Optional

from .builtins import BUILTINS, ScriptFault
from .scripting import (CALL_BUDGET, DEFAULT_BUDGET, MAX_DEPTH, SCRIPT_FAILURES, Decision, OutOfSteps, ScriptError,
                        behaviour, divide_down, divide_up, index_item, narrate, no_choice_here, no_player, not_an_entry,
                        remainder, check_nesting, script_error, too_deep)
from .scripting import INT_BOUND, sized
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
        self.budget = budget
        self.entries_of = program.kinds
        self.memo: dict = {}
        self.frames: list[Frame] = []
        self.result = None
        self.done = False

    # ---------------------------------------------------------------- driving
    def start(self, fn_index: int, args=()) -> None:
        self.frames = [Frame(self.functions[fn_index], args)]
        self.done = False
        self.result = None

    def run(self) -> Optional[Decision]:
        """Run until the script finishes (None) or asks a Decision."""
        return self._run()

    def resume(self, answer) -> Optional[Decision]:
        self.frames[-1].stack.append(answer)
        return self._run()

    def call(self, fn_index: int, args=()):
        """Run a function to completion (scores, ratings). It may not ask anything."""
        saved = (self.frames, self.done, self.result, self.budget)
        self.budget = CALL_BUDGET
        try:
            self.start(fn_index, args)
            decision = self._run()
            if decision is not None:
                raise no_choice_here(self.functions[fn_index])
            return self.result
        finally:
            self.frames, self.done, self.result, self.budget = saved

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

    # ---------------------------------------------------------------- the loop
    def _run(self) -> Optional[Decision]:
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
                if op < 8:
                    if op == 0:  # LOAD_LOCAL
                        stack.append(locs[arg])
                    elif op == 1:  # CONST
                        stack.append(arg)
                    elif op == 2:  # FOR_ITER_LOAD
                        items_slot, index_slot, var_slot, end, push_slot = arg
                        items = locs[items_slot]
                        i = locs[index_slot]
                        if i < len(items):
                            locs[var_slot] = items[i]
                            locs[index_slot] = i + 1
                            stack.append(locs[push_slot])
                        else:
                            pc = end
                    elif op == 3:  # JUMP_IF_FALSE
                        if not stack.pop():
                            pc = arg
                    elif op == 4:  # STORE_LOAD
                        locs[arg[0]] = stack.pop()
                        stack.append(locs[arg[1]])
                    elif op == 5:  # JUMP
                        if arg < pc:
                            steps -= 1
                            if steps < 0:
                                raise OutOfSteps()
                        pc = arg
                    elif op == 6:  # JUMP_IF_NE_CONST
                        if stack.pop() != arg[0]:
                            pc = arg[1]
                    elif op == 7:  # CALL_BUILTIN
                        index, argc = arg
                        args = stack[len(stack) - argc:]
                        del stack[len(stack) - argc:]
                        stack.append(BUILTINS[index].impl(world, *args))
                elif op < 16:
                    if op == 8:  # STORE_LOCAL
                        locs[arg] = stack.pop()
                    elif op == 9:  # JUMP_IF_VAR_NE
                        slot, var, value, target = arg
                        if locs[slot].vars[var] != value:
                            pc = target
                    elif op == 10:  # ADD
                        b = stack.pop()
                        v = stack[-1] + b
                        stack[-1] = v if type(v) is int and -INT_BOUND < v < INT_BOUND else sized(v)
                    elif op == 11:  # ITER_START
                        v = stack.pop()
                        locs[arg[0]] = tuple(v.items) if type(v) is Zone else v
                        locs[arg[1]] = 0
                    elif op == 12:  # RETURN
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
                    elif op == 13:  # ENTRY_FIELD
                        stack[-1] = world.entries[stack[-1]][arg]
                    elif op == 14:  # ZONE
                        stack.append(world.zones[arg])
                    elif op == 15:  # BUILD_LIST
                        if arg:
                            items = tuple(stack[-arg:])
                            del stack[-arg:]
                            stack.append(items)
                        else:
                            stack.append(())
                elif op < 32:
                    if op == 16:  # LOAD_LOCAL2
                        stack.append(locs[arg[0]])
                        stack.append(locs[arg[1]])
                    elif op == 17:  # PLAYER_VAR
                        stack[-1] = stack[-1].vars[arg]
                    elif op == 18:  # IN
                        b = stack.pop()
                        stack[-1] = stack[-1] in (b.items if type(b) is Zone else b)
                    elif op == 19:  # LOCAL_PLAYER_VAR
                        stack.append(locs[arg[0]].vars[arg[1]])
                    elif op == 20 or op == 21:  # CALL_MEMO, CALL
                        fn_index, argc = arg
                        # CALL_MEMO: a read-only function; reuse its result while the game is unchanged
                        key = (fn_index, *stack[len(stack) - argc:]) if op == 20 else None
                        if key is not None and key in memo:
                            if argc:
                                del stack[-argc:]
                            stack.append(memo[key])
                            continue
                        steps -= 1
                        if steps < 0:
                            raise OutOfSteps()
                        if len(frames) > MAX_DEPTH:
                            too_deep()
                        args = stack[len(stack) - argc:] if argc else ()
                        if argc:
                            del stack[-argc:]
                        frame.pc = pc
                        frame = Frame(self.functions[fn_index], args, key)
                        frames.append(frame)
                        code, pc, stack, locs = frame.fn.code, 0, frame.stack, frame.locals
                    elif op == 22:  # SWITCH_VAR
                        target = arg[2].get(locs[arg[0]].vars[arg[1]], arg[3])
                        if target != pc - 1:
                            pc = target
                    elif op == 23:  # LOCAL_EVENT_FIELD
                        ev = locs[arg[0]]
                        stack.append(ev.cancelled if arg[1] == "cancelled" else ev.fields[arg[1]])
                    elif op == 24:  # ZONE_OF
                        stack[-1] = world.zones[arg][stack[-1].seat]
                    elif op == 25:  # AS_ENTRY
                        v = stack[-1]
                        if v not in self.entries_of.get(arg, ()) and v is not None:
                            not_an_entry(v, arg)
                    elif op == 26:  # JUMP_IF_TRUE
                        if stack.pop():
                            pc = arg
                    elif op == 27:  # LOCAL_FACE
                        stack.append(locs[arg].face)
                    elif op == 28:  # JUMP_IF_CANCELLED
                        if locs[arg[0]].cancelled:
                            pc = arg[1]
                    elif op == 29:  # THING_ENTRY
                        stack[-1] = stack[-1].entry
                    elif op == 30:  # NEW_LIST
                        stack.append([])
                    elif op == 31:  # APPEND
                        locs[arg].append(stack.pop())
                else:
                    if op == 32:  # SUB
                        b = stack.pop()
                        v = stack[-1] - b
                        stack[-1] = v if -INT_BOUND < v < INT_BOUND else sized(v)
                    elif op == 33:  # THING_FACE
                        stack[-1] = stack[-1].face
                    elif op == 34:  # POP
                        stack.pop()
                    elif op == 35:  # GT
                        b = stack.pop()
                        stack[-1] = stack[-1] > b
                    elif op == 36:  # LOAD_GLOBAL
                        stack.append(world.globals[arg])
                    elif op == 37:  # JUMP_IF_EQ_CONST
                        if stack.pop() == arg[0]:
                            pc = arg[1]
                    elif op == 38:  # ENTRIES
                        stack.append(self.entries_of[arg])
                    elif op == 39:  # EQ
                        b = stack.pop()
                        stack[-1] = stack[-1] == b
                    elif op == 40:  # FOR_ITER
                        # the same step as FOR_ITER_LOAD, written twice: each lives in its own dispatch range
                        items_slot, index_slot, var_slot, end = arg
                        items = locs[items_slot]
                        i = locs[index_slot]
                        if i < len(items):
                            locs[var_slot] = items[i]
                            locs[index_slot] = i + 1
                        else:
                            pc = end
                    elif op == 41:  # MOVE
                        if memo:
                            memo.clear()
                        zone = stack.pop()
                        world.move(stack.pop(), zone, arg)
                    elif op == 42:  # EVENT_FIELD
                        ev = stack[-1]
                        stack[-1] = ev.cancelled if arg == "cancelled" else ev.fields[arg]
                    elif op == 43:  # MUL
                        b = stack.pop()
                        v = stack[-1] * b
                        stack[-1] = v if -INT_BOUND < v < INT_BOUND else sized(v)
                    elif op == 44:  # NEW_EVENT
                        name, fields = arg
                        n = len(fields)
                        values = stack[len(stack) - n:] if n else ()
                        if n:
                            del stack[-n:]
                        stack.append(Event(name, dict(zip(fields, values))))
                    elif op == 45:  # DUP
                        stack.append(stack[-1])
                    elif op == 46:  # INDEX
                        i = stack.pop()
                        stack[-1] = index_item(stack[-1], i)
                    elif op == 47:  # NE
                        b = stack.pop()
                        stack[-1] = stack[-1] != b
                    elif op == 48:  # LT
                        b = stack.pop()
                        stack[-1] = stack[-1] < b
                    elif op == 49:  # LE
                        b = stack.pop()
                        stack[-1] = stack[-1] <= b
                    elif op == 50:  # GE
                        b = stack.pop()
                        stack[-1] = stack[-1] >= b
                    elif op == 51:  # MOD
                        b = stack.pop()
                        stack[-1] = remainder(stack[-1], b)
                    elif op == 52:  # DIV_UP
                        b = stack.pop()
                        stack[-1] = divide_up(stack[-1], b)
                    elif op == 53:  # DIV_DOWN
                        b = stack.pop()
                        stack[-1] = divide_down(stack[-1], b)
                    elif op == 54:  # NEG
                        stack[-1] = -stack[-1]
                    elif op == 55:  # NOT
                        stack[-1] = not stack[-1]
                    elif op == 56:  # STORE_GLOBAL
                        if memo:
                            memo.clear()
                        world.globals[arg] = stack.pop()
                    elif op == 57:  # LOAD_OPTION
                        stack.append(world.options[arg])
                    elif op == 58:  # SET_PLAYER_VAR
                        if memo:
                            memo.clear()
                        v = stack.pop()
                        stack.pop().vars[arg] = v
                    elif op == 59:  # THING_VAR
                        stack[-1] = stack[-1].vars[arg]
                    elif op == 60:  # SET_THING_VAR
                        if memo:
                            memo.clear()
                        v = stack.pop()
                        stack.pop().vars[arg] = v
                    elif op == 61:  # SET_FACE
                        if memo:
                            memo.clear()
                        v = stack.pop()
                        world.set_face(stack.pop(), v)
                    elif op == 62:  # THING_OWNER
                        stack[-1] = owner_of(stack[-1])
                    elif op == 63:  # THING_ZONE
                        stack[-1] = stack[-1].zone
                    elif op == 64:  # ZONE_OWNER
                        stack[-1] = stack[-1].owner
                    elif op == 65:  # PLAYER_SEAT
                        stack[-1] = stack[-1].seat + 1
                    elif op == 66:  # SET_EVENT_FIELD
                        if memo:
                            memo.clear()
                        v = stack.pop()
                        stack.pop().fields[arg] = v
                    elif op == 67:  # PLAYERS
                        stack.append(world.players_tuple)
                    elif op == 68:  # TO_LIST
                        v = stack[-1]
                        if type(v) is Zone:
                            stack[-1] = tuple(v.items)
                    elif op == 69:  # FREEZE
                        stack[-1] = tuple(stack[-1])
                    elif op == 70:  # CREATE
                        if memo:
                            memo.clear()
                        zone = stack.pop()
                        stack[-1] = world.create(stack[-1], zone)
                    elif op == 71:  # DESTROY
                        if memo:
                            memo.clear()
                        world.destroy(stack.pop())
                    elif op == 72:  # ROLL
                        if memo:
                            memo.clear()
                        world.roll(stack.pop())
                    elif op == 73:  # SHUFFLE
                        if memo:
                            memo.clear()
                        world.shuffle(stack.pop())
                    elif op == 74:  # RANDOM_FROM
                        stack[-1] = world.random_from(stack[-1])
                    elif op == 75:  # TEXT
                        parts = stack[len(stack) - arg:]
                        del stack[len(stack) - arg:]
                        stack.append(world.text_of(parts))
                    elif op == 76:  # NARRATE
                        world.narration.append(self._narrate(arg, stack, False))
                    elif op == 77:  # CANCEL
                        if memo:
                            memo.clear()
                        locs[arg].cancelled = True
                    elif op == 78 or op == 79:  # DECIDE, DECIDE_ACTION
                        player = stack.pop()
                        options = stack.pop()
                        if player is None:
                            no_player()
                        if len(options) <= 1:  # nothing to decide
                            stack.append(options[0] if options else None)
                            continue
                        frame.pc = pc
                        self.budget = steps
                        kind = "action" if op == 79 else "choice"
                        return Decision(player, kind, arg, list(options))
                    elif op == 80:  # PERFORM
                        player = stack.pop()
                        option = stack.pop()
                        action = self.program.actions[option[0]]
                        frame.pc = pc
                        frame = Frame(self.functions[action.body], (player, *option[1:]))
                        frames.append(frame)
                        code, pc, stack, locs = frame.fn.code, 0, frame.stack, frame.locals
                    elif op == 81:  # SKIP_IF_QUIET
                        if world.quiet:
                            pc = arg
                    elif op == 82:  # EQ_CONST
                        stack[-1] = stack[-1] == arg
                    elif op == 83:  # NE_CONST
                        stack[-1] = stack[-1] != arg
                    elif op == 84:  # NARRATE_TO
                        world.narration.append(self._narrate(arg, stack, True))
                    elif op == 85:  # CHECK_NESTING
                        check_nesting(stack[-1])
                    elif op == 86:  # CALL_FIELD
                        kind, field, argc = arg
                        args = stack[len(stack) - argc:] if argc else ()
                        if argc:
                            del stack[-argc:]
                        fn_index = behaviour(world.entries, stack.pop(), kind, field)
                        steps -= 1
                        if steps < 0:
                            raise OutOfSteps()
                        if len(frames) > MAX_DEPTH:
                            too_deep()
                        frame.pc = pc
                        frame = Frame(self.functions[fn_index], args)
                        frames.append(frame)
                        code, pc, stack, locs = frame.fn.code, 0, frame.stack, frame.locals
                    elif op == 87:  # HOLDERS
                        stack.append(world.holders(*arg))
                    elif op == 88:  # PLACE
                        if memo:
                            memo.clear()
                        tile = stack.pop()
                        world.place(stack.pop(), tile)
                    else:
                        raise ScriptFault(f"unknown opcode {op}")
        except ScriptError:
            raise
        except SCRIPT_FAILURES as err:
            raise script_error(err, frame.fn.source_at(pc - 1)) from None
        finally:
            self.budget = steps
