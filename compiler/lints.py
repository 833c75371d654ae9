"""Lints: warnings about content that compiles but cannot mean what it says.

  W0342  a branch that can never run: `if false`, or an `elif`/`else` whose every case
         an earlier condition of the same `if` already takes (decided from constants)
  W0343  an action no policy rates or decides, in a pack whose policies rate actions
  W0344  an event nobody emits or handles
  W0345  a declared name no code reads: a set member or symbol, a fn or proc, a variable

A lint must be precise rather than noisy: each says "never" only where that is certain
from the text (a name counts as read wherever it appears in code, card tests, pack.yaml,
view.yaml or a board file), and the shipped packs are kept free of findings.
"""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import Iterable, Optional

from runebook.dsl import ast as A
from runebook.dsl.diagnostics import Diagnostic

# ---------------------------------------------------------------- W0342: branches that never run
# A condition is read as a set of values of one subject (a name or a chain of fields,
# which nothing can change between two conditions of one `if`): ints as intervals,
# other constants as a set or the complement of one. Anything else is unknown, and
# an unknown condition proves nothing.
INF = float("inf")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
EVERYTHING = ("out", frozenset())       # the complement of nothing
NOTHING = ("in", frozenset())


def _subject(e) -> Optional[tuple]:
    if isinstance(e, A.Name):
        return ("name", e.name)
    if isinstance(e, A.Field):
        inner = _subject(e.obj)
        return None if inner is None else ("field", inner, e.name)
    return None


def _interval(op: str, c: int) -> list:
    """The integers x with `x op c`, as sorted closed intervals."""
    return {"==": [(c, c)], "!=": [(-INF, c - 1), (c + 1, INF)], "<": [(-INF, c - 1)],
            "<=": [(-INF, c)], ">": [(c + 1, INF)], ">=": [(c, INF)]}[op]


def condition_set(cond, constant) -> Optional[tuple]:
    """(subject, values) for a condition the lint can read, else None. `constant(e)` is
    the checker's: a literal's or a symbol's value, or a marker for "not a constant".
    The subject of `true`/`false` is None: they hold for everything or nothing."""
    if isinstance(cond, A.BoolLit):
        return None, EVERYTHING if cond.value else NOTHING
    if isinstance(cond, A.Unary) and cond.op == "not":
        inner = condition_set(cond.operand, constant)
        if inner is None or inner[0] is None:
            return None if inner is None else (None, _complement(inner[1]))
        return inner[0], _complement(inner[1])
    subject = _subject(cond)
    if subject is not None:  # a bool name or field on its own: `if ready`
        return subject, ("in", frozenset({True}))
    if not isinstance(cond, A.Binary) or cond.op not in _FLIP:
        return None
    op, left, right = cond.op, cond.left, cond.right
    value = constant(right)
    if not _is_constant(value):
        op, left, right, value = _FLIP[op], right, left, constant(left)
    subject = _subject(left)
    if subject is None or not _is_constant(value):
        return None
    if type(value) is int:
        return subject, ("ints", tuple(_interval(op, value)))
    if op in ("==", "!="):
        return subject, ("in" if op == "==" else "out", frozenset({value}))
    return None


def _is_constant(value) -> bool:
    return type(value) in (int, str, bool)


def _complement(values: tuple) -> tuple:
    kind, items = values
    if kind != "ints":
        return ("out" if kind == "in" else "in"), items
    out, low = [], -INF
    for lo, hi in items:
        if lo > low:
            out.append((low, lo - 1))
        if hi == INF:
            return "ints", tuple(out)
        low = hi + 1
    out.append((low, INF))
    return "ints", tuple(out)


def _normal(values: tuple) -> tuple:
    """Booleans are a finite domain: {true, false} is everything."""
    kind, items = values
    if kind == "in" and items >= {True, False}:
        return EVERYTHING
    if kind == "out" and items >= {True, False}:
        return NOTHING
    return values


def _union(a: Optional[tuple], b: tuple) -> tuple:
    if a is None:
        return b
    if a[0] == "ints" and b[0] == "ints":
        merged = []
        for lo, hi in sorted(a[1] + b[1]):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return "ints", tuple(merged)
    if "ints" in (a[0], b[0]):
        return a  # numbers against texts: nothing learnt (a mismatch the checker reports)
    (ka, xa), (kb, xb) = a, b
    if ka == kb == "in":
        return _normal(("in", xa | xb))
    if ka == kb == "out":
        return "out", xa & xb
    inside, outside = (xa, xb) if ka == "in" else (xb, xa)
    return "out", outside - inside


def _within(a: tuple, b: tuple) -> bool:
    """Whether every value of `a` is one of `b`."""
    if b == EVERYTHING or a == NOTHING or a == ("ints", ()):
        return True
    if a[0] == "ints" and b[0] == "ints":
        return all(any(blo <= lo and hi <= bhi for blo, bhi in b[1]) for lo, hi in a[1])
    if "ints" in (a[0], b[0]):
        return False
    (ka, xa), (kb, xb) = a, b
    if ka == "in":
        return xa <= xb if kb == "in" else not (xa & xb)
    return kb == "out" and xb <= xa


def _everything(values: tuple) -> bool:
    return values == EVERYTHING or values == ("ints", ((-INF, INF),))


_MAY_ACT = (A.Call, A.MethodCall, A.Emit, A.Act, A.Choose, A.Create)


def _may_act(node) -> bool:
    """Whether evaluating an expression may run code that changes the game (a call, an
    emitted event's handlers, a decision): what an earlier condition read may differ then."""
    if isinstance(node, _MAY_ACT):
        return True
    if isinstance(node, (list, tuple)):
        return any(_may_act(item) for item in node)
    return is_dataclass(node) and any(_may_act(getattr(node, f.name)) for f in fields(node) if f.name != "span")


def dead_branches(s: A.If, constant) -> list:
    """(span, why) of each branch of an `if` that can never run."""
    out = []
    taken: dict = {}     # subject -> the values earlier conditions took
    always = False       # an earlier condition always holds
    for cond, body in s.branches:
        read = condition_set(cond, constant)
        if always:
            out.append((cond.span, "an earlier condition of this 'if' always holds"))
            continue
        if _may_act(cond):
            taken.clear()  # the subjects read so far may have changed
            continue
        if read is not None:
            subject, values = read
            values = _normal(values)
            if values == NOTHING or values == ("ints", ()):
                out.append((cond.span, "its condition is always false"))
                continue
            if subject is not None and subject in taken and _within(values, taken[subject]):
                out.append((cond.span, "every case of its condition is taken by an earlier branch"))
                continue
            if subject is None or _everything(values):
                always = True
                continue
            taken[subject] = _normal(_union(taken.get(subject), values))
            if _everything(taken[subject]):
                always = True
    if s.orelse and always:
        out.append((s.orelse[0].span, "the conditions above it cover every case"))
    return out


def check_branches(s: A.If, constant, diags: list) -> None:
    for span, why in dead_branches(s, constant):
        diags.append(Diagnostic("W0342", f"this branch can never run: {why}", span,
                                "remove it, or change the conditions (the first that holds wins)", "warning"))


# ---------------------------------------------------------------- W0343: actions no policy rates
def unrated_actions(syms, diags: list) -> None:
    """In a pack whose policies rate actions, an action none of them rates or decides is
    left to chance by every policy: unrated options count 0 and the first of equals wins."""
    rated, decided, rating = set(), set(), False
    for decl in syms.policies.values():
        for r in decl.ratings:
            if isinstance(r, A.Decider):
                if r.kind == "action":
                    decided.add(r.target)
            elif r.kind == "action":
                rated.add(r.target)
                rating = True
    if not rating:
        return
    for act in syms.actions.values():
        if act.name in rated or decided & set(act.groups) or not set(act.groups) & syms.acted:
            continue
        diags.append(Diagnostic(
            "W0343", f"no policy rates the action '{act.name}': every policy leaves it to chance",
            act.decl.span, f"rate it in a policy ('rate action {act.name}: ...'), or decide its group there",
            "warning"))


# ---------------------------------------------------------------- W0344, W0345: declared, never used
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _reads(node, out: set) -> None:
    """Every name an AST node reads: names, calls, fields, `all SET`; an assignment's
    target is written, not read (its object and index still are)."""
    if isinstance(node, (list, tuple)):
        for item in node:
            _reads(item, out)
        return
    if not is_dataclass(node):
        return
    if isinstance(node, A.Name):
        out.add(node.name)
    elif isinstance(node, (A.Call, A.MethodCall, A.Field)):
        out.add(node.name)
    elif isinstance(node, A.AllEntries):
        out.add(node.kind)
    if isinstance(node, A.Assign):
        target = node.target
        _reads(target.obj if isinstance(target, A.Field) else target if isinstance(target, A.Index) else None, out)
        _reads(node.value, out)
        return
    for f in fields(node):
        if f.name != "span":
            _reads(getattr(node, f.name), out)


def _declared(modules: Iterable) -> list:
    """(name, what, span, its set or None) of every name W0345 looks after, in source order."""
    out = []
    for module in modules:
        for d in module.decls:
            if isinstance(d, A.SymbolsDecl):
                what = f"member of '{d.set_name}'" if d.set_name else "symbol"
                out.extend((name, what, d.span, d.set_name) for name in d.names)
            elif isinstance(d, A.FnDecl):
                out.append((d.name, "fn" if d.ret is not None else "proc", d.span, None))
            elif isinstance(d, A.VarDecl):
                out.append((d.name, "variable", d.span, None))
    return out


def unused_declarations(own: list, modules: list, syms, texts: Iterable[str], entry_points: Iterable[str],
                        diags: list) -> None:
    """W0344 for events nobody emits or handles, W0345 for names nothing reads, among the
    declarations of the `own` modules (reads are looked for in all `modules`).

    `texts` are the pack's other files (card tests, pack.yaml, view.yaml, boards): a word
    there may name anything (a card test may emit an event or call a helper), so it
    counts as read."""
    mentioned: set = set()
    for text in texts:
        mentioned.update(WORD.findall(text))
    for d in (d for m in own for d in m.decls if isinstance(d, A.EventDecl)):
        if d.name not in syms.emitted and d.name not in syms.handlers and d.name not in mentioned:
            diags.append(Diagnostic("W0344", f"no script emits or handles the event '{d.name}'", d.span,
                                    f"emit it ('emit {d.name}(...)') where it happens, or remove it", "warning"))
    used = mentioned | set(entry_points)
    _reads(modules, used)
    for name, what, span, set_name in _declared(own):
        if name in used or (set_name is not None and set_name in used):  # `all SET` reads every member
            continue
        diags.append(Diagnostic("W0345", f"no code reads the {what} '{name}'", span,
                                _UNUSED_HINTS[what.split()[0]], "warning"))


_UNUSED_HINTS = {
    "member": "use it, or remove it from the set (a member nothing names is never a value)",
    "symbol": "use it, or remove it from the declaration",
    "fn": "call it, or remove it",
    "proc": "call it, or remove it",
    "variable": "read it somewhere (a variable only ever written changes nothing), or remove it",
}
