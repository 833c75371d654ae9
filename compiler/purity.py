"""Which expressions only read the game: the question behind skipping narration.

A match that nobody records skips building its narration (SKIP_IF_QUIET), so
the holes of a 'log' text must not change the game: if they did, a simulated
match and a recorded one with the same seed would play differently. The checker
already forbids choices, draws and events *directly* in a hole; a call of a
'fn' is allowed, and that fn may assign a variable, roll a die or draw a random
number. reads_only() looks through calls, transitively, conservatively: when in
doubt, it answers False and the narration is always built.
"""
from __future__ import annotations

from runebook.dsl import ast as A
from runebook.runtime.builtins import RANDOM as RANDOM_BUILTINS  # builtins that draw from the match RNG

# Statements and expressions that change the game or draw from its RNG.
_CHANGES = (A.Move, A.Destroy, A.Roll, A.Shuffle, A.Cancel,
            A.Choose, A.Act, A.Create, A.Emit, A.RandomFrom)


def reads_only(syms, node) -> bool:
    """True when evaluating `node` (an expression or statements) cannot change the game."""
    return _walk(syms, node, syms.reads_only)


def fn_reads_only(syms, name: str) -> bool:
    """True when calling the function cannot change the game (so its result may be remembered)."""
    return _fn_reads_only(syms, name, syms.reads_only)


def _fn_reads_only(syms, name: str, cache: dict) -> bool:
    if name in cache:
        return cache[name]
    fn = syms.functions.get(name)
    if fn is None or fn.ret is None:  # unknown, or a procedure: assume it acts
        return False
    cache[name] = False  # recursion: assume the worst until proven
    result = _walk(syms, fn.decl.body, cache)
    cache[name] = result
    return result


def _walk(syms, node, cache: dict) -> bool:
    for n in A.walk(node):
        if isinstance(n, _CHANGES):
            return False
        if isinstance(n, A.Assign):
            # Only a local changes nothing outside; anything else is game state.
            if not (isinstance(n.target, A.Name) and n.target.name not in syms.globals):
                return False
        if isinstance(n, A.Call):
            if n.name in RANDOM_BUILTINS:
                return False
            if n.name in syms.functions and not _fn_reads_only(syms, n.name, cache):
                return False
    return True
