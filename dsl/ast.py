"""The AST of the runebook language.

Plain dataclasses, one per construct; each carries the Span of the text it
came from so every later stage can point at the source.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Optional, Union

from .span import Span


# ------------------------------------------------------------------ types
@dataclass(slots=True)
class TypeRef:
    name: str                     # int, bool, str, thing, player, zone, list, or a kind
    elem: Optional["TypeRef"]     # element type for list
    span: Span

    def __str__(self) -> str:
        return f"list[{self.elem}]" if self.name == "list" else self.name


# ------------------------------------------------------------------ expressions
@dataclass(slots=True)
class IntLit:
    value: int
    span: Span


@dataclass(slots=True)
class StrLit:
    value: str
    span: Span


@dataclass(slots=True)
class Interp:
    """A string with {expr} holes: parts are str or expressions."""
    parts: list
    span: Span


@dataclass(slots=True)
class BoolLit:
    value: bool
    span: Span


@dataclass(slots=True)
class NoneLit:
    span: Span


@dataclass(slots=True)
class Name:
    name: str
    span: Span


@dataclass(slots=True)
class AllEntries:
    kind: str
    span: Span


@dataclass(slots=True)
class ListLit:
    items: list
    span: Span


@dataclass(slots=True)
class Field:
    obj: "Expr"
    name: str
    span: Span


@dataclass(slots=True)
class Index:
    obj: "Expr"
    index: "Expr"
    span: Span


@dataclass(slots=True)
class Call:
    name: str
    args: list
    span: Span


@dataclass(slots=True)
class MethodCall:
    """`obj.name(args)`: a call of an entry's behaviour field."""
    obj: "Expr"
    name: str
    args: list
    span: Span


@dataclass(slots=True)
class ZoneOf:
    zone: str
    owner: "Expr"
    span: Span


@dataclass(slots=True)
class Unary:
    op: str  # "-" or "not"
    operand: "Expr"
    span: Span


@dataclass(slots=True)
class Binary:
    op: str  # + - * % == != < <= > >= and or in notin
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass(slots=True)
class Divide:
    left: "Expr"
    right: "Expr"
    rounding: str  # "up" | "down"
    span: Span


@dataclass(slots=True)
class Choose:
    tag: str
    options: "Expr"
    player: Optional["Expr"]
    span: Span


@dataclass(slots=True)
class ChooseSecretly:
    """`choose secretly TAG from OPTIONS for each VAR in PLAYERS`: every player answers
    without seeing the others' answers; the script gets them all at once, in list order."""
    tag: str
    options: "Expr"   # computed once per player, with VAR bound to that player
    var: str
    players: "Expr"
    span: Span


@dataclass(slots=True)
class Act:
    group: str
    player: "Expr"
    span: Span


@dataclass(slots=True)
class Create:
    entry: "Expr"
    zone: "Expr"
    span: Span


@dataclass(slots=True)
class Emit:
    event: str
    kwargs: list  # list[tuple[str, Expr, Span]]
    span: Span


@dataclass(slots=True)
class Quant:
    kind: str  # count each exists forall first
    var: str
    source: "Expr"
    cond: Optional["Expr"]
    span: Span


@dataclass(slots=True)
class SumOf:
    value: "Expr"
    var: str
    source: "Expr"
    cond: Optional["Expr"]
    span: Span


@dataclass(slots=True)
class RandomFrom:
    source: "Expr"
    span: Span


Expr = Union[IntLit, StrLit, Interp, BoolLit, NoneLit, Name, AllEntries, ListLit, Field,
             Index, Call, ZoneOf, Unary, Binary, Divide, Choose, ChooseSecretly, Act, Create, Emit,
             Quant, SumOf, RandomFrom]


# ------------------------------------------------------------------ statements
@dataclass(slots=True)
class Let:
    name: str
    value: Expr
    span: Span


@dataclass(slots=True)
class Assign:
    target: Expr  # Name or Field
    op: str       # = += -=
    value: Expr
    span: Span


@dataclass(slots=True)
class If:
    branches: list  # list[tuple[Expr, list[Stmt]]]
    orelse: Optional[list]
    span: Span


@dataclass(slots=True)
class For:
    var: str
    source: Expr
    body: list
    span: Span


@dataclass(slots=True)
class Repeat:
    count: Expr
    body: list
    span: Span


@dataclass(slots=True)
class While:
    cond: Expr
    body: list
    span: Span


@dataclass(slots=True)
class Break:
    span: Span


@dataclass(slots=True)
class Continue:
    span: Span


@dataclass(slots=True)
class Return:
    value: Optional[Expr]
    span: Span


@dataclass(slots=True)
class Move:
    what: Expr
    dest: Expr
    place: str  # "top" | "bottom"
    span: Span


@dataclass(slots=True)
class Destroy:
    what: Expr
    span: Span


@dataclass(slots=True)
class Roll:
    what: Expr
    span: Span


@dataclass(slots=True)
class Shuffle:
    zone: Expr
    span: Span


@dataclass(slots=True)
class Log:
    text: Expr  # StrLit or Interp
    span: Span
    to: Optional[Expr] = None  # a player: a line only that player may read


@dataclass(slots=True)
class Cancel:
    span: Span


@dataclass(slots=True)
class ExprStmt:
    expr: Expr
    span: Span


Stmt = Union[Let, Assign, If, For, Repeat, While, Break, Continue, Return, Move, Destroy,
             Roll, Shuffle, Log, Cancel, ExprStmt]


# ------------------------------------------------------------------ declarations
@dataclass(slots=True)
class Param:
    name: str
    type: TypeRef
    span: Span


@dataclass(slots=True)
class ZoneDecl:
    name: str
    per: Optional[str]  # None (global), "player"
    span: Span
    private: bool = False  # only the owner sees its things (a shared private zone: nobody)


@dataclass(slots=True)
class VarDecl:
    name: str
    type: TypeRef
    per: Optional[str]  # None (global), "player", "thing"
    init: Expr
    span: Span


@dataclass(slots=True)
class OptionDecl:
    name: str
    type: Optional[TypeRef]
    choices: Optional[list]
    default: Expr
    span: Span
    range: Optional[tuple] = None  # (low, high), both included: `option n: int in 1..10 = 7`


@dataclass(slots=True)
class DieDecl:
    name: str
    faces: list  # list[str]
    span: Span


@dataclass(slots=True)
class BehaviourType:
    """The type of a behaviour field: `fn(params) -> ret`, or `proc(params)` (ret None)."""
    params: list  # list[Param]
    ret: Optional[TypeRef]
    span: Span


@dataclass(slots=True)
class FieldDecl:
    name: str
    type: Union[TypeRef, BehaviourType]
    default: Optional[Expr]      # a constant; for a behaviour field, the expression a fn returns
    span: Span
    body: Optional[list] = None  # a behaviour field's default body


@dataclass(slots=True)
class KindDecl:
    name: str
    fields: list  # list[FieldDecl]
    span: Span
    held: list = field(default_factory=list)  # zones or per-player variables where its entries are in play


@dataclass(slots=True)
class FieldInit:
    name: str
    value: Optional[Expr]        # a constant, or the expression a fn field returns
    span: Span
    body: Optional[list] = None  # a behaviour field given as a block


@dataclass(slots=True)
class EntryDecl:
    kind: str
    name: str
    fields: list  # list[FieldInit]
    span: Span
    handlers: list = field(default_factory=list)  # list[HandlerDecl] the entry owns
    actions: list = field(default_factory=list)   # list[ActionDecl] offered to its holders only


@dataclass(slots=True)
class SymbolsDecl:
    names: list
    span: Span
    set_name: Optional[str] = None  # `symbols stat: ...` declares a type whose values are the names


@dataclass(slots=True)
class EventDecl:
    name: str
    params: list
    span: Span


@dataclass(slots=True)
class FnDecl:
    """A function (returns a value) or, with ret None, a procedure."""
    name: str
    params: list
    ret: Optional[TypeRef]
    body: list
    span: Span


@dataclass(slots=True)
class ActionParam:
    name: str
    type: TypeRef
    domain: Expr
    span: Span


@dataclass(slots=True)
class ActionDecl:
    name: str
    params: list  # list[ActionParam]
    groups: list  # the decision groups ('act GROUP for P') that offer it
    requires: list  # list[Expr]
    body: list
    span: Span


@dataclass(slots=True)
class HandlerDecl:
    event: str
    priority: int
    when: Optional[Expr]
    body: list
    span: Span


@dataclass(slots=True)
class InterruptDecl:
    """`interrupt GROUP on EVENT for PLAYERS [when COND]`: a window in which each listed
    player may take one action of the group, opened by the engine whenever the event
    happens, never while another interrupt is being taken."""
    group: str
    event: str
    players: Expr
    when: Optional[Expr]
    span: Span


@dataclass(slots=True)
class Rating:
    kind: str  # "action" | "choice"
    target: str
    expr: Expr
    span: Span


@dataclass(slots=True)
class Decider:
    """`decide action GROUP { ... }` / `decide choice TAG { ... }`: a policy's answer, computed."""
    kind: str  # "action" | "choice"
    target: str
    body: list
    span: Span


@dataclass(slots=True)
class PolicyDecl:
    name: str
    ratings: list  # list[Rating | Decider]
    span: Span


Decl = Union[ZoneDecl, VarDecl, OptionDecl, DieDecl, KindDecl, EntryDecl, SymbolsDecl,
             EventDecl, FnDecl, ActionDecl, HandlerDecl, PolicyDecl]


@dataclass(slots=True)
class Module:
    file: str
    decls: list = field(default_factory=list)


def walk(node):
    """Every AST node under `node` (lists and tuples of nodes included), itself first,
    depth first; iterative, so deep expressions cannot exhaust Python's stack."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif is_dataclass(n):
            yield n
            stack.extend(getattr(n, f.name) for f in fields(n) if f.name != "span")
