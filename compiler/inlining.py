"""Conditions compiled as jumps, and small functions compiled in place.

Part of FunctionCompiler (compiler/codegen.py). A condition (if, while,
require, where, when) becomes jumps, so and/or/not cost no values. A
function whose body is only `let` and `if C { return V }` lines ending in
`return V` is compiled at its call sites. The guards of actions and handlers
are tested where they are offered or emitted, so a call is skipped when
they fail.
"""
from __future__ import annotations

from typing import Optional

from runebook.dsl import ast as A
from runebook.runtime import opcodes as O

from .expressions import _NOT_CONST
from .purity import fn_reads_only, why_fn_changes
from .types import BOOL, NONE, PLAYER, Type


def names_in(node) -> set:
    """Every bare name an expression mentions (for placing 'require' tests)."""
    return {n.name for n in A.walk(node) if isinstance(n, A.Name)}


def _return_chain(body: list):
    """([(condition, Return) or ("let", Let), ...], final Return) when a body is
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
        cases.append((cond, block[0]))
    return cases, body[-1]


class Inlining:
    """Mixin of FunctionCompiler: conditions, inlining and guards."""

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
        if isinstance(e, A.BoolLit):  # a constant decides at compile time
            if e.value == when:
                jumps.append(self.emit(O.JUMP, None))
            return
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
            self.expect(self._call_script(fn, e, (when, jumps)), BOOL, e.span, what)
            return
        self.expect(self.expr(e), BOOL, e.span, what)
        jumps.append(self.emit(O.JUMP_IF_TRUE if when else O.JUMP_IF_FALSE, None))

    def patch_all(self, jumps: list, target: Optional[int] = None):
        for at in jumps:
            self.patch(at, target)

    def _call_script(self, fn, e: A.Call, jump: Optional[tuple] = None) -> Type:
        """Call a script function, or compile it in place when it is inlinable.

        With jump=(when, jumps) the call is a condition: an inlined body is
        compiled as jumps too (see _jump_if); otherwise the caller jumps on
        the returned value.
        """
        if self.pure and fn.ret is None:
            self.error("E0330", f"'{e.name}' is a procedure; this context may only compute a value", e.span)
        elif self.pure and (why := why_fn_changes(self.syms, fn.name)) is not None:
            self.error("E0330", f"'{e.name}' changes the game (it {why}); this context may only compute a value",
                       e.span, "call a fn that only reads the game, or do the change in a procedure")
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
            # Not one that gives an event record (or a list of them): its caller may change the
            # record's fields.
            memo = fn_reads_only(self.syms, fn.name) and not fn.ret.holds_event
            call = O.CALL_MEMO if memo else O.CALL
            self.emit(call, (fn.index, len(e.args)))
            if jump is not None:
                when, jumps = jump
                jumps.append(self.emit(O.JUMP_IF_TRUE if when else O.JUMP_IF_FALSE, None))
        return fn.ret or NONE

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
            cached = self.cached_field(a)  # read once for a run of guards
            if cached is not None:
                return cached[1], cached[0]
        return self.expr(a), None

    def _const_type(self, a) -> Type:
        start = len(self.code)
        t = self.expr(a)  # types the constant the usual way, then drops its code
        self.drop_code(start)
        return t

    MAX_INLINE_DEPTH = 3

    def _inlinable(self, fn) -> bool:
        """A function whose whole body is 'return EXPR' is compiled in place.

        Calls cost a frame and several instructions; content is full of tiny
        predicates (is_face, ready, ...), so this is the interpreter's
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
        saved = (self.scopes, self.diags, self.position, self.origin)
        # Runtime errors in the inlined code name the inlined function and its line, and
        # the call chain the place it was called from.
        self.inlined.append([fn.name if fn.ret is None else f"fn {fn.name}", fn.decl.span.file,
                             self.line, self.col, self.origin])
        self.origin = len(self.inlined)
        self.at(fn.decl.body[-1].span)
        # Only the parameters are visible: the caller's locals must not shadow the callee's globals.
        self.scopes = [{pname: (slot, ptype) for (pname, ptype), slot in zip(fn.params, slots)}]
        self.diags = []  # the body was already checked where it is declared
        self.inline_depth += 1
        try:
            cases, last = _return_chain(fn.decl.body)
            if jump is None:
                self._compile_cases(cases, last, self.expr)
            else:
                when, jumps = jump
                self._compile_cases(cases, last, lambda v: self._jump_if(v, when, jumps, "a condition"))
        finally:
            self.inline_depth -= 1
            self.scopes, self.diags, self.position, self.origin = saved

    def _compile_cases(self, cases: list, last, value_code) -> None:
        """'let ...; if c1 { return v1 } ... return vn': the first true case wins.

        value_code compiles one returned value: as a value (self.expr), or, when
        the call is a condition, as jumps, so 'return false' costs nothing. Each
        part takes the position it has when the function is called (a runtime
        error names the same line and column either way).
        """
        ends = []
        for cond, stmt in cases:
            if cond == "let":
                self.at(stmt.span)
                t = self.expr(stmt.value)
                self.emit(O.STORE_LOCAL, self.declare(stmt.name, t))
                continue
            self.at(cond.span)
            skips = self.branch_false(cond, "a condition")
            self.at(stmt.span)
            value_code(stmt.value)
            ends.append(self.emit(O.JUMP, None))
            self.patch_all(skips)
        self.at(last.span)
        value_code(last.value)
        self.patch_all(ends)

    def _action_guard(self, info, pslot: int) -> list:
        params = {p.name for p in info.decl.params}
        guards = [r for r in info.decl.requires if not (names_in(r) & params)]
        jumps: list = []
        for req in guards:
            jumps += self._guard(req, {"actor": (pslot, PLAYER)})
        return jumps

    def _guard(self, cond, visible: dict) -> list:
        """Compile a declaration's condition at a use site, seeing only `visible`.

        Returns the jumps taken when it is false. It was type-checked where it
        is declared, so diagnostics are not repeated here.
        """
        saved = (self.scopes, self.diags, self.pure, self.position)
        self.scopes = [dict(visible)]
        self.diags = []
        self.pure = True
        jumps: list = []
        try:
            self._jump_if(cond, False, jumps, "a condition")
        finally:
            self.scopes, self.diags, self.pure, self.position = saved
        return jumps
