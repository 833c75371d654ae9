"""Which functions only read the game, and why the others do not.

Two things depend on the answer. A question — a policy rating, an action's
`require`, an `options` script, the `{holes}` of a `log` text — may call a
`fn` only if that fn cannot change the game: an agent rating options, or
narration that nobody reads, must never move a die or draw from the match's
random numbers. And a read-only fn is called through the memo (CALL_MEMO),
which is sound only because calling it twice changes nothing.

The answer is exact for the program's text: a fn changes the game when its
body (or a fn it calls, at any depth) moves, rolls, creates, asks a choice,
draws at random, assigns anything but a local, writes narration, calls a
procedure, or emits an event one of whose handlers changes the game. An event
whose handlers only adjust the event itself (`event.needed -= 1`, `cancel`) is
a question asked of the content — "how many types does this player need?" —
and changes nothing. A recursive fn that does none of those only reads.
"""
from __future__ import annotations

from typing import Optional

from runebook.dsl import ast as A
from runebook.runtime.builtins import RANDOM as RANDOM_BUILTINS  # builtins that draw from the match RNG

# What each statement or expression that changes the game does, in words for diagnostics.
_CHANGES = {
    A.Move: "moves a thing", A.Destroy: "destroys a thing", A.Roll: "rolls dice",
    A.Shuffle: "shuffles a zone", A.Choose: "asks for a choice", A.Act: "offers actions",
    A.Create: "creates a thing", A.RandomFrom: "picks at random",
    # Narration is not game state, but a fn that narrates must run at every call (a memo
    # hit would drop its line), and a question that narrated would make the log depend
    # on when agents rate their options.
    A.Log: "writes narration",
}


def fn_reads_only(syms, name: str) -> bool:
    """True when calling the function cannot change the game."""
    return why_fn_changes(syms, name) is None


def why_fn_changes(syms, name: str) -> Optional[str]:
    """None when calling `name` only reads the game; otherwise what it does, e.g.
    "calls 'heal', which assigns 'gold'". Procedures always act."""
    if syms.changes is None:
        syms.changes = _analyse(syms)
    return syms.changes.get(name)


def _analyse(syms) -> dict:
    """fn or procedure name -> why it changes the game (fns that only read: absent).

    The graph's nodes are fns and events (an event stands for all its handlers).
    First what each body does itself, then, to a fixed point, whatever reaches
    something that changes the game; nodes are visited in declaration order, so
    the reason given is the same on every run.
    """
    edges: dict = {}   # node -> the nodes it calls or emits
    why: dict = {}     # node -> why it changes the game
    for name, fn in syms.functions.items():
        node = ("fn", name)
        if fn.ret is None:
            why[node] = "is a procedure"
            continue
        direct, edges[node] = _body_effects(syms, fn.decl.body)
        if direct is not None:
            why[node] = direct
    for event, handlers in syms.handlers.items():
        node = ("event", event)
        edges[node] = []
        for h in (info.decl for info in handlers):
            direct, more = _body_effects(syms, [h.when, h.body])
            if direct is not None:
                why[node] = f"has a handler ({h.span.file}:{h.span.line}) that {direct}"
                break
            edges[node] += [n for n in more if n not in edges[node]]
    changed = True
    while changed:
        changed = False
        for node, callees in edges.items():
            if node in why:
                continue
            for callee in callees:
                if callee in why:
                    kind, name = callee
                    verb = "calls" if kind == "fn" else "emits"
                    why[node] = f"{verb} '{name}', which {why[callee]}"
                    changed = True
                    break
    return {name: reason for (kind, name), reason in why.items() if kind == "fn"}  # procedures too


def _body_effects(syms, body) -> tuple:
    """(what the body itself does to the game or None, the fns and events it reaches)."""
    reached: list = []
    for n in A.walk(body):
        reason = _CHANGES.get(type(n))
        if reason is not None:
            return reason, reached
        if isinstance(n, A.Assign) and not _assigns_own_data(syms, n):
            target = n.target.name if isinstance(n.target, (A.Name, A.Field)) else "a value"
            return f"assigns '{target}'", reached
        node = None
        if isinstance(n, A.Call):
            if n.name in RANDOM_BUILTINS:
                return f"draws a random number ('{n.name}')", reached
            if n.name in syms.functions:
                node = ("fn", n.name)
        elif isinstance(n, A.Emit):
            node = ("event", n.event)
        if node is not None and node not in reached:
            reached.append(node)
    return None, reached


def _assigns_own_data(syms, n: A.Assign) -> bool:
    """A local, or a field of the event a handler runs for: nothing outside changes."""
    t = n.target
    if isinstance(t, A.Name):
        return t.name not in syms.globals
    return isinstance(t, A.Field) and isinstance(t.obj, A.Name) and t.obj.name == "event"
