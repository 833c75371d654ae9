"""What a failed `expect` line was made of: the values of its parts, as pytest shows an assert's.

`len(party of p1) == 3` failing reads better with `len(party of p1) = 2` and the party's
things under it. The parts are the line's sub-expressions, widest first (both sides of a
comparison, then the calls, field reads and zones inside them), each evaluated on its
own in the scenario's final state. A part that cannot stand alone (it reads a name bound
inside the line, as `x` in `count(x in Z where x.hp > 0)`) is left out, and a part that
would change the game when run (a choice, a draw, a new thing, an event) is never run.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from runebook.dsl import ast as A

MAX_PARTS = 12          # the widest parts say the most; deeper ones are noise past a dozen
MAX_ITEMS = 12          # things of a zone or list shown before "..."
CONSTANT = (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)
CHANGES_THE_GAME = (A.Choose, A.Act, A.Create, A.Emit, A.RandomFrom)


def part_texts(code: str) -> list[str]:
    """The texts of the parts of expression `code` worth showing, widest first, each once."""
    from runebook.dsl.diagnostics import ContentError
    from runebook.dsl.parser import parse_expr

    try:
        tree = parse_expr(code, "<expect>")
    except ContentError:
        return []
    lines = code.split("\n")
    texts: list[str] = []
    queue = list(_children(tree))
    while queue and len(texts) < MAX_PARTS:
        node = queue.pop(0)
        if isinstance(node, CHANGES_THE_GAME):
            continue
        queue.extend(_children(node))
        text = _text(lines, node.span)
        if not isinstance(node, CONSTANT) and text and text not in texts:
            texts.append(text)
    return texts


def _children(node) -> list:
    """The expressions directly inside an expression, left to right."""
    out = []
    for f in fields(node):
        value = getattr(node, f.name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, tuple):  # an event's (name, value, span)
                item = item[1]
            if is_dataclass(item) and not isinstance(item, (A.TypeRef, str)) and hasattr(item, "span"):
                out.append(item)
    return out


def _text(lines: list[str], span) -> str:
    """The code a span of `lines` covers (spans are 1-based, end exclusive)."""
    if span.line == span.end_line:
        return lines[span.line - 1][span.col - 1:span.end_col - 1].strip()
    chunk = [lines[span.line - 1][span.col - 1:], *lines[span.line:span.end_line - 1],
             lines[span.end_line - 1][:span.end_col - 1]]
    return " ".join(part.strip() for part in chunk).strip()


def shown(world, value) -> str:
    """A value as a card test would write it: p1 for a player, a thing with its id, a zone
    as its things."""
    from runebook.runtime.world import Player, Thing, Zone

    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Player):
        return f"p{value.seat + 1}"
    if isinstance(value, Thing):
        return world.value_label(value)
    if isinstance(value, Zone):
        return _listed(world, value.items)  # its name is the part's code: its things are news
    if isinstance(value, (list, tuple)):
        return _listed(world, value)
    if isinstance(value, str):
        return value
    return world.describe(value)


def _listed(world, items) -> str:
    more = ", ..." if len(items) > MAX_ITEMS else ""
    return "[" + ", ".join(shown(world, v) for v in list(items)[:MAX_ITEMS]) + more + "]"
