"""The checker's types: small immutable values, compared and hashed like the texts they print as.

  int bool str thing player zone     the value types
  action                             one option of an 'act' decision: an action and its arguments
  tile board                         a tile of a board, and a board (its name)
  none                               the type of the literal 'none'
  any                                unknown after an earlier error (never reported twice)
  list[T]                            immutable lists
  <kind>                             an entry id of a declared kind (a kind is a sub-type of str)
  <set>                              a member of a declared symbol set (a sub-type of str)
  event <name>                       an event record

Nothing of these leaves the compiler: what a compiled Program keeps (an option's
type) is the text, str(t).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional


@dataclass(frozen=True, slots=True)
class Type:
    name: str                      # a base type, kind or symbol set; "list" (or "coll") with item
    item: Optional[Type] = None    # list[item]; builtin signatures also say coll[item]
    event: Optional[str] = None    # the event a record is of

    def __str__(self) -> str:
        if self.event is not None:
            return f"event:{self.event}"  # how messages have always printed a record's type
        if self.item is not None:
            return f"{self.name}[{self.item}]"
        return self.name

    @property
    def is_list(self) -> bool:
        # A kind may be named 'list': only a list has an item type.
        return self.name == "list" and self.item is not None

    @property
    def is_event(self) -> bool:
        return self.event is not None

    @property
    def holds_event(self) -> bool:
        """An event record, or a list holding them at any depth."""
        return self.is_event or (self.item is not None and self.item.holds_event)


def named(name: str) -> Type:
    """A base type, a kind or a symbol set, by name."""
    return Type(name)


def list_of(t: Type) -> Type:
    return Type("list", t)


def event_of(name: str) -> Type:
    return Type("event", event=name)


def elem(t: Type) -> Type:
    """The item type of a list; any for anything else."""
    return t.item if t.is_list else ANY


INT, BOOL, STR = named("int"), named("bool"), named("str")
THING, PLAYER, ZONE, ACTION = named("thing"), named("player"), named("zone"), named("action")
TILE, BOARD = named("tile"), named("board")
NONE, ANY = named("none"), named("any")

# The types a declaration may name, by name, in the order "did you mean" offers them.
BASE = {t.name: t for t in (INT, BOOL, STR, THING, PLAYER, ZONE, ACTION, TILE, BOARD)}
NULLABLE_BASE = frozenset((STR, THING, PLAYER, ZONE, ACTION, TILE))


@lru_cache(maxsize=None)
def spec_type(spec: str) -> Type:
    """A builtin signature's type, written as text in runtime/builtins.py ('int',
    'list[T]', 'coll[T]'): 'T' is a type variable, 'coll[T]' a list or a zone."""
    name, bracket, inner = spec.partition("[")
    if not bracket:
        return named(name)
    return Type(name, spec_type(inner.removesuffix("]")))


TYPE_VAR = spec_type("T")


def bind(t: Type, value: Type) -> Type:
    """t with the type variable T replaced by value."""
    if t == TYPE_VAR:
        return value
    if t.item is not None:
        return Type(t.name, bind(t.item, value))
    return t


class TypeSpace:
    """Knows which named types are kinds and symbol sets, to decide sub-typing (kind <: str, set <: str)."""

    def __init__(self, kinds: set = frozenset(), sets: set = frozenset()):
        self.kinds: set = set(kinds)  # {Type}
        self.sets: set = set(sets)    # {Type}
        # (kind, set) where an entry of the kind shares its id with a member of the set
        # (a die face named like the companion entry it stands for): such a value may be
        # either, so one is accepted where the other is wanted (constants are checked
        # for membership where they are written).
        self.overlaps: set = set()

    def is_kind(self, t: Type) -> bool:
        return t in self.kinds

    def is_set(self, t: Type) -> bool:
        return t in self.sets

    def is_text(self, t: Type) -> bool:
        """str, or one of its sub-types."""
        return t == STR or t in self.kinds or t in self.sets

    def nullable(self, t: Type) -> bool:
        return t in NULLABLE_BASE or t in self.kinds or t in self.sets or t.is_event or t == ANY

    def assignable(self, src: Type, dst: Type) -> bool:
        if src == dst or src == ANY or dst == ANY:
            return True
        if src == NONE:
            return self.nullable(dst)
        if dst == STR and (src in self.kinds or src in self.sets):
            return True
        if (src, dst) in self.overlaps or (dst, src) in self.overlaps:
            return True
        if src.is_list and dst.is_list:
            return self.assignable(src.item, dst.item)
        return False

    def comparable(self, a: Type, b: Type) -> bool:
        return self.assignable(a, b) or self.assignable(b, a)

    def join(self, a: Type, b: Type) -> Optional[Type]:
        """The type of a value that may be a or b (list items, if branches); None when
        they have none in common (callers report it)."""
        if a == b or b in (NONE, ANY):
            return a
        if a in (NONE, ANY):
            return b
        if self.assignable(a, b):
            return b
        if self.assignable(b, a):
            return a
        if a.is_list and b.is_list:
            item = self.join(a.item, b.item)
            return list_of(item) if item is not None else None
        if self.is_text(a) and self.is_text(b):
            return STR
        return None
