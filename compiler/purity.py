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

from .symbols import INTERRUPT_PRIORITY, Behaviour

# What each statement or expression that changes the game does, in words for diagnostics.
_CHANGES = {
    A.Move: "moves a thing", A.Destroy: "destroys a thing", A.Roll: "rolls dice",
    A.Shuffle: "shuffles a zone", A.Choose: "asks for a choice",
    A.ChooseSecretly: "asks for a secret choice", A.Act: "offers actions",
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


def why_code_changes(syms, params: set, body: Optional[list], value=None) -> Optional[str]:
    """Why a behaviour's code (a block, or the expression a fn gives) changes the game, or None."""
    if syms.changes is None:
        syms.changes = _analyse(syms)
    reached: list = []
    why = _block_effects(syms, body, params, reached) if body is not None else _effects(syms, value, reached)
    if why is not None:
        return why
    for kind, name in reached:
        if kind == "fn":
            callee = why_fn_changes(syms, name)
            if callee is not None:
                return f"calls '{name}', which {callee}"
        elif kind == "event" and name in (syms.changes_events or {}):
            return f"emits '{name}', which {syms.changes_events[name]}"
    return None


def _analyse(syms) -> dict:
    """fn or procedure name -> why it changes the game (fns that only read: absent).

    The graph's nodes are fns and events (an event stands for all its handlers).
    First what each body does itself, then, to a fixed point, whatever reaches
    something that changes the game; nodes are visited in declaration order, so
    the reason given is the same on every run.
    """
    # A call of a behaviour field named like any kind's procedure field acts (a fn field only
    # computes: its code is checked to, where it is written).
    syms.procedure_fields = {name for info in syms.kinds.values() for name, (t, _) in info.fields.items()
                             if isinstance(t, Behaviour) and t.ret is None}
    edges: dict = {}   # node -> the nodes it calls or emits
    why: dict = {}     # node -> why it changes the game
    for name, fn in syms.functions.items():
        node = ("fn", name)
        if fn.ret is None:
            why[node] = "is a procedure"
            continue
        reached = edges[node] = []
        direct = _block_effects(syms, fn.decl.body, {param for param, _ in fn.params}, reached)
        if direct is not None:
            why[node] = direct
    for event, handlers in syms.handlers.items():
        node = ("event", event)
        reached = edges[node] = []
        for h in (info.decl for info in handlers):
            direct = _effects(syms, h.when, reached) or _block_effects(syms, h.body, set(), reached)
            if direct is not None:
                where = f"({h.span.file}:{h.span.line})"
                why[node] = (f"opens an interrupt window {where} that offers actions"
                             if h.priority == INTERRUPT_PRIORITY  # a handler the compiler wrote
                             else f"has a handler {where} that {direct}")
                break
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
    syms.changes_events = {name: reason for (kind, name), reason in why.items() if kind == "event"}
    return {name: reason for (kind, name), reason in why.items() if kind == "fn"}  # procedures too


def _block_effects(syms, stmts: list, outer: set, reached: list) -> Optional[str]:
    """What a block does to the game itself (None: nothing), noting in `reached` the fns and
    events it calls or emits. `outer` are the locals seen here: a local may shadow a global,
    and assigning it changes nothing outside; a block's lets end with the block."""
    local = set(outer)
    for s in stmts:
        if isinstance(s, A.If):
            for cond, body in s.branches:
                why = _effects(syms, cond, reached) or _block_effects(syms, body, local, reached)
                if why:
                    return why
            why = _block_effects(syms, s.orelse or [], local, reached)
        elif isinstance(s, A.For):
            why = _effects(syms, s.source, reached) or _block_effects(syms, s.body, local | {s.var}, reached)
        elif isinstance(s, A.Repeat):
            why = _effects(syms, s.count, reached) or _block_effects(syms, s.body, local, reached)
        elif isinstance(s, A.While):
            why = _effects(syms, s.cond, reached) or _block_effects(syms, s.body, local, reached)
        elif isinstance(s, A.Assign) and _assigns_game_state(syms, s.target, local):
            target = s.target.name if isinstance(s.target, (A.Name, A.Field)) else "a value"
            why = f"assigns '{target}'"
        else:
            why = _effects(syms, s, reached)  # any other statement holds no block of its own
            if isinstance(s, A.Let):
                local.add(s.name)
        if why:
            return why
    return None


def _effects(syms, node, reached: list) -> Optional[str]:
    """What an expression, or a statement without blocks, does to the game (None: nothing),
    noting the fns and events it reaches."""
    for n in A.walk(node):
        reason = _CHANGES.get(type(n))
        if reason is not None:
            return reason
        target = None
        if isinstance(n, A.MethodCall) and n.name in syms.procedure_fields:
            return f"calls the procedure field '{n.name}'"
        if isinstance(n, A.Call):
            if n.name in RANDOM_BUILTINS:
                return f"draws a random number ('{n.name}')"
            if n.name in syms.functions:
                target = ("fn", n.name)
        elif isinstance(n, A.Emit):
            target = ("event", n.event)
        if target is not None and target not in reached:
            reached.append(target)
    return None


def _assigns_game_state(syms, target, local: set) -> bool:
    """A global, a thing's or player's variable: yes. A local, or a field of the event a
    handler runs for ('event' can name nothing else): no."""
    if isinstance(target, A.Name):
        return target.name not in local and target.name in syms.globals
    return not (isinstance(target, A.Field) and isinstance(target.obj, A.Name) and target.obj.name == "event")

