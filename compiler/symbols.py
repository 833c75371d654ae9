"""The pack's global symbol table, built from every declaration of every file.

Collecting all declarations first lets bodies refer to anything declared
anywhere in the pack, in any order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from runebook.dsl.span import Span

from .types import STR, Type, named

MISSING = object()


# An interrupt window's hidden names (no script can write a name with '<') and its place
# among its event's handlers: after all of them, so it sees the event as they left it.
INTERRUPTING = "<interrupting>"
INTERRUPTER = "<interrupter>"
INTERRUPT_PRIORITY = -(2 ** 62)


@dataclass(frozen=True)
class Behaviour:
    """The type of a behaviour field: code an entry gives, called as `entry.field(args)`.
    A `fn` (ret set) only computes; a `proc` (ret None) acts."""
    params: tuple           # ((name, Type), ...)
    ret: Optional[Type]

    def __str__(self) -> str:
        params = ", ".join(str(t) for _, t in self.params)
        return f"fn({params}) -> {self.ret}" if self.ret is not None else f"proc({params})"


@dataclass
class KindInfo:
    name: str
    fields: dict            # field -> (Type or Behaviour, default: a constant's AST, a BehaviourBody, or
                            # MISSING; None for a behaviour default already reported)
    entries: list           # entry ids in declaration order
    span: Optional[Span]
    held: list = field(default_factory=list)  # [("zone", index) | ("var", slot)]: where its entries are in play


@dataclass
class BehaviourBody:
    """One compiled behaviour: an entry's own code for a field, or a kind's default."""
    owner: str              # the entry id, or the kind for a default
    field: str
    type: Behaviour
    value: Any              # the expression a fn returns, or None
    body: Optional[list]    # the statements, or None
    span: Span
    fn_index: int = -1


@dataclass
class OwnedHandler:
    """An `on EVENT` handler written inside an entry: it runs for each holder of the entry."""
    entry: str
    kind: str
    decl: Any               # the HandlerDecl
    order: int
    fn_index: int = -1


@dataclass
class FnInfo:
    name: str
    index: int
    params: list            # [(name, Type)]
    ret: Optional[Type]     # None for procedures
    decl: Any


@dataclass
class ActionInfo:
    name: str
    index: int
    groups: list
    params: list            # [(name, Type)]
    decl: Any
    body_fn: int = -1
    enum_fn: int = -1
    check_fn: int = -1      # check NAME(actor, answer) -> bool: is this one option legal


@dataclass
class Symbols:
    zones: dict = field(default_factory=dict)        # name -> (index, per_player)
    private_zones: set = field(default_factory=set)  # zones whose things only their owner sees
    globals: dict = field(default_factory=dict)      # name -> (slot, Type)
    player_vars: dict = field(default_factory=dict)  # name -> (slot, Type)
    thing_vars: dict = field(default_factory=dict)   # name -> (slot, Type)
    options: dict = field(default_factory=dict)      # name -> (Type, default, choices); a Program keeps str(Type)
    option_ranges: dict = field(default_factory=dict)  # name -> (low, high) of an `int in low..high` option
    kinds: dict = field(default_factory=dict)        # name -> KindInfo
    entries: dict = field(default_factory=dict)      # id -> {"kind": k, field: value}
    entry_decls: dict = field(default_factory=dict)  # id -> its EntryDecl (what rules text is rendered from)
    symbols: dict = field(default_factory=dict)      # bare symbol (faces, symbols decls) -> span
    symbol_sets: dict = field(default_factory=dict)  # declared set (a type) -> [members]
    boards: dict = field(default_factory=dict)       # board name -> its map as plain data (boardmap.py)
    symbol_type: dict = field(default_factory=dict)  # member of a set -> the set's name
    behaviours: list = field(default_factory=list)   # [BehaviourBody], defaults and entries' own
    events: dict = field(default_factory=dict)       # name -> [(param, Type)]
    functions: dict = field(default_factory=dict)    # name -> FnInfo
    actions: dict = field(default_factory=dict)      # name -> ActionInfo
    groups: dict = field(default_factory=dict)       # group -> [action names]
    handlers: dict = field(default_factory=dict)     # event -> [_HandlerInfo | OwnedHandler], in run order
    policies: dict = field(default_factory=dict)     # name -> PolicyDecl
    initial: dict = field(default_factory=dict)      # var name -> initial value
    changes: Optional[dict] = None                   # fn name -> why calling it changes the game (purity.py)
    changes_events: Optional[dict] = None            # event -> why emitting it changes the game (purity.py)
    procedure_fields: set = field(default_factory=set)  # behaviour fields that are procedures (purity.py)
    declared_at: dict = field(default_factory=dict)  # top-level name -> Span (one namespace)
    choice_types: dict = field(default_factory=dict) # choose tag -> option Type
    secret_tags: dict = field(default_factory=dict)  # choose tag -> whether it is asked secretly
    interrupts: list = field(default_factory=list)   # InterruptDecls: each becomes a handler
    emitted: set = field(default_factory=set)        # events some script emits
    acted: set = field(default_factory=set)          # action groups some script offers
    answer_fns: dict = field(default_factory=dict)   # group -> answer GROUP(actor, answer): see bodies.py

    def constant_type(self, name: str) -> Type:
        """The type of an entry's or a symbol's name written as a value: the entry's
        kind, else the symbol's set, else str (a die face, a plain symbol)."""
        if name in self.entries:
            return named(self.entries[name]["kind"])
        return named(self.symbol_type[name]) if name in self.symbol_type else STR

    def all_value_names(self) -> list[str]:
        names = list(self.globals) + list(self.options) + list(self.zones) + list(self.entries)
        names += list(self.symbols) + list(self.actions) + list(self.boards) + ["players", "true", "false", "none"]
        return names
