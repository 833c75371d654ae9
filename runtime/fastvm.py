"""The fast path: a compiled pack run as generated Python, behaving as the interpreter.

FastVM has the interpreter's interface (start, run, resume, call, budget,
done, result) and its behaviour to the step; runtime/vm.py stays the
reference semantics, and tests/test_fastpath.py runs every pack on both.

The generated module (runtime/pysource.py) is compiled once per program and
kept on the Program (`program.derived.fast_module`); it is also cached on disk as marshalled
code (in the cache folder's `fast/`). Its functions read the running match from
module globals (`_W` the world, `_M` the memo, `_steps` the budget, ...), so
one compiled module serves every match of a process; each FastVM binds its
own world whenever it starts running, which is cheap when it is already bound.

The code runs with an empty `__builtins__`: everything it can name is in
`_helpers()` below or made by the translator.
"""
from __future__ import annotations

import marshal
import sys
from typing import Optional

from .builtins import BUILTINS, ScriptFault
from .fieldtables import tables as field_tables
from .scripting import (CALL_BUDGET, DEFAULT_BUDGET, SCRIPT_FAILURES, Decision, OutOfSteps, ScriptError,
                        behaviour, divide_down, divide_up, index_item, make_decision, narrate, no_choice_here, no_player,
                        not_an_entry, remainder, check_nesting, script_error, secret_choice, too_deep)
from .scripting import INT_BOUND, MAX_LENGTH, checked_budget, sized
from .world import Event, Thing, World, Zone, owner_of

_MISS = object()


# ------------------------------------------------------------------ what the code may call
# Failures and the operations that can fail are shared with the interpreter
# (runtime/scripting.py), so both engines report the same error with the same words.
def _oos():
    raise OutOfSteps()


def _ran_off():
    raise ScriptFault("a script ran past its last instruction")


def _helpers(program) -> dict:
    names = {
        "__builtins__": {},
        "_len": len, "_tuple": tuple, "_list": list, "_type": type, "_min": min, "_max": max,
        "_Zone": Zone, "_Thing": Thing, "_Event": Event, "_Decision": make_decision, "_MISS": _MISS,
        "_oos": _oos, "_deep": too_deep, "_no_player": no_player, "_ran_off": _ran_off,
        "_index": index_item, "_mod": remainder, "_div_up": divide_up, "_div_down": divide_down,
        "_owner": owner_of, "_text": World.text_of, "_check_nesting": check_nesting, "_narrate": narrate,
        "_not_entry": not_an_entry, "_behaviour": behaviour, "_ENTRIES": program.entries, "_FN": [], "_KIND": program.kinds,
        "_secret": secret_choice,
        "_DICE": program.dice,
        "_ACT": (), "_V": None, "_W": None, "_M": None, "_Z": None, "_G": None, "_O": None, "_P": None, "_E": None,
        "_steps": 0, "_B": INT_BOUND, "_NB": -INT_BOUND, "_L": MAX_LENGTH, "_sized": sized, "_int": int,
    }
    for i, builtin in enumerate(BUILTINS):
        names[f"_b{i}"] = builtin.impl
    names.update(field_tables(program))
    return names


# ------------------------------------------------------------------ the compiled module

class FastModule:
    """A program's functions as Python callables, sharing one globals dict."""

    def __init__(self, program, code, line_pcs: list, generators: set, depth):
        self.generators = generators               # functions that may suspend (Python generators)
        self.depth = depth                         # pysource.DepthPlan: which functions know their depth
        self.globals = _helpers(program)
        self.sources = list(program.functions)     # which Function each callable was made from
        self.filename = code.co_filename
        self.line_pcs = {self.filename: line_pcs}  # generated line -> (function, pc), per compiled chunk
        self.code = code
        self._ctx = None
        self._added: dict = {}  # compiled functions added after the pack's own (card-test steps)
        exec(code, self.globals)  # noqa: S102 - made by runtime/pysource.py: no content text but repr()s
        g = self.globals
        self.callables = [g[f"f{i}"] for i in range(len(program.functions))]
        self.base = len(self.callables)  # functions below this index never change; card tests add more
        # {index: callable} of the pack's own functions that never suspend: what a rating or
        # decider is, so `call` finds it in one look-up
        self.plain = {i: fn for i, fn in enumerate(self.callables) if i not in generators}
        g["_ACT"] = tuple(self.callables[a.body] for a in program.actions)
        g["_FN"] = self.callables  # behaviour calls find their function by index

    @classmethod
    def build(cls, program, force_dispatch: bool = False) -> "FastModule":
        """Translate and compile (tests force the dispatch layout to test it on real packs)."""
        from .pysource import analyse, translate
        ctx = analyse(program)
        source = translate(program, ctx=ctx, force_dispatch=force_dispatch)
        code = compile(source.text, f"<runebook fast {program.name}>", "exec")
        module = cls(program, code, source.line_pcs, ctx.generators, ctx.depth)
        module._ctx = ctx
        return module

    def function(self, program, index: int):
        """The callable for function `index`, translating functions added since (card tests)."""
        fn = program.functions[index]
        try:
            if self.sources[index] is fn:
                return self.callables[index]
        except IndexError:
            pass
        # A card test appends its steps to a copy of the program: translate just that one.
        # Many scenarios share steps (the same 'act' or 'expect' at the same place), so the
        # compiled step is kept by what decides its Python source.
        from .pysource import _Context, translate
        if self._ctx is None:
            self._ctx = _Context(program, self.generators, self.depth)
        self._ctx.program = program
        self._ctx.classify(index)
        key = (index, fn.nparams, fn.nlocals, repr(fn.code), _source_breaks(fn), index in self.generators,
               index in self.depth.counted)
        code = self._added.get(key)
        if code is None:
            source = translate(program, [index], self._ctx)
            filename = f"{self.filename} {len(self.line_pcs)}"
            code = self._added[key] = compile(source.text, filename, "exec")
            self.line_pcs[filename] = source.line_pcs  # lines -> (index, pc): the same for every copy
        exec(code, self.globals)  # noqa: S102
        while len(self.sources) <= index:
            self.sources.append(None)
            self.callables.append(None)
        self.sources[index] = fn
        self.callables[index] = self.globals[f"f{index}"]
        return self.callables[index]

    def frames(self, tb, functions) -> list:
        """(Function, pc) of each generated frame in a traceback, outermost first: the
        interpreter's frames at the same failure (a generated line knows its instruction)."""
        found = []
        while tb is not None:
            pcs = self.line_pcs.get(tb.tb_frame.f_code.co_filename)
            if pcs is not None and 0 < tb.tb_lineno <= len(pcs):
                index, pc = pcs[tb.tb_lineno - 1]
                found.append((functions[index], max(pc, 0)))
            tb = tb.tb_next
        return found


def _source_breaks(fn) -> tuple:
    """Where the source line (or inlined function) changes: the translator never puts two
    source lines on one generated line, so this shapes the source, not the lines' numbers
    (errors find those through the function of the program at hand)."""
    keys = [fn.source_at(pc) for pc in range(len(fn.code))]
    return tuple(pc for pc in range(1, len(keys)) if keys[pc] != keys[pc - 1])


def fast_module(program) -> FastModule:
    """The program's compiled module, made once per program (and shared by its copies)."""
    derived = program.derived
    if derived.fast_module is None:
        derived.fast_module = _cached_module(program) if derived.cache_key else FastModule.build(program)
    return derived.fast_module


# ------------------------------------------------------------------ disk cache
def _translator_digest() -> str:
    """A digest of the translator's own source: a changed translator never reads old modules."""
    from pathlib import Path
    from runebook.paths import code_digest
    here = Path(__file__).parent
    return code_digest(here / "pysource.py", here / "localflow.py", here / "structure.py", here / "ranges.py",
                       here / "fieldtables.py")


def _cache_name(program) -> str:
    tag = sys.implementation.cache_tag  # marshalled code is only valid for one Python version
    return f"{program.derived.cache_key}-{_translator_digest()}-{tag}.bin"


def _cached_module(program) -> FastModule:
    """From the disk cache, or built and stored there.

    Only programs loaded through the pack cache are cached: their derived.cache_key
    names exactly the bytecode translated (the pack's hash alone does not: a changed
    compiler makes other bytecode from the same pack). The entry is marshalled code, so it
    is only unmarshalled when this user's key signed it (base/paths.py): a file put
    there by anyone else is built again, never run.
    """
    from runebook.paths import read_signed, write_signed
    from .pysource import DepthPlan
    name = _cache_name(program)
    blob = read_signed("fast", name)
    if blob is not None:
        try:
            code, line_pcs, generators, counted, checked = marshal.loads(blob)
            return FastModule(program, code, line_pcs, set(generators), DepthPlan(set(counted), set(checked)))
        except Exception:  # noqa: BLE001 - signed but foreign (another build): build it again
            pass
    module = FastModule.build(program)
    payload = (module.code, module.line_pcs[module.filename], sorted(module.generators),
               sorted(module.depth.counted), sorted(module.depth.checked))
    try:
        write_signed("fast", name, marshal.dumps(payload))
    except OSError:
        pass  # caching is an optimisation; a read-only disk must not break play
    return module


# ------------------------------------------------------------------ the VM
# Python frames a match on the fast path may need above the point it starts: each
# script call is a Python call (up to 200 deep, generators adding a frame each), and
# comparing or narrating a value recurses up to scripting.MAX_NESTING levels (a few frames each).
PYTHON_HEADROOM = 1000


def _ensure_python_stack(frames: int) -> None:
    """Raise Python's recursion limit so `frames` more frames fit above this point.

    The interpreter keeps script frames in a list; the fast path must not fail
    earlier because its caller happened to be deep in Python's stack.
    """
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    if sys.getrecursionlimit() < depth + frames:
        sys.setrecursionlimit(depth + frames)


class FastVM:
    """Runs a program's functions as generated Python; same interface and behaviour as vm.VM."""

    def __init__(self, program, world, budget: int = DEFAULT_BUDGET, module: FastModule | None = None):
        self.program = program
        self.world = world
        self.budget = checked_budget(budget)
        self.module = module or fast_module(program)  # tests pass their own (e.g. force_dispatch)
        _ensure_python_stack(PYTHON_HEADROOM)
        self._globals = self.module.globals
        self._plain = self.module.plain
        self.memo: dict = {}
        self.answer_first = None  # per seat, (ask, view) or None: ask(view, player, group) answers ASK_FIRST
        self.result = None
        self.done = False
        self._gen = None
        self._entry = None

    def _bind(self) -> dict:
        """Point the module's globals at this VM's match. Callers test `g["_M"] is not
        self.memo` first and bind only then: a memo dict is only ever one VM's (its own, an
        aside's, or one of its seats' views'), so the globals hold this VM's world exactly
        when they hold its current memo."""
        g = self._globals
        world = self.world
        g.update(_V=self, _W=world, _M=self.memo, _Z=world.zones, _G=world.globals, _O=world.options,
                 _P=world.players_tuple, _E=world.entries)
        return g

    # ---------------------------------------------------------------- driving
    def start(self, fn_index: int, args=()) -> None:
        self._entry = (fn_index, tuple(args))
        self._gen = None
        self.done = False
        self.result = None

    def run(self) -> Optional[Decision]:
        return self.resume(None)

    def resume(self, answer) -> Optional[Decision]:
        """Run on with the answer to the last decision (none: start) until the next decision
        (returned) or the end (None); once per decision, so it does the least it can."""
        g = self._globals
        if g["_M"] is not self.memo:
            self._bind()
        g["_steps"] = self.budget
        try:
            gen = self._gen
            if gen is None:
                gen = self._started()
                if gen is None:
                    return None
                answer = None
            return gen.send(answer)
        except StopIteration as stop:
            self._finish(stop.value)
            return None
        except Exception as err:  # noqa: BLE001 - re-raised as the interpreter would, or unchanged
            raise self._script_error(err, self._entry[0]) from None
        finally:
            self.budget = g["_steps"]

    def _started(self):
        """The entry's generator, or None once an entry that cannot ask anything has run."""
        fn_index, args = self._entry
        fn = self.module.function(self.program, fn_index)
        if fn_index not in self.module.generators:
            self._finish(fn(*args))
            return None
        self._gen = fn(*args)
        return self._gen

    def _finish(self, value) -> None:
        self.result = value
        self.done = True
        self._gen = None

    def call(self, fn_index: int, args=()):
        """Run a function to completion (scores, ratings). It may not ask anything.

        Agents call this between runs only, and every run sets the budget it resumes
        with, so nothing needs restoring here (policies call it often).
        """
        g = self._globals
        if g["_M"] is not self.memo:
            self._bind()
        g["_steps"] = CALL_BUDGET
        try:
            fn = self._plain.get(fn_index)
            if fn is not None:
                return fn(*args)
            return self._call_any(fn_index, args)
        except ScriptError:
            raise
        except Exception as err:  # noqa: BLE001
            raise self._script_error(err, fn_index) from None

    def _call_any(self, fn_index: int, args):
        """`call`'s run of a function that may suspend, or one a card test added."""
        module = self.module
        fn = module.callables[fn_index] if fn_index < module.base else module.function(self.program, fn_index)
        if fn_index not in module.generators:
            return fn(*args)
        gen = fn(*args)
        try:
            gen.send(None)
        except StopIteration as stop:
            return stop.value
        raise no_choice_here(self.program.functions[fn_index])

    def call_each(self, calls) -> list:
        """`call` for each (fn_index, args) in turn, their answers in a list: a policy's
        ratings of one decision's options, bound once. Each runs with a budget of its own,
        as if called alone; the first to fail fails as `call` would, the rest unrun."""
        g = self._globals
        if g["_M"] is not self.memo:
            self._bind()
        plain = self._plain
        answers = []
        answer = answers.append
        fn_index = None
        try:
            for fn_index, args in calls:
                g["_steps"] = CALL_BUDGET
                fn = plain.get(fn_index)
                answer(fn(*args) if fn is not None else self._call_any(fn_index, args))
        except ScriptError:
            raise
        except Exception as err:  # noqa: BLE001
            raise self._script_error(err, fn_index) from None
        return answers

    def ask_first(self, player, group: str):
        """ASK_FIRST (vm.VM.ask_first): asked in the middle of a run, so the run's budget and
        bindings are put back afterwards (a rating's call sets both for itself)."""
        askers = self.answer_first
        if askers is None or player is None:
            return None
        asker = askers[player.seat]
        if asker is None:
            return None
        ask, view = asker
        g = self._globals
        steps = g["_steps"]
        try:
            return ask(view, player, group)
        finally:
            if g["_M"] is not self.memo:
                self._bind()
            g["_steps"] = steps

    def aside(self, fn_index: int, args=()):
        """Run a question in the middle of a run (a log line's narration), as `call` does,
        leaving the run's budget and memo as if it had never been asked (vm.VM.aside)."""
        g = self._globals
        steps, memo = g["_steps"], self.memo
        self.memo = {}
        try:
            return self.call(fn_index, args)
        finally:
            self.memo = g["_M"] = memo
            g["_steps"] = steps

    # ---------------------------------------------------------------- errors
    def _script_error(self, err: Exception, fn_index: int) -> Exception:
        """The interpreter's ScriptError for a failure inside generated code; other errors unchanged."""
        if isinstance(err, ScriptError) or not isinstance(err, SCRIPT_FAILURES):
            return err
        functions = self.program.functions
        return script_error(err, self.module.frames(err.__traceback__, functions) or [(functions[fn_index], 0)])


def make_vm(engine: str, program, world, budget: int = DEFAULT_BUDGET):
    """A VM for the named engine: 'fast' (generated Python) or 'interp' (the reference interpreter)."""
    if engine == "fast":
        return FastVM(program, world, budget)
    if engine == "interp":
        from .vm import VM
        return VM(program, world, budget)
    raise ValueError(f"unknown engine '{engine}' (engines: fast, interp)")


ENGINES = ("fast", "interp")
