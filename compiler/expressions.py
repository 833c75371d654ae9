"""Type-check and emit expressions.

Part of FunctionCompiler (compiler/codegen.py): every e_* method returns the
expression's type and appends the code that computes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import did_you_mean
from runebook.dsl.span import Span
from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O

from .symbols import Behaviour, OwnedHandler
from .types import (ACTION, ANY, BOARD, BOOL, INT, NONE, PLAYER, STR, THING, TYPE_VAR, ZONE, Type, bind, elem,
                    event_of, list_of, named, spec_type)

THING_ATTRS = {"face": (STR, O.THING_FACE), "entry": (STR, O.THING_ENTRY),
               "owner": (PLAYER, O.THING_OWNER), "zone": (ZONE, O.THING_ZONE)}
ARITH = {"+": O.ADD, "-": O.SUB, "*": O.MUL, "%": O.MOD}
COMPARE = {"==": O.EQ, "!=": O.NE, "<": O.LT, "<=": O.LE, ">": O.GT, ">=": O.GE}


# What each context forbids: ratings and requirements must be pure questions.
PURE_FORBIDDEN = (A.Choose, A.ChooseSecretly, A.Act, A.Create, A.Emit, A.RandomFrom)


def a_type(t: Type) -> str:
    """A type for a message: 'an int', 'a player', "event 'hit'"."""
    if t.is_event:
        return f"event '{t.event}'"
    text = str(t)
    return f"{'an' if text[0] in 'aeiou' else 'a'} {text}"


# The generic parameters of builtin signatures (runtime/builtins.py), as _match_param meets them.
_COLL_T = spec_type("coll[T]")    # a list of T, or a zone (T: thing)
_LIST_T = spec_type("list[T]")
_LISTS_T = spec_type("list[list[T]]")


_NOT_CONST = object()


@dataclass
class _Unbuilt:
    """An emitted event kept as its fields' locals until a handler needs the record."""
    event: str
    fields: dict            # field -> (local, type), in the event's order
    back: list              # (field or 'cancelled', local) copied back after each handler's call
    cancelled: Optional[int] = None  # the local of 'cancelled', when the emit's user reads it


@dataclass
class _HandlersUse:
    """How an event's handlers use it (compiled at every emit site of that event)."""
    changes_known: bool     # the bodies use it only as `event.F`: what they change is `assigned`
    through_fields: bool    # that, and the 'when' conditions read only declared fields
    assigned: set           # fields some handler's body changes
    guard_reads: list       # declared fields the 'when' conditions read, first read first


def _field_of(node, name: str):
    """F when the node reads `name.F`, else None."""
    if isinstance(node, A.Field) and isinstance(node.obj, A.Name) and node.obj.name == name:
        return node.name
    return None


def _assigned_field(node, name: str):
    """F when the node assigns `name.F = ...`, else None."""
    return _field_of(node.target, name) if isinstance(node, A.Assign) else None


def _handlers_use(handlers: list, params: dict) -> _HandlersUse:
    """A handler changes a field by assigning 'event.FIELD'; one that uses the event any
    other way (hands it to a script, keeps it in a variable) might change any, and a
    'when' that reads it other than as a declared field needs the record itself."""
    known, through, read, assigned = True, True, [], set()
    for h in handlers:
        for part in (h.decl.body, h.decl.when):
            nodes = list(A.walk(part))
            bare = sum(1 for n in nodes if isinstance(n, A.Name) and n.name == "event")
            as_field = [n for n in nodes if _field_of(n, "event") is not None]
            if part is h.decl.body:
                known &= bare == len(as_field)
            else:
                through &= bare == len(as_field) and all(n.name in params for n in as_field)
                read += [n.name for n in as_field if n.name in params and n.name not in read]
        assigned.update(f for f in (_assigned_field(n, "event") for n in A.walk(h.decl.body)) if f is not None)
    return _HandlersUse(known, known and through, assigned, read)


def event_reads(name: str, stmts: list):
    """The fields read of the event a `let` keeps in `name`, when every later mention is a
    read `name.F` (a log line's narration is handed those fields); None when the event is
    needed as a value."""
    reads, mentions = set(), 0
    for node in A.walk(stmts):
        if _assigned_field(node, name) is not None:
            return None
        if isinstance(node, A.Name) and node.name == name:
            mentions += 1
        elif (field := _field_of(node, name)) is not None:
            reads.add(field)
            mentions -= 1
    return reads if mentions == 0 else None


class Expressions:
    """Mixin of FunctionCompiler: one method per kind of expression."""

    # ---------------------------------------------------------------- expressions

    def expr(self, e) -> Type:
        if self.pure and isinstance(e, PURE_FORBIDDEN):
            self.error("E0330", "this context may only compute a value: no choices, random draws, "
                       "new things or events here", e.span)
        return getattr(self, "e_" + type(e).__name__)(e)

    def e_IntLit(self, e):
        self.emit(O.CONST, e.value)
        return INT

    def e_StrLit(self, e):
        self.emit(O.CONST, e.value)
        return STR

    def e_BoolLit(self, e):
        self.emit(O.CONST, e.value)
        return BOOL

    def e_NoneLit(self, e):
        self.emit(O.CONST, None)
        return NONE

    def e_Interp(self, e: A.Interp):
        for part in e.parts:
            if isinstance(part, str):
                self.emit(O.CONST, part)
            else:
                self.expr(part)
        self.emit(O.TEXT, len(e.parts))
        return STR

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
                return ANY
            self.emit(O.ZONE, index)
            return ZONE
        if name in syms.entries or name in syms.symbols:
            self.emit(O.CONST, name)
            return syms.constant_type(name)
        if name in syms.boards:  # a board is named by its name; its tiles know their board
            self.emit(O.CONST, name)
            return BOARD
        if name in syms.actions:  # what 'act GROUP for P' gives back when this action was taken
            self.emit(O.CONST, name)
            return STR
        if name == "players":
            self.emit(O.PLAYERS)
            return list_of(PLAYER)
        hint = did_you_mean(name, self.local_candidates() + syms.all_value_names())
        if name in syms.functions:
            hint = f"'{name}' is a function: call it with '{name}(...)'"
        elif name in ("actor", "event", "option"):
            hint = {"actor": "'actor' exists only inside actions and ratings",
                    "event": "'event' exists only inside 'on EVENT' handlers",
                    "option": "'option' exists only inside 'rate choice' ratings"}[name]
        self.error("E0301", f"unknown name '{name}'", e.span, hint)
        self.emit(O.CONST, None)
        return ANY

    def e_AllEntries(self, e: A.AllEntries):
        if e.kind in self.syms.symbol_sets:
            self.emit(O.CONST, tuple(self.syms.symbol_sets[e.kind]))
            return list_of(named(e.kind))
        if e.kind not in self.syms.kinds:
            self.error("E0303", f"unknown kind '{e.kind}'", e.span,
                       did_you_mean(e.kind, list(self.syms.kinds) + list(self.syms.symbol_sets)))
            self.emit(O.CONST, ())
            return list_of(ANY)
        self.emit(O.ENTRIES, e.kind)
        return list_of(named(e.kind))

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
            self.drop_code(start)
            self.emit(O.CONST, tuple(values))
            return t
        t = self._list_type(e)
        self.emit(O.BUILD_LIST, len(e.items))
        if e.items and (elem(t) == ANY or elem(t).is_list):
            # A list of lists is one level deeper than its items: bounded (MAX_NESTING), so
            # comparing or narrating values never depends on how much Python stack is left.
            self.emit(O.CHECK_NESTING)
        return t

    def _list_type(self, e: A.ListLit) -> Type:
        t = ANY
        first = True
        for item in e.items:
            it = self.expr(item)
            if first:
                t, first = it, False
                continue
            joined = self.types.join(t, it)
            if joined is None:
                self.error("E0310", f"a list's items must share one type: {t} and {it} differ", item.span)
                joined = ANY
            t = joined
        return list_of(t)

    def cached_field(self, e):
        """(slot, type) of `event.FIELD` read once at an emit site for its run of guards, or of
        a field of an event a `let` keeps unbuilt; None otherwise."""
        if isinstance(e, A.Field) and isinstance(e.obj, A.Name):
            cached = self.field_cache.get((e.obj.name, e.name))
            if cached is None and self.unbuilt_events:
                local = self.lookup_local(e.obj.name)
                cached = self.unbuilt_events.get(local[0], {}).get(e.name) if local is not None else None
            return cached
        return None

    def e_Field(self, e: A.Field):
        cached = self.cached_field(e)
        if cached is not None:
            self.emit(O.LOAD_LOCAL, cached[0])
            return cached[1]
        t = self.expr(e.obj)
        name = e.name
        syms = self.syms
        if t == PLAYER:
            if name in syms.player_vars:
                slot, vt = syms.player_vars[name]
                self.emit(O.PLAYER_VAR, slot)
                return vt
            if name == "seat":
                self.emit(O.PLAYER_SEAT)
                return INT
            candidates = list(syms.player_vars) + ["seat"]
        elif t == THING:
            if name in THING_ATTRS:
                vt, op = THING_ATTRS[name]
                self.emit(op)
                return vt
            if name in syms.thing_vars:
                slot, vt = syms.thing_vars[name]
                self.emit(O.THING_VAR, slot)
                return vt
            candidates = list(syms.thing_vars) + list(THING_ATTRS)
        elif t == ZONE:
            if name == "owner":
                self.emit(O.ZONE_OWNER)
                return PLAYER
            candidates = ["owner"]
        elif t.is_event:
            params = dict(syms.events.get(t.event, []))
            if name in params:
                self.emit(O.EVENT_FIELD, name)
                return params[name]
            if name == "cancelled":
                self.emit(O.EVENT_FIELD, name)
                return BOOL
            candidates = list(params) + ["cancelled"]
        elif self.types.is_kind(t):
            fields = syms.kinds[t.name].fields
            if name in fields:
                ft = fields[name][0]
                if isinstance(ft, Behaviour):
                    self.error("E0324", f"'{name}' of {a_type(t)} is code, not a value", e.span,
                               f"call it: '.{name}({', '.join(p for p, _ in ft.params)})'")
                    return ANY
                self.emit(O.ENTRY_FIELD, name)
                return ft
            candidates = list(fields)
        elif t == ANY:
            self.unknown_type(e.obj.span, f"read its '{name}'")
            return ANY
        else:
            self.error("E0304", f"{a_type(t)} has no fields", e.span)
            return ANY
        self.error("E0302", f"{a_type(t)} has no field '{name}'", e.span,
                   did_you_mean(name, candidates) or (f"fields: {', '.join(candidates)}" if candidates else None))
        return ANY

    def e_Index(self, e: A.Index):
        t = self.expr(e.obj)
        self.expect(self.expr(e.index), INT, e.index.span, "an index")
        if t == ZONE:
            self.error("E0310", "zones are not indexed; use 'first t in ZONE' or 'each t in ZONE'", e.span)
            return ANY
        if not t.is_list and t != ANY:
            self.error("E0310", f"only lists can be indexed, but this is {t}", e.obj.span)
            return ANY
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
        action = self.syms.actions.get(e.name)
        if action is not None:
            return self._action_option(action, e)
        self.error("E0305", f"unknown function '{e.name}'", e.span,
                   did_you_mean(e.name, list(self.syms.functions) + list(B.BY_NAME)))
        for a in e.args:
            self.expr(a)
        return ANY

    def e_MethodCall(self, e: A.MethodCall):
        """`entry.field(args)`: the code the entry gives for a behaviour field (or its kind's default)."""
        t = self.expr(e.obj)
        if t == ANY:
            self._arguments(e, None)
            return ANY
        info = self.syms.kinds.get(t.name) if self.types.is_kind(t) else None
        field = info.fields.get(e.name) if info is not None else None
        if field is None or not isinstance(field[0], Behaviour):
            code = [n for n, (ft, _) in info.fields.items() if isinstance(ft, Behaviour)] if info else []
            what = f"kind '{t}' has no behaviour '{e.name}'" if info else f"{a_type(t)} has no behaviour to call"
            hint = did_you_mean(e.name, code) or (f"its behaviours: {', '.join(code)}" if code else
                                                  "behaviours are fields of a kind typed 'fn(...)' or 'proc(...)'")
            self.error("E0305", what, e.span, hint)
            self._arguments(e, None)
            return ANY
        sig = field[0]
        if self.pure and sig.ret is None:
            self.error("E0330", f"'{e.name}' is a procedure: this context may only compute a value", e.span)
        self._arguments(e, sig.params)
        self.emit(O.CALL_FIELD, (t.name, e.name, len(e.args)))
        return sig.ret if sig.ret is not None else NONE

    def _action_option(self, action, e: A.Call) -> Type:
        """`play_card(c, target)`: the option of taking an action with these arguments, as
        an 'act' decision offers it (a policy's answer); it does not take the action."""
        self.emit(O.CONST, action.index)
        self._arguments(e, action.params)
        self.emit(O.BUILD_LIST, 1 + len(e.args))
        return ACTION

    def _arguments(self, e, params) -> None:
        """Compute a call's arguments in order, each checked against its parameter [(name, type)]
        when the count is right (params None: only computed, after an error already reported)."""
        ok = params is not None and self._arity(e, len(params))
        for i, a in enumerate(e.args):
            t = self.expr(a)
            if ok:
                pname, ptype = params[i]
                self.expect(t, ptype, a.span, f"argument '{pname}' of '{e.name}'")

    def _as_entry(self, e: A.Call) -> Type:
        """KIND(text): view a text (e.g. a thing's .entry) as an entry of that kind."""
        if self._arity(e, 1):
            self.expect(self.expr(e.args[0]), STR, e.args[0].span, f"the id given to '{e.name}'")
        else:
            for a in e.args:
                self.expr(a)
        self.emit(O.AS_ENTRY, e.name)
        return named(e.name)

    def _arity(self, e: A.Call, want: int) -> bool:
        if len(e.args) != want:
            self.error("E0306", f"'{e.name}' takes {want} argument{'s' if want != 1 else ''}, "
                       f"but {len(e.args)} {'were' if len(e.args) != 1 else 'was'} given", e.span)
            return False
        return True

    def _call_builtin(self, b: B.Builtin, e: A.Call) -> Type:
        if self.pure and b.draws_random:  # a rating or requirement must not move the match's RNG
            self.error("E0330", f"'{b.name}' draws a random number; this context may only compute a value",
                       e.span)
        ok = self._arity(e, len(b.params))
        bound: dict = {}
        for i, a in enumerate(e.args):
            t = self.expr(a)
            if ok:
                self._match_param(spec_type(b.params[i]), t, bound, a.span, f"argument {i + 1} of '{b.name}'")
        self.emit(O.CALL_BUILTIN, (B.INDEX[b.name], len(e.args)))
        return bind(spec_type(b.returns), bound.get("T", ANY))

    def _match_param(self, want: Type, got: Type, bound: dict, span: Span, what: str):
        """Check an argument against a builtin's parameter, binding the type variable T."""
        if want == ANY:
            return
        if want == _COLL_T:
            if got == ZONE:
                bound.setdefault("T", THING)
            elif got.is_list:
                bound.setdefault("T", got.item)
            elif got != ANY:
                self.error("E0310", f"{what} must be a list or a zone, but this is {got}", span)
            return
        if want == _LISTS_T:
            if got.is_list and got.item.is_list:
                bound["T"] = got.item.item
            elif got != ANY:
                self.error("E0310", f"{what} must be a list of lists, but this is {got}", span)
            return
        if want == _LIST_T:
            if got.is_list:
                # Empty only if two lists of T disagree: no builtin takes two.
                bound["T"] = self.types.join(bound.get("T", got.item), got.item) or ANY
            elif got != ANY:
                self.error("E0310", f"{what} must be a list, but this is {got}", span)
            return
        if want == TYPE_VAR:
            if "T" in bound and not self.types.comparable(bound["T"], got):
                self.error("E0310", f"{what} must be {bound['T']}, but this is {got}", span)
            return
        self.expect(got, want, span, what)

    def e_ZoneOf(self, e: A.ZoneOf):
        info = self.syms.zones.get(e.zone)
        owner_t = self.expr(e.owner)
        if info is None:
            self.error("E0307", f"unknown zone '{e.zone}'", e.span, did_you_mean(e.zone, self.syms.zones))
            return ANY
        index, per_player = info
        if not per_player:
            self.error("E0315", f"zone '{e.zone}' is shared, it belongs to no player", e.span,
                       f"write just '{e.zone}'")
            return ZONE
        self.expect(owner_t, PLAYER, e.owner.span, "the owner of a zone")
        self.emit(O.ZONE_OF, index)
        return ZONE

    def e_Unary(self, e: A.Unary):
        t = self.expr(e.operand)
        if e.op == "-":
            self.expect(t, INT, e.operand.span, "the operand of '-'")
            self.emit(O.NEG)  # -2 is CONST -2 once folded (compiler/folding.py)
            return INT
        self.expect(t, BOOL, e.operand.span, "the operand of 'not'")
        self.emit(O.NOT)
        return BOOL

    def e_Binary(self, e: A.Binary):
        op = e.op
        if op in ("and", "or"):
            self.expect(self.expr(e.left), BOOL, e.left.span, f"the left side of '{op}'")
            self.emit(O.DUP)
            short = self.emit(O.JUMP_IF_FALSE if op == "and" else O.JUMP_IF_TRUE, None)
            self.emit(O.POP)
            self.expect(self.expr(e.right), BOOL, e.right.span, f"the right side of '{op}'")
            self.patch(short)
            return BOOL
        lt = self.expr(e.left)
        rt = self.expr(e.right)
        if op in ARITH:
            self.emit(ARITH[op])  # on constants, folded (compiler/folding.py)
            if op == "+" and ANY in (lt, rt):
                return rt if lt == ANY else lt
            if op == "+" and lt.is_list:
                joined = self.types.join(lt, rt)
                if joined is None or not rt.is_list:
                    self.error("E0310", f"cannot add {rt} to {lt}", e.span,
                               "to add one item, wrap it in brackets: xs + [x]")
                    return ANY
                return joined
            if op == "+" and lt == STR and rt == STR:
                return STR
            if lt not in (INT, ANY) or rt not in (INT, ANY):
                self.error("E0310", f"'{op}' needs numbers, but got {lt} and {rt}", e.span)
            return INT
        if op in COMPARE:
            self.emit(COMPARE[op])
            if op in ("==", "!="):
                if not self.types.comparable(lt, rt):
                    self.error("E0310", f"comparing {lt} with {rt} is always {'false' if op == '==' else 'true'}",
                               e.span)
            elif lt not in (INT, ANY) or rt not in (INT, ANY):
                self.error("E0310", f"'{op}' compares numbers, but got {lt} and {rt}", e.span)
            return BOOL
        # in / not in
        self.emit(O.IN)
        if op == "not in":
            self.emit(O.NOT)
        if rt == ZONE:
            self.expect(lt, THING, e.left.span, "the left side of 'in ZONE'")
        elif rt.is_list:
            if not self.types.comparable(lt, elem(rt)):
                self.error("E0310", f"a {lt} is never in a {rt}", e.span)
        elif rt != ANY:
            self.error("E0310", f"'in' needs a list or a zone on its right, but this is {rt}", e.right.span)
        return BOOL

    def e_Divide(self, e: A.Divide):
        self.expect(self.expr(e.left), INT, e.left.span, "the dividend")
        self.expect(self.expr(e.right), INT, e.right.span, "the divisor")
        self.emit(O.DIV_UP if e.rounding == "up" else O.DIV_DOWN)
        return INT

    def _player_or_actor(self, player, span: Span, what: str):
        if player is not None:
            self.expect(self.expr(player), PLAYER, player.span, f"who {what}")
            return
        if self.has_actor:
            slot, _ = self.lookup_local("actor")
            self.emit(O.LOAD_LOCAL, slot)
            return
        self.error("E0316", f"say who {what}: add 'for PLAYER'", span)
        self.emit(O.CONST, None)

    def e_Choose(self, e: A.Choose):
        t = self.expr(e.options)
        if t == ZONE:
            self.emit(O.TO_LIST)
            t = list_of(THING)
        elif not t.is_list and t != ANY:
            self.error("E0310", f"'choose' needs a list or zone of options, but this is {t}", e.options.span)
        self._player_or_actor(e.player, e.span, "chooses")
        self.emit(O.DECIDE, e.tag)
        return self._choice_tag(e.tag, elem(t), False, e.span)

    def _choice_tag(self, tag: str, item: Type, secret: bool, span: Span) -> Type:
        """Note what a choice tag offers (one type per tag), and that it is secret or open."""
        known = self.syms.choice_types.get(tag)
        if known is None or known == ANY:
            self.syms.choice_types[tag] = item
        elif not self.types.comparable(known, item):
            self.error("E0317", f"choice '{tag}' offers {item} here but {known} elsewhere", span,
                       "give different choices different tags")
        was_secret = self.syms.secret_tags.setdefault(tag, secret)
        if was_secret != secret:
            self.error("E0326", f"choice '{tag}' is asked secretly in one place and openly in another", span,
                       "give the secret choice a tag of its own: its answers are private until revealed")
        return item

    def e_ChooseSecretly(self, e: A.ChooseSecretly):
        """Every listed player answers in turn, none seeing another's answer; the answers
        arrive together (DECIDE_SECRET), so nothing computed here can depend on one."""
        players_t = self.expr(e.players)
        if not (players_t == ANY or players_t.is_list and self.types.assignable(players_t.item, PLAYER)):
            self.error("E0326", f"'choose secretly' asks a list of players, but this is {players_t}",
                       e.players.span, "for example 'for each p in players'")
        players = self.hidden("secret choosers")
        self.emit(O.DUP)
        self.emit(O.STORE_LOCAL, players)
        acc = self.hidden("secret options")
        self.emit(O.NEW_LIST)
        self.emit(O.STORE_LOCAL, acc)
        found: list = []

        def body():  # each player's options, with the variable bound to the player
            t = self.expr(e.options)
            if t == ZONE:
                self.emit(O.TO_LIST)
                t = list_of(THING)
            elif not t.is_list and t != ANY:
                self.error("E0310", f"'choose secretly' needs a list or zone of options, but this is {t}",
                           e.options.span)
            found.append(t)
            self.emit(O.APPEND, acc)

        self._loop_over(e.var, PLAYER, body, e.span)
        self.emit(O.LOAD_LOCAL, acc)
        self.emit(O.FREEZE)
        self.emit(O.LOAD_LOCAL, players)
        self.emit(O.DECIDE_SECRET, e.tag)
        item = self._choice_tag(e.tag, elem(found[0]), True, e.span)
        return list_of(item)

    def e_Act(self, e: A.Act):
        if e.group not in self.syms.groups:
            self.error("E0308", f"no action is declared 'in {e.group}'", e.span,
                       did_you_mean(e.group, self.syms.groups))
            self.expr(e.player)
            return STR
        self.syms.acted.add(e.group)
        pslot = self.hidden("acting player")
        acc = self.hidden("options")
        first = self.hidden("answer given first")
        self.expect(self.expr(e.player), PLAYER, e.player.span, "who acts")
        self.emit(O.STORE_LOCAL, pslot)
        # An agent that answers without reading the options is asked before they are listed
        # (none: it is not asked so). A legal answer needs no listing: all the decision needs
        # besides is whether it is asked (two options or more), which `answer GROUP` finds
        # out. An illegal one is refused after a full listing, which names every option.
        self.emit(O.LOAD_LOCAL, pslot)
        self.emit(O.ASK_FIRST, e.group)
        self.emit(O.STORE_LOCAL, first)
        self.emit(O.NEW_LIST)
        self.emit(O.STORE_LOCAL, acc)
        self.emit(O.LOAD_LOCAL, first)
        listing = self.emit(O.JUMP_IF_FALSE, None)
        self.emit(O.LOAD_LOCAL2, (pslot, first))
        self.emit(O.CALL, (self.syms.answer_fns[e.group], 2))
        self.emit(O.DUP)
        self.emit(O.STORE_LOCAL, acc)
        listed = self.emit(O.JUMP_IF_TRUE, None)
        self.patch(listing)
        infos = [self.syms.actions[name] for name in self.syms.groups[e.group]]
        for run in self._runs_on_one_var(infos):
            if len(run) < self.MIN_RUN:
                for info in run:
                    self._list_action(info, pslot, acc, self.action_guard(info, pslot))
            else:
                self._list_by_value(run, pslot, acc)
        self.patch(listed)
        self.emit(O.LOAD_LOCAL, acc)
        self.emit(O.LOAD_LOCAL, pslot)
        self.emit(O.DECIDE_ACTION, e.group)
        self.emit(O.DUP)
        skip = self.emit(O.JUMP_IF_FALSE, None)  # none: nothing was legal
        self.emit(O.LOAD_LOCAL, pslot)
        self.emit(O.PERFORM)
        self.patch(skip)
        return STR

    def _list_action(self, info, pslot: int, acc: int, skip: list) -> None:
        """Add an action's options to the list in `acc`; `skip`: the jumps taken when its
        parameter-free requirements, just tested, fail (most actions of one role or card are
        off: their enumerators are not called)."""
        if info.decl.params:
            # Each enumerator returns its options; gather them in declaration order.
            self.join_enumerated(info, pslot, acc, None)
            self.emit(O.STORE_LOCAL, acc)
        else:
            # Nothing to enumerate, and its requirements were just tested: it is one option.
            self.append_option(info, acc)
        self.patch_all(skip)

    def join_enumerated(self, info, pslot: int, acc: int, first) -> None:
        """Leave the list in `acc` joined with the options the action's enumerator lists
        (told the slot of the answer given first, where it stops at another option; or none)."""
        self.emit(O.LOAD_LOCAL2, (acc, pslot))
        self.emit(*((O.CONST, None) if first is None else (O.LOAD_LOCAL, first)))
        self.emit(O.CALL, (info.enum_fn, 2))
        self.emit(O.ADD)

    def append_option(self, info, acc: int) -> None:
        """Append a parameter-free action's one option, (its index,), to the list in `acc`."""
        self.emit(O.CONST, info.index)
        self.emit(O.BUILD_LIST, 1)
        self.emit(O.APPEND, acc)

    MIN_RUN = 3

    def _var_test(self, info):
        """(slot, value) when the action's first parameter-free requirement is `actor.VAR ==
        CONSTANT` (an entry's own action starts so: declarations._held_by_actor), else None."""
        first = next(iter(self.parameter_free(info)), None)
        if not (isinstance(first, A.Binary) and first.op == "=="):
            return None
        var, value = first.left, first.right
        if not (isinstance(var, A.Field) and isinstance(var.obj, A.Name) and var.obj.name == "actor"
                and var.name in self.syms.player_vars and isinstance(value, A.Name)
                and (value.name in self.syms.entries or value.name in self.syms.symbols)
                and value.name not in self.syms.globals and value.name not in self.syms.options):
            return None
        return self.syms.player_vars[var.name][0], value.name

    def _runs_on_one_var(self, infos: list) -> list:
        """The actions in declaration order, cut into runs: actions in a row whose first test
        is on one player variable share a run; any other action is a run of its own."""
        runs: list = []
        for info in infos:
            test = self._var_test(info)
            if runs and test is not None and runs[-1][0] is not None and runs[-1][0][0] == test[0]:
                runs[-1][1].append(info)
            else:
                runs.append((test, [info]))
        return [run for _, run in runs]

    def _list_by_value(self, run: list, pslot: int, acc: int) -> None:
        """A run of actions guarded by `actor.VAR == VALUE`, listed by value: one test per value,
        then that value's actions (their other requirements, their options) in declaration
        order, then on past the run. Only the actions of the variable's value offer anything,
        and listing changes nothing, so the options come in the order one test per action
        gives. The tests become one switch (compiler/peephole.py)."""
        slot = self._var_test(run[0])[0]
        by_value: dict = {}
        for info in run:
            by_value.setdefault(self._var_test(info)[1], []).append(info)
        done = []
        for value, infos in by_value.items():
            self.emit(O.LOAD_LOCAL, pslot)
            self.emit(O.PLAYER_VAR, slot)
            self.emit(O.CONST, value)
            self.emit(O.EQ)
            other = self.emit(O.JUMP_IF_FALSE, None)
            for info in infos:
                self._list_action(info, pslot, acc, self.action_guard(info, pslot, tested=1))
            done.append(self.emit(O.JUMP, None))
            self.patch(other)
        self.patch_all(done)

    def e_Create(self, e: A.Create):
        self.create_operands(e)
        self.emit(O.CREATE)
        return THING

    def create_operands(self, e: A.Create) -> None:
        """The entry and the zone of a `create`, checked."""
        t = self.expr(e.entry)
        if t not in (STR, ANY) and not self.types.is_kind(t):
            self.error("E0309", f"'create' needs an entry (a die or an entry of a kind), but this is {t}",
                       e.entry.span)
        self.expect(self.expr(e.zone), ZONE, e.zone.span, "where to create it")

    def e_Emit(self, e: A.Emit):
        return self.emit_event(e, None)[0]

    def emit_event(self, e: A.Emit, read):
        """Compile `emit E(...)`: its fields, then its handlers, best priority first,
        unless one cancels. Gives (the event's type, where its fields are).

        `read` is None when the event is needed as a value: it is pushed, and the
        second part is None. Otherwise the caller reads only the fields named in
        `read` ('cancelled' among them): when every handler touches the event only
        through `event.F`, the fields stay in locals, the event is built only before
        a handler runs (most guards fail), and the second part maps each field read
        to its (local, type), with nothing pushed.
        """
        params = self.syms.events.get(e.event)
        if params is None:
            self.error("E0318", f"unknown event '{e.event}'", e.span, did_you_mean(e.event, self.syms.events))
            for _, v, _ in e.kwargs:
                self.expr(v)
            self.emit(O.CONST, None)
            return ANY, None
        self.syms.emitted.add(e.event)
        given = {name: (v, span) for name, v, span in e.kwargs}
        for name, _, span in e.kwargs:
            if name not in dict(params):
                self.error("E0302", f"event '{e.event}' has no field '{name}'", span,
                           did_you_mean(name, dict(params)))
        handlers = self.syms.handlers.get(e.event, [])
        use = _handlers_use(handlers, dict(params))
        unbuilt = use.through_fields and (read is not None or handlers)
        fields = {}
        for pname, ptype in params:
            if pname not in given:
                self.error("E0319", f"'emit {e.event}' is missing field '{pname}'", e.span)
                self.emit(O.CONST, None)
            else:
                v, span = given[pname]
                self.expect(self.expr(v), ptype, v.span, f"field '{pname}'")
            if unbuilt:
                fields[pname] = (self.hidden(f"event.{pname}"), ptype)
                self.emit(O.STORE_LOCAL, fields[pname][0])
        if not unbuilt:
            self.emit(O.NEW_EVENT, (e.event, tuple(dict(params))))
            if handlers:
                ev = self.hidden("event")
                self.emit(O.STORE_LOCAL, ev)
                self._run_handlers(e.event, handlers, dict(params), ev, use, None)
                self.emit(O.LOAD_LOCAL, ev)
            return event_of(e.event), None
        lazy = _Unbuilt(e.event, fields, [])
        if read is not None and "cancelled" in read:
            lazy.cancelled = self.hidden("event.cancelled")
            self.emit(O.CONST, False)
            self.emit(O.STORE_LOCAL, lazy.cancelled)
        ev = None
        if handlers:
            ev = self.hidden("event")
            self.emit(O.CONST, None)
            self.emit(O.STORE_LOCAL, ev)
            lazy.back = [(f, slot) for f, (slot, _) in fields.items() if f in use.assigned]
            if lazy.cancelled is not None:
                lazy.back.append(("cancelled", lazy.cancelled))
            self._run_handlers(e.event, handlers, dict(params), ev, use, lazy)
        if read is None:
            self._build_event(ev, lazy)
            self.emit(O.LOAD_LOCAL, ev)
            return event_of(e.event), None
        where = dict(fields)
        if lazy.cancelled is not None:
            where["cancelled"] = (lazy.cancelled, BOOL)
        return event_of(e.event), where

    def _build_event(self, ev: int, lazy) -> None:
        """The event in local `ev`, made from its fields' locals unless a handler's call made it."""
        self.emit(O.LOAD_LOCAL, ev)
        made = self.emit(O.JUMP_IF_TRUE, None)
        for slot, _ in lazy.fields.values():
            self.emit(O.LOAD_LOCAL, slot)
        self.emit(O.NEW_EVENT, (lazy.event, tuple(lazy.fields)))
        self.emit(O.STORE_LOCAL, ev)
        self.patch(made)

    def _call_handler(self, h, ev: int, args, exits, lazy) -> None:
        """Call handler h with the event and `args` (a function that pushes them), leaving by
        `exits` when the event was cancelled; with the event unbuilt, build it first and copy
        back what the call may have changed."""
        if lazy is not None:
            self._build_event(ev, lazy)
        if exits is not None:
            exits.append(self.emit(O.JUMP_IF_CANCELLED, (ev, None)))
        self.emit(O.LOAD_LOCAL, ev)
        count = args()
        self.emit(O.CALL, (h.fn_index, 1 + count))
        self.emit(O.POP)
        if lazy is not None:
            for field, slot in lazy.back:
                self.emit(O.LOCAL_EVENT_FIELD, (ev, field))
                self.emit(O.STORE_LOCAL, slot)

    def _run_handlers(self, event: str, handlers: list, params: dict, ev: int, use, lazy) -> None:
        """Call each handler whose 'when' holds, best priority first, until one cancels.

        Most handlers belong to one role or card: their 'when' is tested here and
        the call skipped when it fails. Fields no handler can change (typically
        event.player) are read once into locals the guards share (an unbuilt event's
        fields are all in locals, kept current after each call), so a run of guards
        on one player's variable becomes a single SWITCH_VAR.
        """
        fixed = [f for f in use.guard_reads if f not in use.assigned] if use.changes_known else []
        cache = {}
        if lazy is not None:
            cache = {("event", f): where for f, where in lazy.fields.items()}
        else:
            for field in fixed:
                cache[("event", field)] = (self.hidden(f"event.{field}"), params[field])
                self.emit(O.LOCAL_EVENT_FIELD, (ev, field))
                self.emit(O.STORE_LOCAL, cache[("event", field)][0])
        exits = []
        saved, self.field_cache = self.field_cache, cache
        run = None  # (slot, jump past): handlers in a row held by one fixed player field test it once
        try:
            for i, h in enumerate(handlers):
                slot = self._fixed_holder_slot(h, params, fixed)
                if run is not None and run[0] != slot:
                    self.patch(run[1])
                    run = None
                if slot is not None and run is None:
                    self.emit(O.LOAD_LOCAL, slot)
                    run = (slot, self.emit(O.JUMP_IF_FALSE, None))  # none holds nothing
                if slot is not None:
                    self._held_by_field_guard(h, ev, slot, exits if i else None, lazy)
                    continue
                if isinstance(h, OwnedHandler):
                    self._run_owned_handler(h, ev, params, exits if i else None, lazy)
                    continue
                skip = self._guard(h.decl.when, {"event": (ev, event_of(event))}) if h.decl.when else []
                # a fresh event is never cancelled: the first handler needs no test
                self._call_handler(h, ev, lambda: 0, exits if i else None, lazy)
                self.patch_all(skip)
            if run is not None:
                self.patch(run[1])
        finally:
            self.field_cache = saved
        for at in exits:
            self.patch(at)

    def _run_owned_handler(self, h: OwnedHandler, ev: int, params: dict, exits, lazy) -> None:
        """Call an entry's handler once for each holder it is in play for (HOLDERS), as
        (event, holder, this), until one cancels; its 'when' is tested inside, where
        holder and this are known."""
        field = self._holder_field(h, params)
        if field is not None:
            self._run_held_by_field(h, ev, field, exits, lazy)
            return
        places = tuple(tuple(p) for p in self.syms.kinds[h.kind].held)
        self.emit(O.HOLDERS, (h.entry, places))

        def body():
            slot, _ = self.lookup_local("<holding>")

            def holder_and_this() -> int:
                for part in (0, 1):
                    self.emit(O.LOAD_LOCAL, slot)
                    self.emit(O.CONST, part)
                    self.emit(O.INDEX)
                return 2

            self._call_handler(h, ev, holder_and_this, self.loops[-1].breaks, lazy)

        self._loop_over("<holding>", list_of(ANY), body)

    def _holder_field(self, h: OwnedHandler, params: dict):
        """The player field F of the event when the handler's 'when' starts with
        `event.F == holder` and its kind is held only through one per-player variable:
        then the only holder it can run for is event.F, so the emit site tests whether
        event.F holds the entry (a guard on one variable, as cheap as a guard written by
        hand) instead of listing every holder. None otherwise."""
        held = self.syms.kinds[h.kind].held
        if len(held) != 1 or held[0][0] != "var" or h.decl.when is None:
            return None
        first = h.decl.when
        while isinstance(first, A.Binary) and first.op == "and":
            first = first.left
        if not (isinstance(first, A.Binary) and first.op == "=="):
            return None
        for a, b in ((first.left, first.right), (first.right, first.left)):
            if isinstance(b, A.Name) and b.name == "holder" and isinstance(a, A.Field) \
                    and isinstance(a.obj, A.Name) and a.obj.name == "event" and params.get(a.name) == PLAYER:
                return a.name
        return None

    def _fixed_holder_slot(self, h, params: dict, fixed: list):
        """The local holding event.F, read once before the handlers (no handler changes it),
        for a handler held by that player field (_holder_field); None otherwise."""
        if not isinstance(h, OwnedHandler):
            return None
        field = self._holder_field(h, params)
        cached = self.field_cache.get(("event", field)) if field in fixed else None
        return cached[0] if cached is not None else None

    def _run_held_by_field(self, h: OwnedHandler, ev: int, field: str, exits, lazy) -> None:
        """if event.F != none and event.F.VAR == ENTRY: call the handler (event, event.F, none)."""
        slot = self.hidden(f"event.{field}")
        cached = self.field_cache.get(("event", field))
        if cached is not None:  # an unbuilt event's field (a handler may change it: read now)
            self.emit(O.LOAD_LOCAL, cached[0])
        else:
            self.emit(O.LOCAL_EVENT_FIELD, (ev, field))
        self.emit(O.STORE_LOCAL, slot)
        self.emit(O.LOAD_LOCAL, slot)
        skip = self.emit(O.JUMP_IF_FALSE, None)  # none holds nothing (a player is never false)
        self._held_by_field_guard(h, ev, slot, exits, lazy)
        self.patch(skip)

    def _held_by_field_guard(self, h: OwnedHandler, ev: int, slot: int, exits, lazy) -> None:
        """With the player in `slot` not none: if its VAR == ENTRY, call the handler (event,
        player, none). Guards in a row on one variable become a switch (compiler/peephole.py)."""
        self.emit(O.LOAD_LOCAL, slot)
        self.emit(O.PLAYER_VAR, self.syms.kinds[h.kind].held[0][1])
        self.emit(O.CONST, h.entry)
        self.emit(O.EQ)
        skip = self.emit(O.JUMP_IF_FALSE, None)

        def holder_and_none() -> int:
            self.emit(O.LOAD_LOCAL, slot)
            self.emit(O.CONST, None)
            return 2

        self._call_handler(h, ev, holder_and_none, exits, lazy)
        self.patch(skip)

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
        return {"count": INT, "exists": BOOL, "forall": BOOL, "first": item_t}[kind]

    def e_SumOf(self, e: A.SumOf):
        acc = self.hidden("sum")
        self.emit(O.CONST, 0)
        self.emit(O.STORE_LOCAL, acc)
        item_t = self.collection(e.source, "'sum'")

        def body():
            if e.cond is not None:
                self.loops[-1].continues.extend(self.branch_false(e.cond, "a 'where' condition"))
            self.emit(O.LOAD_LOCAL, acc)
            self.expect(self.expr(e.value), INT, e.value.span, "what 'sum' adds up")
            self.emit(O.ADD)
            self.emit(O.STORE_LOCAL, acc)

        self._loop_over(e.var, item_t, body, e.span)
        self.emit(O.LOAD_LOCAL, acc)
        return INT

    def e_RandomFrom(self, e: A.RandomFrom):
        t = self.expr(e.source)
        self.emit(O.RANDOM_FROM)
        if t == ZONE:
            return THING
        if t.is_list:
            return elem(t)
        if t != ANY:
            self.error("E0310", f"'random from' needs a list or zone, but this is {t}", e.source.span)
        return ANY
