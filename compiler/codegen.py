"""Type-check and emit bytecode for one function body.

The checker and the emitter walk the AST together: every expression method
returns the expression's type and appends the code that computes it. Errors
become diagnostics (never exceptions) and the walk goes on, typing the bad
expression as 'any' so one mistake is reported once.

FunctionCompiler is split over three files: this one (plumbing and
statements), expressions.py (one method per expression) and inlining.py
(conditions as jumps, small functions compiled in place, guards).
"""
from __future__ import annotations

from typing import Callable, Optional

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.span import Span
from runebook.runtime import opcodes as O
from runebook.runtime.program import Function

from .declarations import keyword_name
from .peephole import optimise
from .stackcheck import verify as verify_stack
from .symbols import Symbols
from .expressions import Expressions, a_type, event_reads
from .inlining import Inlining, names_in
from .lints import check_branches
from .types import ANY, INT, NONE, PLAYER, STR, THING, TILE, ZONE, Type, TypeSpace, elem, list_of

__all__ = ["FunctionCompiler", "a_type", "names_in"]


def steady_create(body: list):
    """The `create` of a loop body that is that one statement, when its entry and zone are
    names (or a player's zone named by one): nothing a `create` changes, so every turn makes
    the same thing in the same zone and the turns can run as one CREATE_MANY."""
    if len(body) != 1 or not isinstance(body[0], A.ExprStmt) or not isinstance(body[0].expr, A.Create):
        return None
    create = body[0].expr
    zone = create.zone
    steady_zone = isinstance(zone, A.Name) or isinstance(zone, A.ZoneOf) and isinstance(zone.owner, A.Name)
    return create if isinstance(create.entry, A.Name) and steady_zone else None


class _Loop:
    def __init__(self):
        self.breaks: list[int] = []
        self.continues: list[int] = []


class FunctionCompiler(Expressions, Inlining):
    """Compiles one function body: params and locals, statements, the line table."""

    def __init__(self, syms: Symbols, types: TypeSpace, diags: list, name: str, file: str,
                 ret: Optional[Type] = None, pure: bool = False, in_handler: Optional[str] = None,
                 actor: bool = False, lift: Optional[Callable[[Function], int]] = None):
        self.syms = syms
        self.types = types
        self.diags = diags
        self.name = name
        self.file = file
        self.ret = ret
        self.pure = pure
        self.in_handler = in_handler
        self.has_actor = actor
        # lift(function) adds a function made while compiling this one (a log line's
        # narration) to the program and gives its index.
        self.lift = lift
        self.outer_names: list[str] = []  # the locals of the body a narration was lifted from
        self.code: list = []
        self.lines: list = []
        self.cols: list = []
        self.origins: list = []   # per instruction: 0, or 1 + index in self.inlined
        self.origin = 0
        self.inlined: list = []   # [name, file] of each function compiled in place
        self.scopes: list[dict] = [{}]
        self.local_names: list[str] = []
        self.loops: list[_Loop] = []
        self.line = 0
        self.col = 0              # the statement's column, kept per instruction beside its line
        self.return_value = None  # what a bare 'return' and the end give back (actions: their name)
        self.inline_depth = 0
        self.inlined_return = None   # (value_code, jumps to the end) while a body is compiled in place
        self.field_cache: dict = {}  # (name, field) -> (slot, type) read once at an emit site
        self.unbuilt_events: dict = {}  # a let's slot -> {field: (slot, type)} of an event never built
        self.following: list = []  # the statements after the one being compiled, in its block
        # An error in code compiled here again (an inlined body, an action's guard) is reported
        # where that code is declared, not here; this body holds it all the same.
        self.errors_elsewhere = False

    # ---------------------------------------------------------------- plumbing

    def error(self, code: str, message: str, span: Span, hint: Optional[str] = None, severity="error"):
        self.diags.append(Diagnostic(code, message, span, hint, severity))

    def unknown_type(self, span: Span, what: str) -> None:
        """A value whose type no code tells (an item of a list started empty and never given a
        typed list) used as a thing or player. After another error, the unknown type is that
        error's echo and says nothing new."""
        if not any(d.severity == "error" for d in self.diags):
            self.error("E0311", f"cannot tell what this value is, so cannot {what}", span,
                       "a list started empty ('[]') has items of no known kind until a typed list is "
                       "added to it ('found += [x]'); start it from a typed expression, or add to it first")

    def emit(self, op: int, arg=None) -> int:
        self.code.append((op, arg))
        self.lines.append(self.line)
        self.cols.append(self.col)
        self.origins.append(self.origin)
        return len(self.code) - 1

    @property
    def position(self) -> tuple:
        """(line, col) that instructions emitted now are attributed to."""
        return self.line, self.col

    @position.setter
    def position(self, value: tuple) -> None:
        self.line, self.col = value

    def at(self, span: Span) -> None:
        self.position = span.line, span.col

    def drop_code(self, start: int) -> None:
        """Forget the instructions from `start` on (folded or compiled only to be typed)."""
        for column in (self.code, self.lines, self.cols, self.origins):
            del column[start:]

    def here(self) -> int:
        return len(self.code)

    def patch(self, at: int, target: Optional[int] = None):
        op, arg = self.code[at]
        self.code[at] = (op, O.with_jump_target(op, arg, self.here() if target is None else target))

    def declare(self, name: str, type_: Type, span: Optional[Span] = None) -> int:
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

    def _refine_local(self, name: str, type_: Type) -> None:
        """A local started as an empty list takes the type of the first typed list added to
        or stored in it (`let found = []` then `found += [x]`), so later reads know its items."""
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = (scope[name][0], type_)
                return

    def lookup_local(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def local_candidates(self) -> list[str]:
        """Local names a misspelt one may have meant (a narration function: its body's too)."""
        return [n for scope in self.scopes for n in scope] + self.outer_names

    def finish(self, nparams: int) -> Function:
        """The body's last stage: its implicit return, then the peephole pass (fused pairs,
        threaded jumps, guard chains made switches), the stack check, then the Function."""
        self.emit(O.CONST, self.return_value)
        self.emit(O.RETURN)
        code, lines, cols, origins = optimise(self.code, self.lines, self.cols, self.origins)
        if not self.errors_elsewhere and not any(d.severity == "error" for d in self.diags):
            verify_stack(self.name, code)  # (code with errors is never run, and may be unbalanced)
        return Function(self.name, nparams, len(self.local_names), code, lines,
                        self.file, self.local_names, origins if self.inlined else [], self.inlined, cols)

    def expect(self, got: Type, want: Type, span: Span, what: str) -> None:
        if not self.types.assignable(got, want):
            self.error("E0310", f"{what} must be {want}, but this is {got}", span)

    # ---------------------------------------------------------------- statements

    def block(self, stmts: list, new_scope: bool = True) -> bool:
        """Compile a statement list; return True when it always leaves (return/break)."""
        if new_scope:
            self.scopes.append({})
        leaves = False
        for at, stmt in enumerate(stmts):
            self.following = stmts[at + 1:]
            if leaves:
                self.error("E0320", "unreachable statement: the code above always leaves this block",
                           stmt.span, "remove it, or move it before the 'return'/'break'/'continue'")
                break
            leaves = self.stmt(stmt)
        if new_scope:
            self.scopes.pop()
        return leaves

    def stmt(self, s) -> bool:
        self.at(s.span)
        if self.pure and not isinstance(s, (A.Let, A.If, A.Return, A.For, A.Assign)):
            self.error("E0330", "this context may only compute a value, not change the game", s.span)
        method = getattr(self, "s_" + type(s).__name__)
        return bool(method(s))

    def s_Let(self, s: A.Let):
        if isinstance(s.value, A.Emit):
            read = event_reads(s.name, self.following)
            t, fields = self.emit_event(s.value, read)
            slot = self.declare(s.name, t, s.span)
            if fields is None:
                self.emit(O.STORE_LOCAL, slot)
            else:  # every later use reads a field: the event stays unbuilt when no handler runs
                self.unbuilt_events[slot] = fields
            return
        t = self.expr(s.value)
        if t == NONE:
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

    def _compound(self, s: A.Assign, load_current, want: Type):
        """Compile the value of '=', '+=' or '-=' against the target's type."""
        if s.op == "=":
            t = self.expr(s.value)
            self.expect(t, want, s.value.span, "the new value")
            return t
        if want != INT and not want.is_list:
            self.error("E0310", f"'{s.op}' needs a number or a list, but the target is {want}", s.span)
        load_current()
        t = self.expr(s.value)
        self.expect(t, want, s.value.span, "the amount")
        self.emit(O.ADD if s.op == "+=" else O.SUB)
        if s.op == "-=" and want != INT:
            self.error("E0310", "'-=' works on numbers only", s.span)
        return t

    def _assign_name(self, target: A.Name, s: A.Assign):
        local = self.lookup_local(target.name)
        if local:
            slot, t = local
            given = self._compound(s, lambda: self.emit(O.LOAD_LOCAL, slot), t)
            self.emit(O.STORE_LOCAL, slot)
            if t == list_of(ANY) and given is not None and given.is_list and elem(given) != ANY:
                self._refine_local(target.name, given)
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
        if obj_t == PLAYER and name in self.syms.player_vars:
            slot, t = self.syms.player_vars[name]
            self._set_field(s, (O.PLAYER_VAR, slot), (O.SET_PLAYER_VAR, slot), t)
        elif obj_t == THING and name in self.syms.thing_vars:
            slot, t = self.syms.thing_vars[name]
            self._set_field(s, (O.THING_VAR, slot), (O.SET_THING_VAR, slot), t)
        elif obj_t == THING and name == "face":
            self._set_field(s, (O.THING_FACE, None), (O.SET_FACE, None), STR)
        elif obj_t.is_event:
            params = dict(self.syms.events.get(obj_t.event, []))
            if name not in params:
                self.error("E0302", f"event '{obj_t.event}' has no field '{name}'", target.span,
                           did_you_mean(name, params))
                return
            self._set_field(s, (O.EVENT_FIELD, name), (O.SET_EVENT_FIELD, name), params[name])
        elif obj_t in (PLAYER, THING):
            table = self.syms.player_vars if obj_t == PLAYER else self.syms.thing_vars
            self.error("E0302", f"a {obj_t} has no variable '{name}'", target.span,
                       did_you_mean(name, table) or self._settable_hint(obj_t))
        elif obj_t != ANY:
            self.error("E0314", f"cannot change '{name}' of a {obj_t}", target.span,
                       self._settable_hint(obj_t))
        else:
            self.unknown_type(target.obj.span, f"change its '{name}'")

    def _set_field(self, s: A.Assign, get, set_, want: Type):
        """Stack holds the object; leave it set: [obj] -> []."""
        if s.op == "=":
            self.expect(self.expr(s.value), want, s.value.span, "the new value")
        else:
            self.emit(O.DUP)
            self._compound(s, lambda: self.emit(*get), want)
        self.emit(*set_)

    def _settable_hint(self, t: Type) -> Optional[str]:
        if t == PLAYER:
            return "declare it with 'var NAME: TYPE per player = ...'"
        if t == THING:
            return "declare it with 'var NAME: TYPE per thing = ...', or set '.face' of a die"
        if self.types.is_kind(t):
            return "entry fields are fixed by the content; keep changing state in a 'var'"
        return None

    def s_If(self, s: A.If):
        check_branches(s, self._constant, self.diags)
        ends = []
        all_leave = True
        for cond, body in s.branches:
            self.at(cond.span)
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

    def _loop_over(self, var: str, var_type: Type, body_fn, span: Optional[Span] = None):
        """items/index hidden locals, FOR_ITER step, body, back-edge."""
        items = self.hidden("items")
        index = self.hidden("index")
        self.emit(O.ITER_START, (items, index))
        self.scopes.append({})
        slot = self.declare(var, var_type, span)
        header = self.position
        top = self.here()
        step = self.emit(O.FOR_ITER, (items, index, slot, None))  # its exit is patched in last
        self._loop_body(body_fn, top, header, [step])
        self.scopes.pop()

    def s_For(self, s: A.For):
        t = self.collection(s.source, "a 'for' loop")
        self._loop_over(s.var, t, lambda: self.block(s.body), s.span)

    def collection(self, source, what: str) -> Type:
        """Compile a list or zone for a loop (ITER_START snapshots it); return the item type."""
        return self.item_type(self.expr(source), source, what)

    def item_type(self, t: Type, source, what: str) -> Type:
        if t == ZONE:
            return THING
        if t.is_list:
            return t.item
        if t != ANY:
            self.error("E0310", f"{what} needs a list or a zone, but this is {t}", source.span)
        return ANY

    def s_Repeat(self, s: A.Repeat):
        header = self.position
        self.expect(self.expr(s.count), INT, s.count.span, "the repeat count")
        counter = self.hidden("repeat")
        self.emit(O.STORE_LOCAL, counter)
        top = self.here()
        self.emit(O.LOAD_LOCAL, counter)
        self.emit(O.CONST, 0)
        self.emit(O.GT)
        done = self.emit(O.JUMP_IF_FALSE, None)
        create = steady_create(s.body)
        if create is not None:  # every turn as one instruction, after the same first test
            self.at(s.body[0].span)
            self.create_operands(create)
            self.position = header  # it spends the loop's steps: running out is the loop's, as at its back-edge
            self.emit(O.LOAD_LOCAL, counter)
            self.emit(O.CREATE_MANY)
            self.patch(done)
            return
        self.emit(O.LOAD_LOCAL, counter)
        self.emit(O.CONST, 1)
        self.emit(O.SUB)
        self.emit(O.STORE_LOCAL, counter)
        self._loop_body(lambda: self.block(s.body), top, header, [done])

    def s_While(self, s: A.While):
        header = self.position
        top = self.here()
        done = self.branch_false(s.cond, "a condition")
        self._loop_body(lambda: self.block(s.body), top, header, done)

    def _loop_body(self, body_fn, top: int, header: int, exits: list):
        """Body, back-edge to top, then patch the loop's exits, breaks and continues.

        The back-edge is the loop's one way back to its top: a JUMP, which spends a
        step of the budget. Continues (and `where`/`require` filters) jump forward to
        it rather than to the top, so every turn of every loop passes a backward JUMP:
        the budget needs no other step (a conditional jump never goes backward).
        """
        loop = _Loop()
        self.loops.append(loop)
        body_fn()
        self.loops.pop()
        self.patch_all(loop.continues)
        self.position = header  # the back-edge (where the budget is spent) belongs to the loop's line
        self.emit(O.JUMP, top)
        self.patch_all(exits)
        self.patch_all(loop.breaks)

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
        if self.inlined_return is not None:
            return self.inlined_return_value(s)
        if s.value is None:
            if self.ret not in (None, NONE):
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
        dest = self.expr(s.dest)
        if dest in (TILE, NONE):  # onto a board's tile; none: off the board
            if s.place == "top":
                self.error("E0310", "'top' places a thing in a zone's order; a tile has none", s.dest.span)
            self.emit(O.PLACE)
            return
        self.expect(dest, ZONE, s.dest.span, "the destination")
        self.emit(O.MOVE, s.place)

    def things(self, e, verb: str):
        t = self.expr(e)
        if t == ZONE:
            self.emit(O.TO_LIST)  # every thing in the zone, as it is now
        elif t not in (THING, list_of(THING), ANY, list_of(ANY)):
            self.error("E0310", f"'{verb}' needs a thing, a list of things or a zone, but this is {t}", e.span)

    def s_Destroy(self, s: A.Destroy):
        self.things(s.what, "destroy")
        self.emit(O.DESTROY)

    def s_Roll(self, s: A.Roll):
        self.things(s.what, "roll")
        self.emit(O.ROLL)

    def s_Shuffle(self, s: A.Shuffle):
        self.expect(self.expr(s.zone), ZONE, s.zone.span, "what to shuffle")
        self.emit(O.SHUFFLE)

    def s_Log(self, s: A.Log):
        # Narration is skipped entirely when the match is not recorded. So that a
        # simulation and a recorded match of the same seed play the same game to the
        # last step, the line is made by a narration function of its own, lifted out
        # of this body with the locals it mentions as parameters: a question (pure),
        # run aside with its own budget and memo, whose failure becomes a line
        # saying so (NARRATE). Only the loads of those locals stay here.
        skip = self.emit(O.SKIP_IF_QUIET, None)
        mentioned = names_in(s.text) | (names_in(s.to) if s.to is not None else set())
        captured = sorted((found[0], name, found[1]) for name in mentioned
                          if (found := self.lookup_local(name)) is not None)
        narration = FunctionCompiler(self.syms, self.types, self.diags, f"log in {self.name}", self.file,
                                     pure=True, in_handler=self.in_handler, lift=self.lift)
        narration.position = self.position
        narration.outer_names = self.local_candidates()
        unbuilt = []  # an event never made is handed over as its fields' values
        for slot, name, type_ in captured:
            fields = self.unbuilt_events.get(slot)
            if fields is None:
                narration.declare(name, type_)
                self.emit(O.LOAD_LOCAL, slot)
                continue
            given = {}
            for field, (field_slot, field_type) in fields.items():
                given[field] = (narration.hidden(f"{name}.{field}"), field_type)
                self.emit(O.LOAD_LOCAL, field_slot)
            unbuilt.append((name, type_, given))
        handed = len(narration.local_names)
        for name, type_, given in unbuilt:
            narration.unbuilt_events[narration.declare(name, type_)] = given
        if s.to is not None:
            narration.expect(narration.expr(s.to), PLAYER, s.to.span, "who may read the line")
        narration.expr(s.text)
        if s.to is not None:
            narration.emit(O.BUILD_LIST, 2)
        narration.emit(O.RETURN)
        index = self.lift(narration.finish(handed))
        self.emit(O.NARRATE if s.to is None else O.NARRATE_TO, (index, handed))
        self.patch(skip)

    def s_Cancel(self, s: A.Cancel):
        if self.in_handler is None:
            self.error("E0322", "'cancel' is only meaningful inside an 'on EVENT' handler", s.span)
            return
        slot, _ = self.lookup_local("event")
        self.emit(O.CANCEL, slot)

    def s_ExprStmt(self, s: A.ExprStmt):
        e = s.expr
        if not isinstance(e, (A.Call, A.MethodCall, A.Emit, A.Act, A.Create, A.Choose,
                              A.ChooseSecretly)):
            self.error("E0323", "this expression is computed and then thrown away", s.span,
                       "use it in a 'let', an 'if' or a call")
        if isinstance(e, A.Emit):
            if self.emit_event(e, set())[1] is not None:
                return  # the event was never made: nothing to throw away
        else:
            self.expr(e)
        self.emit(O.POP)
