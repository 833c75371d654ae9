"""The builtin function registry: one row per builtin, the single source of truth.

Each builtin has a signature (parameter types and return type, in the
checker's type notation), a doc line, an example, and its implementation.
Type variables: 'T' binds to an element type; 'coll[T]' accepts a list[T] or
a zone (whose items are things). Implementations receive the world first and
must be deterministic: randomness only through world.rng.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


class ScriptFault(Exception):
    """A script did something impossible (bad index, division by zero, ...).

    The VM turns it into a runtime diagnostic naming the script and line.
    """


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    params: tuple[str, ...]
    returns: str
    doc: str
    example: str
    impl: Callable
    draws_random: bool = False  # uses world.rng: forbidden where only a question may be asked


def _items(coll):
    kind = type(coll)
    if kind is tuple or kind is list:  # the common case first: a list, not a zone
        return coll
    return coll.items if hasattr(coll, "items") else coll


def _distinct(world, xs):
    seen, out = set(), []
    for x in xs:  # keeps first-seen order: never relies on set iteration order
        if x not in seen:
            seen.add(x)
            out.append(x)
    return tuple(out)


def _remove(world, xs, x):
    xs = tuple(xs)
    if x in xs:
        i = xs.index(x)
        return xs[:i] + xs[i + 1:]
    return xs


def _faces(world, thing):
    return world.faces_of(thing)


def _random_int(world, lo, hi):
    if hi < lo:
        raise ScriptFault(f"random_int({lo}, {hi}): the upper bound is below the lower bound")
    return world.rng.randint(lo, hi)


def _take(world, coll, n):
    return tuple(_items(coll)[:max(0, n)])


def _count_face(world, coll, face):
    n = 0
    for t in _items(coll):
        if t.face == face:
            n += 1
    return n


def _one_per_face(world, coll):
    seen, out = set(), []
    for t in _items(coll):  # first thing of each face, in zone order
        if t.face not in seen:
            seen.add(t.face)
            out.append(t)
    return tuple(out)


def _faces_in(world, coll):
    seen, out = set(), []
    for t in _items(coll):
        if t.face not in seen:
            seen.add(t.face)
            out.append(t.face)
    return tuple(out)


def _partners(world, pairs, key):
    return tuple(pair[1] for pair in pairs if len(pair) > 1 and pair[0] == key)


def _with_entry(world, coll, entry):
    return tuple(t for t in _items(coll) if t.entry == entry)


def _text(world, value):
    return world.describe(value)


BUILTINS: tuple[Builtin, ...] = (
    Builtin("len", ("coll[T]",), "int", "Number of items in a list or zone.",
            "len(hand of p)", lambda w, c: len(_items(c))),
    Builtin("min", ("int", "int"), "int", "The smaller of two integers.", "min(3, level)",
            lambda w, a, b: a if a <= b else b),
    Builtin("max", ("int", "int"), "int", "The larger of two integers.", "max(0, hp - 2)",
            lambda w, a, b: a if a >= b else b),
    Builtin("abs", ("int",), "int", "Absolute value.", "abs(x - y)", lambda w, a: -a if a < 0 else a),
    Builtin("faces", ("thing",), "list[str]", "The faces a die can show, in declaration order.",
            "faces(d)", _faces),
    Builtin("distinct", ("list[T]",), "list[T]", "The list without repeats, first occurrences kept in order.",
            "distinct([1, 1, 2])", _distinct),
    Builtin("count_of", ("list[T]", "T"), "int", "How many times a value occurs in a list.",
            "count_of(xs, 3)", lambda w, xs, x: tuple(xs).count(x)),
    Builtin("remove", ("list[T]", "T"), "list[T]", "The list with the first occurrence of a value removed.",
            "remove(xs, 3)", _remove),
    Builtin("take", ("coll[T]", "int"), "list[T]", "The first n items of a list or zone (fewer if it is shorter).",
            "take(deck, 3)", _take),
    Builtin("count_face", ("coll[T]", "str"), "int", "How many things in a list or zone show a face.",
            "count_face(pool, six)", _count_face),
    Builtin("one_per_face", ("coll[T]", ), "list[T]", "The first thing showing each distinct face, in order.",
            "one_per_face(hand of p)", _one_per_face),
    Builtin("faces_in", ("coll[T]",), "list[str]", "The distinct faces shown in a list or zone, in order.",
            "faces_in(table)", _faces_in),
    Builtin("partners", ("list[list[T]]", "T"), "list[T]",
            "The second item of every pair whose first item is the key (a lookup table as pairs).",
            "partners([[red, blue], [red, green]], red)", _partners),
    Builtin("with_entry", ("coll[T]", "str"), "list[T]", "The things in a list or zone made from an entry.",
            "with_entry(hand of p, potion_card)", _with_entry),
    Builtin("random_int", ("int", "int"), "int", "A random integer between two bounds, both included.",
            "random_int(1, 6)", _random_int, draws_random=True),
    Builtin("text", ("any",), "str", "A value as narration text.", "text(p)", _text),
    Builtin("is_die", ("thing",), "bool", "Whether a thing is a die (has faces).", "is_die(t)",
            lambda w, t: w.is_die(t)),
)

BY_NAME: dict[str, Builtin] = {b.name: b for b in BUILTINS}
RANDOM: frozenset = frozenset(b.name for b in BUILTINS if b.draws_random)
INDEX: dict[str, int] = {b.name: i for i, b in enumerate(BUILTINS)}
