"""Card tests: YAML scenarios that set up a state, act, and assert.

A scenario (format in docs/card-tests.md) runs in a fresh world:
  setup (file defaults) -> given -> do, with forced dice results ('rolls') and
  forced random numbers ('random')
  and scripted answers ('decisions'), then every 'expect' expression must be
  true. Code in the YAML is compiled against the pack's own symbols, with
  p1..pN bound to the players, so scenarios read like the rulebook. Unused
  forced rolls or decisions fail the scenario: a test must mean what it says.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from runebook.dsl.diagnostics import ContentError, Diagnostic
from runebook.dsl.span import Span


@dataclass
class ScenarioResult:
    file: str
    line: int
    name: str
    rule: str
    ok: bool
    failures: list = field(default_factory=list)
    narration: list = field(default_factory=list)
    trace: list = field(default_factory=list)  # a script error's call chain, innermost last
    # each false expect line: {"expect": code, "line": its line, "parts": [{"code", "value"}]}
    expects: list = field(default_factory=list)


# ---------------------------------------------------------------- locating tests
def _pack_of(path: Path) -> Path | None:
    for folder in [path.parent, *path.parents]:
        if (folder / "pack.yaml").is_file():
            return folder
    return None


def _targets(targets: list[str], pack: str | None = None) -> list[tuple[str, list]]:
    """[(pack reference, [(test file, its name in reports or None)])] in the order given.

    With `pack`, every target is a card-test file run against that pack wherever it is
    kept, and reports name it as the user did; nothing else outside the pack is read."""
    from runebook.compiler.pack import find_pack, read_pack
    from .compiled import SUFFIX

    for named in ([pack] if pack is not None else targets):
        if named.endswith(SUFFIX):
            raise ContentError([Diagnostic(
                "E0103", f"'{named}' is a compiled pack: card tests compile their code against the "
                         "pack's names, which only its source has", None,
                "give the pack's folder or built-in name (a compiled file plays: runebook play FILE)")])
    if pack is not None:
        root = find_pack(pack)
        if not targets:
            return _targets([str(root)])
        return [(str(root), [(Path(target), target) for target in targets])]
    plan: list = []
    for target in targets:
        path = Path(target)
        if path.is_file() and path.suffix in (".yaml", ".yml") and path.name != "pack.yaml":
            pack_dir = _pack_of(path.resolve())
            if pack_dir is None:
                raise ContentError([Diagnostic(
                    "E0103", f"'{target}' is not inside a pack (no pack.yaml above it)", None,
                    f"name the pack it tests: runebook test --pack PACK {target}")])
            plan.append((str(pack_dir), [(path, None)]))
            continue
        root = find_pack(target)
        diags: list = []
        source = read_pack(root, diags)
        if source is None:
            raise ContentError(diags)
        plan.append((str(root), [(path, None) for path in source.tests]))
    return plan


def watched_packs(targets: list[str], pack: str | None) -> list[str]:
    """The packs a run of these targets compiles (for --watch): --pack's, a test file's own."""
    if pack is not None:
        return [pack]
    return [str(_pack_of(Path(t).resolve()) or t) if Path(t).is_file() else t for t in targets]


# ---------------------------------------------------------------- code embedded in YAML
def _code_offsets(data, path: list, file: str, lines: list[str]) -> tuple[int, int, bool]:
    """(line offset, column offset, every_line) of a code string inside the YAML text."""
    from runebook.dsl.yaml_load import locate

    span = locate(data, path, file)
    row, col = span.line - 1, span.col - 1
    text = lines[row] if row < len(lines) else ""
    rest = text[col:].lstrip()
    if rest.startswith(("|", ">")):
        # Block scalar: the code starts on the next line, indented.
        nxt = row + 1
        while nxt < len(lines) and not lines[nxt].strip():
            nxt += 1
        indent = len(lines[nxt]) - len(lines[nxt].lstrip()) if nxt < len(lines) else 0
        return row + 1 + (nxt - row - 1), indent, True
    if rest.startswith(("'", '"')):
        col += 1
    return row, col, False


class _Suite:
    """One pack compiled from source (card tests need its symbol table)."""

    def __init__(self, root: Path, program, syms, types):
        self.root = root
        self.program = program
        self.syms = syms
        self.types = types

    @classmethod
    def compile(cls, pack_ref: str) -> "_Suite":
        from runebook.compiler.pack import compile_source, find_pack, read_and_hash

        diags: list = []
        root = find_pack(pack_ref)
        pack, phash = read_and_hash(root, diags)
        program, syms, types = compile_source(pack, diags, phash)
        if program is None:
            raise ContentError([d for d in diags if d.severity == "error"])
        return cls(root, program, syms, types)

    def _lift(self, fn) -> int:
        """A step's log line has a narration function: it joins the pack's functions,
        which every scenario's copy of the program starts from."""
        self.program.functions.append(fn)
        return len(self.program.functions) - 1

    def compile_code(self, code: str, file: str, offsets, n_players: int, piece: str, diags: list):
        """Compile a piece of a scenario: statements (setup, given, do), a boolean expression
        (expect) or an expression's value (a part of a failed expect, to show it)."""
        from runebook.compiler.snippets import compile_snippet

        players = [f"p{i + 1}" for i in range(n_players)]
        kind = piece if piece in ("expect", "value") else "stmts"
        return compile_snippet(self.syms, self.types, f"card test {piece}", code, file, offsets, players,
                               kind, diags, self._lift)


# ---------------------------------------------------------------- running
def _run_file(suite: _Suite, path: Path, display: str, engine: str) -> tuple[list, list]:
    from runebook.dsl.yaml_load import MAX_YAML_BYTES, read_text_file

    text = read_text_file(path, display, MAX_YAML_BYTES)  # E0102/E0104, never a UnicodeDecodeError
    results, diags = [], []
    for scenario in _compiled_scenarios(suite, text, display, diags):
        results.append(_run_scenario(suite, scenario, engine))
    return results, diags


def check_card_tests(root: Path, program, syms, types, text: str, display: str) -> list:
    """The diagnostics of a card-test file's text against its pack compiled from source, as
    running it would give them before any scenario runs (schema, options, every piece of
    code compiled); nothing is run."""
    suite, diags = _Suite(root, program, syms, types), []
    try:
        for _ in _compiled_scenarios(suite, text, display, diags):
            pass
    except ContentError as err:
        diags.extend(err.diagnostics)
    return diags


@dataclass
class _Scenario:
    """A scenario whose code compiled: ready to run."""
    result: ScenarioResult
    sc: dict
    n_players: int
    seed: int
    options: dict
    pieces: list            # [(key, Function)]: setup, given, do
    checks: list            # [(code, Function, line)]: the expect lines


def _compiled_scenarios(suite: _Suite, text: str, display: str, diags: list):
    """Each scenario of the file whose code compiles, in order; problems go to `diags`."""
    from runebook.compiler.schema import validate
    from runebook.dsl.yaml_load import load_yaml_text

    data = load_yaml_text(text, display)
    if not isinstance(data, dict):
        diags.append(Diagnostic("E0402", "a card-test file must be a mapping with 'scenarios'",
                                Span(display, 1, 1, 1, 2)))
        return
    problems = validate(data, "test", display)
    if problems:
        diags.extend(problems)
        return
    lines = text.splitlines()
    defaults = data.get("defaults") or {}
    for i, sc in enumerate(data["scenarios"]):
        scenario = _compile_scenario(suite, data, defaults, sc, i, display, lines, diags)
        if scenario is not None:
            yield scenario


def _compile_scenario(suite, data, defaults, sc, index, display, lines, diags):
    from runebook.dsl.yaml_load import locate
    from runebook.runtime.options import OptionError, resolve_options

    where = locate(data, ["scenarios", index], display)
    n_players = int(sc.get("players", defaults.get("players", suite.program.players["default"])))
    seed = int(sc.get("seed", defaults.get("seed", 1)))
    result = ScenarioResult(display, where.line, str(sc["name"]), str(sc["rule"]), True)
    try:
        options = resolve_options(suite.program, {**(defaults.get("options") or {}), **(sc.get("options") or {})})
    except OptionError as err:
        diags.append(Diagnostic("E0416", str(err), locate(data, ["scenarios", index, "options"], display)))
        return None

    for name in sc.get("decisions_for") or {}:
        if int(name[1:]) > n_players:
            diags.append(Diagnostic("E0426", f"'decisions_for' answers for {name}, but the scenario has "
                                    f"{n_players} player{'s' if n_players > 1 else ''}",
                                    locate(data, ["scenarios", index, "decisions_for", name], display),
                                    f"answer for p1..p{n_players}, or set 'players'"))
            return None

    # Compile every piece of code first: a typo is a diagnostic, not a failure.
    before = len(diags)
    pieces = []
    for key, path in (("setup", ["defaults", "setup"]), ("given", ["scenarios", index, "given"]),
                      ("do", ["scenarios", index, "do"])):
        code = defaults.get("setup") if key == "setup" else sc.get(key)
        if code:
            fn = suite.compile_code(str(code), display, _code_offsets(data, path, display, lines), n_players, key, diags)
            pieces.append((key, fn))
    checks = []
    for j, code in enumerate(sc["expect"]):
        offsets = _code_offsets(data, ["scenarios", index, "expect", j], display, lines)
        fn = suite.compile_code(str(code), display, offsets, n_players, "expect", diags)
        checks.append((str(code), fn, offsets[0] + 1))
    if len(diags) > before:
        return None
    return _Scenario(result, sc, n_players, seed, options, pieces, checks)


def _run_scenario(suite: _Suite, scenario: _Scenario, engine: str) -> ScenarioResult:
    from runebook.runtime.agents import AgentError, ScriptedAgent
    from runebook.runtime.fastvm import make_vm
    from runebook.runtime.visibility import SeatView
    from runebook.runtime.scripting import ScriptError
    from runebook.runtime.world import World

    result, sc, pieces, checks = scenario.result, scenario.sc, scenario.pieces, scenario.checks
    program = dataclasses.replace(suite.program, functions=list(suite.program.functions))
    world = World(program, scenario.seed, scenario.options, scenario.n_players)
    world.forced_rolls.extend(str(r) for r in sc.get("rolls", []))
    world.forced_numbers.extend(sc.get("random", []))
    vm = make_vm(engine, program, world)
    agent = ScriptedAgent(sc.get("decisions", []))
    # A player with answers of their own (decisions_for) takes them from their own queue:
    # how a secret choice, asked of every player in turn, is scripted seat by seat.
    own = {int(name[1:]) - 1: ScriptedAgent(answers) for name, answers in (sc.get("decisions_for") or {}).items()}
    players = tuple(world.players)

    def run(fn):
        program.functions.append(fn)
        vm.start(len(program.functions) - 1, players)
        decision = vm.run()
        while decision is not None:
            seat = decision.player.seat
            view = SeatView(vm, world, seat)
            answer = own.get(seat, agent).choose(decision, view)
            decision = vm.resume(decision.options[answer])

    expected_error = sc.get("expect_error")
    try:
        for key, fn in pieces:
            run(fn)
        if expected_error:
            result.failures.append(f"expected the error '{expected_error}', but everything ran")
    except ScriptError as err:
        if not expected_error or expected_error not in err.message:
            result.failures.append(f"script error: {err.message} (in {err.function}, {err.file}:{err.line})")
            result.trace = [{"frame": label, "file": file, "line": line, "col": col}
                            for label, file, line, col in err.chain]
    except AgentError as err:
        result.failures.append(f"decisions: {err}")
    if agent.used < len(agent.answers):
        result.failures.append(f"{len(agent.answers) - agent.used} scripted decision(s) were never asked for")
    for seat, scripted in sorted(own.items()):
        if scripted.used < len(scripted.answers):
            result.failures.append(f"{len(scripted.answers) - scripted.used} scripted decision(s) of p{seat + 1} "
                                   "were never asked for")
    for err in world.narration_failures:  # narrated and survived in a match, but a bug all the same
        result.failures.append(f"a log line failed: {err.message} (in {err.function}, {err.file}:{err.line})")
    if world.forced_rolls:
        result.failures.append(f"forced rolls never used: {', '.join(world.forced_rolls)}")
    if world.forced_numbers:
        result.failures.append(f"forced random numbers never used: {', '.join(map(str, world.forced_numbers))}")
    if not result.failures:
        false = []
        for code, fn, line in checks:
            program.functions.append(fn)
            try:
                ok = vm.call(len(program.functions) - 1, players)
            except ScriptError as err:
                result.failures.append(f"expect {code!r}: {err.message}")
                continue
            if ok is not True:
                result.failures.append(f"expected: {code}")
                false.append((code, line))
        # only once every line was judged: a part's call cannot change what a later line reads
        result.expects = [{"expect": code, "line": line, "parts": _parts(suite, scenario, vm, code, players)}
                          for code, line in false]
    result.ok = not result.failures
    result.narration = [n for n in world.narration if type(n) is not dict]  # the log lines, not "place" records
    return result


def _parts(suite: _Suite, scenario: _Scenario, vm, code: str, players: tuple) -> list:
    """[{code, value}] of the parts of a false expect line, each evaluated in the final state."""
    from runebook.runtime.scripting import ScriptError
    from .expect_parts import part_texts, shown

    out = []
    for text in part_texts(code):
        fn = suite.compile_code(text, scenario.result.file, (0, 0, False), scenario.n_players, "value", [])
        if fn is None:
            continue  # it reads a name bound inside the line: it has no value of its own
        vm.program.functions.append(fn)
        try:
            value = shown(vm.world, vm.call(len(vm.program.functions) - 1, players))
        except ScriptError as err:
            value = f"(error: {err.message})"
        if value != text:  # `p1 = p1`, `coin = coin` say nothing
            out.append({"code": text, "value": value})
    return out


def run_card_tests(targets: list[str], engine: str = "fast", pack: str | None = None) -> tuple[list, list]:
    """(scenario results, diagnostics) for packs or test files, run on the named engine;
    with `pack`, the targets are test files (kept anywhere) run against that pack."""
    from runebook.compiler.pack import display_name

    results, diags = [], []
    for pack_ref, files in _targets(targets, pack):
        suite = _Suite.compile(pack_ref)
        for path, shown in files:
            display = shown or display_name(path, suite.root)
            try:
                r, d = _run_file(suite, path, display, engine)
            except ContentError as err:
                r, d = [], err.diagnostics
            results.extend(r)
            diags.extend(d)
    return results, diags


def run_and_report(targets: list[str], fmt: str = "text", engine: str = "fast", pack: str | None = None) -> int:
    """Run, print a report, return the exit code (0 all passed, 1 otherwise)."""
    from .render import print_diagnostics

    try:
        results, diags = run_card_tests(targets, engine, pack)
    except ContentError as err:
        results, diags = [], err.diagnostics
    passed = sum(r.ok for r in results)
    failed = len(results) - passed
    if fmt == "json":
        print(json.dumps({"passed": passed, "failed": failed,
                          "diagnostics": [d.to_json() for d in diags],
                          "scenarios": [dataclasses.asdict(r) for r in results]}))
    else:
        if diags:
            print_diagnostics(diags)
        for r in results:
            mark = "ok  " if r.ok else "FAIL"
            print(f"{mark} {r.file}:{r.line}  {r.name}")
            if not r.ok:
                print(f"       rule: {r.rule}")
                explained = iter(r.expects)
                for f in r.failures:
                    print(f"       {f}")
                    if f.startswith("expected: "):
                        for part in next(explained)["parts"]:
                            print(f"         {part['code']} = {part['value']}")
                for frame in r.trace:  # innermost last
                    print(f"         at {frame['frame']} ({frame['file']}:{frame['line']}:{frame['col']})")
                for text in r.narration[-8:]:
                    print(f"       | {text}")
        print(f"{passed} passed, {failed} failed")
    has_errors = any(d.severity == "error" for d in diags)
    return 0 if failed == 0 and not has_errors and results else 1
