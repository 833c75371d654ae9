"""One opcode table, one builtin registry: everything else must agree with them.

runtime/opcodes.OPS is the single source of truth for the bytecode. This file
proves that
  - the interpreter (runtime/vm.py) has exactly one dispatch branch per opcode,
    and each branch's comment names the opcode its number stands for;
  - the fast path's translator (runtime/pysource.py) translates exactly the
    opcodes of the table;
  - every opcode the compiler emits (`O.NAME`) exists in the table;
  - docs/bytecode.md and docs/builtins.md are what docs/gen_docs.py generates now;
  - dsl/codes.py explains every diagnostic code the sources can emit, and docs/diagnostics.md
    is what docs/gen_docs.py makes of it.
"""
from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O

ROOT = Path(__file__).resolve().parent.parent
VM_SOURCE = ROOT / "runtime" / "vm.py"

# `if op == 1:  # LOAD_LOCAL` or `elif op == 64 or op == 65:  # DECIDE, DECIDE_ACTION`
BRANCH = re.compile(r"^(\s*)(el)?if\s+(op\s*==\s*\d+(?:\s+or\s+op\s*==\s*\d+)*)\s*:\s*#\s*(.*?)\s*$")
# Range guards that split the dispatch into groups: `if op < 8:` ... `elif op < 16:` ... `else:`
GUARD = re.compile(r"^(\s*)(el)?if\s+op\s*<\s*(\d+)\s*:\s*(?:#.*)?$")
ELSE = re.compile(r"^(\s*)else\s*:\s*(?:#.*)?$")
ANY_OP_TEST = re.compile(r"^\s*(?:el)?if\s+op\b")
INF = float("inf")


def dispatch_branches(source: str) -> list[tuple[int, list[int], list[str]]]:
    """(line, opcode numbers, names from the comment) of every dispatch branch.

    Range guards (`if op < 8:` / `elif op < 16:` / `else:`) may group the
    branches; every branch must then lie inside the range of its guard, or it
    could never run.
    """
    branches = []
    ranges: list[tuple[int, float, float]] = []       # (indent of guard, lo, hi) of guard bodies we are in
    chains: dict[int, tuple[float, float, float]] = {}  # indent -> (parent lo, parent hi, last bound)
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        while ranges and ranges[-1][0] >= indent:
            ranges.pop()
        for i in [i for i in chains if i > indent]:
            del chains[i]
        lo, hi = (ranges[-1][1], ranges[-1][2]) if ranges else (0, INF)
        guard, other_else = GUARD.match(line), ELSE.match(line)
        if guard:
            bound = int(guard.group(3))
            if guard.group(2) and indent in chains:
                parent_lo, parent_hi, start = chains[indent]
            else:
                parent_lo, parent_hi, start = lo, hi, lo
            assert start < bound <= parent_hi, f"runtime/vm.py:{number}: guard 'op < {bound}' selects nothing"
            ranges.append((indent, start, bound))
            chains[indent] = (parent_lo, parent_hi, bound)
            continue
        if other_else and indent in chains:
            _, parent_hi, start = chains.pop(indent)
            ranges.append((indent, start, parent_hi))
            continue
        if not ANY_OP_TEST.match(line):
            if not stripped.startswith(("elif", "else")):
                chains.pop(indent, None)
            continue
        m = BRANCH.match(line)
        assert m, f"runtime/vm.py:{number}: a dispatch branch must read " \
                  f"'elif op == N:  # NAME' (or 'op == N or op == M:  # A, B'), not: {stripped}"
        if m.group(2) and indent in chains:  # an equality branch after range guards of the same chain
            lo = chains[indent][2]
        codes = [int(n) for n in re.findall(r"\d+", m.group(3))]
        names = [n.strip() for n in m.group(4).split(",")]
        outside = [c for c in codes if not lo <= c < hi]
        assert not outside, f"runtime/vm.py:{number}: op {outside} sits under a guard for {lo}..{hi}: never reached"
        branches.append((number, codes, names))
    return branches


# ---------------------------------------------------------------- the table itself
def test_table_is_dense_and_unique():
    assert [op.code for op in O.OPS] == list(range(len(O.OPS)))
    names = [op.name for op in O.OPS]
    assert len(set(names)) == len(names)
    for op in O.OPS:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", op.name)
        assert getattr(O, op.name) == op.code and O.BY_NAME[op.name] is op
        assert op.pops is None or op.pops >= 0
        assert op.pushes >= 0
        assert op.doc.strip() and op.doc.rstrip().endswith(".")


def test_variable_stack_effects_depend_on_the_operand():
    """pops=None is only for opcodes whose operand says how many values they take."""
    for op in O.OPS:
        if op.pops is None:
            assert op.operand, op.name


# ---------------------------------------------------------------- the interpreter
def test_every_opcode_has_exactly_one_dispatch_branch():
    branches = dispatch_branches(VM_SOURCE.read_text())
    seen = Counter(code for _, codes, _ in branches for code in codes)
    duplicated = sorted(code for code, n in seen.items() if n > 1)
    assert not duplicated, f"opcodes dispatched twice: {[O.OPS[c].name for c in duplicated]}"
    missing = [op.name for op in O.OPS if op.code not in seen]
    assert not missing, f"opcodes without a dispatch branch in runtime/vm.py: {missing}"
    unknown = sorted(set(seen) - {op.code for op in O.OPS})
    assert not unknown, f"runtime/vm.py dispatches numbers that are not in the table: {unknown}"


def test_dispatch_comments_name_the_opcode_of_each_number():
    wrong = []
    for line, codes, names in dispatch_branches(VM_SOURCE.read_text()):
        table_names = [O.OPS[c].name if c < len(O.OPS) else f"<{c}>" for c in codes]
        if names != table_names:
            wrong.append(f"runtime/vm.py:{line}: op {codes} is {table_names}, the comment says {names}")
    assert not wrong, "\n".join(wrong)


def test_the_fast_path_translates_exactly_the_opcodes_of_the_table():
    from runebook.runtime.pysource import TRANSLATIONS
    names = {op.name for op in O.OPS}
    assert not names - set(TRANSLATIONS), f"opcodes the fast path cannot translate: {sorted(names - set(TRANSLATIONS))}"
    assert not set(TRANSLATIONS) - names, f"translations of unknown opcodes: {sorted(set(TRANSLATIONS) - names)}"


def test_the_parser_of_branches_is_not_fooled():
    source = "if op == 1:  # LOAD_LOCAL\nelif op == 64 or op == 65:  # DECIDE, DECIDE_ACTION\n" \
             "    kind = 'action' if op == 65 else 'choice'\n"
    assert dispatch_branches(source) == [(1, [1], ["LOAD_LOCAL"]), (2, [64, 65], ["DECIDE", "DECIDE_ACTION"])]
    with pytest.raises(AssertionError):
        dispatch_branches("elif op in (1, 2):  # A, B\n")


def test_range_guards_are_followed():
    source = """\
if op < 2:
    if op == 0:  # A
        x = 1
    elif op == 1:  # B
        if x:
            y = 2
        else:
            y = 3
elif op < 4:
    if op == 2 or op == 3:  # C, D
        pass
else:
    if op == 4:  # E
        pass
"""
    assert [codes for _, codes, _ in dispatch_branches(source)] == [[0], [1], [2, 3], [4]]
    misplaced = source.replace("if op == 2 or op == 3:  # C, D", "if op == 1 or op == 3:  # B, D")
    with pytest.raises(AssertionError, match="never reached"):
        dispatch_branches(misplaced)
    late = source.replace("if op == 4:  # E", "if op == 0:  # A")
    with pytest.raises(AssertionError, match="never reached"):
        dispatch_branches(late)


# ---------------------------------------------------------------- the emitter
def emitter_sources() -> list[Path]:
    """Every module that imports the opcode table as O (the compiler, and any other emitter)."""
    found = []
    for folder in ("compiler", "dsl", "runtime", "cli"):
        for path in sorted((ROOT / folder).glob("*.py")):
            if re.search(r"import opcodes as O\b", path.read_text(encoding="utf-8")):
                found.append(path)
    return found


def test_the_compiler_emits_through_the_table():
    sources = emitter_sources()
    names = {p.name for p in sources}
    assert {"codegen.py", "bodies.py"} <= names


def test_every_emitted_opcode_exists():
    unknown = []
    used = set()
    for path in emitter_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for name in re.findall(r"\bO\.([A-Za-z_][A-Za-z0-9_]*)", line):
                if name in ("OPS", "BY_NAME", "OpInfo", "JUMP_TARGET", "jump_target", "with_jump_target"):
                    continue
                used.add(name)
                if name not in O.BY_NAME:
                    unknown.append(f"{path.relative_to(ROOT)}:{number}: O.{name}")
    assert not unknown, "opcodes used but not in runtime/opcodes.py:\n" + "\n".join(unknown)
    assert len(used) > 40


def test_emitted_code_uses_only_table_opcodes():
    """What the compiler really produces for Dungeon Roll: every (op, arg) is in the table."""
    from runebook.compiler.pack import compile_pack

    program, diags, _ = compile_pack("dungeon_roll")
    assert program is not None, [str(d) for d in diags]
    used = Counter(op for fn in program.functions for op, _ in fn.code)
    assert set(used) <= {op.code for op in O.OPS}
    assert all(len(fn.lines) == len(fn.code) for fn in program.functions)


def test_a_conditional_jump_backward_is_refused():
    """The budget is spent by backward JUMPs (and calls) alone: every turn of a loop,
    a `continue`, a `where` or `require` filter included, must pass one. A conditional
    jump going backward would make a turn that spends nothing, so the compiler refuses
    to emit one (every pack and generated program the tests compile is checked)."""
    from runebook.compiler.peephole import optimise

    looping = [(O.CONST, True), (O.JUMP_IF_TRUE, 0), (O.CONST, None), (O.RETURN, None)]
    with pytest.raises(RuntimeError, match="conditional jumps go backward at \\[1\\]"):
        optimise(looping, [1, 1, 1, 1])


def test_a_jump_threaded_into_a_back_edge_takes_the_loops_line():
    """A JUMP to the loop's back-edge goes straight to the loop's head instead, and so turns
    back itself: it spends the step there, so it must carry the back-edge's line (the loop's),
    or running out of steps would be reported at another line depending on which path
    reached the back-edge (a log line that a quiet match skips, for one)."""
    from runebook.compiler.peephole import optimise

    code = [(O.CONST, True),             # 0  line 10: while true {
            (O.JUMP_IF_FALSE, 6),        # 1  line 10
            (O.CONST, 1),                # 2  line 11:   if ... {
            (O.JUMP_IF_FALSE, 5),        # 3  line 11
            (O.JUMP, 5),                 # 4  line 12:     ... }  (to the back-edge)
            (O.JUMP, 0),                 # 5  line 10: the back-edge
            (O.CONST, None), (O.RETURN, None)]
    lines = [10, 10, 11, 11, 12, 10, 13, 13]
    out, out_lines = optimise(code, lines)
    assert out[4] == (O.JUMP, 0) and out_lines[4] == 10
    assert out[3] == (O.JUMP_IF_FALSE, 5)  # a conditional jump is not threaded backward


# ---------------------------------------------------------------- builtins
def test_builtin_registry_is_consistent():
    assert list(B.BY_NAME) == [b.name for b in B.BUILTINS]
    assert B.INDEX == {b.name: i for i, b in enumerate(B.BUILTINS)}
    for b in B.BUILTINS:
        assert re.fullmatch(r"[a-z_][a-z0-9_]*", b.name)
        assert b.doc.strip() and b.example.startswith(f"{b.name}(")
        assert callable(b.impl)


def test_builtin_examples_are_calls_with_the_right_arity():
    """Each builtin's example (shown in docs/builtins.md) parses as a call of that builtin."""
    from runebook.dsl.parser import parse_expr

    for b in B.BUILTINS:
        call = parse_expr(b.example, "builtins")
        assert call.name == b.name and len(call.args) == len(b.params), b.name


# ---------------------------------------------------------------- generated docs
def load_gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "docs" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["bytecode.md", "builtins.md", "diagnostics.md"])
def test_generated_docs_are_up_to_date(page):
    gen = load_gen_docs()
    committed = (ROOT / "docs" / page).read_text(encoding="utf-8")
    assert committed == gen.GENERATED[page](), \
        f"docs/{page} is out of date: run 'python docs/gen_docs.py' and commit the result"


def test_bytecode_page_lists_every_opcode():
    text = load_gen_docs().bytecode_markdown()
    for op in O.OPS:
        assert f"| {op.code} | `{op.name}` |" in text


def test_builtins_page_lists_every_builtin():
    text = load_gen_docs().builtins_markdown()
    for b in B.BUILTINS:
        assert f"`{b.name}(" in text and b.example in text


# ---------------------------------------------------------------- diagnostics page
CODE_TABLE = ROOT / "dsl" / "codes.py"


def emitted_codes() -> dict[str, list[str]]:
    """Every diagnostic code written as a string literal in the engine's sources (the table of
    codes aside, which names them all)."""
    codes: dict[str, list[str]] = {}
    for folder in ("dsl", "compiler", "runtime", "cli", "base"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == CODE_TABLE:
                continue
            for code in re.findall(r"[\"']([EWN]0\d{3})[\"']", path.read_text(encoding="utf-8")):
                codes.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return codes


def test_every_emitted_code_is_in_the_table_and_every_code_in_it_is_emitted():
    from runebook.dsl.codes import CODES
    emitted = emitted_codes()
    assert len(emitted) > 50
    missing = {code: files for code, files in emitted.items() if code not in CODES}
    assert not missing, f"codes emitted but missing from dsl/codes.py: {missing}"
    assert set(CODES) - set(emitted) == set(), "dsl/codes.py explains codes nothing emits"


def test_diagnostics_page_documents_every_code():
    page = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^#+\s*([EWN]0\d{3})\b", page, re.M))
    missing = {code: files for code, files in emitted_codes().items() if code not in documented}
    assert not missing, f"codes emitted but not documented in docs/diagnostics.md: {missing}"
