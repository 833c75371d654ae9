"""Type-check and emit bytecode for one function body.

The checker and the emitter walk the AST together: every expression method
returns the expression's type and appends the code that computes it. Errors
become diagnostics (never exceptions) and the walk goes on, typing the bad
expression as 'any' so one mistake is reported once.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.span import Span
from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O
from runebook.runtime.program import Function

from .declarations import keyword_name
from .purity import RANDOM_BUILTINS, fn_reads_only, reads_only
from .peephole import optimise
from .symbols import Symbols
from .types import TypeSpace, elem, is_event, is_list, list_of

THING_ATTRS = {"face": ("str", O.THING_FACE), "entry": ("str", O.THING_ENTRY),
               "owner": ("player", O.THING_OWNER), "zone": ("zone", O.THING_ZONE)}
ARITH = {"+": O.ADD, "-": O.SUB, "*": O.MUL, "%": O.MOD}
COMPARE = {"==": O.EQ, "!=": O.NE, "<": O.LT, "<=": O.LE, ">": O.GT, ">=": O.GE}

# What each context forbids: ratings and requirements must be pure questions.
PURE_FORBIDDEN = (A.Choose, A.Act, A.Create, A.Emit, A.RandomFrom)
# Builtins that draw from the match's RNG: a rating or requirement must not move it.
IMPURE_BUILTINS = RANDOM_BUILTINS


def a_type(t: str) -> str:
    """A type for a message: 'an int', 'a player', "event 'hit'"."""
    if is_event(t):
        return f"event '{t[6:]}'"
    return f"{'an' if t[:1] in 'aeiou' else 'a'} {t}"


def names_in(node) -> set:
    """Every bare name an expression mentions (for placing 'require' tests)."""
    found = set()

    def walk(n):
        if isinstance(n, A.Name):
            found.add(n.name)
        elif isinstance(n, list):
            for x in n:
                walk(x)
        elif isinstance(n, tuple):
            for x in n:
                walk(x)
        elif dataclasses.is_dataclass(n):
            for f in dataclasses.fields(n):
                if f.name != "span":
                    walk(getattr(n, f.name))

    walk(node)
    return found


def _return_chain(body: list):
    """([(condition, value) or ("let", Let), ...], final value) when a body is
    only 'let' and 'if C { return V }' lines followed by 'return V' (the shape
    of most small content functions), else None."""
    if not body or not isinstance(body[-1], A.Return) or body[-1].value is None:
        return None
    cases = []
    for stmt in body[:-1]:
        if isinstance(stmt, A.Let):
            cases.append(("let", stmt))
            continue
        if not (isinstance(stmt, A.If) and stmt.orelse is None and len(stmt.branches) == 1):
            return None
        cond, block = stmt.branches[0]
        if len(block) != 1 or not isinstance(block[0], A.Return) or block[0].value is None:
            return None
        cases.append((cond, block[0].value))
    return cases, body[-1].value


_NOT_CONST = object()


class _Loop:
    def __init__(self):
        self.breaks: list[int] = []
        self.continues: list[int] = []


class FunctionCompiler:
    def __init__(self, syms: Symbols, types: TypeSpace, diags: list, name: str, file: str,
                 ret: Optional[str] = None, pure: bool = False, in_handler: Optional[str] = None,
                 actor: bool = False):
        self.syms = syms
        self.types = types
        self.diags = diags
        self.name = name
        self.file = file
        self.ret = ret
        self.pure = pure
        self.in_handler = in_handler
        self.has_actor = actor
        self.code: list = []
        self.lines: list = []
        self.origins: list = []   # per instruction: 0, or 1 + index in self.inlined
        self.origin = 0
        self.inlined: list = []   # [name, file] of each function compiled in place
        self.scopes: list[dict] = [{}]
        self.local_names: list[str] = []
        self.loops: list[_Loop] = []
        self.line = 0
        self.return_value = None  # what a bare 'return' and the end give back (actions: their name)
        self.inline_depth = 0

    # ---------------------------------------------------------------- plumbing
    def error(self, code: str, message: str, span: Span, hint: Optional[str] = None, severity="error"):
        self.diags.append(Diagnostic(code, message, span, hint, severity))

    def emit(self, op: int, arg=None) -> int:
        self.code.append((op, arg))
        self.lines.append(self.line)
        self.origins.append(self.origin)
        return len(self.code) - 1

    def here(self) -> int:
        return len(self.code)

    def patch(self, at: int, target: Optional[int] = None):
        op, arg = self.code[at]
        target = self.here() if target is None else target
        # Jumps with a tuple operand keep their target last.
        self.code[at] = (op, (*arg[:-1], target) if isinstance(arg, tuple) else target)

    def declare(self, name: str, type_: str, span: Optional[Span] = None) -> int:
        if span is not None:
            keyword_name(name, span, self.diags)
        slot = len(self.local_names)
        self.local_names.append(name)
        self.scopes[-1][name] = (slot, type_)
        return slot

    def hidden(self, purpose: str) -> int:
        slot = len(self.local_names)
        self.local_names.append(f"<{purpose}>")
        return slot

    def lookup_local(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def local_candidates(self) -> list[str]:
        return [n for scope in self.scopes for n in scope]

    def finish(self, nparams: int) -> Function:
        self.emit(O.CONST, self.return_value)
        self.emit(O.RETURN)
        code, lines, origins = optimise(self.code, self.lines, self.origins)
        return Function(self.name, nparams, len(self.local_names), code, lines,
                        self.file, self.local_names, origins if self.inlined else [], self.inlined)

    # ---------------------------------------------------------------- conditions as jumps
    def branch_false(self, e, what: str) -> list:
        """Compile a condition that falls through when true; return the jumps taken when false.

        'and', 'or' and 'not' become jumps instead of values, so a condition
        costs no DUP/POP and stops at the first deciding operand.
        """
        jumps: list = []
        self._jump_if(e, False, jumps, what)
        return jumps

    def _jump_if(self, e, when: bool, jumps: list, what: str) -> None:
        """Emit code that jumps (recording into jumps) when e == when, else falls through."""
        if isinstance(e, A.Unary) and e.op == "not":
            self._jump_if(e.operand, not when, jumps, what)
            return
        if isinstance(e, A.Binary) and e.op == "not in":
            self._jump_if(A.Binary("in", e.left, e.right, e.span), not when, jumps, what)
            return
        if isinstance(e, A.Binary) and e.op in ("and", "or"):
            # 'and' is false as soon as one side is; 'or' true as soon as one side is.
            short_on = e.op == "or"
            if when == short_on:
                self._jump_if(e.left, when, jumps, what)
                self._jump_if(e.right, when, jumps, what)
            else:
                skip: list = []
                self._jump_if(e.left, not when, skip, what)
                self._jump_if(e.right, when, jumps, what)
                for at in skip:
                    self.patch(at)
            return
        if isinstance(e, A.Call) and e.name in self.syms.functions and e.name not in self.syms.kinds:
            fn = self.syms.functions[e.name]
            self.expect(self._call_script(fn, e, (when, jumps)), "bool", e.span, what)
            return
        self.expect(self.expr(e), "bool", e.span, what)
        jumps.append(self.emit(O.JUMP_IF_TRUE if when else O.JUMP_IF_FALSE, None))

    def patch_all(self, jumps: list, target: Optional[int] = None):
        for at in jumps:
            self.patch(at, target)

    def expect(self, got: str, want: str, span: Span, what: str) -> None:
        if not self.types.assignable(got, want):
            self.error("E0310", f"{what} must be {want}, but this is {got}", span)

    # ---------------------------------------------------------------- statements
    def block(self, stmts: list, new_scope: bool = True) -> bool:
        """Compile a statement list; return True when it always leaves (return/break)."""
        if new_scope:
            self.scopes.append({})
        leaves = False
        for stmt in stmts:
            if leaves:
                self.error("E0320", "unreachable statement: the code above always leaves this block",
                           stmt.span, "remove it, or move it before the 'return'/'break'/'continue'")
                break
            leaves = self.stmt(stmt)
        if new_scope:
            self.scopes.pop()
        return leaves

    def stmt(self, s) -> bool:
        self.line = s.span.line
        if self.pure and not isinstance(s, (A.Let, A.If, A.Return, A.For, A.Assign)):
            self.error("E0330", "this context may only compute a value, not change the game", s.span)
        method = getattr(self, "s_" + type(s).__name__)
        return bool(method(s))

    def s_Let(self, s: A.Let):
        t = self.expr(s.value)
        if t == "none":
            self.error("E0311", f"cannot tell the type of '{s.name}' from 'none'", s.value.span,
                       "initialise it with a value of the intended type")
        slot = self.declare(s.name, t, s.span)
        self.emit(O.STORE_LOCAL, slot)

    def s_Assign(self, s: A.Assign):
        target = s.target
        if isinstance(target, A.Name):
            self._assign_name(target, s)
        else:
            self._assign_field(target, s)

    def _compound(self, s: A.Assign, load_current, want: str):
        """Compile the value of '=', '+=' or '-=' against the target's type."""
        if s.op == "=":
            t = self.expr(s.value)
            self.expect(t, want, s.value.span, "the new value")
            return
        if want != "int" and not is_list(want):
            self.error("E0310", f"'{s.op}' needs a number or a list, but the target is {want}", s.span)
        load_current()
        t = self.expr(s.value)
        self.expect(t, want, s.value.span, "the amount")
        self.emit(O.ADD if s.op == "+=" else O.SUB)
        if s.op == "-=" and want != "int":
            self.error("E0310", "'-=' works on numbers only", s.span)

    def _assign_name(self, target: A.Name, s: A.Assign):
        local = self.lookup_local(target.name)
        if local:
            slot, t = local
            self._compound(s, lambda: self.emit(O.LOAD_LOCAL, slot), t)
            self.emit(O.STORE_LOCAL, slot)
            return
        if target.name in self.syms.globals:
            slot, t = self.syms.globals[target.name]
            if self.pure:
                self.error("E0330", "this context may only compute a value, not change the game", s.span)
            self._compound(s, lambda: self.emit(O.LOAD_GLOBAL, slot), t)
            self.emit(O.STORE_GLOBAL, slot)
            return
        if target.name in self.syms.options:
            self.error("E0313", f"option '{target.name}' is read-only during a match", target.span,
                       "declare a 'var' and initialise it from the option")
            return
        self.error("E0301", f"unknown variable '{target.name}'", target.span,
                   did_you_mean(target.name, self.local_candidates() + list(self.syms.globals))
                   or "declare it first with 'let' (local) or 'var' (global)")

    def _assign_field(self, target: A.Field, s: A.Assign):
        if self.pure and not (isinstance(target.obj, A.Name) and target.obj.name == "event"):
            self.error("E0330", "this context may only compute a value, not change the game", s.span)
        obj_t = self.expr(target.obj)
        name = target.name
        if obj_t == "player" and name in self.syms.player_vars:
            slot, t = self.syms.player_vars[name]
            self._set_field(s, (O.PLAYER_VAR, slot), (O.SET_PLAYER_VAR, slot), t)
        elif obj_t == "thing" and name in self.syms.thing_vars:
            slot, t = self.syms.thing_vars[name]
            self._set_field(s, (O.THING_VAR, slot), (O.SET_THING_VAR, slot), t)
        elif obj_t == "thing" and name == "face":
            self._set_field(s, (O.THING_FACE, None), (O.SET_FACE, None), "str")
        elif is_event(obj_t):
            params = dict(self.syms.events.get(obj_t[6:], []))
            if name not in params:
                self.error("E0302", f"event '{obj_t[6:]}' has no field '{name}'", target.span,
                           did_you_mean(name, params))
                return
            self._set_field(s, (O.EVENT_FIELD, name), (O.SET_EVENT_FIELD, name), params[name])
        elif obj_t in ("player", "thing"):
            table = self.syms.player_vars if obj_t == "player" else self.syms.thing_vars
            self.error("E0302", f"a {obj_t} has no variable '{name}'", target.span,
                       did_you_mean(name, table) or self._settable_hint(obj_t))
        elif obj_t != "any":
            self.error("E0314", f"cannot change '{name}' of a {obj_t}", target.span,
                       self._settable_hint(obj_t))

    def _set_field(self, s: A.Assign, get, set_, want: str):
        """Stack holds the object; leave it set: [obj] -> []."""
        if s.op == "=":
            self.expect(self.expr(s.value), want, s.value.span, "the new value")
        else:
            self.emit(O.DUP)
            self._compound(s, lambda: self.emit(*get), want)
        self.emit(*set_)

    def _settable_hint(self, t: str) -> Optional[str]:
        if t == "player":
            return "declare it with 'var NAME: TYPE per player = ...'"
        if t == "thing":
            return "declare it with 'var NAME: TYPE per thing = ...', or set '.face' of a die"
        if self.types.is_kind(t):
            return "entry fields are fixed by the content; keep changing state in a 'var'"
        return None

    def s_If(self, s: A.If):
        ends = []
        all_leave = True
        for cond, body in s.branches:
            self.line = cond.span.line
            skips = self.branch_false(cond, "a condition")
            leaves = self.block(body)
            all_leave &= leaves
            if not leaves:
                ends.append(self.emit(O.JUMP, None))
            self.patch_all(skips)
        if s.orelse is not None:
            all_leave &= self.block(s.orelse)
        else:
            all_leave = False
        for at in ends:
            self.patch(at)
        return all_leave

    def _loop_over(self, var: str, var_type: str, body_fn, span: Optional[Span] = None):
        """items/index hidden locals, FOR_ITER step, body, back-edge."""
        items = self.hidden("items")
        index = self.hidden("index")
        self.emit(O.ITER_START, (items, index))
        self.scopes.append({})
        slot = self.declare(var, var_type, span)
        header_line = self.line
        top = self.here()
        step = self.emit(O.FOR_ITER, None)
        loop = _Loop()
        self.loops.append(loop)
        body_fn()
        self.loops.pop()
        for at in loop.continues:
            self.patch(at, top)
        self.line = header_line  # the back-edge (where the budget is spent) belongs to the loop's line
        self.emit(O.JUMP, top)
        self.code[step] = (O.FOR_ITER, (items, index, slot, self.here()))
        for at in loop.breaks:
            self.patch(at)
        self.scopes.pop()

    def s_For(self, s: A.For):
        t = self.collection(s.source, "a 'for' loop")
        self._loop_over(s.var, t, lambda: self.block(s.body), s.span)

    def collection(self, source, what: str) -> str:
        """Compile a list or zone for a loop (ITER_START snapshots it); return the item type."""
        return self.item_type(self.expr(source), source, what)

    def item_type(self, t: str, source, what: str) -> str:
        if t == "zone":
            return "thing"
        if is_list(t):
            return elem(t)
        if t != "any":
            self.error("E0310", f"{what} needs a list or a zone, but this is {t}", source.span)
        return "any"

    def s_Repeat(self, s: A.Repeat):
        header_line = self.line
        self.expect(self.expr(s.count), "int", s.count.span, "the repeat count")
        counter = self.hidden("repeat")
        self.emit(O.STORE_LOCAL, counter)
        top = self.here()
        self.emit(O.LOAD_LOCAL, counter)
        self.emit(O.CONST, 0)
        self.emit(O.GT)
        done = self.emit(O.JUMP_IF_FALSE, None)
        self.emit(O.LOAD_LOCAL, counter)
        self.emit(O.CONST, 1)
        self.emit(O.SUB)
        self.emit(O.STORE_LOCAL, counter)
        self._loop_body(s.body, top, header_line, [done])

    def s_While(self, s: A.While):
        header_line = self.line
        top = self.here()
        done = self.branch_false(s.cond, "a condition")
        self._loop_body(s.body, top, header_line, done)

    def _loop_body(self, body: list, top: int, header_line: int, exits: list):
        """Body, back-edge to top, then patch the loop's exits, breaks and continues."""
        loop = _Loop()
        self.loops.append(loop)
        self.block(body)
        self.loops.pop()
        for at in loop.continues:
            self.patch(at, top)
        self.line = header_line  # the back-edge (where the budget is spent) belongs to the loop's line
        self.emit(O.JUMP, top)
        self.patch_all(exits)
        for at in loop.breaks:
            self.patch(at)

    def s_Break(self, s):
        if not self.loops:
            self.error("E0321", "'break' outside a loop", s.span)
            return False  # reported; the rest of the block is still checked, not 'unreachable'
        self.loops[-1].breaks.append(self.emit(O.JUMP, None))
        return True

    def s_Continue(self, s):
        if not self.loops:
            self.error("E0321", "'continue' outside a loop", s.span)
            return False
        self.loops[-1].continues.append(self.emit(O.JUMP, None))
        return True

    def s_Return(self, s: A.Return):
        if s.value is None:
            if self.ret not in (None, "none"):
                self.error("E0312", f"this function must return {self.ret}", s.span)
            self.emit(O.CONST, self.return_value)
        else:
            t = self.expr(s.value)
            if self.ret is None:
                self.error("E0312", "a procedure returns no value", s.value.span,
                           "declare it 'fn NAME(...) -> TYPE' to return a value")
            else:
                self.expect(t, self.ret, s.value.span, "the returned value")
        self.emit(O.RETURN)
        return True

    def s_Move(self, s: A.Move):
        self.things(s.what, "move")
        self.expect(self.expr(s.dest), "zone", s.dest.span, "the destination")
        self.emit(O.MOVE, s.place)

    def things(self, e, verb: str):
        t = self.expr(e)
        if t == "zone":
            self.emit(O.TO_LIST)  # every thing in the zone, as it is now
        elif t not in ("thing", "list[thing]", "any", "list[any]"):
            self.error("E0310", f"'{verb}' needs a thing, a list of things or a zone, but this is {t}", e.span)

    def s_Destroy(self, s: A.Destroy):
        self.things(s.what, "destroy")
        self.emit(O.DESTROY)

    def s_Roll(self, s: A.Roll):
        self.things(s.what, "roll")
        self.emit(O.ROLL)

    def s_Shuffle(self, s: A.Shuffle):
        self.expect(self.expr(s.zone), "zone", s.zone.span, "what to shuffle")
        self.emit(O.SHUFFLE)

    def s_Log(self, s: A.Log):
        # Narration is skipped entirely when the match is not recorded, so the
        # text's holes must be pure: skipping them may not change the game.
        # The checker forbids effects in the holes themselves, but a called fn may still
        # assign, roll or draw: then the text is built even in quiet matches (purity.py).
        skip = self.emit(O.SKIP_IF_QUIET, None) if reads_only(self.syms, s.text) else None
        saved, self.pure = self.pure, True
        self.expr(s.text)
        self.pure = saved
        self.emit(O.LOG)
        if skip is not None:
            self.patch(skip)

    def s_Cancel(self, s: A.Cancel):
        if self.in_handler is None:
            self.error("E0322", "'cancel' is only meaningful inside an 'on EVENT' handler", s.span)
            return
        slot, _ = self.lookup_local("event")
        self.emit(O.CANCEL, slot)

    def s_ExprStmt(self, s: A.ExprStmt):
        e = s.expr
        if not isinstance(e, (A.Call, A.Emit, A.Act, A.Create, A.Choose)):
            self.error("E0323", "this expression is computed and then thrown away", s.span,
                       "use it in a 'let', an 'if' or a call")
        self.expr(e)
        self.emit(O.POP)

    # ---------------------------------------------------------------- expressions
    def expr(self, e) -> str:
        if self.pure and isinstance(e, PURE_FORBIDDEN):
            self.error("E0330", "this context may only compute a value: no choices, random draws, "
                       "new things or events here", e.span)
        return getattr(self, "e_" + type(e).__name__)(e)

    def e_IntLit(self, e):
        self.emit(O.CONST, e.value)
        return "int"

    def e_StrLit(self, e):
        self.emit(O.CONST, e.value)
        return "str"

    def e_BoolLit(self, e):
        self.emit(O.CONST, e.value)
        return "bool"

    def e_NoneLit(self, e):
        self.emit(O.CONST, None)
        return "none"

    def e_Interp(self, e: A.Interp):
        for part in e.parts:
            if isinstance(part, str):
                self.emit(O.CONST, part)
            else:
                self.expr(part)
        self.emit(O.TEXT, len(e.parts))
        return "str"

    def e_Name(self, e: A.Name):
        name = e.name
        local = self.lookup_local(name)
        if local:
            if isinstance(local[0], tuple):  # an inlined parameter bound to a constant
                self.emit(O.CONST, local[0][1])
            else:
                self.emit(O.LOAD_LOCAL, local[0])
            return local[1]
        syms = self.syms
        if name in syms.globals:
            slot, t = syms.globals[name]
            self.emit(O.LOAD_GLOBAL, slot)
            return t
        if name in syms.options:
            self.emit(O.LOAD_OPTION, name)
            return syms.options[name][0]
        if name in syms.zones:
            index, per_player = syms.zones[name]
            if per_player:
                self.error("E0315", f"zone '{name}' belongs to each player", e.span,
                           f"say whose: '{name} of PLAYER'")
                return "any"
            self.emit(O.ZONE, index)
            return "zone"
        if name in syms.entries:
            self.emit(O.CONST, name)
            return syms.entries[name]["kind"]
        if name in syms.symbols:
            self.emit(O.CONST, name)
            return "str"
        if name == "players":
            self.emit(O.PLAYERS)
            return "list[player]"
        hint = did_you_mean(name, self.local_candidates() + syms.all_value_names())
        if name in syms.functions:
            hint = f"'{name}' is a function: call it with '{name}(...)'"
        elif name in ("actor", "event", "option"):
            hint = {"actor": "'actor' exists only inside actions and ratings",
                    "event": "'event' exists only inside 'on EVENT' handlers",
                    "option": "'option' exists only inside 'rate choice' ratings"}[name]
        self.error("E0301", f"unknown name '{name}'", e.span, hint)
        self.emit(O.CONST, None)
        return "any"

    def e_AllEntries(self, e: A.AllEntries):
        if e.kind not in self.syms.kinds:
            self.error("E0303", f"unknown kind '{e.kind}'", e.span, did_you_mean(e.kind, self.syms.kinds))
            self.emit(O.CONST, ())
            return "list[any]"
        self.emit(O.ENTRIES, e.kind)
        return list_of(e.kind)

    def _constant(self, e):
        """The value of a literal or a symbol/entry name, or _NOT_CONST."""
        if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit)):
            return e.value
        if isinstance(e, A.Name) and self.lookup_local(e.name) is None and e.name not in self.syms.globals \
                and e.name not in self.syms.options and e.name not in self.syms.zones \
                and (e.name in self.syms.entries or e.name in self.syms.symbols):
            return e.name
        return _NOT_CONST

    def e_ListLit(self, e: A.ListLit):
        values = [self._constant(item) for item in e.items]
        if e.items and all(v is not _NOT_CONST for v in values):
            # A list of constants is one constant: one instruction instead of n + 1.
            start = len(self.code)
            t = self._list_type(e)
            del self.code[start:], self.lines[start:], self.origins[start:]
            self.emit(O.CONST, tuple(values))
            return t
        t = self._list_type(e)
        self.emit(O.BUILD_LIST, len(e.items))
        return t

    def _list_type(self, e: A.ListLit) -> str:
        t = "any"
        first = True
        for item in e.items:
            it = self.expr(item)
            if first:
                t, first = it, False
                continue
            joined = self.types.join(t, it)
            if joined == "?":
                self.error("E0310", f"a list's items must share one type: {t} and {it} differ", item.span)
                joined = "any"
            t = joined
        return list_of(t)

    def e_Field(self, e: A.Field):
        t = self.expr(e.obj)
        name = e.name
        syms = self.syms
        if t == "player":
            if name in syms.player_vars:
                slot, vt = syms.player_vars[name]
                self.emit(O.PLAYER_VAR, slot)
                return vt
            if name == "seat":
                self.emit(O.PLAYER_SEAT)
                return "int"
            candidates = list(syms.player_vars) + ["seat"]
        elif t == "thing":
            if name in THING_ATTRS:
                vt, op = THING_ATTRS[name]
                self.emit(op)
                return vt
            if name in syms.thing_vars:
                slot, vt = syms.thing_vars[name]
                self.emit(O.THING_VAR, slot)
                return vt
            candidates = list(syms.thing_vars) + list(THING_ATTRS)
        elif t == "zone":
            if name == "owner":
                self.emit(O.ZONE_OWNER)
                return "player"
            candidates = ["owner"]
        elif is_event(t):
            params = dict(syms.events.get(t[6:], []))
            if name in params:
                self.emit(O.EVENT_FIELD, name)
                return params[name]
            if name == "cancelled":
                self.emit(O.EVENT_FIELD, name)
                return "bool"
            candidates = list(params) + ["cancelled"]
        elif self.types.is_kind(t):
            fields = syms.kinds[t].fields
            if name in fields:
                self.emit(O.ENTRY_FIELD, name)
                return fields[name][0]
            candidates = list(fields)
        elif t == "any":
            return "any"
        else:
            self.error("E0304", f"{a_type(t)} has no fields", e.span)
            return "any"
        self.error("E0302", f"{a_type(t)} has no field '{name}'", e.span,
                   did_you_mean(name, candidates) or (f"fields: {', '.join(candidates)}" if candidates else None))
        return "any"

    def e_Index(self, e: A.Index):
        t = self.expr(e.obj)
        self.expect(self.expr(e.index), "int", e.index.span, "an index")
        if t == "zone":
            self.error("E0310", "zones are not indexed; use 'first t in ZONE' or 'each t in ZONE'", e.span)
            return "any"
        if not is_list(t) and t != "any":
            self.error("E0310", f"only lists can be indexed, but this is {t}", e.obj.span)
            return "any"
        self.emit(O.INDEX)
        return elem(t)

    def e_Call(self, e: A.Call):
        if e.name in self.syms.kinds:
            return self._as_entry(e)
        fn = self.syms.functions.get(e.name)
        if fn is not None:
            return self._call_script(fn, e)
        builtin = B.BY_NAME.get(e.name)
        if builtin is not None:
            return self._call_builtin(builtin, e)
        self.error("E0305", f"unknown function '{e.name}'", e.span,
                   did_you_mean(e.name, list(self.syms.functions) + list(B.BY_NAME)))
        for a in e.args:
            self.expr(a)
        return "any"

    def _as_entry(self, e: A.Call) -> str:
        """KIND(text): view a text (e.g. a thing's .entry) as an entry of that kind."""
        if self._arity(e, 1):
            self.expect(self.expr(e.args[0]), "str", e.args[0].span, f"the id given to '{e.name}'")
        else:
            for a in e.args:
                self.expr(a)
        self.emit(O.AS_ENTRY, e.name)
        return e.name

    def _arity(self, e: A.Call, want: int) -> bool:
        if len(e.args) != want:
            self.error("E0306", f"'{e.name}' takes {want} argument{'s' if want != 1 else ''}, "
                       f"but {len(e.args)} {'were' if len(e.args) != 1 else 'was'} given", e.span)
            return False
        return True

    def _call_script(self, fn, e: A.Call, jump: Optional[tuple] = None) -> str:
        """Call a script function, or compile it in place when it is inlinable.

        With jump=(when, jumps) the call is a condition: an inlined body is
        compiled as jumps too (see _jump_if); otherwise the caller jumps on
        the returned value.
        """
        if self.pure and fn.ret is None:
            self.error("E0330", f"'{e.name}' is a procedure; this context may only compute a value", e.span)
        ok = self._arity(e, len(fn.params))
        inline = ok and self._inlinable(fn)
        slots = []
        for i, a in enumerate(e.args):
            t, slot = self._argument(a, inline)
            if ok:
                pname, ptype = fn.params[i]
                self.expect(t, ptype, a.span, f"argument '{pname}' of '{e.name}'")
            slots.append(slot)
        if inline:
            self._inline(fn, slots, jump)
        else:
            # A function that only reads the game is called through the memo: the VM
            # reuses its result for the same arguments until anything in the game changes.
            call = O.CALL_MEMO if fn_reads_only(self.syms, fn.name) else O.CALL
            self.emit(call, (fn.index, len(e.args)))
            if jump is not None:
                when, jumps = jump
                jumps.append(self.emit(O.JUMP_IF_TRUE if when else O.JUMP_IF_FALSE, None))
        return fn.ret or "none"

    def _argument(self, a, inline: bool) -> tuple:
        """(type, binding) of an argument. For an inlined call, constants and plain
        locals are bound in place (no code); anything else is computed (binding None)."""
        if inline:
            value = self._constant(a)
            if value is not _NOT_CONST:
                t = self._const_type(a)
                return t, ("const", value)
            local = self.lookup_local(a.name) if isinstance(a, A.Name) else None
            if local is not None:
                return local[1], local[0]
        return self.expr(a), None

    def _const_type(self, a) -> str:
        start = len(self.code)
        t = self.expr(a)  # types the constant the usual way, then drops its code
        del self.code[start:], self.lines[start:], self.origins[start:]
        return t

    MAX_INLINE_DEPTH = 3

    def _inlinable(self, fn) -> bool:
        """A function whose whole body is 'return EXPR' is compiled in place.

        Calls cost a frame and several instructions; content is full of tiny
        predicates (is_monster, novice, ...), so this is the interpreter's
        biggest single saving. Behaviour is unchanged: the arguments are still
        evaluated once, left to right, before the body.
        """
        if fn.ret is None or self.inline_depth >= self.MAX_INLINE_DEPTH:
            return False
        return _return_chain(fn.decl.body) is not None

    def _inline(self, fn, slots: list, jump: Optional[tuple] = None):
        for i in reversed(range(len(slots))):
            if slots[i] is None:  # computed arguments are on the stack, last on top
                slots[i] = self.hidden(f"{fn.name}.{fn.params[i][0]}")
                self.emit(O.STORE_LOCAL, slots[i])
        saved = (self.scopes, self.diags, self.line, self.origin)
        # Runtime errors in the inlined code name the inlined function and its line.
        self.inlined.append([fn.name if fn.ret is None else f"fn {fn.name}", fn.decl.span.file])
        self.origin = len(self.inlined)
        self.line = fn.decl.body[-1].span.line
        # Only the parameters are visible: the caller's locals must not shadow the callee's globals.
        self.scopes = [{pname: (slot, ptype) for (pname, ptype), slot in zip(fn.params, slots)}]
        self.diags = []  # the body was already checked where it is declared
        self.inline_depth += 1
        try:
            cases, last = _return_chain(fn.decl.body)
            if jump is not None and not cases:
                self._jump_if(last, jump[0], jump[1], "a condition")
            else:
                self._value_of_cases(cases, last)
                if jump is not None:
                    jump[1].append(self.emit(O.JUMP_IF_TRUE if jump[0] else O.JUMP_IF_FALSE, None))
        finally:
            self.inline_depth -= 1
            self.scopes, self.diags, self.line, self.origin = saved

    def _value_of_cases(self, cases: list, last) -> None:
        """'if c1 { return v1 } ... return vn' as one expression: the first true case wins."""
        ends = []
        for cond, value in cases:
            self.line = value.span.line
            if cond == "let":
                t = self.expr(value.value)
                self.emit(O.STORE_LOCAL, self.declare(value.name, t))
                continue
            skips = self.branch_false(cond, "a condition")
            self.expr(value)
            ends.append(self.emit(O.JUMP, None))
            self.patch_all(skips)
        self.line = last.span.line
        self.expr(last)
        self.patch_all(ends)

    def _call_builtin(self, b: B.Builtin, e: A.Call) -> str:
        if self.pure and b.name in IMPURE_BUILTINS:
            self.error("E0330", f"'{b.name}' draws a random number; this context may only compute a value",
                       e.span)
        ok = self._arity(e, len(b.params))
        bound: dict = {}
        for i, a in enumerate(e.args):
            t = self.expr(a)
            if ok:
                self._match_param(b.params[i], t, bound, a.span, f"argument {i + 1} of '{b.name}'")
        self.emit(O.CALL_BUILTIN, (B.INDEX[b.name], len(e.args)))
        ret = b.returns
        tv = bound.get("T", "any")
        return ret.replace("T", tv) if "T" in ret else ret

    def _match_param(self, want: str, got: str, bound: dict, span: Span, what: str):
        if want == "any":
            return
        if want == "coll[T]":
            if got == "zone":
                bound.setdefault("T", "thing")
            elif is_list(got):
                bound.setdefault("T", elem(got))
            elif got != "any":
                self.error("E0310", f"{what} must be a list or a zone, but this is {got}", span)
            return
        if want == "list[list[T]]":
            if is_list(got) and is_list(elem(got)):
                bound["T"] = elem(elem(got))
            elif got != "any":
                self.error("E0310", f"{what} must be a list of lists, but this is {got}", span)
            return
        if want == "list[T]":
            if is_list(got):
                bound["T"] = self.types.join(bound.get("T", elem(got)), elem(got))
            elif got != "any":
                self.error("E0310", f"{what} must be a list, but this is {got}", span)
            return
        if want == "T":
            if "T" in bound and not self.types.comparable(bound["T"], got):
                self.error("E0310", f"{what} must be {bound['T']}, but this is {got}", span)
            return
        self.expect(got, want, span, what)

    def e_ZoneOf(self, e: A.ZoneOf):
        info = self.syms.zones.get(e.zone)
        owner_t = self.expr(e.owner)
        if info is None:
            self.error("E0307", f"unknown zone '{e.zone}'", e.span, did_you_mean(e.zone, self.syms.zones))
            return "any"
        index, per_player = info
        if not per_player:
            self.error("E0315", f"zone '{e.zone}' is shared, it belongs to no player", e.span,
                       f"write just '{e.zone}'")
            return "zone"
        self.expect(owner_t, "player", e.owner.span, "the owner of a zone")
        self.emit(O.ZONE_OF, index)
        return "zone"

    def e_Unary(self, e: A.Unary):
        t = self.expr(e.operand)
        if e.op == "-":
            self.expect(t, "int", e.operand.span, "the operand of '-'")
            self.emit(O.NEG)
            return "int"
        self.expect(t, "bool", e.operand.span, "the operand of 'not'")
        self.emit(O.NOT)
        return "bool"

    def e_Binary(self, e: A.Binary):
        op = e.op
        if op in ("and", "or"):
            self.expect(self.expr(e.left), "bool", e.left.span, f"the left side of '{op}'")
            self.emit(O.DUP)
            short = self.emit(O.JUMP_IF_FALSE if op == "and" else O.JUMP_IF_TRUE, None)
            self.emit(O.POP)
            self.expect(self.expr(e.right), "bool", e.right.span, f"the right side of '{op}'")
            self.patch(short)
            return "bool"
        lt = self.expr(e.left)
        rt = self.expr(e.right)
        if op in ARITH:
            self.emit(ARITH[op])
            if op == "+" and "any" in (lt, rt):
                return rt if lt == "any" else lt
            if op == "+" and is_list(lt):
                joined = self.types.join(lt, rt)
                if joined == "?" or not is_list(rt):
                    self.error("E0310", f"cannot add {rt} to {lt}", e.span,
                               "to add one item, wrap it in brackets: xs + [x]")
                    return "any"
                return joined
            if op == "+" and lt == "str" and rt == "str":
                return "str"
            if lt not in ("int", "any") or rt not in ("int", "any"):
                self.error("E0310", f"'{op}' needs numbers, but got {lt} and {rt}", e.span)
            return "int"
        if op in COMPARE:
            self.emit(COMPARE[op])
            if op in ("==", "!="):
                if not self.types.comparable(lt, rt):
                    self.error("E0310", f"comparing {lt} with {rt} is always {'false' if op == '==' else 'true'}",
                               e.span)
            elif lt not in ("int", "any") or rt not in ("int", "any"):
                self.error("E0310", f"'{op}' compares numbers, but got {lt} and {rt}", e.span)
            return "bool"
        # in / not in
        self.emit(O.IN)
        if op == "not in":
            self.emit(O.NOT)
        if rt == "zone":
            self.expect(lt, "thing", e.left.span, "the left side of 'in ZONE'")
        elif is_list(rt):
            if not self.types.comparable(lt, elem(rt)):
                self.error("E0310", f"a {lt} is never in a {rt}", e.span)
        elif rt != "any":
            self.error("E0310", f"'in' needs a list or a zone on its right, but this is {rt}", e.right.span)
        return "bool"

    def e_Divide(self, e: A.Divide):
        self.expect(self.expr(e.left), "int", e.left.span, "the dividend")
        self.expect(self.expr(e.right), "int", e.right.span, "the divisor")
        self.emit(O.DIV_UP if e.rounding == "up" else O.DIV_DOWN)
        return "int"

    def _player_or_actor(self, player, span: Span, what: str):
        if player is not None:
            self.expect(self.expr(player), "player", player.span, f"who {what}")
            return
        if self.has_actor:
            slot, _ = self.lookup_local("actor")
            self.emit(O.LOAD_LOCAL, slot)
            return
        self.error("E0316", f"say who {what}: add 'for PLAYER'", span)
        self.emit(O.CONST, None)

    def e_Choose(self, e: A.Choose):
        t = self.expr(e.options)
        if t == "zone":
            self.emit(O.TO_LIST)
            t = "list[thing]"
        elif not is_list(t) and t != "any":
            self.error("E0310", f"'choose' needs a list or zone of options, but this is {t}", e.options.span)
        self._player_or_actor(e.player, e.span, "chooses")
        self.emit(O.DECIDE, e.tag)
        item = elem(t) if t != "any" else "any"
        known = self.syms.choice_types.get(e.tag)
        if known is None or known == "any":
            self.syms.choice_types[e.tag] = item
        elif not self.types.comparable(known, item):
            self.error("E0317", f"choice '{e.tag}' offers {item} here but {known} elsewhere", e.span,
                       "give different choices different tags")
        return item

    def e_Act(self, e: A.Act):
        if e.group not in self.syms.groups:
            self.error("E0308", f"no action is declared 'in {e.group}'", e.span,
                       did_you_mean(e.group, self.syms.groups))
            self.expr(e.player)
            return "str"
        self.syms.acted.add(e.group)
        pslot = self.hidden("acting player")
        acc = self.hidden("options")
        self.expect(self.expr(e.player), "player", e.player.span, "who acts")
        self.emit(O.STORE_LOCAL, pslot)
        self.emit(O.NEW_LIST)
        self.emit(O.STORE_LOCAL, acc)
        for action_name in self.syms.groups[e.group]:
            info = self.syms.actions[action_name]
            # An action whose parameter-free requirements fail offers nothing: test
            # them here and skip its enumerator call (most hero actions are off).
            skip = self._action_guard(info, pslot)
            # Each enumerator returns its options; gather them in declaration order.
            self.emit(O.LOAD_LOCAL2, (acc, pslot))
            self.emit(O.CALL, (info.enum_fn, 1))
            self.emit(O.ADD)
            self.emit(O.STORE_LOCAL, acc)
            self.patch_all(skip)
        self.emit(O.LOAD_LOCAL, acc)
        self.emit(O.LOAD_LOCAL, pslot)
        self.emit(O.DECIDE_ACTION, e.group)
        self.emit(O.DUP)
        skip = self.emit(O.JUMP_IF_FALSE, None)  # none: nothing was legal
        self.emit(O.LOAD_LOCAL, pslot)
        self.emit(O.PERFORM)
        self.patch(skip)
        return "str"

    def _action_guard(self, info, pslot: int) -> list:
        params = {p.name for p in info.decl.params}
        guards = [r for r in info.decl.requires if not (names_in(r) & params)]
        jumps: list = []
        for req in guards:
            jumps += self._guard(req, {"actor": (pslot, "player")})
        return jumps

    def _guard(self, cond, visible: dict) -> list:
        """Compile a declaration's condition at a use site, seeing only `visible`.

        Returns the jumps taken when it is false. It was type-checked where it
        is declared, so diagnostics are not repeated here.
        """
        saved = (self.scopes, self.diags, self.pure, self.line)
        self.scopes = [dict(visible)]
        self.diags = []
        self.pure = True
        jumps: list = []
        try:
            self._jump_if(cond, False, jumps, "a condition")
        finally:
            self.scopes, self.diags, self.pure, self.line = saved
        return jumps

    def e_Create(self, e: A.Create):
        t = self.expr(e.entry)
        if t not in ("str", "any") and not self.types.is_kind(t):
            self.error("E0309", f"'create' needs an entry (a die or an entry of a kind), but this is {t}",
                       e.entry.span)
        self.expect(self.expr(e.zone), "zone", e.zone.span, "where to create it")
        self.emit(O.CREATE)
        return "thing"

    def e_Emit(self, e: A.Emit):
        params = self.syms.events.get(e.event)
        if params is None:
            self.error("E0318", f"unknown event '{e.event}'", e.span, did_you_mean(e.event, self.syms.events))
            for _, v, _ in e.kwargs:
                self.expr(v)
            return "any"
        self.syms.emitted.add(e.event)
        given = {name: (v, span) for name, v, span in e.kwargs}
        for name, _, span in e.kwargs:
            if name not in dict(params):
                self.error("E0302", f"event '{e.event}' has no field '{name}'", span,
                           did_you_mean(name, dict(params)))
        names = []
        for pname, ptype in params:
            if pname not in given:
                self.error("E0319", f"'emit {e.event}' is missing field '{pname}'", e.span)
                self.emit(O.CONST, None)
            else:
                v, span = given[pname]
                self.expect(self.expr(v), ptype, v.span, f"field '{pname}'")
            names.append(pname)
        self.emit(O.NEW_EVENT, (e.event, tuple(names)))
        # Run the handlers, best priority first, unless one cancels.
        handlers = self.syms.handlers.get(e.event, [])
        if handlers:
            ev = self.hidden("event")
            self.emit(O.STORE_LOCAL, ev)
            exits = []
            for i, h in enumerate(handlers):
                if i:  # a fresh event is never cancelled: the first handler needs no test
                    exits.append(self.emit(O.JUMP_IF_CANCELLED, (ev, None)))
                # Most handlers belong to one hero or card: test 'when' here and
                # skip the call when it does not apply.
                skip = self._guard(h.decl.when, {"event": (ev, f"event:{e.event}")}) if h.decl.when else []
                self.emit(O.LOAD_LOCAL, ev)
                self.emit(O.CALL, (h.fn_index, 1))
                self.emit(O.POP)
                self.patch_all(skip)
            for at in exits:
                self.patch(at)
            self.emit(O.LOAD_LOCAL, ev)
        return f"event:{e.event}"

    def e_Quant(self, e: A.Quant):
        kind = e.kind
        acc = self.hidden(kind)
        if kind == "count":
            self.emit(O.CONST, 0)
        elif kind == "each":
            self.emit(O.NEW_LIST)
        elif kind == "exists":
            self.emit(O.CONST, False)
        elif kind == "forall":
            self.emit(O.CONST, True)
        else:
            self.emit(O.CONST, None)
        self.emit(O.STORE_LOCAL, acc)
        item_t = self.collection(e.source, f"'{kind}'")

        def body():
            slot, _ = self.lookup_local(e.var)
            if e.cond is not None:
                # Items that do not decide go straight to the next item.
                jumps: list = []
                self._jump_if(e.cond, kind == "forall", jumps, "a 'where' condition")
                self.loops[-1].continues.extend(jumps)
            if kind == "count":
                self.emit(O.LOAD_LOCAL, acc)
                self.emit(O.CONST, 1)
                self.emit(O.ADD)
                self.emit(O.STORE_LOCAL, acc)
            elif kind == "each":
                self.emit(O.LOAD_LOCAL, slot)
                self.emit(O.APPEND, acc)
            elif kind in ("exists", "forall", "first"):
                if kind == "first":
                    self.emit(O.LOAD_LOCAL, slot)
                else:
                    self.emit(O.CONST, kind == "exists")
                self.emit(O.STORE_LOCAL, acc)
                self.loops[-1].breaks.append(self.emit(O.JUMP, None))

        if kind == "forall" and e.cond is None:
            self.error("E0310", "'forall' needs a 'where' condition", e.span)
        self._loop_over(e.var, item_t, body, e.span)
        self.emit(O.LOAD_LOCAL, acc)
        if kind == "each":
            self.emit(O.FREEZE)
            return list_of(item_t)
        return {"count": "int", "exists": "bool", "forall": "bool", "first": item_t}[kind]

    def e_SumOf(self, e: A.SumOf):
        acc = self.hidden("sum")
        self.emit(O.CONST, 0)
        self.emit(O.STORE_LOCAL, acc)
        item_t = self.collection(e.source, "'sum'")

        def body():
            if e.cond is not None:
                self.loops[-1].continues.extend(self.branch_false(e.cond, "a 'where' condition"))
            self.emit(O.LOAD_LOCAL, acc)
            self.expect(self.expr(e.value), "int", e.value.span, "what 'sum' adds up")
            self.emit(O.ADD)
            self.emit(O.STORE_LOCAL, acc)

        self._loop_over(e.var, item_t, body, e.span)
        self.emit(O.LOAD_LOCAL, acc)
        return "int"

    def e_RandomFrom(self, e: A.RandomFrom):
        t = self.expr(e.source)
        self.emit(O.RANDOM_FROM)
        if t == "zone":
            return "thing"
        if is_list(t):
            return elem(t)
        if t != "any":
            self.error("E0310", f"'random from' needs a list or zone, but this is {t}", e.source.span)
        return "any"
