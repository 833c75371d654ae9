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

from typing import Iterator, Optional


# What an opcode's operand names by number: one (table, position) per name, position
# None for the operand itself. The disassembler's notes and the --source legend both
# read it. Names missing from runtime.opcodes (an older or newer table) are never looked up.
REFERENCES: dict[str, tuple] = {
    **dict.fromkeys(("LOAD_LOCAL", "STORE_LOCAL", "APPEND", "CANCEL", "LOCAL_FACE"), (("locals", None),)),
    **dict.fromkeys(("LOAD_GLOBAL", "STORE_GLOBAL"), (("globals", None),)),
    **dict.fromkeys(("PLAYER_VAR", "SET_PLAYER_VAR"), (("player_vars", None),)),
    **dict.fromkeys(("THING_VAR", "SET_THING_VAR"), (("thing_vars", None),)),
    **dict.fromkeys(("ZONE", "ZONE_OF"), (("zones", None),)),
    **dict.fromkeys(("CALL", "CALL_MEMO", "NARRATE", "NARRATE_TO"), (("functions", 0),)),
    "CALL_BUILTIN": (("builtins", 0),),
    # super-instructions made by the compiler's peephole pass
    **dict.fromkeys(("LOAD_LOCAL2", "STORE_LOAD"), (("locals", 0), ("locals", 1))),
    **dict.fromkeys(("LOCAL_PLAYER_VAR", "JUMP_IF_VAR_NE", "SWITCH_VAR"), (("locals", 0), ("player_vars", 1))),
    **dict.fromkeys(("FOR_ITER", "FOR_ITER_LOAD"), (("locals", 2),)),
    "LOCAL_EVENT_FIELD": (("locals", 0),),
}
_VARIABLES = ("player_vars", "thing_vars")  # shown after the local holding them: `p.role`


def _tables(program, fn) -> dict:
    """Each table's names, by index: the program's own (made once per program, a pack
    has hundreds of functions to list) and the function's locals."""
    shared = program.derived.names
    if shared is None:
        from runebook.runtime.builtins import BUILTINS
        shared = program.derived.names = {
            "functions": [f.name for f in program.functions], "builtins": [b.name for b in BUILTINS],
            "zones": [z.name for z in program.zones], "globals": [v.name for v in program.globals],
            "player_vars": [v.name for v in program.player_vars],
            "thing_vars": [v.name for v in program.thing_vars]}
    return {**shared, "locals": list(fn.local_names)}


def _indexes(name: str, arg) -> list:
    """(table, index) for each name an instruction's operand holds by number."""
    out = []
    for table, position in REFERENCES.get(name, ()):
        index = arg if position is None else (
            arg[position] if isinstance(arg, (tuple, list)) and len(arg) > position else None)
        if isinstance(index, int) and not isinstance(index, bool):
            out.append((table, index))
    return out


def _note(tables: dict, name: str, arg) -> Optional[str]:
    """What a numeric operand refers to: `c`, `fn score`, `p.role`, ..."""
    note = ""
    for table, index in _indexes(name, arg):
        rows = tables[table]
        shown = rows[index] if 0 <= index < len(rows) else "?"
        note += (("." if table in _VARIABLES else ", ") if note else "") + shown
    return note or None


def select(program, pattern: Optional[str]) -> list:
    """(index, Function) pairs whose name contains `pattern` (all when None)."""
    return [(i, f) for i, f in enumerate(program.functions) if pattern is None or pattern in f.name]


def disassemble(program, index: int, fn) -> Iterator[str]:
    from runebook.runtime.opcodes import OPS

    yield (f"function {index}: {fn.name}  ({fn.file}, {fn.nparams} params, "
           f"{fn.nlocals} locals, {len(fn.code)} instructions)")
    width = len(str(max(len(fn.code) - 1, 0)))
    line_width = max((len(str(n)) for n in fn.lines), default=1)
    tables = _tables(program, fn)
    for pc, (op, arg) in enumerate(fn.code):
        info = OPS[op] if isinstance(op, int) and 0 <= op < len(OPS) else None
        name = info.name if info is not None else f"?OP{op}"
        text = f"  {pc:>{width}}  L{fn.line_at(pc):<{line_width}}  {name}"
        if info is None or info.operand:
            text += f" {arg!r}"
            note = _note(tables, name, arg)
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


def _references(fn) -> dict:
    """{table: sorted indexes} of what the function's code names by number (locals aside)."""
    from runebook.runtime.opcodes import OPS

    found: dict = {}
    for op, arg in fn.code:
        if isinstance(op, int) and 0 <= op < len(OPS):
            for table, index in _indexes(OPS[op].name, arg):
                found.setdefault(table, set()).add(index)
    return {table: sorted(indexes) for table, indexes in found.items() if table != "locals"}


def source_legend(program, index: int, fn, generator: bool) -> Iterator[str]:
    """What the generated code's numbered names stand for, as Python comments.

    Names and files from the pack appear only here, printed by the CLI: the
    generated code itself holds content text only as repr()-ed constants.
    """
    yield f"# f{index} is {fn.name}  ({fn.file}, line {fn.line_at(0)}; {len(fn.code)} instructions)"
    if generator:
        yield "# a generator: it suspends at decisions (each 'yield' hands a Decision to the driver)"
    else:
        yield "# a plain function: it never suspends at a decision"
    # each origin is [name, file, line, col, caller's origin]: a function inlined twice is shown once
    for name, file in dict.fromkeys((origin[0], origin[1]) for origin in fn.inlined):
        yield f"# compiled in place: {name}  ({file})"
    names = [f"l{i} = {name}" + (" (parameter)" if i < fn.nparams else "")
             for i, name in enumerate(fn.local_names)]
    yield from _wrapped("# locals: ", names)
    refs, tables = _references(fn), _tables(program, fn)
    for table, title, shown_as in (("functions", "calls", "f{}"), ("builtins", "builtins", "_b{}"),
                                   ("zones", "zones", "_Z[{}]"), ("globals", "globals", "_G[{}]"),
                                   ("player_vars", "player variables", ".vars[{}]"),
                                   ("thing_vars", "thing variables", ".vars[{}]")):
        rows = tables[table]
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
