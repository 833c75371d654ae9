"""Rules text: the English of an entry, generated from the code that runs it.

An entry's text is rendered from the *checked AST* of its pack: its data fields,
the behaviour fields it gives, its own `on EVENT` handlers and its actions. The AST,
not the bytecode, because it is exactly what the checker accepted and the code
generator turned into bytecode (one node, one piece of code), while still holding
what English needs and the bytecode no longer has: the statement structure, the
names of fields and parameters, `rounded up`. The peephole pass and inlining reshape
the bytecode for speed, which would change the text without changing the rules.
Only a pack that compiled without errors is rendered, so every name is resolved.

A phrase is a template whose holes `{name}` are filled with the phrases of what
they stand for. Phrases come from three tables, each the single source of truth
for its part:
  - a builtin's phrase is its row in runtime/builtins.py (holes {0}, {1}: its arguments);
  - a statement form or operator's phrase is its row in FORMS below (a test checks
    FORMS covers every form the checker compiles; docs/gen_docs.py prints it);
  - a pack's own names (functions, fields, events, symbols, parameters) get their
    phrase from `phrases:` in pack.yaml, per kind or for `all` kinds; without one,
    a name is read as words (`collected_amount` -> "collected amount").
Holes are filled by a plain substitution, never str.format: phrases are content.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.runtime.builtins import BY_NAME as BUILTINS
from runebook.runtime.text import plural_form

# The phrase of every statement form and operator; holes name the node's parts.
# How tightly each arithmetic operator binds: an operand binding looser is bracketed.
ARITHMETIC_TIGHTNESS = {"+": 1, "-": 1, "*": 2, "%": 2}

# Keys: the AST class name, or the class name and its variant ("Binary ==").
FORMS: dict[str, str] = {
    # statements
    "Let": "let {name} be {value}",
    "Assign =": "set {target} to {value}",
    "Assign +=": "add {value} to {target}",
    "Assign -=": "take {value} from {target}",
    "If": "if {cond}: {body}",
    "If elif": "otherwise, if {cond}: {body}",
    "If else": "otherwise: {body}",
    "For": "for each {var} in {source}: {body}",
    "Repeat": "{count} times: {body}",
    "While": "while {cond}: {body}",
    "Break": "stop repeating",
    "Continue": "go on to the next",
    "Return": "the result is {value}",
    "Return nothing": "stop",
    "Move bottom": "move {what} to {dest}",
    "Move top": "move {what} to the top of {dest}",
    "Destroy": "remove {what} from the game",
    "Roll": "roll {what}",
    "Shuffle": "shuffle {zone}",
    "Log": "",  # narration, not rules: left out of the text
    "Cancel": "cancel it",
    "ExprStmt": "{expr}",
    # expressions
    "IntLit": "{value}",
    "StrLit": "{value}",
    "Interp": "{value}",
    "BoolLit true": "true",
    "BoolLit false": "false",
    "NoneLit": "none",
    "Name": "{name}",
    "AllEntries": "all {count} {kind}",
    "ListLit": "{items}",
    "ListLit empty": "nothing",
    "Field": "{obj}'s {name}",
    "Index": "item {index} of {obj}",
    "Call": "{name} ({args})",
    "Call no arguments": "{name}",
    "Call kind": "the {name} {args}",
    "MethodCall": "{obj}'s {name} ({args})",
    "ZoneOf": "{obj}'s {name}",
    "Unary -": "minus {operand}",
    "Unary not": "not {operand}",
    "Binary +": "{left} + {right}",
    "Binary -": "{left} - {right}",
    "Binary *": "{left} × {right}",
    "Binary %": "the remainder of {left} divided by {right}",
    "Binary ==": "{left} is {right}",
    "Binary !=": "{left} is not {right}",
    "Binary <": "{left} is less than {right}",
    "Binary <=": "{left} is at most {right}",
    "Binary >": "{left} is more than {right}",
    "Binary >=": "{left} is at least {right}",
    "Binary and": "{left} and {right}",
    "Binary or": "{left} or {right}",
    "Binary in": "{left} is in {right}",
    "Binary not in": "{left} is not in {right}",
    "Divide up": "{left} / {right}, rounded up",
    "Divide down": "{left} / {right}, rounded down",
    "Choose": "{player} chooses {tag} from {options}",
    "ChooseSecretly": "each {var} of {players} secretly chooses {tag} from {options}; the choices are revealed together",
    "Act": "{player} takes a {group} action",
    "Create": "put a new {entry} in {zone}",
    "Emit": "{event}",
    "Quant count": "the number of {var} in {source}{where}",
    "Quant each": "every {var} in {source}{where}",
    "Quant exists": "there is a {var} in {source}{where}",
    "Quant forall": "for every {var} in {source}, {cond}",
    "Quant first": "the first {var} in {source}{where}",
    "where": " where {cond}",
    "SumOf": "the total of {value} for each {var} in {source}{where}",
    "RandomFrom": "a random one of {source}",
    # an entry's parts
    "field": "{field}: {text}",
    "handler": "when {event}{when}: {body}",
    "handler when": ", if {cond}",
    "action": "{name}: {params}{requires}{body}",
    "action param": "choose {name} from {source}; ",
    "action require": "only if {cond}; ",
}

_HOLE = re.compile(r"\{([A-Za-z0-9_]*)\}")
# A hole followed by a counted noun of one or two words, `{n} round(s)`, `{n} chance
# roll(s)`: the noun agrees with the count.
_COUNTED_HOLE = re.compile(r"\{([A-Za-z0-9_]*)\}(?:((?: [A-Za-z]+){1,2})\(s\))?")


def fill(template: str, values: dict) -> str:
    """The template with each {hole} replaced by its value (a hole with none stays as written);
    `{n} word(s)` reads "1 word" when the value is 1 and "n words" otherwise."""
    def one(m: re.Match) -> str:
        value, noun = values.get(m.group(1)), m.group(2)
        if value is None:
            return m.group(0)
        if noun is None:
            return value
        return value + (noun if value == "1" else plural_form(noun))
    return _COUNTED_HOLE.sub(one, template)


def holes(template: str) -> list[str]:
    return _HOLE.findall(template)


def words(name: str) -> str:
    """A snake_case name read as words."""
    return name.replace("_", " ").strip()


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?:" else text + "."


def _joined(parts: list[str]) -> str:
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class Card:
    """One entry as a card: its title, data fields (label, value) and rules text (sentences)."""
    id: str
    kind: str
    title: str
    data: list = field(default_factory=list)
    text: list = field(default_factory=list)


class Renderer:
    """Renders the entries of one kind with that kind's phrases."""

    def __init__(self, syms, phrases: dict, kind: str):
        self.syms = syms
        self.kind = kind
        self.every_kind = phrases.get("all") or {}
        self.table = {**self.every_kind, **(phrases.get(kind) or {})}
        self.fields = syms.kinds[kind].fields

    # ------------------------------------------------------------ names and values
    def title(self, entry_id: str) -> str:
        name = self.syms.entries.get(entry_id, {}).get("name")
        return name if isinstance(name, str) and name else words(entry_id)

    def phrase(self, n: str):
        """The phrase of a name in code. In a kind's own table a field's phrase is the line its
        value makes on the card, so in code the field's name takes the phrase of `all`."""
        return (self.every_kind if n in self.fields else self.table).get(n)

    def name(self, n: str) -> str:
        phrase = self.phrase(n)
        if phrase and not holes(phrase):  # "" hides a field from the text, not a name from code
            return phrase
        if n in self.syms.entries:
            return self.title(n)
        return words(n)

    def value(self, v, nested: bool = False) -> str:
        """A constant of an entry's data (a list in a list in brackets)."""
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, tuple):
            text = ", ".join(self.value(x, True) for x in v)
            return f"[{text}]" if nested else (text or "none")
        if v == "":
            return "—"
        if isinstance(v, str) and (v in self.syms.entries or v in self.syms.symbols or v in self.table):
            return self.name(v)
        return str(v)

    # ------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        return getattr(self, "x_" + type(e).__name__)(e)

    def x_IntLit(self, e):
        return fill(FORMS["IntLit"], {"value": str(e.value)})

    def x_StrLit(self, e):
        return fill(FORMS["StrLit"], {"value": e.value})

    def x_Interp(self, e):
        text = "".join(p if isinstance(p, str) else self.expr(p) for p in e.parts)
        return fill(FORMS["Interp"], {"value": text})

    def x_BoolLit(self, e):
        return FORMS["BoolLit true" if e.value else "BoolLit false"]

    def x_NoneLit(self, e):
        return FORMS["NoneLit"]

    def x_Name(self, e):
        return fill(FORMS["Name"], {"name": self.name(e.name)})

    def x_AllEntries(self, e):
        members = self.syms.kinds[e.kind].entries if e.kind in self.syms.kinds else self.syms.symbol_sets.get(e.kind, ())
        return fill(FORMS["AllEntries"], {"kind": self.name(e.kind), "count": str(len(members))})

    def x_ListLit(self, e):
        if not e.items:
            return FORMS["ListLit empty"]
        return fill(FORMS["ListLit"], {"items": _joined([self.expr(x) for x in e.items])})

    def possessive(self, form: str, owner: str, thing: str) -> str:
        # "you" owns as "your": the one English case a template cannot say on its own
        if owner == "you":
            return f"your {thing}"
        return fill(FORMS[form], {"obj": owner, "name": thing})

    def x_Field(self, e):
        return self.possessive("Field", self.expr(e.obj), self.name(e.name))

    def x_Index(self, e):
        return fill(FORMS["Index"], {"obj": self.expr(e.obj), "index": self.expr(e.index)})

    def call(self, name: str, args: list, params: list) -> str:
        """A call: the callee's phrase with its parameters' holes filled, or its name and arguments."""
        texts = [self.expr(a) for a in args]
        phrase = self.phrase(name)
        if phrase is not None and holes(phrase):
            return fill(phrase, dict(zip(params, texts)))
        if not texts:
            return fill(FORMS["Call no arguments"], {"name": self.name(name)})
        return fill(FORMS["Call"], {"name": self.name(name), "args": ", ".join(texts)})

    def x_Call(self, e):
        if e.name in BUILTINS:
            return fill(BUILTINS[e.name].text, {str(i): self.expr(a) for i, a in enumerate(e.args)})
        if e.name in self.syms.kinds:
            return fill(FORMS["Call kind"], {"name": self.name(e.name), "args": _joined([self.expr(a) for a in e.args])})
        fn = self.syms.functions.get(e.name)
        return self.call(e.name, e.args, [p for p, _ in fn.params] if fn else [])

    def x_MethodCall(self, e):
        return fill(FORMS["MethodCall"], {"obj": self.expr(e.obj), "name": self.name(e.name),
                                          "args": ", ".join(self.expr(a) for a in e.args)})

    def x_ZoneOf(self, e):
        return self.possessive("ZoneOf", self.expr(e.owner), self.name(e.zone))

    def x_Unary(self, e):
        return fill(FORMS[f"Unary {e.op}"], {"operand": self.expr(e.operand)})

    def x_Binary(self, e):
        tight = ARITHMETIC_TIGHTNESS.get(e.op)
        return fill(FORMS[f"Binary {e.op}"], {"left": self.operand(e.left, tight),
                                              "right": self.operand(e.right, tight, right=True)})

    def x_Divide(self, e):
        tight = ARITHMETIC_TIGHTNESS["*"]
        return fill(FORMS[f"Divide {e.rounding}"], {"left": self.operand(e.left, tight),
                                                    "right": self.operand(e.right, tight, right=True)})

    def operand(self, e, tight, right: bool = False) -> str:
        """An arithmetic operand, in brackets where the words alone would regroup it:
        `(a - b) * c` must not read "a - b × c", nor `a - (b + c)` "a - b + c"."""
        text = self.expr(e)
        inner = ARITHMETIC_TIGHTNESS.get(e.op) if isinstance(e, A.Binary) else None
        if tight is not None and inner is not None and (inner < tight or (right and inner == tight)):
            return f"({text})"
        return text

    def x_Choose(self, e):
        player = self.expr(e.player) if e.player is not None else self.name("actor")
        return fill(FORMS["Choose"], {"player": player, "tag": self.name(e.tag), "options": self.expr(e.options)})

    def x_ChooseSecretly(self, e):
        return fill(FORMS["ChooseSecretly"], {"var": self.name(e.var), "players": self.expr(e.players),
                                              "tag": self.name(e.tag), "options": self.expr(e.options)})

    def x_Act(self, e):
        return fill(FORMS["Act"], {"player": self.expr(e.player), "group": self.name(e.group)})

    def x_Create(self, e):
        return fill(FORMS["Create"], {"entry": self.expr(e.entry), "zone": self.expr(e.zone)})

    def x_Emit(self, e):
        phrase = self.table.get(e.event)
        event = fill(phrase, {k: self.expr(v) for k, v, _ in e.kwargs}) if phrase is not None else words(e.event)
        return fill(FORMS["Emit"], {"event": event})

    def _where(self, cond) -> str:
        return fill(FORMS["where"], {"cond": self.expr(cond)}) if cond is not None else ""

    def x_Quant(self, e):
        return fill(FORMS[f"Quant {e.kind}"], {"var": self.name(e.var), "source": self.expr(e.source),
                                                "where": self._where(e.cond),
                                                "cond": self.expr(e.cond) if e.cond is not None else ""})

    def x_SumOf(self, e):
        return fill(FORMS["SumOf"], {"value": self.expr(e.value), "var": self.name(e.var),
                                     "source": self.expr(e.source), "where": self._where(e.cond)})

    def x_RandomFrom(self, e):
        return fill(FORMS["RandomFrom"], {"source": self.expr(e.source)})

    # ------------------------------------------------------------ statements
    def block(self, stmts: list, nested: bool = False) -> str:
        clauses = [c for c in (self.stmt(s) for s in stmts) if c]
        text = "; ".join(clauses)
        return f"({text})" if nested and len(clauses) > 1 else text

    def stmt(self, s) -> str:
        return getattr(self, "s_" + type(s).__name__)(s)

    def s_Let(self, s):
        return fill(FORMS["Let"], {"name": self.name(s.name), "value": self.expr(s.value)})

    def s_Assign(self, s):
        return fill(FORMS[f"Assign {s.op}"], {"target": self.expr(s.target), "value": self.expr(s.value)})

    def s_If(self, s):
        bodies = [self.block(body, True) for _, body in s.branches]
        orelse = self.block(s.orelse, True) if s.orelse else ""
        if not any(bodies) and not orelse:
            return ""  # only narration inside: nothing a player must do
        parts = [fill(FORMS["If" if i == 0 else "If elif"], {"cond": self.expr(cond), "body": body})
                 for i, ((cond, _), body) in enumerate(zip(s.branches, bodies))]
        if orelse:
            parts.append(fill(FORMS["If else"], {"body": orelse}))
        return "; ".join(parts)

    def loop(self, form: str, body: list, **parts) -> str:
        text = self.block(body, True)
        return fill(FORMS[form], {**parts, "body": text}) if text else ""

    def s_For(self, s):
        return self.loop("For", s.body, var=self.name(s.var), source=self.expr(s.source))

    def s_Repeat(self, s):
        return self.loop("Repeat", s.body, count=self.expr(s.count))

    def s_While(self, s):
        return self.loop("While", s.body, cond=self.expr(s.cond))

    def s_Break(self, s):
        return FORMS["Break"]

    def s_Continue(self, s):
        return FORMS["Continue"]

    def s_Return(self, s):
        if s.value is None:
            return FORMS["Return nothing"]
        return fill(FORMS["Return"], {"value": self.expr(s.value)})

    def s_Move(self, s):
        return fill(FORMS[f"Move {s.place}"], {"what": self.expr(s.what), "dest": self.expr(s.dest)})

    def s_Destroy(self, s):
        return fill(FORMS["Destroy"], {"what": self.expr(s.what)})

    def s_Roll(self, s):
        return fill(FORMS["Roll"], {"what": self.expr(s.what)})

    def s_Shuffle(self, s):
        return fill(FORMS["Shuffle"], {"zone": self.expr(s.zone)})

    def s_Log(self, s):
        return FORMS["Log"]

    def s_Cancel(self, s):
        return FORMS["Cancel"]

    def s_ExprStmt(self, s):
        return fill(FORMS["ExprStmt"], {"expr": self.expr(s.expr)})

    # ------------------------------------------------------------ an entry
    def card(self, entry_id: str) -> Card:
        entry = self.syms.entries[entry_id]
        decl = self.syms.entry_decls.get(entry_id)
        card = Card(entry_id, self.kind, self.title(entry_id))
        for fname, (t, _) in self.fields.items():
            if fname != "name" and not hasattr(t, "params"):
                card.data.append((words(fname), self.value(entry.get(fname))))
        if decl is None:
            return card
        data = {f: self.value(entry.get(f)) for f in self.fields}
        for f in decl.fields:
            t = self.fields[f.name][0]
            line = self.behaviour(f) if hasattr(t, "params") else self.data_line(f.name, data, entry.get(f.name))
            card.text.append(sentence(line))
        card.text.extend(sentence(self.handler(h)) for h in decl.handlers)
        card.text.extend(sentence(self.action(a, owned=True)) for a in decl.actions)
        card.text = [t for t in card.text if t]
        return card

    def data_line(self, fname: str, data: dict, value) -> str:
        """A data field is part of the text only where the kind gives it a phrase; a yes/no
        field's phrase says the yes."""
        phrase = self.table.get(fname)
        return fill(phrase, data) if phrase and value is not False else ""

    def behaviour(self, f: A.FieldInit) -> str:
        text = self.block(f.body) if f.body is not None else self.expr(f.value)
        phrase = self.table.get(f.name)
        if phrase is None:
            return fill(FORMS["field"], {"field": words(f.name), "text": text})
        return fill(phrase, {f.name: text}) if phrase else ""

    def handler(self, h: A.HandlerDecl) -> str:
        phrase = self.table.get(h.event)
        when = fill(FORMS["handler when"], {"cond": self.expr(h.when)}) if h.when is not None else ""
        return fill(FORMS["handler"], {"event": phrase if phrase is not None else words(h.event),
                                       "when": when, "body": self.block(h.body)})

    def action(self, a: A.ActionDecl, owned: bool) -> str:
        # An entry's own action starts with the requirement the checker adds (the actor holds
        # the entry): the card says that by being the actor's.
        requires = a.requires[1:] if owned else a.requires
        params = "".join(fill(FORMS["action param"], {"name": self.name(p.name), "source": self.expr(p.domain)})
                         for p in a.params)
        req = "".join(fill(FORMS["action require"], {"cond": self.expr(r)}) for r in requires)
        return fill(FORMS["action"], {"name": self.name(a.name), "params": params, "requires": req,
                                      "body": self.block(a.body)})


def cards(syms, phrases: dict, only: str | None = None) -> list[Card]:
    """Every entry of every kind as a card, in the order kinds and entries are declared."""
    out = []
    for kind, info in syms.kinds.items():
        renderer = Renderer(syms, phrases or {}, kind)
        out.extend(renderer.card(e) for e in info.entries if only is None or e == only)
    return out


# ---------------------------------------------------------------- checking a pack's phrases
def check_phrases(manifest: dict, mfile: str, syms, diags: list) -> None:
    """E0424 for a phrase table that names no kind, or a phrase with a hole nothing fills."""
    from runebook.dsl.yaml_load import locate

    for kind, table in (manifest.get("phrases") or {}).items():
        if kind != "all" and kind not in syms.kinds:
            diags.append(Diagnostic("E0424", f"phrases for '{kind}', which is not a kind of the pack",
                                    locate(manifest, ["phrases", kind], mfile, key=True),
                                    did_you_mean(kind, list(syms.kinds)) or "use a kind's name, or 'all'"))
            continue
        for name, phrase in (table or {}).items():
            allowed = _fillable(syms, kind, name)
            bad = [h for h in holes(phrase) if h not in allowed]
            if bad:
                diags.append(Diagnostic(
                    "E0424", f"phrase for '{name}' has hole '{{{bad[0]}}}', which nothing fills there",
                    locate(manifest, ["phrases", kind, name], mfile),
                    f"holes it may use: {', '.join('{' + h + '}' for h in allowed)}" if allowed
                    else f"'{name}' is not a function, field or event: its phrase is plain words"))


def _fillable(syms, kind: str, name: str) -> list[str]:
    """The holes a phrase for `name` may use: a function's or event's parameters; for a data
    field, the kind's fields; for a behaviour field, its own name (the behaviour's text)."""
    fields = syms.kinds[kind].fields if kind != "all" else {}
    if name in fields:  # a kind's own field comes first in its own table
        return [name] if hasattr(fields[name][0], "params") else list(fields)
    if name in syms.functions:
        return [p for p, _ in syms.functions[name].params]
    if name in syms.events:
        return [p for p, _ in syms.events[name]]
    return []
