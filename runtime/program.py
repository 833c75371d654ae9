"""A compiled pack: everything the runtime needs, and nothing of the source.

It serialises to a versioned JSON file stamped with the engine version and
the pack's content hash (see to_json/from_json), and, for the per-user cache, to
the same content marshalled (to_cache_bytes/from_cache_bytes). Loading a damaged
or foreign file raises ProgramFormatError, which the CLI reports as a diagnostic.
"""
from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field, fields
from typing import Any

from .builtins import INT_BOUND, MAX_INT_BITS
from .opcodes import CONST, RETURN, TABLE_DIGEST

FORMAT = "runebook-compiled"
FORMAT_VERSION = 4  # 2: the pack.yaml balance section; 3: boards; 4: call sites of inlined code, columns


class ProgramFormatError(Exception):
    pass


@dataclass(slots=True)
class Function:
    name: str             # e.g. "proc play", "action fight", "rate fight"
    nparams: int
    nlocals: int
    code: list            # list of (opcode, operand)
    lines: list           # source line of each instruction
    file: str
    local_names: list = field(default_factory=list)
    origins: list = field(default_factory=list)   # per instruction: 0 (own code) or 1 + index in inlined
    inlined: list = field(default_factory=list)   # [name, file, line, col, origin] of functions compiled in
                                                  # place: the call's position and origin in the caller
    cols: list = field(default_factory=list)      # source column of each instruction's statement
    # (function, file, line) of the source -> its leftmost statement's column, made on first use
    leftmost_cols: dict | None = field(default=None, init=False, repr=False, compare=False)

    def line_at(self, pc: int) -> int:
        if 0 <= pc < len(self.lines):
            return self.lines[pc]
        return self.lines[-1] if self.lines else 0

    def constant_result(self) -> tuple:
        """(True, value) when the function only returns a constant (a rating such as
        `rate flee: 0 - 100`): running it would change nothing and spend no step."""
        if len(self.code) >= 2 and self.code[0][0] == CONST and self.code[1][0] == RETURN:
            return True, self.code[0][1]
        return False, None

    def source_at(self, pc: int) -> tuple:
        """(function name, file, line) of the source behind an instruction."""
        origin = self.origins[pc] if 0 <= pc < len(self.origins) else 0
        name, file = (self.name, self.file) if origin == 0 else self.inlined[origin - 1][:2]
        return name, file, self.line_at(pc)

    def col_at(self, pc: int) -> int:
        """The column of the source line's first statement behind an instruction.

        The fast path knows a failing instruction only to its source line (a generated
        line never mixes two), so a column must be one per line for both engines to
        name the same place: the leftmost statement of that line."""
        if self.leftmost_cols is None:
            leftmost: dict = {}
            for at, col in enumerate(self.cols):
                if col > 0:
                    key = self.source_at(at)
                    leftmost[key] = min(col, leftmost.get(key, col))
            self.leftmost_cols = leftmost
        return self.leftmost_cols.get(self.source_at(pc), 1)

    def frames_at(self, pc: int) -> list:
        """(function, file, line, col) of the source behind an instruction, outermost
        first: the function itself, then each function compiled in place at that point."""
        origin = self.origins[pc] if 0 <= pc < len(self.origins) else 0
        name, file, line = self.source_at(pc)
        frames = [(name, file, line, self.col_at(pc))]
        while origin:  # each record's caller comes before it (compiled files are checked so)
            _, _, line, col, origin = self.inlined[origin - 1]
            name, file = (self.name, self.file) if origin == 0 else self.inlined[origin - 1][:2]
            frames.append((name, file, line, col))
        return frames[::-1]


@dataclass(frozen=True, slots=True)
class ZoneInfo:
    name: str
    per_player: bool      # one copy per player, or one shared zone
    private: bool         # only its owner sees its things (a shared private zone: nobody)


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    initial: Any          # its value when a match starts


@dataclass(slots=True)
class Action:
    name: str
    groups: list
    params: list          # parameter names, for labels
    body: int             # function index: (actor, *params) -> action name
    enumerate: int        # function index: (actor) -> list of options; -1 without parameters (the act site offers it)


@dataclass(slots=True)
class Derived:
    """What the runtime derives from a program and keeps beside it, each in its named place.

    Never part of the program's identity; shared by the copies dataclasses.replace makes
    (card tests add functions to a copy and reuse the compiled module). Only `cache_key`
    travels to worker processes: the rest holds functions that do not pickle, and is
    made again (or read from disk) where it is needed."""
    cache_key: str | None = None       # the pack-cache entry it was loaded through; None: never cached
    fast_module: Any = None            # runtime.fastvm.FastModule, built on first use
    policy_tables: dict = field(default_factory=dict)  # policy -> how it rates and decides (runtime.agents)
    option_sizes: dict | None = None  # {action: its option's length} (runtime.agents)
    names: dict | None = None          # what the disassembler calls functions, zones, variables by index
    boards: dict | None = None         # name -> runtime.board.Board, built from Program.boards on first use
    world_layout: Any = None           # runtime.world.Layout: what every world starts from, built on first use


@dataclass(slots=True)
class Program:
    name: str
    title: str
    pack_version: str
    engine_version: str
    pack_hash: str
    players: dict                 # {"min", "max", "default"}
    options: dict                 # name -> {"type", "default", "choices"}
    zones: list                   # [ZoneInfo], by zone index
    globals: list                 # [Variable], by slot
    player_vars: list             # [Variable], by slot
    thing_vars: list              # [Variable], by slot
    dice: dict                    # die id -> (faces)
    entries: dict                 # entry id -> {"kind": k, field: value}
    kinds: dict                   # kind -> (entry ids in declaration order)
    behaviours: dict              # kind -> [its behaviour fields]: each entry holds a function index there
    functions: list               # [Function]
    entry_points: dict            # "play", "score", "tiebreak", "title" -> function index
    actions: list                 # [Action]
    groups: dict                  # group -> [action index]
    policies: dict                # name -> {"action": {action index: fn}, "choice": {tag: fn},
                                  #          "decide": {"action": {group: fn}, "choice": {tag: fn},
                                  #                     "blind": [groups decided without reading options]}}
    boards: dict = field(default_factory=dict)  # name -> its map as plain data (runtime/board.py, Board)
    balance: dict = field(default_factory=dict)  # pack.yaml's balance: {"entrants": {...}, "tunable": [...]}
    derived: Derived = field(default_factory=Derived, repr=False, compare=False)

    # ---------------------------------------------------------------- serialisation
    def __getstate__(self) -> dict:
        # Pickled for worker processes: a backend's compiled module stays behind (it holds
        # functions that do not pickle) and is rebuilt, or read from disk, where it is needed;
        # plain facts (whether it may be cached on disk) travel.
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["derived"] = Derived(cache_key=self.derived.cache_key)
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def to_json(self) -> str:
        """The compiled-pack file `runebook compile` writes: JSON, with tuples and
        SWITCH tables tagged (JSON has neither tuples nor keys other than texts)."""
        data = self._data()
        for name in ("options", "globals", "player_vars", "thing_vars", "entries"):
            data[name] = _enc(data[name])
        data["functions"] = [{**f, "code": [[op, _enc_arg(arg)] for op, arg in f["code"]]}
                             for f in data["functions"]]
        data["policies"] = {name: {"action": {str(k): v for k, v in p["action"].items()},
                                   "choice": p["choice"], "decide": p["decide"]}
                            for name, p in data["policies"].items()}
        return json.dumps(data, separators=(",", ":"))

    def to_cache_bytes(self) -> bytes:
        """The same content marshalled, for the per-user cache: read back in a fifth of
        the time JSON takes (warm start-up), but only by the Python version that wrote it."""
        return marshal.dumps(self._data())

    def _data(self) -> dict:
        """Every section with its stamps, as Python holds them (both forms start here)."""
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION, "opcodes": TABLE_DIGEST,
            "engine_version": self.engine_version, "pack_hash": self.pack_hash,
            "name": self.name, "title": self.title, "pack_version": self.pack_version,
            "players": self.players, "options": self.options,
            "zones": [[z.name, z.per_player, z.private] for z in self.zones],
            "globals": _rows(self.globals), "player_vars": _rows(self.player_vars),
            "thing_vars": _rows(self.thing_vars), "dice": self.dice, "entries": self.entries,
            "kinds": {k: list(ids) for k, ids in self.kinds.items()}, "behaviours": self.behaviours,
            "functions": [{"name": f.name, "nparams": f.nparams, "nlocals": f.nlocals,
                           "code": f.code, "lines": f.lines, "file": f.file,
                           "local_names": f.local_names, "origins": f.origins, "inlined": f.inlined,
                           "cols": f.cols}
                          for f in self.functions],
            "entry_points": self.entry_points,
            "actions": [[a.name, a.groups, a.params, a.body, a.enumerate] for a in self.actions],
            "groups": self.groups,
            "policies": self.policies,
            "boards": self.boards,
            "balance": self.balance,
        }

    @classmethod
    def from_json(cls, text: str, expect_engine: str | None = None) -> "Program":
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as err:
            raise ProgramFormatError(f"not a compiled pack (invalid JSON: {err})") from None
        _check_stamps(data, expect_engine)
        try:
            for name in ("options", "globals", "player_vars", "thing_vars", "entries"):
                data[name] = _dec(data[name])
            data["dice"] = {k: tuple(v) for k, v in data["dice"].items()}
            for f in data["functions"]:
                f["code"] = [(op, _dec_arg(arg)) for op, arg in f["code"]]
            data["policies"] = {name: {"action": {int(k): v for k, v in p["action"].items()},
                                       "choice": p["choice"], "decide": p["decide"]}
                                for name, p in data["policies"].items()}
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            raise ProgramFormatError(f"compiled pack is damaged ({type(err).__name__}: {err})") from None
        if not _within_bounds(data):  # runtime/ranges.py holds every number a script reads to them
            raise ProgramFormatError(f"compiled pack is damaged (a number beyond 2^{MAX_INT_BITS})")
        return cls._build(data)

    @classmethod
    def from_cache_bytes(cls, blob: bytes, expect_engine: str | None = None) -> "Program":
        try:
            data = marshal.loads(blob)
        except (EOFError, ValueError, TypeError) as err:
            raise ProgramFormatError(f"not a cached compiled pack ({err})") from None
        _check_stamps(data, expect_engine)
        return cls._build(data)

    @classmethod
    def _build(cls, data: dict) -> "Program":
        try:
            return cls(
                name=data["name"], title=data["title"], pack_version=data["pack_version"],
                engine_version=data["engine_version"], pack_hash=data["pack_hash"],
                players=data["players"], options=data["options"],
                zones=[ZoneInfo(name, bool(per), bool(private)) for name, per, private in data["zones"]],
                globals=_variables(data["globals"]), player_vars=_variables(data["player_vars"]),
                thing_vars=_variables(data["thing_vars"]), dice=data["dice"], entries=data["entries"],
                kinds={k: tuple(ids) for k, ids in data["kinds"].items()}, behaviours=data["behaviours"],
                functions=[Function(f["name"], f["nparams"], f["nlocals"], f["code"], f["lines"],
                                    f["file"], f["local_names"], f["origins"], f["inlined"], f["cols"])
                           for f in data["functions"]],
                entry_points=data["entry_points"],
                actions=[Action(*row) for row in data["actions"]],
                groups=data["groups"], policies=data["policies"], boards=data["boards"],
                balance=data["balance"],
            )
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            raise ProgramFormatError(f"compiled pack is damaged ({type(err).__name__}: {err})") from None


def _within_bounds(value) -> bool:
    """Every whole number anywhere in `value` (nested lists, tuples, dicts) is within the
    language's bounds, as the compiler makes them."""
    pending = [value]
    while pending:
        v = pending.pop()
        t = type(v)
        if t is int:
            if not -INT_BOUND < v < INT_BOUND:
                return False
        elif t is dict:
            pending.extend(v.keys())
            pending.extend(v.values())
        elif t is list or t is tuple:
            pending.extend(v)
    return True


def _rows(variables: list) -> list:
    return [[v.name, v.initial] for v in variables]


def _variables(rows: list) -> list:
    return [Variable(name, initial) for name, initial in rows]


def _check_stamps(data, expect_engine: str | None) -> None:
    """Refuse what is not a compiled pack, or one this engine must not run."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProgramFormatError("not a compiled runebook pack (missing format stamp)")
    if data.get("format_version") != FORMAT_VERSION:
        raise ProgramFormatError(f"compiled with format {data.get('format_version')}, "
                                 f"this engine reads format {FORMAT_VERSION}")
    if data.get("opcodes") != TABLE_DIGEST:
        raise ProgramFormatError("compiled with a different opcode table or builtin registry; compile the pack again")
    if expect_engine is not None and data.get("engine_version") != expect_engine:
        raise ProgramFormatError(f"compiled by engine {data.get('engine_version')}, this is {expect_engine}")


# A SWITCH_VAR operand holds a dict keyed by game values (texts, numbers, none):
# JSON keys are texts only, so code operands store it as a tagged list of pairs.
def _enc_arg(arg: Any) -> Any:
    if isinstance(arg, tuple) and any(isinstance(v, dict) for v in arg):
        return {"t": [{"switch": [[_enc(k), v] for k, v in v.items()]} if isinstance(v, dict) else _enc(v)
                      for v in arg]}
    return _enc(arg)


def _dec_arg(arg: Any) -> Any:
    if isinstance(arg, dict) and set(arg) == {"t"}:
        return tuple(_dec_switch(v) if isinstance(v, dict) and "switch" in v else _dec(v) for v in arg["t"])
    return _dec(arg)


def _dec_switch(value: dict) -> dict:
    return {_dec(k): target for k, target in value["switch"]}


# Tuples are our immutable lists; JSON has only arrays, so tag them.
def _enc(value: Any) -> Any:
    if isinstance(value, tuple):
        return {"t": [_enc(v) for v in value]}
    if isinstance(value, list):
        return [_enc(v) for v in value]
    if isinstance(value, dict):
        return {k: _enc(v) for k, v in value.items()}
    return value


def _dec(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"t"}:
            return tuple(_dec(v) for v in value["t"])
        return {k: _dec(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dec(v) for v in value]
    return value
