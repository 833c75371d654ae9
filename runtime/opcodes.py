"""The opcode table: the single source of truth for the bytecode.

Each row gives the opcode's name, what its operand is, its effect on the
operand stack (values popped, values pushed; None where it varies) and a
one-line doc. The emitter (compiler/codegen.py), the disassembler
(cli/disasm.py), the interpreter's dispatch (runtime/vm.py), the fast path's
translator (runtime/pysource.py) and the generated reference (docs/bytecode.md)
are all driven from this table;
tests/test_opcodes.py proves they agree.

Adding an opcode: add its row where its measured frequency puts it (the row
number is the code; benchmarks/profile_instructions.py gives the histogram),
add its branch in runtime/vm.py under the range guard (< 8, < 16, < 32, rest)
its code falls in, renumber the branches whose codes moved, add its translation
to TRANSLATIONS in runtime/pysource.py (the fast path), say where it jumps in
JUMP_TARGET below if it jumps, and run
`python docs/gen_docs.py`. tests/test_opcodes.py fails until all agree.
Compiled files carry TABLE_DIGEST (of this table and the builtin registry), so old
compiled packs are refused, not misread.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, slots=True)
class OpInfo:
    code: int
    name: str
    operand: str            # "" when the opcode takes none
    pops: Optional[int]     # None: depends on the operand
    pushes: int
    doc: str


_TABLE = [
    # name            operand                     pops pushes doc
    # Rows are ordered by how often each opcode runs (measured on the built-in packs):
    # the code is the row number, and the VM tests the lowest codes first.
    ("LOAD_LOCAL",    "slot",                     0, 1, "Push a local variable."),
    ("CONST",         "value",                    0, 1, "Push a constant (int, bool, text, none or a tuple of them)."),
    ("FOR_ITER_LOAD", "(items, index, var, end, slot)", 0, 1, "FOR_ITER, then push a local."),
    ("JUMP_IF_FALSE", "target",                   1, 0, "Pop; jump when false."),
    ("STORE_LOAD",    "(slot, slot)",             1, 1, "Pop into a local, then push a local."),
    ("JUMP",          "target",                   0, 0, "Jump; a backward jump spends one step of the budget."),
    ("JUMP_IF_NE_CONST", "(value, target)",       1, 0, "Pop; jump unless it equals a constant."),
    ("CALL_BUILTIN",  "(builtin, argc)",          None, 1, "Call a builtin from the builtin registry."),
    ("STORE_LOCAL",   "slot",                     1, 0, "Pop into a local variable."),
    ("JUMP_IF_VAR_NE", "(slot, var, value, target)", 0, 0, "Jump unless a variable of the player in a local equals a constant."),
    ("ADD",           "",                         2, 1, "Add integers or concatenate lists/texts."),
    ("ITER_START",    "(items, index)",           1, 0, "Pop a list or zone; keep a snapshot of its items in a local and start its index at 0."),
    ("RETURN",        "",                         1, 0, "Return the top of the stack to the caller."),
    ("ENTRY_FIELD",   "field",                    1, 1, "Pop an entry id; push one of its fields."),
    ("ZONE",          "zone",                     0, 1, "Push a zone shared by all players."),
    ("BUILD_LIST",    "count",                    None, 1, "Pop count values; push them as a list."),
    ("LOAD_LOCAL2",   "(slot, slot)",             0, 2, "Push two local variables."),
    ("PLAYER_VAR",    "slot",                     1, 1, "Pop a player; push one of its variables."),
    ("IN",            "",                         2, 1, "Membership of a value in a list or a thing in a zone."),
    ("LOCAL_PLAYER_VAR", "(slot, var)",           0, 1, "Push a variable of the player held in a local."),
    ("CALL_MEMO",     "(function, argc)",         None, 1, "Call a function that only reads the game, remembering its result until the game changes."),
    ("CALL",          "(function, argc)",         None, 1, "Call a script function; its frame is pushed, never a Python call."),
    ("SWITCH_VAR",    "(slot, var, table, end)",  0, 0, "Jump to the block for the value of a variable of the player in a local (a chain of guards)."),
    ("LOCAL_EVENT_FIELD", "(slot, field)",        0, 1, "Push a field of the event in a local."),
    ("ZONE_OF",       "zone",                     1, 1, "Pop a player; push that player's copy of a per-player zone."),
    ("AS_ENTRY",      "kind",                     1, 1, "Pop a text; push it as an entry id of a kind, failing if it is not one."),
    ("JUMP_IF_TRUE",  "target",                   1, 0, "Pop; jump when true."),
    ("LOCAL_FACE",    "slot",                     0, 1, "Push the face of the thing held in a local."),
    ("JUMP_IF_CANCELLED", "(slot, target)",       0, 0, "Jump when the event in a local was cancelled by a handler."),
    ("THING_ENTRY",   "",                         1, 1, "Pop a thing; push the id of the entry it was made from."),
    ("NEW_LIST",      "",                         0, 1, "Push a new empty accumulator (used by 'each' and action enumeration)."),
    ("APPEND",        "slot",                     1, 0, "Pop a value; append it to the accumulator in a local."),
    ("SUB",           "",                         2, 1, "Subtract."),
    ("THING_FACE",    "",                         1, 1, "Pop a thing; push its face."),
    ("POP",           "",                         1, 0, "Discard the top of the stack."),
    ("GT",            "",                         2, 1, "Greater than."),
    ("LOAD_GLOBAL",   "slot",                     0, 1, "Push a global variable."),
    ("JUMP_IF_EQ_CONST", "(value, target)",       1, 0, "Pop; jump when it equals a constant."),
    ("ENTRIES",       "kind",                     0, 1, "Push the ids of every entry of a kind, in declaration order."),
    ("EQ",            "",                         2, 1, "Equality."),
    ("FOR_ITER",      "(items, index, var, end)", 0, 0, "Loop step: store the next item of a local list into var, or jump to end."),
    ("MOVE",          "place",                    2, 0, "Pop a zone and a thing or list of things; move them to the zone's bottom (or top)."),
    ("EVENT_FIELD",   "field",                    1, 1, "Pop an event; push one of its fields."),
    ("MUL",           "",                         2, 1, "Multiply."),
    ("NEW_EVENT",     "(event, fields)",          None, 1, "Pop one value per field; push a new event record."),
    ("DUP",           "",                         1, 2, "Duplicate the top of the stack."),
    ("INDEX",         "",                         2, 1, "Pop an index and a list; push the item (0-based)."),
    ("NE",            "",                         2, 1, "Inequality."),
    ("LT",            "",                         2, 1, "Less than."),
    ("LE",            "",                         2, 1, "Less or equal."),
    ("GE",            "",                         2, 1, "Greater or equal."),
    ("MOD",           "",                         2, 1, "Remainder (floored)."),
    ("DIV_UP",        "",                         2, 1, "Divide, rounding up; dividing by zero is a script error."),
    ("DIV_DOWN",      "",                         2, 1, "Divide, rounding down; dividing by zero is a script error."),
    ("NEG",           "",                         1, 1, "Negate an integer."),
    ("NOT",           "",                         1, 1, "Boolean not."),
    ("STORE_GLOBAL",  "slot",                     1, 0, "Pop into a global variable."),
    ("LOAD_OPTION",   "name",                     0, 1, "Push the value of a pack option."),
    ("SET_PLAYER_VAR", "slot",                    2, 0, "Pop a value and a player; set the player's variable."),
    ("THING_VAR",     "slot",                     1, 1, "Pop a thing; push one of its variables."),
    ("SET_THING_VAR", "slot",                     2, 0, "Pop a value and a thing; set the thing's variable."),
    ("SET_FACE",      "",                         2, 0, "Pop a face and a die; turn the die to that face."),
    ("THING_OWNER",   "",                         1, 1, "Pop a thing; push the player owning its zone, or none."),
    ("THING_ZONE",    "",                         1, 1, "Pop a thing; push the zone it is in."),
    ("ZONE_OWNER",    "",                         1, 1, "Pop a zone; push its owner, or none."),
    ("PLAYER_SEAT",   "",                         1, 1, "Pop a player; push its seat number (1-based)."),
    ("SET_EVENT_FIELD", "field",                  2, 0, "Pop a value and an event; set the event's field."),
    ("PLAYERS",       "",                         0, 1, "Push the list of players in seat order."),
    ("TO_LIST",       "",                         1, 1, "Pop a list or zone; push a list snapshot of its items."),
    ("FREEZE",        "",                         1, 1, "Pop an accumulator; push it as an immutable list."),
    ("CREATE",        "",                         2, 1, "Pop a zone and an entry id; create a thing from the entry in the zone; push it."),
    ("DESTROY",       "",                         1, 0, "Pop a thing or list of things; remove them from the game."),
    ("ROLL",          "",                         1, 0, "Pop a die or list of dice; roll each to a random face."),
    ("SHUFFLE",       "",                         1, 0, "Pop a zone; shuffle its order."),
    ("RANDOM_FROM",   "",                         1, 1, "Pop a list or zone; push a random item, or none when empty."),
    ("TEXT",          "count",                    None, 1, "Pop count values; push them joined as text."),
    ("NARRATE",       "(function, argc)",         None, 0, "Pop argc values; run the narration function with them, aside (its own budget and memo: it cannot change the match, and a failure becomes a line saying so); add the text to the match narration."),
    ("CANCEL",        "slot",                     0, 0, "Mark the event in a local as cancelled."),
    ("DECIDE",        "tag",                      2, 1, "Pop a player and a list of options; suspend until that player chooses; push the choice."),
    ("DECIDE_ACTION", "group",                    2, 1, "Pop a player and a list of action options; suspend for the choice; push it (none if no option)."),
    ("PERFORM",       "",                         2, 1, "Pop a player and an action option; call that action's body for the player."),
    ("SKIP_IF_QUIET", "target",                   0, 0, "Jump past a narration line when nobody is listening (simulations)."),
    ("EQ_CONST",      "value",                    1, 1, "Compare the top of the stack with a constant."),
    ("NE_CONST",      "value",                    1, 1, "Compare the top of the stack with a constant (not equal)."),
    ("NARRATE_TO",    "(function, argc)",         None, 0, "NARRATE with a function giving a player and a text: a line only that player may read."),
    ("CHECK_NESTING", "",                         1, 1, "Fail if the list on top is nested more than 64 deep (lists of lists)."),
    ("CALL_FIELD",    "(kind, field, argc)",      None, 1, "Pop argc values and an entry id of a kind; call the code the entry gives for a behaviour field."),
    ("HOLDERS",       "(entry, places)",          0, 1, "Push the (holder, thing) pairs for which an entry is in play: each thing made from it in the given zones (holder: the zone's owner), or each player whose given variable holds it (thing: none)."),
    ("PLACE",         "",                         2, 0, "Pop a tile and a thing or list of things; put them on the tile (off their board when it is none)."),
]

OPS: tuple[OpInfo, ...] = tuple(OpInfo(i, *row) for i, row in enumerate(_TABLE))
BY_NAME: dict[str, OpInfo] = {op.name: op for op in OPS}

# Module-level integer constants (CONST, LOAD_LOCAL, ...) for the emitter and VM.
globals().update({op.name: op.code for op in OPS})

# Where each jumping opcode keeps its target: the operand itself (None) or a tuple slot.
# (SWITCH_VAR jumps through its table, RETURN leaves: both are told apart where it matters.)
JUMP_TARGET: dict[int, Optional[int]] = {BY_NAME[name].code: slot for name, slot in (
    ("JUMP", None), ("JUMP_IF_FALSE", None), ("JUMP_IF_TRUE", None), ("SKIP_IF_QUIET", None),
    ("FOR_ITER", 3), ("FOR_ITER_LOAD", 3), ("JUMP_IF_NE_CONST", 1), ("JUMP_IF_EQ_CONST", 1),
    ("JUMP_IF_CANCELLED", 1), ("JUMP_IF_VAR_NE", 3))}


def jump_target(op: int, arg):
    """The pc a jumping instruction (one of JUMP_TARGET) may go to."""
    slot = JUMP_TARGET[op]
    return arg if slot is None else arg[slot]


def with_jump_target(op: int, arg, target: int):
    """The operand of a jumping instruction (one of JUMP_TARGET) made to go to `target`."""
    slot = JUMP_TARGET[op]
    return target if slot is None else (*arg[:slot], target, *arg[slot + 1:])

# Compiled code stores opcode numbers and builtin numbers: a compiled file is only
# valid for the opcode table and builtin registry it was made with, so its stamp
# includes this digest of both.
import hashlib as _hashlib  # noqa: E402

from .builtins import BUILTINS as _BUILTINS  # noqa: E402

TABLE_DIGEST = _hashlib.sha256((" ".join(op.name for op in OPS) + " | " +
                                " ".join(b.name for b in _BUILTINS)).encode()).hexdigest()[:12]
