"""Compiled pack files (`runebook compile -o`): played, simulated and replayed in place of a pack.

A compiled file holds a pack's bytecode and data, not its source: it plays without the
compiler (and without the pack's folder), but card tests, which compile their code
against the pack's names, need the source. It is untrusted input (docs/security.md):
reading it parses JSON and checks its shape, every function's code against the opcode
table and stack discipline, the indices it refers to, and the Python the fast path
would make of it, all before anything runs. A damaged or foreign file is E0601, never a
traceback; nothing in it is run as Python (the fast path writes its own code, putting
the file's values in only as checked constants).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

SUFFIX = ".rbc.json"
MAX_COMPILED_BYTES = 64_000_000  # the largest pack compiles to about 1 MB
MAX_LOCALS = 10_000              # a function's slots, made at each call: the compiler's use a few dozen
HINT = "compile it again from the pack's source: runebook compile PACK -o FILE"
# What a malformed section makes Python raise while it is checked or translated.
DAMAGE = (AttributeError, KeyError, TypeError, ValueError, IndexError, AssertionError, RecursionError,
          SyntaxError, OverflowError)


def is_compiled_file(target: str) -> bool:
    """Whether a command's PACK argument names a compiled file rather than a pack."""
    path = Path(target)
    return target.endswith(".json") or (path.is_file() and path.name != "pack.yaml")


def pack_folder(target: str) -> Optional[Path]:
    """The pack's folder (its view.yaml, its source) for a pack; None for a compiled file."""
    from runebook.compiler.pack import find_pack
    return None if is_compiled_file(target) else find_pack(target)


def read_compiled(target: str):
    """The Program in a compiled file, checked; a problem ends the command (E0102, E0601)."""
    from runebook.runtime.program import Program, ProgramFormatError
    from .errors import file_error

    try:
        with open(target, "rb") as handle:
            raw = handle.read(MAX_COMPILED_BYTES + 1)
    except OSError as err:
        file_error("E0102", f"cannot read '{target}': {err.strerror or err}")
    if len(raw) > MAX_COMPILED_BYTES:
        file_error("E0601", f"{target}: larger than {MAX_COMPILED_BYTES:,} bytes, not a compiled pack", HINT)
    try:
        program = Program.from_json(raw.decode("utf-8"))
        problem = _problem(program)
    except UnicodeDecodeError as err:
        problem = f"not a compiled pack (not UTF-8 text: {err.reason} at byte {err.start})"
    except ProgramFormatError as err:
        problem = str(err)
    except DAMAGE as err:
        problem = f"compiled pack is damaged ({type(err).__name__}: {err})"
    if problem:
        file_error("E0601", f"{target}: {problem}", HINT)
    return program


def _problem(program) -> Optional[str]:
    """What makes a well-shaped program unfit to run, or None."""
    from runebook.compiler.stackcheck import verify
    from runebook.runtime import opcodes as O
    from runebook.runtime.board import boards_of
    from runebook.runtime.fastvm import fast_module
    from runebook.runtime.options import resolve_options
    from runebook.runtime.world import World

    problem = _section_problem(program) or _reference_problem(program)
    if problem:
        return problem
    for fn in program.functions:
        if not (_index(fn.nparams, fn.nlocals + 1) and _index(fn.nlocals, MAX_LOCALS + 1)):
            return f"function '{fn.name}' has bad counts of parameters and locals"
        if not fn.code:
            return f"function '{fn.name}' has no code"
        for pc, (op, arg) in enumerate(fn.code):
            if not _index(op, len(O.OPS)):
                return f"function '{fn.name}' has an unknown instruction at pc {pc}"
            if not _operand_fits(O.OPS[op], arg, program, fn):
                return f"function '{fn.name}': {O.OPS[op].name} at pc {pc} has a bad operand {arg!r:.60}"
        problem = _source_map_problem(fn)
        if problem:
            return f"function '{fn.name}' {problem}"
        verify(fn.name, fn.code)
    # Made once now, as a match makes them (no script runs): a file whose data cannot be is refused here.
    fast_module(program)
    boards_of(program)
    World(program, 1, resolve_options(program, {}), program.players["default"])
    return None


# ---------------------------------------------------------------- sections
_INT, _STR, _BOOL = {"type": "integer"}, {"type": "string"}, {"type": "boolean"}
_SCALAR = {"type": ["integer", "string", "boolean", "null"]}


def _map(values: dict) -> dict:
    return {"type": "object", "additionalProperties": values}


def _list(items: dict) -> dict:
    return {"type": "array", "items": items}


def _row(*items: dict) -> dict:
    return {"type": "array", "items": list(items), "minItems": len(items), "maxItems": len(items)}


_VARIABLES = _list(_row(_STR, {}))
_FUNCTION_MAP = _map(_INT)
# The sections besides the functions (checked one instruction at a time above), as
# Program.to_json writes them.
SECTIONS = {
    "type": "object",
    "required": ["players", "options", "zones", "globals", "player_vars", "thing_vars", "dice", "entries",
                 "kinds", "behaviours", "entry_points", "actions", "groups", "policies", "boards", "balance"],
    "properties": {
        "name": _STR, "title": _STR, "pack_version": _STR, "pack_hash": _STR, "engine_version": _STR,
        "players": {"type": "object", "required": ["min", "max", "default"],
                    "properties": {k: {"type": "integer", "minimum": 1, "maximum": 16}
                                   for k in ("min", "max", "default")}},
        "options": _map({"type": "object", "required": ["type", "default"],
                         "properties": {"type": {"enum": ["int", "str", "bool"]}, "default": _SCALAR,
                                        "choices": {"type": ["array", "null"], "items": _SCALAR},
                                        "range": {"type": "array", "items": _INT, "minItems": 2, "maxItems": 2}}}),
        "zones": _list(_row(_STR, _BOOL, _BOOL)),
        "globals": _VARIABLES, "player_vars": _VARIABLES, "thing_vars": _VARIABLES,
        "dice": _map({"type": "array", "items": _STR, "minItems": 1}),
        "entries": _map({"type": "object", "required": ["kind"], "properties": {"kind": _STR}}),
        "kinds": _map(_list(_STR)),
        "behaviours": _map(_list(_STR)),
        "entry_points": {"type": "object", "required": ["play", "score"], "additionalProperties": _INT},
        "actions": _list(_row(_STR, _list(_STR), _list(_STR), _INT, _INT)),
        "groups": _map(_list(_INT)),
        "policies": _map({"type": "object", "required": ["action", "choice", "decide"],
                          "properties": {"action": _FUNCTION_MAP, "choice": _FUNCTION_MAP,
                                         "decide": {"type": "object", "required": ["action", "choice"],
                                                    "properties": {"action": _FUNCTION_MAP,
                                                                   "choice": _FUNCTION_MAP}}}}),
        "boards": _map({"type": "object"}),
        "balance": {"type": "object"},
    },
}


def _section_problem(program) -> Optional[str]:
    """The first section that is not as Program.to_json writes it (the JSON Schema above)."""
    import jsonschema

    data = {name: _plain(getattr(program, name)) for name in SECTIONS["required"]}
    data["zones"] = [[z.name, z.per_player, z.private] for z in program.zones]
    for name in ("globals", "player_vars", "thing_vars"):
        data[name] = [[v.name, _plain(v.initial)] for v in getattr(program, name)]
    data["actions"] = [[a.name, a.groups, a.params, a.body, a.enumerate] for a in program.actions]
    data["policies"] = {name: {**p, "action": {str(k): v for k, v in p["action"].items()}}
                        for name, p in program.policies.items()}
    error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(SECTIONS).iter_errors(data))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the file"
    return f"'{where}' is not as a compiled pack holds it ({error.message[:120]})"


def _plain(value):
    """Tuples as lists, for the JSON Schema."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _reference_problem(program) -> Optional[str]:
    """The first index that names no function, action or entry."""
    n, actions = len(program.functions), len(program.actions)
    players = program.players
    if not players["min"] <= players["default"] <= players["max"]:
        return "its player counts are out of order (min <= default <= max)"
    for name, index in program.entry_points.items():
        if not _index(index, n):
            return f"entry point '{name}' names no function ({index!r})"
    for action in program.actions:
        if not _index(action.body, n) or not (action.enumerate == -1 or _index(action.enumerate, n)):
            return f"action '{action.name}' names no function"
    for group, members in program.groups.items():
        if not all(_index(a, actions) for a in members):
            return f"action group '{group}' names no action"
    for name, policy in program.policies.items():
        rated = [*policy["action"].values(), *policy["choice"].values(),
                 *policy["decide"]["action"].values(), *policy["decide"]["choice"].values()]
        if not all(_index(a, actions) for a in policy["action"]) or not all(_index(f, n) for f in rated):
            return f"policy '{name}' names no action or function"
    for entry, data in program.entries.items():
        for field in program.behaviours.get(data["kind"], ()):
            if field in data and not _index(data[field], n):
                return f"entry '{entry}' gives '{field}' no function"
    return None


# ---------------------------------------------------------------- operands
# Every part an operand of the opcode table may have (its "operand" column), and what it
# must be. The fast path writes numbers into its Python as they are (a local is `l3`) and
# everything else through repr(), so a number must be an int and a constant a plain value:
# that is what keeps a crafted file from writing Python. tests/test_tooling_cli.py checks
# every part the table names is here.
LOCAL, COUNT, FUNCTION, NAME, CONSTANT, TARGET, INDEX = "local", "count", "function", "name", "constant", "target", "index"
OPERAND_PARTS = {
    "slot": LOCAL, "items": LOCAL, "index": LOCAL, "var": INDEX, "end": TARGET, "target": TARGET,
    "value": CONSTANT, "places": CONSTANT, "table": "table", "fields": "names",
    "builtin": INDEX, "argc": COUNT, "count": COUNT, "function": FUNCTION, "zone": INDEX,
    "field": NAME, "kind": NAME, "name": NAME, "tag": NAME, "group": NAME, "event": NAME, "place": NAME,
    "entry": NAME,
}
# Opcodes whose `slot` is a variable of the game, not a local; loops whose `var` is a local.
NOT_LOCAL_SLOT = {"LOAD_GLOBAL", "STORE_GLOBAL", "PLAYER_VAR", "SET_PLAYER_VAR", "THING_VAR", "SET_THING_VAR"}
LOCAL_VAR = {"FOR_ITER", "FOR_ITER_LOAD"}


def operand_parts(info) -> list[str]:
    """The parts of an opcode's operand, as its table row names them ([] for none)."""
    text = info.operand.strip("()")
    return [part.strip() for part in text.split(",")] if text else []


def _operand_fits(info, arg, program, fn) -> bool:
    parts = operand_parts(info)
    if not parts:
        return arg is None
    values = arg if len(parts) > 1 else (arg,)
    if not isinstance(values, tuple) or len(values) != len(parts):
        return False
    for part, value in zip(parts, values):
        kind = OPERAND_PARTS[part]
        if part == "slot" and info.name in NOT_LOCAL_SLOT or part == "var" and info.name not in LOCAL_VAR:
            kind = INDEX
        elif part == "var":
            kind = LOCAL
        if not _fits(kind, value, program, fn):
            return False
    return True


def _fits(kind: str, value, program, fn) -> bool:
    if kind == LOCAL:
        return _index(value, fn.nlocals)
    if kind == FUNCTION:
        return _index(value, len(program.functions))
    if kind == TARGET:
        return _index(value, len(fn.code))
    if kind in (INDEX, COUNT):
        return _index(value, MAX_LOCALS * 100)
    if kind == NAME:
        return type(value) is str
    if kind == "names":
        return isinstance(value, tuple) and all(type(v) is str for v in value)
    if kind == "table":
        return isinstance(value, dict) and all(_constant(k) and _index(t, len(fn.code)) for k, t in value.items())
    return _constant(value)


def _source_map_problem(fn) -> Optional[str]:
    """What is wrong with where a function's instructions come from (a runtime error names
    it): a line and column per instruction, and per function compiled in place its name,
    file, call site and caller, an earlier record or the function itself, so that reading
    a call chain always ends."""
    n = len(fn.code)
    if len(fn.lines) != n or len(fn.cols) != n or not all(type(x) is int for x in (*fn.lines, *fn.cols)):
        return "has no line and column for each instruction"
    if fn.origins and (len(fn.origins) != n or not all(_index(o, len(fn.inlined) + 1) for o in fn.origins)):
        return "names the origin of an instruction that is not there"
    for k, record in enumerate(fn.inlined):
        if not (isinstance(record, list) and len(record) == 5 and all(type(x) is str for x in record[:2])
                and all(type(x) is int for x in record[2:4]) and _index(record[4], k + 1)):
            return f"has a bad record of code compiled in place ({record!r:.60})"
    return None


def _index(value, bound: int) -> bool:
    return type(value) is int and 0 <= value < bound


def _constant(value, depth: int = 0) -> bool:
    """A value the compiler puts in code: an int, bool, text or none, or a tuple of them."""
    if isinstance(value, tuple):
        return depth < 64 and all(_constant(v, depth + 1) for v in value)
    return value is None or type(value) in (int, bool, str)
