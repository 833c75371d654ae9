"""The pack's global symbol table, built from every declaration of every file.

Collecting all declarations first lets bodies refer to anything declared
anywhere in the pack, in any order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from runebook.dsl.span import Span

MISSING = object()


@dataclass
class KindInfo:
    name: str
    fields: dict            # field -> (type, default value or MISSING)
    entries: list           # entry ids in declaration order
    span: Optional[Span]


@dataclass
class FnInfo:
    name: str
    index: int
    params: list            # [(name, type)]
    ret: Optional[str]      # None for procedures
    decl: Any


@dataclass
class ActionInfo:
    name: str
    index: int
    groups: list
    params: list            # [(name, type)]
    decl: Any
    body_fn: int = -1
    enum_fn: int = -1


@dataclass
class Symbols:
    zones: dict = field(default_factory=dict)        # name -> (index, per_player)
    private_zones: set = field(default_factory=set)  # zones whose things only their owner sees
    globals: dict = field(default_factory=dict)      # name -> (slot, type)
    player_vars: dict = field(default_factory=dict)  # name -> (slot, type)
    thing_vars: dict = field(default_factory=dict)   # name -> (slot, type)
    options: dict = field(default_factory=dict)      # name -> (type, default, choices)
    option_ranges: dict = field(default_factory=dict)  # name -> (low, high) of an `int in low..high` option
    kinds: dict = field(default_factory=dict)        # name -> KindInfo
    entries: dict = field(default_factory=dict)      # id -> {"kind": k, field: value}
    symbols: dict = field(default_factory=dict)      # bare symbol (faces, symbols decls) -> span
    events: dict = field(default_factory=dict)       # name -> [(param, type)]
    functions: dict = field(default_factory=dict)    # name -> FnInfo
    actions: dict = field(default_factory=dict)      # name -> ActionInfo
    groups: dict = field(default_factory=dict)       # group -> [action names]
    handlers: dict = field(default_factory=dict)     # event -> [HandlerDecl]
    policies: dict = field(default_factory=dict)     # name -> PolicyDecl
    initial: dict = field(default_factory=dict)      # var name -> initial value
    changes: Optional[dict] = None                   # fn name -> why calling it changes the game (purity.py)
    declared_at: dict = field(default_factory=dict)  # top-level name -> Span (one namespace)
    choice_types: dict = field(default_factory=dict) # choose tag -> option type
    emitted: set = field(default_factory=set)        # events some script emits
    acted: set = field(default_factory=set)          # action groups some script offers

    def all_value_names(self) -> list[str]:
        names = list(self.globals) + list(self.options) + list(self.zones) + list(self.entries)
        names += list(self.symbols) + ["players", "true", "false", "none"]
        return names
