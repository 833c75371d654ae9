"""`runebook fmt` (dsl/formatter.py): one canonical layout that changes nothing else.

Properties, on every .rune file the repository ships and on generated programs (with
comments and scrambled indentation added): the formatted text parses to the same AST
(spans aside), formatting it again changes nothing, and its comments are the same
texts in the same order. A golden pair (tests/fmt/) pins the layout itself.
"""
from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.dsl.diagnostics import ContentError
from runebook.dsl.formatter import comments, format_source
from runebook.dsl.parser import parse_module
from runebook.dsl.span import Span

from programgen import SeededProgramGen, programs  # tests/programgen.py

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "fmt"
runner = CliRunner()


def shape(node):
    """An AST as nested tuples, without spans: what the program means, not where it sits."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(
            (f.name, shape(getattr(node, f.name))) for f in dataclasses.fields(node) if f.name != "span")
    if isinstance(node, (list, tuple)):
        return tuple(shape(x) for x in node)
    return node


def assert_formats_faithfully(text: str, name: str = "f.rune") -> str:
    formatted = format_source(text, name)
    assert shape(parse_module(formatted, name)) == shape(parse_module(text, name))
    assert format_source(formatted, name) == formatted
    assert comments(formatted, name) == comments(text, name)
    return formatted


def parsable_rune_files() -> list[Path]:
    files = sorted(ROOT.glob("content/**/*.rune")) + sorted(ROOT.glob("tests/packs/**/*.rune"))
    for path in sorted(ROOT.glob("tests/checker/*.rune")):
        try:
            parse_module(path.read_text(), path.name)
        except ContentError:
            continue  # a syntax-error example: nothing to format
        files.append(path)
    return files


SHIPPED = parsable_rune_files()


def test_the_shipped_files_are_found():
    packs = {p.relative_to(ROOT / "content").parts[0] for p in SHIPPED if "content" in p.parts}
    assert {"dungeon_roll", "dominaria", "shire"} <= packs


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_formats_faithfully(path):
    assert_formats_faithfully(path.read_text(), path.name)


def test_the_packs_are_formatted():
    unformatted = [str(p.relative_to(ROOT)) for p in ROOT.glob("content/**/*.rune")
                   if format_source(p.read_text(), p.name) != p.read_text()]
    assert unformatted == [], "run 'runebook fmt content'"


def test_golden_layout():
    messy = (GOLDEN / "messy.rune").read_text()
    expected = (GOLDEN / "messy.formatted").read_text()
    assert assert_formats_faithfully(messy) == expected


# ---------------------------------------------------------------- generated programs
def scramble(program: str, rng: random.Random) -> str:
    """The same program with comments on and between its lines and its indentation gone astray."""
    out = []
    for n, line in enumerate(program.splitlines()):
        if rng.random() < 0.2:
            out.append(" " * rng.randint(0, 6) + f"# note {n} above")
        if rng.random() < 0.1:
            out.append("")
        code = " " * rng.randint(0, 5) + line.strip()
        if rng.random() < 0.3:
            code += " " * rng.randint(0, 3) + f"# note {n} # after"
        out.append(code)
    return "\n".join(out) + "\n"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs(), seed=st.integers(0, 2**32))
def test_generated_programs_format_faithfully(program, seed):
    assert_formats_faithfully(scramble(program, random.Random(seed)))


def test_a_fixed_sample_of_generated_programs_formats_faithfully():
    for seed in range(15):
        rng = random.Random(seed)
        program = SeededProgramGen(rng).program()
        formatted = assert_formats_faithfully(scramble(program, rng))
        assert "# note" in formatted


def test_the_indentation_is_rebuilt():
    flat = "proc play() {\nif true {\nlog \"x\"\n}\n}\n"
    assert format_source(flat, "f.rune") == 'proc play() {\n  if true {\n    log "x"\n  }\n}\n'


def test_comments_are_listed_in_order():
    text = "# one\nzone a  # two\n\n   # three\nzone b\n"
    assert comments(text, "f.rune") == ["# one", "# two", "# three"]


# ---------------------------------------------------------------- the command
def test_check_lists_the_files_that_would_change_and_changes_nothing(tmp_path):
    messy = tmp_path / "messy.rune"
    tidy = tmp_path / "tidy.rune"
    messy.write_text("zone  a\n")
    tidy.write_text("zone b\n")
    result = runner.invoke(app, ["fmt", "--check", str(tmp_path)])
    assert result.exit_code == 1
    assert "messy.rune" in result.output and "tidy.rune" not in result.output
    assert messy.read_text() == "zone  a\n"


def test_fmt_rewrites_the_files_and_then_check_passes(tmp_path):
    messy = tmp_path / "messy.rune"
    messy.write_text("zone  a\n")
    result = runner.invoke(app, ["fmt", str(messy)])
    assert result.exit_code == 0, result.output
    assert messy.read_text() == "zone a\n"
    assert "1 file reformatted" in result.output
    assert runner.invoke(app, ["fmt", "--check", str(messy)]).exit_code == 0


def test_a_syntax_error_is_a_diagnostic_and_the_file_is_left_alone(tmp_path):
    broken = tmp_path / "broken.rune"
    broken.write_text("fn x( -> int {\n}\n")
    result = runner.invoke(app, ["fmt", str(broken)])
    assert result.exit_code == 1
    assert "E0200" in result.output and "broken.rune:1:7" in result.output
    assert broken.read_text() == "fn x( -> int {\n}\n"


def test_a_file_that_is_not_text_is_a_diagnostic(tmp_path):
    (tmp_path / "bin.rune").write_bytes(b"\xff\xfe zone")
    result = runner.invoke(app, ["fmt", str(tmp_path)])
    assert result.exit_code == 1 and "E0102" in result.output


def test_a_missing_path_is_a_usage_error(tmp_path):
    result = runner.invoke(app, ["fmt", str(tmp_path / "nowhere.rune")])
    assert result.exit_code == 2 and "nowhere.rune" in result.output
