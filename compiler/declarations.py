"""First pass: collect every top-level declaration of a pack into Symbols.

Also evaluates the constant parts of declarations (entry fields, variable
and option initial values), which must be literals, names of symbols or
entries, or lists of those.
"""
from __future__ import annotations

from typing import Optional

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic, did_you_mean

from .symbols import (INTERRUPT_PRIORITY, INTERRUPTER, INTERRUPTING, MISSING, ActionInfo, Behaviour, BehaviourBody,
                      FnInfo, KindInfo, OwnedHandler, Symbols)
from .types import ANY, BASE, BOOL, INT, NONE, STR, Type, TypeSpace, elem, event_of, list_of, named

RESERVED = {"players", "actor", "event", "option", "true", "false", "none", "die", "seat"}

# Keywords that start an expression. The contextual lexer lets them appear where
# only a name fits (`let count = 1`), but where an expression starts they are
# read as the keyword, so a variable of that name could never be used.
# tests/test_grammar.py checks this set against the grammar.
EXPRESSION_KEYWORDS = frozenset({"act", "all", "choose", "count", "create", "each", "emit", "exists",
                                 "first", "forall", "not", "random", "sum", "true", "false", "none"})


def keyword_name(name: str, span, diags: list) -> bool:
    """Report a declared name (a local, a parameter) no value may take; True if it is one."""
    if name in EXPRESSION_KEYWORDS:
        diags.append(Diagnostic("E0405", f"'{name}' is a reserved word and cannot name a value", span,
                                "it starts an expression, so the name could never be read; choose another name"))
        return True
    if name == "event":
        # 'event.x = ...' must always mean a handler adjusting its own event: that is
        # what lets the compiler tell a question from a change (compiler/purity.py).
        diags.append(Diagnostic("E0405", "'event' is reserved: inside a handler it names the event handled",
                                span, "choose another name"))
        return True
    return False


class _HandlerInfo:
    def __init__(self, decl, order: int):
        self.decl = decl
        self.order = order
        self.fn_index = -1


class DeclarationCollector:
    def __init__(self, diags: list):
        self.diags = diags
        self.syms = Symbols()
        self.types = TypeSpace()
        self._held_names: dict = {}  # kind -> the names after 'held in'
        self._handler_order = 0      # handlers run by priority, then in declaration order
        self._owned_actions: list = []  # (entry, action): offered only to the entry's holders

    def error(self, code, message, span, hint=None, severity="error"):
        self.diags.append(Diagnostic(code, message, span, hint, severity))

    # ---------------------------------------------------------------- entry point
    def collect(self, modules: list[A.Module]) -> Symbols:
        """Run the passes in order over every declaration of the pack; each pass may use
        what the earlier ones collected, so names can be used before they are declared."""
        decls = [d for m in modules for d in m.decls]
        self.syms.kinds["die"] = KindInfo("die", {"faces": (list_of(STR), MISSING)}, [], None)
        for name, handlers in self.PASSES:
            for d in decls:
                handler = handlers.get(type(d))
                if handler is not None:
                    handler(self, d)
            finish = getattr(self, f"_after_{name}", None)
            if finish is not None:
                finish()
        return self.syms

    # ---------------------------------------------------------------- the passes
    def _after_types(self):
        self.types.kinds = {named(k) for k in self.syms.kinds}
        self.types.sets = {named(s) for s in self.syms.symbol_sets}

    def _plain_symbols(self, d: A.SymbolsDecl):
        if d.set_name is None:
            for n in d.names:
                keyword_name(n, d.span, self.diags)
                self.syms.symbols.setdefault(n, d.span)

    def _after_values(self):
        syms = self.syms
        self.types.overlaps = {(named(syms.entries[m]["kind"]), named(name))
                               for name, members in syms.symbol_sets.items() for m in members if m in syms.entries}

    def _zone(self, d: A.ZoneDecl):
        self._claim(d.name, d.span)
        if d.per not in (None, "player"):
            self.error("E0403", f"zones are shared or 'per player', not 'per {d.per}'", d.span)
        self.syms.zones[d.name] = (len(self.syms.zones), d.per == "player")
        if d.private:
            self.syms.private_zones.add(d.name)

    def _event(self, d: A.EventDecl):
        # A duplicate is reported by _claim and skipped: it must not replace the first.
        if self._claim(d.name, d.span):
            self._check_params(d.params)
            self.syms.events[d.name] = [(p.name, self.type_of(p.type)) for p in d.params]

    def _function(self, d: A.FnDecl):
        if self._claim(d.name, d.span):
            self._check_params(d.params)
            params = [(p.name, self.type_of(p.type)) for p in d.params]
            ret = self.type_of(d.ret) if d.ret is not None else None
            self.syms.functions[d.name] = FnInfo(d.name, -1, params, ret, d)

    def _handler(self, d: A.HandlerDecl):
        self.syms.handlers.setdefault(d.event, []).append(_HandlerInfo(d, self._handler_order))
        self._handler_order += 1

    def _interrupt(self, d: A.InterruptDecl):
        """An interrupt window is a handler of its event that the compiler writes: after every
        other handler, unless an interrupt is already being taken, each listed player may take
        one action of the group (`act GROUP for p`). The flag that forbids nesting is a global
        no script can name."""
        if INTERRUPTING not in self.syms.globals:
            self.syms.globals[INTERRUPTING] = (len(self.syms.globals), BOOL)
            self.syms.initial[INTERRUPTING] = False
        self.syms.interrupts.append(d)
        sp = d.span
        flag = A.Name(INTERRUPTING, sp)
        body = [A.If([(A.Unary("not", flag, sp), [
            A.Assign(flag, "=", A.BoolLit(True, sp), sp),
            A.For(INTERRUPTER, d.players, [A.ExprStmt(A.Act(d.group, A.Name(INTERRUPTER, sp), sp), sp)], sp),
            A.Assign(flag, "=", A.BoolLit(False, sp), sp),
        ])], None, sp)]
        self._handler(A.HandlerDecl(d.event, INTERRUPT_PRIORITY, d.when, body, sp))

    def _after_scripts(self):
        """An interrupt is always optional: its group needs an action that is always legal."""
        for d in self.syms.interrupts:
            names = self.syms.groups.get(d.group, [])
            decls = [self.syms.actions[n].decl for n in names]
            if decls and not any(not a.params and not a.requires for a in decls):
                self.error("E0327", f"interrupt group '{d.group}' has no action a player can always take to decline",
                           d.span, f"add one: 'action pass_{d.group}() in {d.group} {{ }}'")

    def _entry_scripts(self, d: A.EntryDecl):
        """An entry's own handlers and actions, at the entry's place in declaration order."""
        for h in d.handlers:
            self._owned_handler(d, h, self._handler_order)
            self._handler_order += 1
        for a in d.actions:
            if self._owned(d, a.span, "an action"):
                self._action(a)
                self._owned_actions.append((d, a))

    def _policy(self, d: A.PolicyDecl):
        if d.name in self.syms.policies:
            self.error("E0404", f"policy '{d.name}' is declared twice", d.span)
        self.syms.policies[d.name] = d

    def _after_holders(self):
        for entry, action in self._owned_actions:
            action.requires.insert(0, self._held_by_actor(entry, action.span))
        for event, hs in self.syms.handlers.items():
            if event not in self.syms.events:
                self.error("E0318", f"handler for unknown event '{event}'", hs[0].decl.span,
                           did_you_mean(event, self.syms.events) or "declare it with 'event NAME(field: type, ...)'")
            # Higher priority first; equal priorities in declaration order.
            hs.sort(key=lambda h: (-h.decl.priority, h.order))

    # ---------------------------------------------------------------- helpers
    def _check_params(self, params) -> None:
        for p in params:
            keyword_name(p.name, p.span, self.diags)

    def claim(self, name: str, span) -> bool:
        """Take a top-level name for a declaration made outside the sources (a board file)."""
        return self._claim(name, span)

    def _claim(self, name: str, span) -> bool:
        if keyword_name(name, span, self.diags):
            return False
        if name in RESERVED:
            self.error("E0405", f"'{name}' is a reserved name", span)
            return False
        from runebook.runtime.builtins import BY_NAME as BUILTIN_NAMES
        if name in BUILTIN_NAMES:
            self.error("E0405", f"'{name}' is a builtin function and cannot be redeclared", span,
                       "choose another name")
            return False
        if name in self.syms.declared_at:
            first = self.syms.declared_at[name]
            self.error("E0404", f"'{name}' is already declared at {first}", span,
                       "every top-level name in a pack must be unique")
            return False
        self.syms.declared_at[name] = span
        return True

    def type_of(self, t: Optional[A.TypeRef]) -> Type:
        if t is None:
            return ANY
        if t.name == "list":
            return list_of(self.type_of(t.elem))
        if t.name in BASE or t.name in self.syms.kinds or t.name in self.syms.symbol_sets:
            return named(t.name)
        if t.name in self.syms.events:
            return event_of(t.name)
        self.error("E0303", f"unknown type '{t.name}'", t.span,
                   did_you_mean(t.name, list(BASE) + list(self.syms.kinds) + list(self.syms.symbol_sets) + ["list"]))
        return ANY

    def const(self, e) -> tuple:
        """(value, Type) of a constant expression, or (None, ANY) after reporting."""
        if isinstance(e, A.IntLit):
            return e.value, INT
        if isinstance(e, A.StrLit):
            return e.value, STR
        if isinstance(e, A.BoolLit):
            return e.value, BOOL
        if isinstance(e, A.NoneLit):
            return None, NONE
        if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
            return -e.operand.value, INT
        if isinstance(e, A.Name):
            if e.name in self.syms.entries or e.name in self.syms.symbols:
                return e.name, self.syms.constant_type(e.name)
            self.error("E0301", f"unknown name '{e.name}'", e.span,
                       did_you_mean(e.name, list(self.syms.entries) + list(self.syms.symbols))
                       or "declare it in a 'symbols' list or as an entry")
            return None, ANY
        if isinstance(e, A.ListLit):
            values, t = [], ANY
            for item in e.items:
                v, it = self.const(item)
                values.append(v)
                joined = self.types.join(t, it)
                if joined is None:
                    self.error("E0310", f"a list's items must share one type: {t} and {it} differ", item.span)
                    joined = ANY
                t = joined
            return tuple(values), list_of(t)
        self.error("E0406", "this must be a constant: a number, text, true/false, none, a name or a list",
                   e.span, "compute derived values in a 'fn' instead")
        return None, ANY

    def _kind_shell(self, d: A.KindDecl):
        if self._claim(d.name, d.span):
            self.syms.kinds[d.name] = KindInfo(d.name, {}, [], d.span)
            self._held_names[d.name] = d.held

    def _symbol_set(self, d: A.SymbolsDecl):
        """`symbols stat: strength, agility`: a type whose only values are the names listed."""
        if d.set_name is None or not self._claim(d.set_name, d.span):
            return
        members = self.syms.symbol_sets[d.set_name] = []
        for n in d.names:
            if keyword_name(n, d.span, self.diags):
                continue
            other = self.syms.symbol_type.get(n)
            if other is not None:
                self.error("E0404", f"'{n}' is already a member of symbol set '{other}'", d.span,
                           "a symbol belongs to one set, which is its type")
                continue
            if n in members:
                self.error("E0407", f"symbol set '{d.set_name}' lists '{n}' twice", d.span)
                continue
            members.append(n)
            self.syms.symbol_type[n] = d.set_name
            self.syms.symbols.setdefault(n, d.span)

    def _kind_fields(self, d: A.KindDecl):
        info = self.syms.kinds.get(d.name)
        if info is None or info.span is not d.span:
            return
        for f in d.fields:
            if f.name in info.fields:
                self.error("E0404", f"field '{f.name}' is declared twice in kind '{d.name}'", f.span)
                continue
            if isinstance(f.type, A.BehaviourType):
                self._check_params(f.type.params)
                t = Behaviour(tuple((p.name, self.type_of(p.type)) for p in f.type.params),
                              self.type_of(f.type.ret) if f.type.ret is not None else None)
                given = f.body is not None or f.default is not None
                if not given:
                    info.fields[f.name] = (t, MISSING)
                elif self._behaviour_given(d.name, f.name, t, f.default, f.body, f.span):
                    info.fields[f.name] = (t, self.syms.behaviours[-1])
                else:
                    info.fields[f.name] = (t, None)  # reported: not missing in every entry too
                continue
            t = self.type_of(f.type)
            default = MISSING
            if f.default is not None:
                # Defaults may name symbols only after those are collected; keep the AST.
                default = f.default
            info.fields[f.name] = (t, default)

    def _behaviour_given(self, owner: str, name: str, t: Behaviour, value, body, span) -> bool:
        """Record code given for a behaviour field (compiled with the other bodies)."""
        if body is None and t.ret is None:
            self.error("E0310", f"'{name}' is a procedure: give it a block, '{name} {{ ... }}'", span,
                       "only a fn field may be given as one expression")
            return False
        self.syms.behaviours.append(BehaviourBody(owner, name, t, value, body, span))
        return True

    def _check_members(self, value, want: Type, span) -> None:
        """A constant given where a symbol set is wanted names one of its members (a name
        that is also an entry passes the type check, not necessarily this one)."""
        if want.is_list and isinstance(value, tuple):
            for v in value:
                self._check_members(v, want.item, span)
            return
        members = self.syms.symbol_sets[want.name] if self.types.is_set(want) else None
        if members is not None and value is not None and value not in members:
            self.error("E0310", f"'{value}' is not a member of symbol set '{want}'", span,
                       did_you_mean(value, members) or f"its members: {', '.join(members)}")

    def _kind_held(self, d: A.KindDecl):
        """Resolve `held in NAME, ...`: each a zone (things made from the entry in it are in
        play for the zone's owner) or a per-player variable (the entry it holds is in play)."""
        info = self.syms.kinds.get(d.name)
        if info is None or info.span is not d.span:
            return
        for name in d.held:
            if name in self.syms.zones:
                info.held.append(("zone", self.syms.zones[name][0]))
            elif name in self.syms.player_vars:
                slot, t = self.syms.player_vars[name]
                if t != named(d.name):
                    self.error("E0310", f"'{name}' holds {t}, not a {d.name}", d.span,
                               f"declare it 'var {name}: {d.name} per player = ...'")
                info.held.append(("var", slot))
            else:
                self.error("E0307", f"kind '{d.name}' is held in '{name}', which is neither a zone nor a "
                           "per-player variable", d.span,
                           did_you_mean(name, list(self.syms.zones) + list(self.syms.player_vars)))

    def _action(self, d: A.ActionDecl):
        if not self._claim(d.name, d.span):
            return
        self._check_params(d.params)
        params = [(p.name, self.type_of(p.type)) for p in d.params]
        self.syms.actions[d.name] = ActionInfo(d.name, len(self.syms.actions), d.groups, params, d)
        for g in d.groups:
            self.syms.groups.setdefault(g, []).append(d.name)

    def _owned(self, d: A.EntryDecl, span, what: str) -> bool:
        """Whether the entry's kind says where it is in play (what its handlers and actions need)."""
        if d.kind not in self.syms.kinds:
            return False  # the unknown kind is reported with the entry
        if not self._held_names.get(d.kind):
            self.error("E0325", f"{d.kind} '{d.name}' has {what}, but kind '{d.kind}' says nowhere "
                       "its entries are in play", span,
                       f"declare where: 'kind {d.kind} held in ZONE_OR_VARIABLE {{ ... }}'")
            return False
        return True

    def _owned_handler(self, d: A.EntryDecl, h: A.HandlerDecl, order: int):
        if self._owned(d, h.span, "a handler"):
            self.syms.handlers.setdefault(h.event, []).append(OwnedHandler(d.name, d.kind, h, order))

    def _held_by_actor(self, d: A.EntryDecl, span):
        """The requirement an entry's own action starts with: the actor holds the entry
        (`actor.VAR == ENTRY`, or a thing made from it in one of the actor's zones or a
        shared zone of the kind's places). A test on one variable, first, is a guard the
        act site shares with the other holders' actions (one SWITCH_VAR)."""
        actor, entry = A.Name("actor", span), A.Name(d.name, span)
        tests = []
        for name in self._held_names[d.kind]:
            if name in self.syms.player_vars:
                tests.append(A.Binary("==", A.Field(actor, name, span), entry, span))
            elif name in self.syms.zones:
                zone = A.ZoneOf(name, actor, span) if self.syms.zones[name][1] else A.Name(name, span)
                holds = A.Binary("==", A.Field(A.Name("<thing>", span), "entry", span), entry, span)
                tests.append(A.Quant("exists", "<thing>", zone, holds, span))
        test = tests[0] if tests else A.BoolLit(False, span)
        for more in tests[1:]:
            test = A.Binary("or", test, more, span)
        return test

    def _die(self, d: A.DieDecl):
        if not self._claim(d.name, d.span):
            return
        if len(set(d.faces)) != len(d.faces):
            self.error("E0407", f"die '{d.name}' lists a face twice", d.span)
        for f in d.faces:
            keyword_name(f, d.span, self.diags)
            self.syms.symbols.setdefault(f, d.span)
        self.syms.entries[d.name] = {"kind": "die", "faces": tuple(d.faces)}
        self.syms.kinds["die"].entries.append(d.name)

    def _entry_name(self, d: A.EntryDecl):
        if d.kind not in self.syms.kinds or d.kind == "die":
            hint = did_you_mean(d.kind, self.syms.kinds)
            if d.kind == "die":
                hint = "declare dice as 'die NAME: face, face, ...'"
            self.error("E0303", f"unknown kind '{d.kind}'", d.span, hint or "declare it with 'kind NAME { field: type }'")
            return
        # An entry may share its id with a face (both are the same text value).
        if self._claim(d.name, d.span):
            self.syms.entries[d.name] = {"kind": d.kind}
            self.syms.entry_decls[d.name] = d
            self.syms.kinds[d.kind].entries.append(d.name)

    def _entry_fields(self, d: A.EntryDecl):
        entry = self.syms.entries.get(d.name)
        if entry is None or entry.get("kind") != d.kind or len(entry) > 1:
            return
        kind = self.syms.kinds[d.kind]
        given = {}
        for f in d.fields:
            if f.name not in kind.fields:
                self.error("E0302", f"kind '{d.kind}' has no field '{f.name}'", f.span,
                           did_you_mean(f.name, kind.fields) or f"fields: {', '.join(kind.fields)}")
                continue
            if f.name in given:
                self.error("E0404", f"field '{f.name}' is given twice", f.span)
                continue
            want = kind.fields[f.name][0]
            if isinstance(want, Behaviour):
                if self._behaviour_given(d.name, f.name, want, f.value, f.body, f.span):
                    given[f.name] = self.syms.behaviours[-1]
                continue
            if f.body is not None:
                self.error("E0310", f"field '{f.name}' is {want}, not code", f.span,
                           f"give its value: '{f.name}: VALUE'")
                continue
            value, t = self.const(f.value)
            if not self.types.assignable(t, want):
                self.error("E0310", f"field '{f.name}' must be {want}, but this is {t}", f.value.span)
            else:
                self._check_members(value, want, f.value.span)
            given[f.name] = value
        for fname, (want, default) in kind.fields.items():
            if fname in given:
                entry[fname] = given[fname]
            elif default is MISSING:
                self.error("E0408", f"{d.kind} '{d.name}' is missing field '{fname}'", d.span,
                           f"add '{fname}: ...' or give the field a default in kind '{d.kind}'")
                entry[fname] = None
            elif isinstance(want, Behaviour):
                entry[fname] = default  # the kind's default body: its function index is filled in later
            else:
                entry[fname] = self.const(default)[0]

    def _var(self, d: A.VarDecl):
        # Per-player and per-thing variables are reached only as fields (p.xp),
        # so they live in their own namespaces, not the pack's global one.
        if d.per is None:
            if not self._claim(d.name, d.span):
                return
        elif d.name in self.syms.player_vars or d.name in self.syms.thing_vars:
            self.error("E0404", f"variable '{d.name}' is declared twice", d.span)
            return
        t = self.type_of(d.type)
        value, vt = self.const(d.init)
        if not self.types.assignable(vt, t):
            self.error("E0310", f"'{d.name}' is {t}, but its initial value is {vt}", d.init.span)
        table = {None: self.syms.globals, "player": self.syms.player_vars, "thing": self.syms.thing_vars}.get(d.per)
        if table is None:
            self.error("E0403", f"variables are global, 'per player' or 'per thing', not 'per {d.per}'", d.span)
            return
        table[d.name] = (len(table), t)
        self.syms.initial[d.name] = value

    def _option(self, d: A.OptionDecl):
        if not self._claim(d.name, d.span):
            return
        value, vt = self.const(d.default)
        choices = None
        if d.choices is not None:
            # 'all KIND' among the choices stands for every entry of that kind.
            items = []
            for c in d.choices:
                if isinstance(c, A.AllEntries) and c.kind in self.syms.kinds:
                    items.extend(A.Name(e, c.span) for e in self.syms.kinds[c.kind].entries)
                elif isinstance(c, A.AllEntries):
                    self.error("E0303", f"unknown kind '{c.kind}'", c.span,
                               did_you_mean(c.kind, self.syms.kinds) or "declare it with 'kind NAME { field: type }'")
                else:
                    items.append(c)
            choices, ct = self.const(A.ListLit(items, d.span))
            t = elem(ct)
            if value not in choices:
                self.error("E0409", f"option '{d.name}' defaults to {value!r}, which is not one of its choices",
                           d.default.span)
        else:
            t = self.type_of(d.type)
            if t not in (INT, BOOL, STR) and not self.types.is_kind(t):
                self.error("E0310", f"options are int, bool or str, not {t}", d.type.span)
        if not self.types.assignable(vt, t):
            self.error("E0310", f"option '{d.name}' is {t}, but its default is {vt}", d.default.span)
        if d.range is not None:
            self._option_range(d, t, value)
        self.syms.options[d.name] = (t, value, list(choices) if choices is not None else None)

    def _option_range(self, d: A.OptionDecl, t: Type, value) -> None:
        """`int in low..high`: the values the command line and card tests may give (E0409)."""
        low, high = d.range
        if t != INT:
            self.error("E0310", f"only int options have a range, not {t}", d.type.span)
        elif low > high:
            self.error("E0409", f"option '{d.name}' has an empty range {low}..{high}", d.span,
                       "write the smaller bound first")
        elif isinstance(value, int) and not low <= value <= high:
            self.error("E0409", f"option '{d.name}' defaults to {value}, outside its range {low}..{high}",
                       d.default.span)
        else:
            self.syms.option_ranges[d.name] = (low, high)


# The passes of DeclarationCollector.collect, in order: (name, {declaration type: method}).
# Each pass reads every declaration once; `_after_NAME`, when there is one, runs after it.
DeclarationCollector.PASSES = (
    # kinds and symbol sets first: every type annotation may name one
    ("types", {A.KindDecl: DeclarationCollector._kind_shell, A.SymbolsDecl: DeclarationCollector._symbol_set}),
    ("fields", {A.KindDecl: DeclarationCollector._kind_fields}),
    # faces, symbols and entry names before anything that may use them as values
    ("symbols", {A.DieDecl: DeclarationCollector._die, A.SymbolsDecl: DeclarationCollector._plain_symbols}),
    ("values", {A.EntryDecl: DeclarationCollector._entry_name}),
    ("entries", {A.EntryDecl: DeclarationCollector._entry_fields}),
    # everything scripts name, in declaration order (it numbers actions and handlers)
    ("scripts", {A.ZoneDecl: DeclarationCollector._zone, A.VarDecl: DeclarationCollector._var,
                 A.OptionDecl: DeclarationCollector._option, A.EventDecl: DeclarationCollector._event,
                 A.FnDecl: DeclarationCollector._function, A.ActionDecl: DeclarationCollector._action,
                 A.HandlerDecl: DeclarationCollector._handler, A.EntryDecl: DeclarationCollector._entry_scripts,
                 A.InterruptDecl: DeclarationCollector._interrupt,
                 A.PolicyDecl: DeclarationCollector._policy}),
    # where entries are in play (zones and variables are known now)
    ("holders", {A.KindDecl: DeclarationCollector._kind_held}),
)
