"""Golden checker tests, clox style: expectations are comments in tests/checker/*.rune.

    let a = xp_totl + 1     # expect: E0301 unknown name 'xp_totl' | did you mean 'xp_total'?

expects a diagnostic on that line with that code, whose message contains the
text before ' | ' and whose hint contains the text after it. Several
'# expect:' may share a line. '# expect-unplaced: CODE message' expects a
diagnostic without a position (pack-level problems). Every diagnostic must be
expected, and every expectation met by exactly one diagnostic.

Each file is compiled as a pack of its own. A 'contract.rune' supplies
`proc play() {}` and `fn score(p: player) -> int { return 0 }` unless the
file declares them itself, or says '# pack: no-contract'.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from runebook.compiler.pack import compile_pack

from packmaker import write_pack  # tests/packmaker.py

CASES = Path(__file__).resolve().parent / "checker"
EXPECT = re.compile(r"#\s*expect(-unplaced)?:\s*(.*?)(?=\s*#\s*expect(?:-unplaced)?:|$)")


@dataclass(frozen=True)
class Expectation:
    line: Optional[int]  # None: a diagnostic without a position
    code: str
    message: str
    hint: Optional[str]

    def matches(self, d) -> bool:
        line = d.span.line if d.span is not None else None
        if line != self.line or d.code != self.code or self.message not in d.message:
            return False
        return self.hint is None or (d.hint is not None and self.hint in d.hint)

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "no position"
        hint = f" | {self.hint}" if self.hint else ""
        return f"{where}: {self.code} {self.message}{hint}"


def expectations(text: str) -> list[Expectation]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        for unplaced, body in EXPECT.findall(line):
            code, _, rest = body.strip().partition(" ")
            message, _, hint = rest.partition(" | ")
            out.append(Expectation(None if unplaced else number, code, message.strip(), hint.strip() or None))
    return out


def compile_case(path: Path, tmp: Path):
    text = path.read_text(encoding="utf-8")
    sources = {path.name: text}
    if "# pack: no-contract" not in text:
        contract = []
        if not re.search(r"^proc play\(", text, re.M):
            contract.append("proc play() {}")
        if not re.search(r"^fn score\(", text, re.M):
            contract.append("fn score(p: player) -> int { return 0 }")
        sources["contract.rune"] = "\n".join(contract) + "\n"
    root = write_pack(tmp / "checker_case", sources, dedent=False)
    program, diags, _ = compile_pack(str(root))
    return program, diags


def describe(d) -> str:
    where = f"line {d.span.line}" if d.span is not None else "no position"
    return f"{where}: {d.code} {d.message} | {d.hint}"


CASE_FILES = sorted(CASES.glob("*.rune"))


def test_there_are_many_cases():
    assert len(CASE_FILES) >= 20


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_checker_case(path: Path, tmp_path: Path):
    program, diags = compile_case(path, tmp_path)
    for d in diags:
        assert d.span is None or d.span.file.endswith(path.name), f"diagnostic outside the case: {d}"
    expected = expectations(path.read_text(encoding="utf-8"))
    unmatched = list(diags)
    missing = []
    for e in expected:
        hits = [d for d in unmatched if e.matches(d)]
        if not hits:
            missing.append(e)
            continue
        unmatched.remove(hits[0])
    problems = [f"missing   {e}" for e in missing] + [f"unexpected {describe(d)}" for d in unmatched]
    assert not problems, "\n".join(problems)
    if not any(d.severity == "error" for d in diags):
        assert program is not None  # only errors stop a pack from compiling; warnings do not


def test_expectation_syntax():
    text = "let a = 1  # expect: E0301 unknown name 'a' | did you mean 'b'?  # expect: E0310 two\n" \
           "# expect-unplaced: E0411 the pack has no 'play'\n"
    assert expectations(text) == [
        Expectation(1, "E0301", "unknown name 'a'", "did you mean 'b'?"),
        Expectation(1, "E0310", "two", None),
        Expectation(None, "E0411", "the pack has no 'play'", None),
    ]


def test_clean_case_compiles_to_a_program(tmp_path):
    program, diags = compile_case(CASES / "clean.rune", tmp_path)
    assert diags == [] and program is not None
    assert set(program.entry_points) == {"play", "score", "tiebreak", "title"}
    assert program.options["play_as"]["choices"] == ["at_random", "knight", "rogue"]


def test_diagnostics_are_sorted_out_by_file_and_position(tmp_path):
    """Every positioned diagnostic of every case has a 1-based line and column."""
    for path in CASE_FILES:
        case_dir = tmp_path / path.stem
        case_dir.mkdir()
        _, diags = compile_case(path, case_dir)
        for d in diags:
            if d.span is not None:
                assert d.span.line >= 1 and d.span.col >= 1, (path.name, d)
            assert re.fullmatch(r"[EWN]0\d{3}", d.code), d


def test_every_warning_has_a_golden_case_and_every_expected_code_is_explained():
    """Each lint of the registry (dsl/codes.py, W03xx) is shown firing by a case here, and
    every code a case expects is one `runebook explain` knows."""
    from runebook.dsl.codes import CODES
    expected = {e.code for path in CASE_FILES for e in expectations(path.read_text(encoding="utf-8"))}
    assert expected <= set(CODES), sorted(expected - set(CODES))
    warnings = {code for code in CODES if code.startswith("W")}
    assert warnings and warnings <= expected, sorted(warnings - expected)
