"""A bytecode disassembler driven by the opcode table (runtime.opcodes.OPS).

Each instruction is printed as `  pc  Lline  NAME operand  (note)`, where the
note names what a numeric operand refers to: a local, a global, a variable,
a zone, a called function or builtin. Nothing here knows any one opcode's
meaning beyond which table its operand indexes.

`disasm --source` shows instead the Python the fast path runs for one
function (runtime/pysource.py), after a legend of comments saying what its
numbered names (`l3`, `f12`, `_Z[2]`, `.vars[1]`) stand for.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional


def _local(prog, fn, arg) -> Optional[str]:
    return _at(fn.local_names, arg)


def _global(prog, fn, arg) -> Optional[str]:
    return _name_at(prog.globals, arg)


def _player_var(prog, fn, arg) -> Optional[str]:
    return _name_at(prog.player_vars, arg)


def _thing_var(prog, fn, arg) -> Optional[str]:
    return _name_at(prog.thing_vars, arg)


def _zone(prog, fn, arg) -> Optional[str]:
    return _name_at(prog.zones, arg)


def _call(prog, fn, arg) -> Optional[str]:
    target = _at(prog.functions, _first(arg))
    return target.name if target is not None else None


def _builtin(prog, fn, arg) -> Optional[str]:
    from runebook.runtime.builtins import BUILTINS
    target = _at(BUILTINS, _first(arg))
    return target.name if target is not None else None


def _for_iter(prog, fn, arg) -> Optional[str]:
    if isinstance(arg, (tuple, list)) and len(arg) == 4:
        var = _at(fn.local_names, arg[2])
        return f"{var}, end {arg[3]}" if var else f"end {arg[3]}"
    return None


def _two_locals(prog, fn, arg) -> Optional[str]:
    if isinstance(arg, (tuple, list)) and len(arg) == 2:
        return f"{_at(fn.local_names, arg[0])}, {_at(fn.local_names, arg[1])}"
    return None


def _local_player_var(prog, fn, arg) -> Optional[str]:
    if isinstance(arg, (tuple, list)) and len(arg) == 2:
        return f"{_at(fn.local_names, arg[0])}.{_name_at(prog.player_vars, arg[1])}"
    return None


# Which table a numeric operand indexes, by opcode name. Names missing from
# runtime.opcodes (an older or newer table) are simply never looked up.
NOTES: dict[str, Callable] = {
    "LOAD_LOCAL": _local, "STORE_LOCAL": _local, "APPEND": _local, "CANCEL": _local,
    "LOAD_GLOBAL": _global, "STORE_GLOBAL": _global,
    "PLAYER_VAR": _player_var, "SET_PLAYER_VAR": _player_var,
    "THING_VAR": _thing_var, "SET_THING_VAR": _thing_var,
    "ZONE": _zone, "ZONE_OF": _zone,
    "CALL": _call, "CALL_MEMO": _call, "CALL_BUILTIN": _builtin, "FOR_ITER": _for_iter,
    # super-instructions made by the compiler's peephole pass
    "LOAD_LOCAL2": _two_locals, "LOCAL_PLAYER_VAR": _local_player_var, "LOCAL_FACE": _local,
    "STORE_LOAD": _two_locals, "JUMP_IF_VAR_NE": lambda prog, fn, arg: _local_player_var(prog, fn, arg[:2]),
    "FOR_ITER_LOAD": lambda prog, fn, arg: _for_iter(prog, fn, arg[:4]),
    "LOCAL_EVENT_FIELD": lambda prog, fn, arg: f"{_at(fn.local_names, arg[0])}.{arg[1]}",
}


def _first(arg):
    return arg[0] if isinstance(arg, (tuple, list)) and arg else None


def _at(seq, index):
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(seq):
        return seq[index]
    return None


def _name_at(rows, index) -> Optional[str]:
    row = _at(rows, index)
    return row[0] if row else None


def select(program, pattern: Optional[str]) -> list:
    """(index, Function) pairs whose name contains `pattern` (all when None)."""
    return [(i, f) for i, f in enumerate(program.functions) if pattern is None or pattern in f.name]


def disassemble(program, index: int, fn) -> Iterator[str]:
    from runebook.runtime.opcodes import OPS

    yield (f"function {index}: {fn.name}  ({fn.file}, {fn.nparams} params, "
           f"{fn.nlocals} locals, {len(fn.code)} instructions)")
    width = len(str(max(len(fn.code) - 1, 0)))
    line_width = max((len(str(n)) for n in fn.lines), default=1)
    for pc, (op, arg) in enumerate(fn.code):
        info = OPS[op] if isinstance(op, int) and 0 <= op < len(OPS) else None
        name = info.name if info is not None else f"?OP{op}"
        text = f"  {pc:>{width}}  L{fn.line_at(pc):<{line_width}}  {name}"
        if info is None or info.operand:
            text += f" {arg!r}"
            note_of = NOTES.get(name)
            note = note_of(program, fn, arg) if note_of else None
            if note:
                text += f"  ({note})"
        yield text.rstrip()


# ---------------------------------------------------------------- the fast path's source
def pick_one(program, pattern: str) -> list:
    """The functions `--source` may mean by ID: those whose name contains it, narrowed to
    an exact match ('proc play' or just 'play') when the ID is part of several names."""
    chosen = select(program, pattern)
    if len(chosen) > 1:
        exact = [(i, f) for i, f in chosen if pattern in (f.name, f.name.partition(" ")[2])]
        chosen = exact or chosen
    return chosen


def _part(position: int) -> Callable:
    """The operand itself, or its item at `position` when it is a tuple."""
    return lambda arg: arg[position] if isinstance(arg, (tuple, list)) and len(arg) > position else arg


# Which names in the generated code an opcode's operand stands for: (table, operand -> index).
_REFERENCES: dict[str, tuple] = {
    "CALL": ("functions", _first), "CALL_MEMO": ("functions", _first), "CALL_BUILTIN": ("builtins", _first),
    "ZONE": ("zones", _part(0)), "ZONE_OF": ("zones", _part(0)),
    "LOAD_GLOBAL": ("globals", _part(0)), "STORE_GLOBAL": ("globals", _part(0)),
    "PLAYER_VAR": ("player_vars", _part(0)), "SET_PLAYER_VAR": ("player_vars", _part(0)),
    "LOCAL_PLAYER_VAR": ("player_vars", _part(1)), "JUMP_IF_VAR_NE": ("player_vars", _part(1)),
    "SWITCH_VAR": ("player_vars", _part(1)),
    "THING_VAR": ("thing_vars", _part(0)), "SET_THING_VAR": ("thing_vars", _part(0)),
}


def _references(fn) -> dict:
    """{table: sorted indexes} of what the function's code names by number."""
    from runebook.runtime.opcodes import OPS

    found: dict = {}
    for op, arg in fn.code:
        info = OPS[op] if isinstance(op, int) and 0 <= op < len(OPS) else None
        ref = _REFERENCES.get(info.name) if info is not None else None
        if ref is not None:
            index = ref[1](arg)
            if isinstance(index, int) and not isinstance(index, bool):
                found.setdefault(ref[0], set()).add(index)
    return {table: sorted(indexes) for table, indexes in found.items()}


def source_legend(program, index: int, fn, generator: bool) -> Iterator[str]:
    """What the generated code's numbered names stand for, as Python comments.

    Names and files from the pack appear only here, printed by the CLI: the
    generated code itself holds content text only as repr()-ed constants.
    """
    from runebook.runtime.builtins import BUILTINS

    yield f"# f{index} is {fn.name}  ({fn.file}, line {fn.line_at(0)}; {len(fn.code)} instructions)"
    if generator:
        yield "# a generator: it suspends at decisions (each 'yield' hands a Decision to the driver)"
    else:
        yield "# a plain function: it never suspends at a decision"
    for name, file in dict.fromkeys(tuple(origin) for origin in fn.inlined):  # once each
        yield f"# compiled in place: {name}  ({file})"
    names = [f"l{i} = {name}" + (" (parameter)" if i < fn.nparams else "")
             for i, name in enumerate(fn.local_names)]
    yield from _wrapped("# locals: ", names)
    refs = _references(fn)
    for table, title, shown_as, rows in (
            ("functions", "calls", "f{}", [f.name for f in program.functions]),
            ("builtins", "builtins", "_b{}", [b.name for b in BUILTINS]),
            ("zones", "zones", "_Z[{}]", [row[0] for row in program.zones]),
            ("globals", "globals", "_G[{}]", [row[0] for row in program.globals]),
            ("player_vars", "player variables", ".vars[{}]", [row[0] for row in program.player_vars]),
            ("thing_vars", "thing variables", ".vars[{}]", [row[0] for row in program.thing_vars])):
        shown = [f"{shown_as.format(i)} = {rows[i]}" for i in refs.get(table, ()) if 0 <= i < len(rows)]
        yield from _wrapped(f"# {title}: ", shown)


def _wrapped(head: str, items: list, width: int = 100) -> Iterator[str]:
    """`head` and the items, comma-separated, over as many comment lines as it takes."""
    if not items:
        return
    line = head + items[0]
    for item in items[1:]:
        if len(line) + 2 + len(item) > width:
            yield line + ","
            line = "#   " + item
        else:
            line += ", " + item
    yield line
