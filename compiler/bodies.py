"""Second pass: compile every function, action, handler and rating body.

Function indices are handed out before any body is compiled, so scripts may
call each other in any order. Action enumerators are synthesised here: one
nested loop per parameter over its domain, each 'require' tested at the
shallowest loop where all the names it uses are bound; beside each, a check
of one given option (each argument in its domain, each 'require'); and for each
action group, the answer function an act site answered before listing calls
instead of listing up to the answer (the answer checked, and one other option).
"""
from __future__ import annotations

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O
from runebook.runtime.program import Action

from .codegen import FunctionCompiler, names_in
from .inlining import function_name
from .purity import why_code_changes
from .symbols import BehaviourBody, OwnedHandler, Symbols
from .types import ACTION, BOOL, INT, PLAYER, STR, THING, TypeSpace, event_of, list_of

CONTRACT = {
    # name: (params, return, required, what it is for)
    "play": ([], None, True, "proc play() runs the whole game"),
    "score": ([PLAYER], INT, True, "fn score(p: player) -> int gives a player's final score"),
    "tiebreak": ([PLAYER], INT, False, "fn tiebreak(p: player) -> int: higher wins a tie"),
    "title": ([PLAYER], STR, False, "fn title(p: player) -> str: a rank shown with the result"),
}


def always_leaves(stmts: list) -> bool:
    """Whether a statement list always returns. Any returning statement counts, not
    only the last: code after it is unreachable (E0320), reported once on its own."""
    for stmt in stmts:
        if isinstance(stmt, A.Return):
            return True
        if isinstance(stmt, A.If) and stmt.orelse is not None:
            if all(always_leaves(b) for _, b in stmt.branches) and always_leaves(stmt.orelse):
                return True
    return False


class BodyCompiler:
    def __init__(self, syms: Symbols, types: TypeSpace, diags: list):
        self.syms = syms
        self.types = types
        self.diags = diags
        self.functions: list = []

    def error(self, code, message, span, hint=None, severity="error"):
        self.diags.append(Diagnostic(code, message, span, hint, severity))

    def compile_all(self):
        syms = self.syms
        n = 0
        for fn in syms.functions.values():
            fn.index, n = n, n + 1
        for act in syms.actions.values():
            act.body_fn, n = n, n + 1
            if act.params:  # an action without parameters is offered by its act site itself
                act.enum_fn, n = n, n + 1
                act.check_fn, n = n, n + 1
        for group in syms.groups:
            syms.answer_fns[group], n = n, n + 1
        for hs in syms.handlers.values():
            for h in hs:
                h.fn_index, n = n, n + 1
        for b in syms.behaviours:
            b.fn_index, n = n, n + 1
        self.functions = [None] * n
        for fn in syms.functions.values():
            self.functions[fn.index] = self._function(fn)
        for act in syms.actions.values():
            self.functions[act.body_fn] = self._action_body(act)
            enumerator = self._action_options(act)  # also where the requirements are checked
            if act.params:
                self.functions[act.enum_fn] = enumerator
                self.functions[act.check_fn] = self._action_check(act)
        for group, names in syms.groups.items():
            self.functions[syms.answer_fns[group]] = self._answer(group, names)
        for event, hs in syms.handlers.items():
            for h in hs:
                self.functions[h.fn_index] = self._handler(event, h)
        for b in syms.behaviours:
            self.functions[b.fn_index] = self._behaviour(b)
        self._fill_behaviours()
        policies = {name: self._policy(decl) for name, decl in syms.policies.items()}
        entry_points = self._contract()
        self._warn_unused()
        actions = [Action(a.name, a.groups, [p for p, _ in a.params], a.body_fn, a.enum_fn)
                   for a in syms.actions.values()]
        groups = {g: [syms.actions[a].index for a in names] for g, names in syms.groups.items()}
        return self.functions, entry_points, actions, groups, policies

    # ---------------------------------------------------------------- bodies
    def _lift(self, fn) -> int:
        """Add a function made while compiling a body (a log line's narration): after
        every declared one, in the order the compiler meets them."""
        self.functions.append(fn)
        return len(self.functions) - 1

    def _new(self, name, span, diags: list | None = None, **kw) -> FunctionCompiler:
        """A compiler for one function, at `span`; `diags`: where its diagnostics go (a
        function synthesised from code already checked passes a list of its own)."""
        diags = self.diags if diags is None else diags
        fc = FunctionCompiler(self.syms, self.types, diags, name, span.file, lift=self._lift, **kw)
        fc.at(span)
        return fc

    def _function(self, fn):
        d = fn.decl
        fc = self._new(function_name(fn), d.span, ret=fn.ret)
        for pname, ptype in fn.params:
            fc.declare(pname, ptype)
        fc.block(d.body, new_scope=False)
        if fn.ret is not None and not always_leaves(d.body):
            self.error("E0312", f"function '{fn.name}' may reach its end without returning a {fn.ret}", d.span,
                       "end every path with 'return VALUE'")
        return fc.finish(len(fn.params))

    def _action_body(self, act):
        d = act.decl
        fc = self._new(f"action {act.name}", d.span, actor=True)
        fc.return_value = act.name  # 'act GROUP for P' yields the name of the action taken
        fc.declare("actor", PLAYER)
        for pname, ptype in act.params:
            fc.declare(pname, ptype)
        fc.block(d.body, new_scope=False)
        return fc.finish(1 + len(act.params))

    @staticmethod
    def _requires_by_level(d) -> dict:
        """{k: the requirements to test once parameters 0..k are bound} (-1: none needed)."""
        param_names = [p.name for p in d.params]
        by_level: dict = {}
        for req in d.requires:
            used = names_in(req)
            level = max([param_names.index(p) for p in param_names if p in used], default=-1)
            by_level.setdefault(level, []).append(req)
        return by_level

    def _action_options(self, act):
        """options NAME(actor, first) -> list of (action index, *arguments). `first` is an
        answer the act site was given before listing and found legal (none: list
        everything); given one, the script looks only for another option: it returns the
        first option other than that answer (the answer itself skipped once), or nothing."""
        d = act.decl
        fc = self._new(f"options {act.name}", d.span, actor=True, pure=True)
        fc.declare("actor", PLAYER)
        first = fc.hidden("answer given first")
        acc = fc.hidden("options")
        found = fc.hidden("answer found")
        option = fc.hidden("option")
        fc.emit(O.NEW_LIST)
        fc.emit(O.STORE_LOCAL, acc)
        param_names = [p.name for p in d.params]
        # Each requirement is tested as soon as every parameter it names is bound.
        by_level = self._requires_by_level(d)
        exits = []
        for req in by_level.get(-1, []):
            fc.at(req.span)
            exits.extend(fc.branch_false(req, "a 'require' condition"))
        # A domain that names no earlier parameter is the same on every pass of
        # the outer loops: compute it once, before them.
        hoisted: dict = {}
        for k, p in enumerate(d.params[1:], start=1):
            if not (names_in(p.domain) & set(param_names[:k])):
                fc.at(p.span)
                hoisted[k] = (fc.hidden(f"domain {p.name}"), fc.expr(p.domain))
                fc.emit(O.STORE_LOCAL, hoisted[k][0])

        def level(k: int):
            if k == len(d.params):
                fc.emit(O.CONST, act.index)
                for p in param_names:
                    fc.emit(O.LOAD_LOCAL, fc.lookup_local(p)[0])
                fc.emit(O.BUILD_LIST, 1 + len(param_names))
                fc.emit(O.STORE_LOCAL, option)
                self._keep_option(fc, first, found, option, acc)
                return
            p = d.params[k]
            fc.at(p.span)
            want = act.params[k][1]
            if k in hoisted:
                slot, domain_t = hoisted[k]
                fc.emit(O.LOAD_LOCAL, slot)
                item_t = fc.item_type(domain_t, p.domain, f"the domain of '{p.name}'")
            else:
                item_t = fc.collection(p.domain, f"the domain of '{p.name}'")
            if not self.types.assignable(item_t, want):
                self.error("E0310", f"'{p.name}' is {want}, but its domain holds {item_t}", p.domain.span)

            def body():
                for req in by_level.get(k, []):
                    fc.at(req.span)
                    fc.loops[-1].continues.extend(fc.branch_false(req, "a 'require' condition"))
                level(k + 1)

            fc._loop_over(p.name, want, body)

        level(0)
        for at in exits:
            fc.patch(at)
        fc.emit(O.LOAD_LOCAL, acc)
        fc.emit(O.RETURN)
        return fc.finish(2)

    @staticmethod
    def _keep_option(fc, first: int, found: int, option: int, acc: int) -> None:
        """An option just made: listed (no answer given first), or, looking for another option
        than the answer, returned alone unless it is the answer met for the first time
        (a domain listing a value twice offers the option twice: two options)."""
        # Both ways on go to the next turn of the innermost loop as its filters do (the
        # translator makes such jumps plain `continue`s).
        on = []
        fc.emit(O.LOAD_LOCAL, first)
        looking = fc.emit(O.JUMP_IF_TRUE, None)
        fc.emit(O.LOAD_LOCAL, option)
        fc.emit(O.APPEND, acc)
        on.append(fc.emit(O.JUMP, None))
        fc.patch(looking)
        fc.emit(O.LOAD_LOCAL, found)
        other = [fc.emit(O.JUMP_IF_TRUE, None)]
        fc.emit(O.LOAD_LOCAL2, (option, first))
        fc.emit(O.EQ)
        other.append(fc.emit(O.JUMP_IF_FALSE, None))
        fc.emit(O.CONST, True)
        fc.emit(O.STORE_LOCAL, found)
        on.append(fc.emit(O.JUMP, None))
        fc.patch_all(other)
        fc.emit(O.LOAD_LOCAL, option)
        fc.emit(O.APPEND, acc)  # empty until now: nothing is listed while looking
        fc.emit(O.LOAD_LOCAL, acc)
        fc.emit(O.RETURN)
        if fc.loops:
            fc.loops[-1].continues.extend(on)
        else:  # no parameters, no loop (an enumerator nobody calls, made for its checks)
            fc.patch_all(on)

    def _answer(self, group: str, names: list):
        """answer GROUP(actor, answer) -> list: what an act site of the group needs of an answer
        given before listing (ASK_FIRST): [] when there is none or it is not legal (then the
        act site lists every option), else the answer and one other option if there is one,
        which is all the decision needs."""
        infos = [self.syms.actions[name] for name in names]
        fc = self._new(f"answer {group}", infos[0].decl.span, diags=[], actor=True, pure=True)
        pslot = fc.declare("actor", PLAYER)
        first = fc.hidden("answer given first")
        which = fc.hidden("answer's action")
        acc = fc.hidden("options")
        fc.emit(O.NEW_LIST)
        fc.emit(O.STORE_LOCAL, acc)
        fc.emit(O.LOAD_LOCAL, first)
        fc.emit(O.CONST, 0)
        fc.emit(O.INDEX)
        fc.emit(O.STORE_LOCAL, which)
        illegal: list = []
        legal: list = []
        self._dispatch_answer(fc, sorted(infos, key=lambda i: i.index), pslot, first, which, illegal, legal)
        fc.patch_all(legal)
        done = self._another_option(fc, infos, pslot, first, which, acc)
        fc.patch_all(done + illegal)
        fc.emit(O.LOAD_LOCAL, acc)
        fc.emit(O.RETURN)
        return fc.finish(2)

    SHORT_CHAIN = 4

    def _dispatch_answer(self, fc, infos: list, pslot: int, first: int, which: int, illegal: list,
                         legal: list) -> None:
        """Find the answer's action among the group's (sorted by index) by halving the range,
        then along a short chain: a few tests whatever its place in a large group, and
        generated Python nested only a few levels deep. Checks it there: the action's
        parameter-free guard and, for one with parameters, its check script."""
        if len(infos) > self.SHORT_CHAIN:
            half = len(infos) // 2
            fc.emit(O.LOAD_LOCAL, which)
            fc.emit(O.CONST, infos[half].index)
            fc.emit(O.LT)
            upper = fc.emit(O.JUMP_IF_FALSE, None)
            self._dispatch_answer(fc, infos[:half], pslot, first, which, illegal, legal)
            fc.patch(upper)
            self._dispatch_answer(fc, infos[half:], pslot, first, which, illegal, legal)
            return
        for info in infos:
            fc.emit(O.LOAD_LOCAL, which)
            other_action = fc.emit(O.JUMP_IF_NE_CONST, (info.index, None))
            illegal += fc.action_guard(info, pslot)
            if info.decl.params:
                fc.emit(O.LOAD_LOCAL2, (pslot, first))
                fc.emit(O.CALL, (info.check_fn, 2))
                illegal.append(fc.emit(O.JUMP_IF_FALSE, None))
            legal.append(fc.emit(O.JUMP, None))
            fc.patch(other_action)
        illegal.append(fc.emit(O.JUMP, None))  # no action of this group

    @staticmethod
    def _another_option(fc, infos: list, pslot: int, first: int, which: int, acc: int) -> list:
        """With the answer legal: it and, if there is one, another option, looked for among the
        actions without parameters first (no listing), then through the enumerators (each
        stops at its first other option). Returns the jumps to where the list is complete,
        which falling through the last test reaches too (the answer is the only option)."""
        fc.emit(O.LOAD_LOCAL, first)
        fc.emit(O.APPEND, acc)
        done = []
        for info in sorted(infos, key=lambda i: bool(i.decl.params)):
            if info.decl.params:
                skip = fc.action_guard(info, pslot)
                fc.join_enumerated(info, pslot, acc, first)
                fc.emit(O.DUP)
                fc.emit(O.STORE_LOCAL, acc)
                fc.emit(O.CALL_BUILTIN, (B.INDEX["len"], 1))
                fc.emit(O.CONST, 2)
                fc.emit(O.GE)
                done.append(fc.emit(O.JUMP_IF_TRUE, None))
            else:
                fc.emit(O.LOAD_LOCAL, which)
                skip = [fc.emit(O.JUMP_IF_EQ_CONST, (info.index, None))]  # the answer itself
                skip += fc.action_guard(info, pslot)
                fc.append_option(info, acc)
                done.append(fc.emit(O.JUMP, None))
            fc.patch_all(skip)
        return done

    def _action_check(self, act):
        """check NAME(actor, answer) -> bool: whether one option of the action, (action index,
        *arguments), is legal: each argument in its domain (worked out with the arguments
        before it, as the enumerator's loops do) and each 'require' true, tested in the
        enumerator's order. It evaluates only what listing would have evaluated on the way
        to that option, so it fails only where listing would. The enumerator has reported
        any mistake in these expressions: its diagnostics are not repeated."""
        d = act.decl
        fc = self._new(f"check {act.name}", d.span, diags=[], actor=True, pure=True)
        fc.declare("actor", PLAYER)
        answer = fc.hidden("answer")
        by_level = self._requires_by_level(d)
        illegal = []
        for req in by_level.get(-1, []):
            fc.at(req.span)
            illegal.extend(fc.branch_false(req, "a 'require' condition"))
        for k, p in enumerate(d.params):
            fc.at(p.span)
            slot = fc.declare(p.name, act.params[k][1])
            fc.emit(O.LOAD_LOCAL, answer)
            fc.emit(O.CONST, k + 1)
            fc.emit(O.INDEX)
            fc.emit(O.STORE_LOCAL, slot)
            illegal.extend(fc.branch_false(A.Binary("in", A.Name(p.name, p.span), p.domain, p.span),
                                           "the domain of a parameter"))
            for req in by_level.get(k, []):
                fc.at(req.span)
                illegal.extend(fc.branch_false(req, "a 'require' condition"))
        fc.emit(O.CONST, True)
        fc.emit(O.RETURN)
        fc.patch_all(illegal)
        fc.emit(O.CONST, False)
        fc.emit(O.RETURN)
        return fc.finish(2)

    def _behaviour(self, b):
        """An entry's code for a behaviour field (or its kind's default). A fn only computes:
        whatever in its code (or in what it calls) would change the game is E0330."""
        if b.type.ret is not None:
            why = why_code_changes(self.syms, {p for p, _ in b.type.params}, b.body, b.value)
            if why is not None:
                self.error("E0330", f"'{b.field}' of {b.owner} is a fn, so it may only compute a value, but it {why}",
                           b.span, f"declare '{b.field}' a proc in its kind, or do the change in a procedure")
        fc = self._new(f"{b.field} of {b.owner}", b.span, ret=b.type.ret)
        for pname, ptype in b.type.params:
            fc.declare(pname, ptype)
        if b.body is None:  # `met: EXPRESSION`
            fc.at(b.value.span)
            fc.expect(fc.expr(b.value), b.type.ret, b.value.span, f"what '{b.field}' gives")
            fc.emit(O.RETURN)
        else:
            fc.block(b.body, new_scope=False)
            if b.type.ret is not None and not always_leaves(b.body):
                self.error("E0312", f"'{b.field}' of {b.owner} may reach its end without returning a "
                           f"{b.type.ret}", b.span, "end every path with 'return VALUE'")
        return fc.finish(len(b.type.params))

    def _fill_behaviours(self):
        """Each entry holds, for a behaviour field, the index of the function to call."""
        for entry in self.syms.entries.values():
            for field, value in entry.items():
                if isinstance(value, BehaviourBody):
                    entry[field] = value.fn_index

    def _handler(self, event, h):
        d = h.decl
        if isinstance(h, OwnedHandler):
            fc = self._new(f"on {event} of {h.entry}", d.span, in_handler=event)
            fc.declare("event", event_of(event))
            fc.declare("holder", PLAYER)
            fc.declare("this", THING)
        else:
            fc = self._new(f"on {event}#{h.order}", d.span, in_handler=event)
            fc.declare("event", event_of(event))
        if d.when is not None:
            fc.expect(fc.expr(d.when), BOOL, d.when.span, "a 'when' condition")
            skip = fc.emit(O.JUMP_IF_TRUE, None)
            fc.emit(O.CONST, None)
            fc.emit(O.RETURN)
            fc.patch(skip)
        fc.block(d.body, new_scope=False)
        return fc.finish(3 if isinstance(h, OwnedHandler) else 1)

    def _policy(self, decl: A.PolicyDecl) -> dict:
        # "blind": the action groups this policy decides without reading `options`, which
        # the act site can ask before listing them (ASK_FIRST).
        out = {"action": {}, "choice": {}, "decide": {"action": {}, "choice": {}, "blind": []}}
        for r in decl.ratings:
            if isinstance(r, A.Decider):
                self._decider(decl.name, r, out["decide"][r.kind])
                if r.kind == "action" and r.target in out["decide"]["action"] and "options" not in names_in(r.body):
                    out["decide"]["blind"].append(r.target)
                continue
            fc = self._new(f"rate {r.target} ({decl.name})", r.span, ret=INT, pure=True, actor=True)
            fc.declare("actor", PLAYER)
            if r.kind == "action":
                act = self.syms.actions.get(r.target)
                if act is None:
                    self.error("E0308", f"policy '{decl.name}' rates unknown action '{r.target}'", r.span,
                               did_you_mean(r.target, self.syms.actions))
                    continue
                for pname, ptype in act.params:
                    fc.declare(pname, ptype)
                nparams = 1 + len(act.params)
                key = act.index
            else:
                if not self._known_choice(decl.name, "rates", r.target, r.span):
                    continue
                fc.declare("option", self.syms.choice_types[r.target])
                nparams = 2
                key = r.target
            fc.expect(fc.expr(r.expr), INT, r.expr.span, "a rating")
            fc.emit(O.RETURN)
            self.functions.append(fc.finish(nparams))
            bucket = out[r.kind]
            if key in bucket:
                self.error("E0404", f"policy '{decl.name}' rates '{r.target}' twice", r.span)
            bucket[key] = len(self.functions) - 1
        return out

    def _known_choice(self, policy: str, verb: str, tag: str, span) -> bool:
        """Whether some script asks `choose TAG ...`; reported when none does."""
        if tag in self.syms.choice_types:
            return True
        self.error("E0317", f"policy '{policy}' {verb} unknown choice '{tag}'", span,
                   did_you_mean(tag, self.syms.choice_types)
                   or "choices are named where a script says 'choose NAME from ...'")
        return False

    def _decider(self, policy: str, d: A.Decider, bucket: dict) -> None:
        """`decide action GROUP { ... }` / `decide choice TAG { ... }`: a function of the deciding
        player (`actor`) and the legal `options`, giving one of them, or none to let the
        policy's ratings decide. A question: it may not change the game."""
        if d.kind == "action":
            if d.target not in self.syms.groups:
                self.error("E0308", f"policy '{policy}' decides unknown action group '{d.target}'", d.span,
                           did_you_mean(d.target, self.syms.groups))
                return
            answer = ACTION
        else:
            if not self._known_choice(policy, "decides", d.target, d.span):
                return
            answer = self.syms.choice_types[d.target]
        if d.target in bucket:
            self.error("E0404", f"policy '{policy}' decides '{d.target}' twice", d.span)
            return
        why = why_code_changes(self.syms, {"actor", "options"}, d.body)
        if why is not None:
            self.error("E0330", f"a policy's decision may only compute an answer, but this one {why}", d.span,
                       "a policy chooses; the game's scripts act")
        fc = self._new(f"decide {d.target} ({policy})", d.span, ret=answer, actor=True)
        fc.declare("actor", PLAYER)
        fc.declare("options", list_of(answer))
        fc.block(d.body, new_scope=False)
        if not always_leaves(d.body):
            self.error("E0312", f"deciding '{d.target}' may reach its end without an answer", d.span,
                       "end every path with 'return OPTION', or 'return none' to let the ratings decide")
        self.functions.append(fc.finish(2))
        bucket[d.target] = len(self.functions) - 1

    # ---------------------------------------------------------------- pack-level checks
    def _contract(self) -> dict:
        entry = {}
        for name, (params, ret, required, doc) in CONTRACT.items():
            fn = self.syms.functions.get(name)
            if fn is None:
                if required:
                    self.error("E0411", f"the pack has no '{name}'", None, f"every pack needs {doc}")
                continue
            got = [t for _, t in fn.params]
            if got != params or fn.ret != ret:
                self.error("E0412", f"'{name}' has the wrong shape", fn.decl.span, f"it must be: {doc}")
                continue
            entry[name] = fn.index
        return entry

    def _warn_unused(self):
        for event, hs in self.syms.handlers.items():
            if event in self.syms.events and event not in self.syms.emitted:
                for h in hs:
                    self.error("W0340", f"this handler can never run: no script emits '{event}'",
                               h.decl.span, f"emit it with 'emit {event}(...)' or remove the handler", "warning")
        for group, names in self.syms.groups.items():
            if group not in self.syms.acted:
                span = self.syms.actions[names[0]].decl.span
                self.error("W0341", f"actions 'in {group}' can never be taken: no script says 'act {group} for ...'",
                           span, None, "warning")
