"""Conditions compiled as jumps, and small functions compiled in place.

Part of FunctionCompiler (compiler/codegen.py). A condition (if, while,
require, where, when) becomes jumps, so and/or/not cost no values. A
small function or procedure with no loop (`let`, assignments, calls, `if`,
`return`: _inline_shape) is compiled at its call sites. The guards of actions and handlers
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


# A body compiled in place other than a chain of `if C { return V }` is at most this many
# statements (nested ones counted): each call site gets a copy.
MAX_INLINED_STATEMENTS = 16


def _inline_shape(body: list, proc: bool) -> Optional[set]:
    """The names a body assigns, when it can be compiled in place, else None: only `let`,
    assignments to names, calls, `move`/`roll`/`shuffle`/`destroy`, `if`/`elif`/`else` and
    `return` (no loop, so no step is spent inside, and no log line, whose narration would
    be lifted once per copy). A fn's body ends in `return V`, so every way through it ends
    in a value. A body longer than MAX_INLINED_STATEMENTS is compiled in place only when it
    is a fn's chain of `let` and `if C { return V }` (the shape of most small content
    functions)."""
    if not proc and (not body or not isinstance(body[-1], A.Return) or body[-1].value is None):
        return None
    assigned: set = set()
    chain = not proc
    count = 0

    def fits(stmts: list, top: bool) -> bool:
        nonlocal chain, count
        for stmt in stmts:
            count += 1
            if isinstance(stmt, A.Let):
                chain &= top
            elif isinstance(stmt, A.Return):
                if (stmt.value is None) != proc:
                    return False
            elif isinstance(stmt, A.Assign) and isinstance(stmt.target, A.Name):
                assigned.add(stmt.target.name)
                chain = False
            elif isinstance(stmt, (A.ExprStmt, A.Move, A.Roll, A.Shuffle, A.Destroy)):
                chain = False
            elif isinstance(stmt, A.If):
                blocks = [block for _, block in stmt.branches] + ([stmt.orelse] if stmt.orelse is not None else [])
                chain &= top and len(blocks) == 1 and len(blocks[0]) == 1 and isinstance(blocks[0][0], A.Return)
                if not all(fits(block, False) for block in blocks):
                    return False
            else:
                return False
        return True

    if not fits(body, True):
        return None
    return assigned if chain or count <= MAX_INLINED_STATEMENTS else None


def function_name(fn) -> str:
    """A script function's compiled name ('fn score', 'proc play'): runtime errors name it so."""
    return f"proc {fn.name}" if fn.ret is None else f"fn {fn.name}"


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
                self.patch_all(skip)
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
        assigned = self._inlinable(fn) if ok else None
        inline = assigned is not None
        slots = []
        for i, a in enumerate(e.args):
            # a parameter the body assigns gets a slot of its own, never the caller's local
            t, slot = self._argument(a, inline and (i >= len(fn.params) or fn.params[i][0] not in assigned))
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

    # Bodies compiled in place inside one another at most this deep: each level copies the
    # code below it into every call site.
    MAX_INLINE_DEPTH = 3

    def _inlinable(self, fn) -> Optional[set]:
        """The names its body assigns when a function is compiled in place (_inline_shape), else None.

        Calls cost a frame and several instructions (and a memo's key and lookup);
        content is full of tiny predicates (is_face, ready, ...) and small
        choosers, so this is the interpreter's biggest single saving. Behaviour
        is unchanged: the arguments are still evaluated once, left to right,
        before the body, and the body spends no step (it has no loop).
        """
        if self.inline_depth >= self.MAX_INLINE_DEPTH or self._recursive(fn):
            return None
        return _inline_shape(fn.decl.body, fn.ret is None)

    def _recursive(self, fn) -> bool:
        """A call of the function being compiled, or of one being compiled in place around
        this call: written out, it would copy itself again at each level."""
        name = function_name(fn)
        origin = self.origin  # 1 + the record of the body being compiled in place, or 0
        while origin:
            record = self.inlined[origin - 1]
            if record[0] == name:
                return True
            origin = record[4]  # the record it was compiled into
        return name == self.name

    def _inline(self, fn, slots: list, jump: Optional[tuple] = None):
        """Compile fn's body here, its parameters read from `slots` (a computed argument, still
        on the stack, is stored in a hidden local first; a constant is bound as it is)."""
        for i in reversed(range(len(slots))):
            if slots[i] is None:  # computed arguments are on the stack, last on top
                slots[i] = self.hidden(f"{fn.name}.{fn.params[i][0]}")
                self.emit(O.STORE_LOCAL, slots[i])
        saved = (self.scopes, self.diags, self.position, self.origin)
        # Runtime errors in the inlined code name the inlined function and its line, and
        # the call chain the place it was called from.
        self.inlined.append([function_name(fn), fn.decl.span.file,
                             self.line, self.col, self.origin])
        self.origin = len(self.inlined)
        self.at(fn.decl.body[-1].span if fn.decl.body else fn.decl.span)
        # Only the parameters are visible: the caller's locals must not shadow the callee's globals.
        self.scopes = [{pname: (slot, ptype) for (pname, ptype), slot in zip(fn.params, slots)}]
        self.diags = []  # the body was already checked where it is declared
        self.inline_depth += 1
        saved_return = self.inlined_return
        if fn.ret is None:  # a procedure's `return` gives no value: its none is pushed at the end
            value_code = lambda v: None  # noqa: E731
        elif jump is None:
            value_code = self.expr
        else:
            when, jumps = jump
            value_code = lambda v: self._jump_if(v, when, jumps, "a condition")  # noqa: E731
        # Each statement takes the position it has when the function is called (a runtime
        # error names the same line and column either way); each `return` compiles its value
        # (as a value, or, when the call is a condition, as jumps, so 'return false' costs
        # nothing) and leaves the body.
        ends: list = []
        self.inlined_return = (value_code, ends)
        try:
            self.block(fn.decl.body, new_scope=False)
        finally:
            self.inline_depth -= 1
            self.inlined_return = saved_return
            self.errors_elsewhere |= any(d.severity == "error" for d in self.diags)
            self.scopes, self.diags, self.position, self.origin = saved
        if ends and ends[-1] == self.here() - 1:  # the body's last statement: no jump to the next
            self.drop_code(ends.pop())
        self.patch_all(ends)
        if fn.ret is None:
            self.emit(O.CONST, None)  # what a called procedure gives back

    def inlined_return_value(self, s: A.Return) -> bool:
        """`return V` of a body compiled in place: its value, then a jump to the body's end."""
        value_code, ends = self.inlined_return
        value_code(s.value)
        ends.append(self.emit(O.JUMP, None))
        return True

    @staticmethod
    def parameter_free(info) -> list:
        """An action's requirements that name none of its parameters (its guard), in order."""
        params = {p.name for p in info.decl.params}
        return [r for r in info.decl.requires if not (names_in(r) & params)]

    def action_guard(self, info, pslot: int, tested: int = 0) -> list:
        """Test an action's guard, but for its first `tested` requirements (already tested),
        for the player in `pslot`. Returns the jumps taken when a requirement fails."""
        jumps: list = []
        for req in self.parameter_free(info)[tested:]:
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
            self.errors_elsewhere |= any(d.severity == "error" for d in self.diags)
            self.scopes, self.diags, self.pure, self.position = saved
        return jumps
