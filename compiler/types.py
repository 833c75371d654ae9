"""The checker's types, written as plain strings.

  int bool str thing player zone     the value types
  action                             one option of an 'act' decision: an action and its arguments
  none                               the type of the literal 'none'
  any                                unknown after an earlier error (never reported twice)
  list[T]                            immutable lists
  <kind>                             an entry id of a declared kind (a kind is a sub-type of str)
  <set>                              a member of a declared symbol set (a sub-type of str)
  event:<name>                       an event record
"""
from __future__ import annotations

BASE = ("int", "bool", "str", "thing", "player", "zone", "action")
NULLABLE_BASE = ("str", "thing", "player", "zone", "action")


def list_of(t: str) -> str:
    return f"list[{t}]"


def is_list(t: str) -> bool:
    return t.startswith("list[")


def elem(t: str) -> str:
    return t[5:-1] if is_list(t) else "any"


def is_event(t: str) -> bool:
    return t.startswith("event:")


class TypeSpace:
    """Knows which names are kinds and symbol sets, to decide sub-typing (kind <: str, set <: str)."""

    def __init__(self, kinds: set[str], sets: set[str] = frozenset()):
        self.kinds = kinds
        self.sets = sets
        # (kind, set) where an entry of the kind shares its id with a member of the set
        # (a die face named like the companion entry it stands for): such a value may be
        # either, so one is accepted where the other is wanted (constants are checked
        # for membership where they are written).
        self.overlaps: set = set()

    def is_kind(self, t: str) -> bool:
        return t in self.kinds

    def is_text(self, t: str) -> bool:
        """str, or one of its sub-types."""
        return t == "str" or t in self.kinds or t in self.sets

    def nullable(self, t: str) -> bool:
        return t in NULLABLE_BASE or t in self.kinds or t in self.sets or is_event(t) or t == "any"

    def assignable(self, src: str, dst: str) -> bool:
        if src == dst or src == "any" or dst == "any":
            return True
        if src == "none":
            return self.nullable(dst)
        if dst == "str" and (src in self.kinds or src in self.sets):
            return True
        if (src, dst) in self.overlaps or (dst, src) in self.overlaps:
            return True
        if is_list(src) and is_list(dst):
            return self.assignable(elem(src), elem(dst))
        return False

    def comparable(self, a: str, b: str) -> bool:
        return self.assignable(a, b) or self.assignable(b, a)

    def join(self, a: str, b: str) -> str:
        """The type of a value that may be a or b (list items, if branches)."""
        if a == b or b in ("none", "any"):
            return a
        if a in ("none", "any"):
            return b
        if self.assignable(a, b):
            return b
        if self.assignable(b, a):
            return a
        if is_list(a) and is_list(b):
            return list_of(self.join(elem(a), elem(b)))
        if self.is_text(a) and self.is_text(b):
            return "str"
        return "?"  # incompatible: callers report it

    def valid(self, t: str) -> bool:
        if is_list(t):
            return self.valid(elem(t))
        return t in BASE or t in self.kinds or t in self.sets or is_event(t)
