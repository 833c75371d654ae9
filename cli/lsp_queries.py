"""Hover, go-to-definition and completion: questions about a place in a file of an analysed pack.

Each answer is plain data (markdown, spans, completion entries); cli/lsp.py turns it
into LSP messages. A place is read as the word under the cursor and what stands just
before it (`obj.` for a field, `on ` for an event), resolved against the pack's index
of declarations, the builtin table and the checker's symbols.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from runebook.dsl import ast as A

from .lsp_pack import Analysis, Declared, enclosing

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
OBJECT_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*$")
PLAYER_ATTRS = ("seat",)        # what every player has besides `var ... per player` (compiler/expressions.py)
EVENT_ATTRS = ("cancelled",)    # what every event record has besides its declared fields
TOP_LEVEL = ("entry", "kind", "fn", "proc", "event", "zone", "var", "option", "symbol", "symbol set",
             "die", "action", "policy")


@dataclass(frozen=True)
class Place:
    """A cursor: the file (display name), its line (1-based) and column (0-based, characters)."""
    display: str
    lines: tuple            # the document as the editor holds it
    line: int
    col: int
    yaml: bool = False      # a card-test or manifest file: code sits in YAML strings

    @property
    def text(self) -> str:
        return self.lines[self.line - 1] if 0 < self.line <= len(self.lines) else ""


@dataclass(frozen=True)
class Completion:
    label: str
    what: str               # keyword, builtin, field, or a Declared.what
    detail: str = ""


# ---------------------------------------------------------------- what is under the cursor
def _word(place: Place) -> Optional[re.Match]:
    for m in WORD.finditer(place.text):
        if m.start() <= place.col <= m.end():
            return m
    return None


def _object_before(place: Place, start: int) -> Optional[str]:
    m = OBJECT_BEFORE.search(place.text[:start])
    return m.group(1) if m else None


def _resolve(analysis: Analysis, place: Place) -> tuple:
    """(the word under the cursor or None, the declarations it names)."""
    m = _word(place)
    if m is None:
        return None, []
    name = m.group()
    obj = _object_before(place, m.start())
    if obj is not None:
        return name, [d for d in _fields_of(analysis, place, obj) if d.name == name]
    entry = _enclosing(analysis, place, (A.EntryDecl,))
    if entry is not None and any(f.name == name and f.span.line == place.line for f in entry.fields):
        return name, [d for d in analysis.declared(name, "field") if d.owner == entry.kind]
    return name, analysis.declared(name, *TOP_LEVEL)


def _fields_of(analysis: Analysis, place: Place, obj: str) -> list:
    """The declared fields `obj.` may be followed by: those of its event, kind or type when
    that can be told from the source alone, else every field, event field and variable."""
    if obj == "event":
        handler = _enclosing(analysis, place, (A.HandlerDecl,))
        if handler is not None:
            return [d for d in analysis.all_declared("event field") if d.owner == handler.event]
    type_name = _type_of(analysis, place, obj)
    if type_name in ("player", "thing"):
        return [d for d in analysis.all_declared("var") if d.owner == type_name]
    if type_name is not None:
        fields = [d for d in analysis.all_declared("field", "event field") if d.owner == type_name]
        if fields:
            return fields
    return [d for d in analysis.all_declared("field", "event field", "var") if d.what != "var" or d.owner]


def _type_of(analysis: Analysis, place: Place, name: str) -> Optional[str]:
    """The type of a name as written where it is declared: an entry's kind, a parameter's type,
    a card test's player (p1, p2, ...)."""
    entries = analysis.declared(name, "entry")
    if entries:
        return entries[0].owner
    if place.yaml and re.fullmatch(r"p\d+", name):
        return "player"
    decl = _enclosing(analysis, place, (A.FnDecl, A.ActionDecl))
    for p in getattr(decl, "params", ()):
        if p.name == name:
            return p.type.name
    return None


def _enclosing(analysis: Analysis, place: Place, types: tuple):
    module = analysis.modules.get(place.display)
    return enclosing(module, place.line, types) if module is not None else None


# ---------------------------------------------------------------- hover
def hover(analysis: Analysis, place: Place) -> Optional[str]:
    """Markdown about the name under the cursor, or None."""
    from runebook.runtime.builtins import BY_NAME

    name, found = _resolve(analysis, place)
    if name is None:
        return None
    parts = [_describe(d) + _rules_text(analysis, d) for d in found]
    if not found and name in BY_NAME:
        parts.append(_describe_builtin(BY_NAME[name]))
    return "\n\n---\n\n".join(parts) or None


def _rules_text(analysis: Analysis, d: Declared) -> str:
    """An entry's rules text as `runebook cards` prints it (compiler/rules_text.py), when the
    pack compiled clean; nothing otherwise."""
    if d.what != "entry" or analysis.phrases is None or analysis.syms is None:
        return ""
    from runebook.compiler.rules_text import cards

    found = cards(analysis.syms, analysis.phrases, d.name)
    lines = found[0].text if found else []
    return "\n\n**Rules text**\n\n" + "\n\n".join(lines) if lines else ""


def _describe_builtin(b) -> str:
    return (f"```rune\n{b.name}({', '.join(b.params)}) -> {b.returns}\n```\n\n{b.doc}\n\n"
            f"Example: `{b.example}`")


WHAT = {"field": "field of kind `{owner}`", "event field": "field of event `{owner}`",
        "entry": "entry of kind `{owner}`", "var": "variable", "symbol": "symbol"}


def _describe(d: Declared) -> str:
    what = WHAT.get(d.what, d.what).format(owner=d.owner)
    if d.what == "var" and d.owner:
        what += f" (one per {d.owner})"
    if d.what == "symbol" and d.owner:
        what += f" of `{d.owner}`"
    text = f"```rune\n{d.header}\n```\n\n*{what}* — {d.span.file}:{d.span.line}"
    return text + (f"\n\n{d.doc}" if d.doc else "")


# ---------------------------------------------------------------- definition
def definition(analysis: Analysis, place: Place) -> list:
    """The spans declaring the name under the cursor (none for a builtin or a keyword)."""
    return [d.span for d in _resolve(analysis, place)[1]]


# ---------------------------------------------------------------- completion
@lru_cache(maxsize=1)
def keywords() -> tuple:
    """The grammar's keywords (its word terminals), so completion never drifts from it."""
    from runebook.dsl.parser import build_parser
    return tuple(sorted({t.pattern.value for t in build_parser().terminals
                         if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value)}))


def complete(analysis: Analysis, place: Place) -> list:
    """What may be written at the cursor."""
    before = place.text[:place.col]
    dotted = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*[A-Za-z0-9_]*$", before)
    if dotted:
        return _field_completions(analysis, place, dotted.group(1))
    for pattern, names in AFTER_KEYWORDS:
        if re.search(pattern, before):
            return names(analysis)
    if place.yaml and _in_decisions(place, before):
        return _decision_labels(analysis)
    from runebook.runtime.builtins import BUILTINS

    items = [Completion(k, "keyword") for k in keywords()]
    items += [Completion(b.name, "builtin", f"{b.name}({', '.join(b.params)}) -> {b.returns}") for b in BUILTINS]
    items += [_declared_completion(d) for d in analysis.all_declared(*TOP_LEVEL)]
    return _unique(items)


def _symbols_table(table: str, what: str):
    """Completions from a table of the checker's symbols (empty while the pack cannot be read)."""
    return lambda analysis: [Completion(name, what) for name in getattr(analysis.syms, table, None) or ()]


# What follows a keyword: (the text before the cursor, the names that may come next).
AFTER_KEYWORDS = (
    (r"^\s*on\s+[a-z0-9_]*$", lambda analysis: [_declared_completion(d) for d in analysis.all_declared("event")]),
    (r"\brate\s+action\s+[a-z0-9_]*$", lambda analysis: [_declared_completion(d)
                                                      for d in analysis.all_declared("action")]),
    (r"\b(decide\s+action|act)\s+[a-z0-9_]*$", _symbols_table("groups", "action group")),
    (r"\b((rate|decide)\s+choice|choose)\s+[a-z0-9_]*$", _symbols_table("choice_types", "choice tag")),
)


def _field_completions(analysis: Analysis, place: Place, obj: str) -> list:
    from runebook.compiler.expressions import THING_ATTRS

    items = [_declared_completion(d) for d in _fields_of(analysis, place, obj)]
    extra = {"event": EVENT_ATTRS, "player": PLAYER_ATTRS, "thing": tuple(THING_ATTRS)}
    type_name = "event" if obj == "event" else _type_of(analysis, place, obj)
    for name in extra.get(type_name, ()) if type_name else (*PLAYER_ATTRS, *THING_ATTRS, *EVENT_ATTRS):
        items.append(Completion(name, "field"))
    return _unique(items)


def _declared_completion(d: Declared) -> Completion:
    return Completion(d.name, d.what, d.header.split("\n")[0])


def _unique(items: list) -> list:
    seen, out = set(), []
    for item in items:
        if (item.label, item.what) not in seen:
            seen.add((item.label, item.what))
            out.append(item)
    return out


def _in_decisions(place: Place, before: str) -> bool:
    """Whether the cursor is in a card test's `decisions:` list (flow or block style)."""
    if re.search(r"\bdecisions:", before):
        return True
    if not re.match(r"\s*-\s", before):
        return False
    indent = len(place.text) - len(place.text.lstrip())
    for row in range(min(place.line - 2, len(place.lines) - 1), -1, -1):
        line = place.lines[row]
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            return line.strip().startswith("decisions:")
    return False


def _decision_labels(analysis: Analysis) -> list:
    """An action's label as a scripted answer names it (`name(param=..., ...)`), and the
    symbols a choice may offer."""
    items = []
    actions = getattr(analysis.syms, "actions", None) or {}
    for name, info in actions.items():
        params = ", ".join(f"{p}=" for p, _ in info.params)
        label = f"{name}({params})" if params else name
        items.append(Completion(label, "action", "a scripted answer: the action and its arguments"))
    items += [_declared_completion(d) for d in analysis.all_declared("symbol")]
    return _unique(items)
