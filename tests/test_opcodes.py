"""One opcode table, one builtin registry: everything else must agree with them.

runtime/opcodes.OPS is the single source of truth for the bytecode. This file
proves that
  - the interpreter's dispatch, generated from the table (runtime/vm.py), tests
    each opcode once, within its range guard, and runs the body written for it;
    the table's effects (changes, spends) are what the bodies do;
  - the fast path's translator (runtime/pysource.py) translates exactly the
    opcodes of the table;
  - every opcode the compiler emits (`O.NAME`) exists in the table;
  - docs/bytecode.md and docs/builtins.md are what docs/gen_docs.py generates now;
  - dsl/codes.py explains every diagnostic code the sources can emit, and docs/diagnostics.md
    is what docs/gen_docs.py makes of it.
"""
from __future__ import annotations

import ast
import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from runebook.runtime import builtins as B
from runebook.runtime import opcodes as O

ROOT = Path(__file__).resolve().parent.parent


def dispatched_codes(source: str) -> list[tuple[int, range]]:
    """(code, range of its guard) of every `op == N` test in a generated dispatch, in order."""
    found = []

    def visit(node, lo, hi):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_op_compare(child.test):
                bound_op, value = type(child.test.ops[0]), child.test.comparators[0].value
                if bound_op is ast.Lt:
                    visit_body(child.body, lo, value)
                    visit_orelse(child.orelse, value, hi)
                    continue
                found.append((value, range(lo, hi)))
                visit_body(child.body, lo, hi)
                visit_orelse(child.orelse, lo, hi)
                continue
            visit(child, lo, hi)

    def visit_body(nodes, lo, hi):
        for n in nodes:
            visit(ast.Module(body=[n], type_ignores=[]), lo, hi)

    visit_orelse = visit_body
    visit(ast.parse(source), 0, 10**6)
    return found


def _is_op_compare(test) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "op"
            and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant))


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
def test_the_generated_dispatch_tests_each_opcode_once_inside_its_range():
    from runebook.runtime.vm import dispatch_source
    found = dispatched_codes(dispatch_source())
    codes = [code for code, _ in found]
    assert sorted(codes) == [op.code for op in O.OPS], "each opcode dispatched exactly once"
    assert codes == sorted(codes), "branches follow the table's order (its measured frequency)"
    assert all(code in guard for code, guard in found), "a branch under a guard that never selects it"


def test_every_opcode_has_one_interpreter_body_and_no_body_is_left_over():
    from runebook.runtime import vm
    assert set(vm.BODIES) == {op.name for op in O.OPS}
    broken = {k: v for k, v in vm.BODIES.items() if k != "POP"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vm, "BODIES", broken)
        with pytest.raises(AssertionError, match="POP"):
            vm.dispatch_source()


def test_the_table_says_which_bodies_spend_steps_and_which_change_the_game():
    from runebook.runtime import vm
    source = vm.dispatch_source()
    spending = {op.name for op in O.OPS if "SPEND" in vm.BODIES[op.name].split()}
    assert spending == {op.name for op in O.OPS if op.spends}
    for op in O.OPS:
        branch = source.split(f"# {op.name}\n", 1)[1].split("\n")[0].strip()
        assert (branch == "if memo:") == op.changes, op.name
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vm, "BODIES", {**vm.BODIES, "POP": "stack.pop()\nSPEND"})
        with pytest.raises(AssertionError, match="POP: the table says spends=False"):
            vm.dispatch_source()


def test_counting_adds_one_statement_after_each_fetch():
    from runebook.runtime.vm import dispatch_function, dispatch_source
    assert dispatch_source("COUNTS[op] += 1").count("COUNTS[op] += 1") == 1
    assert callable(dispatch_function("COUNTS[op] += 1", {"COUNTS": {}}))


def test_the_fast_path_translates_exactly_the_opcodes_of_the_table():
    from runebook.runtime.pysource import TRANSLATIONS
    names = {op.name for op in O.OPS}
    assert not names - set(TRANSLATIONS), f"opcodes the fast path cannot translate: {sorted(names - set(TRANSLATIONS))}"
    assert not set(TRANSLATIONS) - names, f"translations of unknown opcodes: {sorted(set(TRANSLATIONS) - names)}"


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
                if name in ("OPS", "BY_NAME", "OpInfo", "JUMP_TARGET", "jump_target", "with_jump_target",
                            "stack_effect", "VARIABLE_POPS", "PUSHES_ONLY_FALLING_THROUGH"):
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


# ---------------------------------------------------------------- stack effects
def test_every_compiled_function_keeps_the_stack_the_table_says():
    """compiler/stackcheck.py runs on every function as it is compiled; run it again here
    on every shipped pack, so a table row and the code emitted for it cannot disagree."""
    from runebook.compiler.pack import load_program
    from runebook.compiler.stackcheck import verify
    for pack in ("dungeon_roll", "shire", "dominaria"):
        for fn in load_program(pack, use_cache=False).functions:
            verify(fn.name, fn.code)


@pytest.mark.parametrize("code, complaint", [
    ([(O.POP, None), (O.CONST, 0), (O.RETURN, None)], "pops 1 values from a stack of 0"),
    # an if whose two arms leave different depths at the join
    ([(O.CONST, True), (O.JUMP_IF_FALSE, 3), (O.CONST, 1), (O.CONST, 2), (O.RETURN, None)],
     "reaches pc 3 with 1 values, another path with 0"),
    ([(O.CONST, 1), (O.POP, None)], "runs past the last instruction"),
    # a loop step's item is pushed only when the loop goes on: the exit must not expect it
    ([(O.CONST, ()), (O.ITER_START, (0, 1)), (O.FOR_ITER_LOAD, (0, 1, 2, 5, 2)), (O.POP, None), (O.JUMP, 2),
      (O.LOAD_LOCAL, 2), (O.POP, None), (O.CONST, 0), (O.RETURN, None)], None),
])
def test_the_stack_check_names_the_instruction_that_unbalances_it(code, complaint):
    from runebook.compiler.stackcheck import StackMismatch, verify
    if complaint is None:
        verify("loop", code)
        return
    with pytest.raises(StackMismatch, match=complaint):
        verify("broken", code)
