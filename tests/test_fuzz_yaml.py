"""YAML-side fuzzing: pack manifests, card-test files and match logs never crash runebook.

Like tests/test_fuzz.py for the grammar, Hypothesis writes documents — here near
the shapes runebook expects (the keys of pack.yaml and of card tests, with odd
values: paths leaving the pack, globs, NUL bytes, huge numbers, aliases, deep
nesting) and plain noise — and the only acceptable outcomes are a result or
diagnostics: every failure a Diagnostic with a code, never an exception. Logs
go through the real `replay` command (in process), whose only acceptable exit
codes are 0, 1 and 2. ~200 examples each keeps the file to a few seconds.
"""
from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from runebook.cli.cardtests import run_card_tests
from runebook.cli.main import app
from runebook.compiler.pack import compile_pack
from runebook.dsl.diagnostics import Diagnostic

from packmaker import CONTRACT, PICK_ONE, write_pack  # tests/packmaker.py
from programgen import SeededProgramGen, compile_generated  # tests/programgen.py

FUZZ = settings(max_examples=200, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------- documents
_ODD_TEXT = st.sampled_from(["", " ", "~", "null", "yes", "0x1F", "1e400", "\x00", "é", "\t", "a: b", "- x",
                             "{", "[", "'", '"', "&a", "*a", "!!python/object:os.system", "%YAML 1.1", "---"])
_PATHS = st.sampled_from(["*.rune", "**/*.rune", "tests/*.yaml", "../*", "../../etc/passwd", "/etc/*", "/",
                          "a**", "**", ".", "..", "~/x", "C:\\x", "rules/../../x", "\x00", "*" * 50,
                          "tests/**/*.yaml", "nope/*.rune"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from([10**400, -1, 0, 17]),
                     st.text(max_size=12), _ODD_TEXT, _PATHS)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                       max_leaves=12)


def _yaml_value(value, clean: bool = False) -> str:
    """A value as YAML flow text (JSON is YAML), big numbers and all; `clean` escapes every
    character YAML would refuse raw (control characters)."""
    return json.dumps(value, ensure_ascii=clean)


@st.composite
def yaml_documents(draw, keys: dict) -> str:
    """A mapping near `keys` ({key: strategy of a value}): some keys left out, some values
    swapped for anything, unknown keys, then sometimes an alias bomb, noise or deep nesting."""
    lines = []
    clean = draw(st.booleans())  # half the documents have the right shape: the paths past validation run too
    for key, values in keys.items():
        if not clean and draw(st.integers(0, 9)) == 0:
            continue
        value = draw(st.one_of(values, _VALUES) if not clean and draw(st.booleans()) else values)
        lines.append(f"{key}: {_yaml_value(value, clean)}")
    if clean:
        return "\n".join(lines) + "\n"
    for key, value in draw(st.dictionaries(st.text("abcdefxyz_", min_size=1, max_size=8), _VALUES, max_size=2)).items():
        lines.append(f"{key}: {_yaml_value(value)}")
    extra = draw(st.sampled_from(["", "anchors", "bomb", "noise", "deep", "tab", "dup", "tag"]))
    if extra == "anchors":
        lines += ["x_a: &a [1, 2]", "x_b: [*a, *a]"]
    elif extra == "bomb":
        lines.append('x0: &x0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]')
        lines += [f"x{i}: &x{i} [" + ",".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 8)]
    elif extra == "noise":
        lines.insert(draw(st.integers(0, len(lines))), draw(st.text(max_size=30)))
    elif extra == "deep":
        lines.append("x_deep: " + "[" * 3000 + "]" * 3000)
    elif extra == "tab":
        lines.append("\tx_tab: 1")
    elif extra == "tag":  # scalars the loader builds into other types, or fails to
        key = draw(st.sampled_from(list(keys) + ["x_tag"]))
        lines.append(f"{key}: " + draw(st.sampled_from([
            "!!timestamp 2001-13-45", "2001-12-14", "!!binary aGVsbG8=", "!!set {a, b}", "!!float .nan", ".inf",
            "!!python/object/apply:os.system ['true']", "!!omap [{a: 1}]", "9" * 5000, "0x" + "f" * 5000,
            "!!int x", "!!str", "<<: {a: 1}"])))
    elif extra == "dup" and lines:
        lines.append(lines[0])
    return "\n".join(lines) + "\n"


def _ok(diags) -> None:
    assert all(isinstance(d, Diagnostic) and re.fullmatch(r"[EWN]0\d{3}", d.code) for d in diags), diags


# ---------------------------------------------------------------- pack manifests
_PLAYERS = st.fixed_dictionaries({"min": st.integers(-1, 20), "max": st.integers(-1, 20)},
                                 optional={"default": st.integers(-1, 20)})
MANIFEST_KEYS = {
    "name": st.sampled_from(["fuzz", "Fuzz Pack", "", "a" * 300]),
    "title": st.sampled_from(["Fuzz", "", "\x00"]),
    "version": st.one_of(st.just("1"), st.integers(), st.floats(allow_nan=True)),
    "players": _PLAYERS,
    "sources": st.lists(_PATHS, max_size=3),
    "tests": st.lists(_PATHS, max_size=3),
    "include": st.lists(st.sampled_from([".", "..", "../other", "/", "/etc", "nope"]), max_size=2),
    "description": st.text(max_size=20),
}


@FUZZ
@given(text=yaml_documents(MANIFEST_KEYS))
def test_pack_manifests_give_a_program_or_diagnostics(text):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "fuzz"
        write_pack(root, {"main.rune": CONTRACT, "tests/t.yaml": "scenarios: []\n"}, pack_yaml=text, dedent=False)
        (Path(folder) / "other").mkdir()
        program, diags, _ = compile_pack(str(root))
        _ok(diags)
        assert program is not None or any(d.severity == "error" for d in diags)
        for d in diags:  # whatever the manifest names, nothing outside the pack is shown
            assert "root:" not in d.message


# ---------------------------------------------------------------- card tests
# Steps and assertions over the names every generated program declares (tests/programgen.py HEADER).
_CODE = st.one_of(st.sampled_from(["", "let x = 1", "g_n += 1", "p1.pv += 2", "g_l = g_l + [1]", "move to",
                                   "log 3", "\x00", "}", "x" * 100, "g_n >= 0", "len(g_l) == 0", "g_s == red",
                                   "count(t in table) > 0", "bonus * 2 == 4", "p1.pv / 0 rounded up == 1"]),
                  st.text(max_size=20))
_GOOD_STEP = st.sampled_from(["g_n += 1", "p1.pv += 2", "g_l = g_l + [1]", "g_s = blue", "let x = 1"])
_STEP = st.one_of(_GOOD_STEP, _GOOD_STEP, _GOOD_STEP, _CODE)  # mostly steps that compile
_GOOD_EXPECT = st.sampled_from(["g_n >= 0", "len(g_l) >= 0", "g_s == red", "p1.pv >= 0", "bonus == 2",
                                "count(t in table) >= 0", "g_n == 1", "p1.pv / 0 rounded up == 1"])
_EXPECT = st.one_of(_GOOD_EXPECT, _GOOD_EXPECT, _GOOD_EXPECT, _CODE)
_SCENARIO = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=8), "rule": st.text(min_size=1, max_size=8),
     "expect": st.lists(_EXPECT, min_size=1, max_size=3)},
    # players: mostly valid, so the clean half of the documents gets past validation and runs
    # scenarios whatever constants Hypothesis mixes into its draws (they vary with the code
    # loaded); 0 stays among them, to be refused
    optional={"players": st.sampled_from([1, 2, 3, 1, 2, 3, 0]), "seed": st.integers(-2**70, 2**70),
              "options": st.dictionaries(st.sampled_from(["bonus", "mode", "zz"]), _SCALARS, max_size=2),
              "given": _STEP, "do": _STEP, "rolls": st.lists(st.text(max_size=5), max_size=3),
              "random": st.lists(st.integers(-5, 2**70), max_size=3),
              "decisions": st.lists(st.one_of(st.integers(-3, 5), st.text(max_size=5)), max_size=4),
              "expect_error": st.text(max_size=8)})
TEST_KEYS = {
    "defaults": st.fixed_dictionaries({}, optional={"players": st.integers(1, 3), "setup": _STEP,
                                                    "options": st.dictionaries(st.just("bonus"), _SCALARS,
                                                                               max_size=1)}),
    # At least one scenario: an empty list says nothing a list of noise (above) does not, and
    # the share of files that run (test_card_test_fuzz_runs_scenarios_too) must not hang on
    # how often Hypothesis draws one (what it draws shifts with the constants of every
    # module loaded before: other tests, other code).
    "scenarios": st.lists(_SCENARIO, min_size=1, max_size=3),
}


@pytest.fixture(scope="module")
def card_pack(tmp_path_factory):
    """A pack written by the program generator (tests/programgen.py), shared with the
    differential tests: card tests run against a real, well-typed program."""
    text = SeededProgramGen(random.Random(2)).program()
    compile_generated(text)  # well typed, or the generator is at fault
    return write_pack(tmp_path_factory.mktemp("cards") / "cards", {"gen.rune": text}, dedent=False)


# Files made only of parts that validate: drawn as often as the fuzzy ones, so how many files
# run scenarios (test_card_test_fuzz_runs_scenarios_too) does not hang on the odds of every
# fuzzy part of a file coming out valid, which move with what Hypothesis mixes into its draws
# (constants of every module loaded before: other tests, other code).
_WELL_FORMED_SCENARIO = st.fixed_dictionaries(
    {"name": st.sampled_from(["one", "two"]), "rule": st.sampled_from(["a rule"]),
     "expect": st.lists(_GOOD_EXPECT, min_size=1, max_size=3)},
    optional={"players": st.sampled_from([1, 2, 3]), "given": _GOOD_STEP, "do": _GOOD_STEP})
WELL_FORMED_TEST_KEYS = {"scenarios": st.lists(_WELL_FORMED_SCENARIO, min_size=1, max_size=3)}


@FUZZ
@given(text=st.one_of(yaml_documents(TEST_KEYS), yaml_documents(WELL_FORMED_TEST_KEYS)))
def test_card_test_files_give_results_or_diagnostics(card_pack, text):
    path = card_pack / "tests" / "fuzz.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    results, diags = run_card_tests([str(path)], engine="interp")
    _ok(diags)
    assert all(r.ok in (True, False) for r in results)
    _RAN.append(bool(results))


_RAN: list = []  # whether each card-test file above ran a scenario


def test_card_test_fuzz_runs_scenarios_too():
    """The fuzzer is worth its time: a good share of its files get past validation and
    run scenarios (uses the examples of the test above, run before it)."""
    if len(_RAN) < 50:
        pytest.skip("run together with test_card_test_files_give_results_or_diagnostics")
    assert sum(_RAN) >= 0.05 * len(_RAN), f"only {sum(_RAN)}/{len(_RAN)} fuzzed card-test files ran a scenario"


# ---------------------------------------------------------------- logs
runner = CliRunner()


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A real log of a small match, to mutate."""
    folder = tmp_path_factory.mktemp("logs")
    pack = write_pack(folder / "tiny", {"main.rune": PICK_ONE})
    log = folder / "match.jsonl"
    result = runner.invoke(app, ["play", str(pack), "--seed", "3", "--players", "2", "--log", str(log)])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in log.read_text().splitlines()]


def _record(line: str) -> dict:
    """A log line as a record, or {} when an earlier change left it no record (noise, truncated)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # a damaged line, or one nested past Python's stack
        return {}
    return record if isinstance(record, dict) else {}


@st.composite
def logs(draw, records: list) -> str:
    """The real log with records changed, dropped, duplicated or replaced by noise."""
    lines = [json.dumps(r) for r in records]
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["drop", "dup", "value", "noise", "truncate", "deep"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if action == "drop":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "value":
            record = _record(lines[i])
            if record:
                key = draw(st.sampled_from(sorted(record)))
                record[key] = draw(_VALUES)
            lines[i] = json.dumps(record)
        elif action == "noise":
            lines[i] = draw(st.text(max_size=40))
        elif action == "truncate":
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        elif action == "deep":
            lines[i] = "[" * 100_000 + "]" * 100_000
    return "\n".join(lines) + "\n"


def test_log_fuzz_starts_from_a_log_that_replays(logged, tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in logged) + "\n")
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0 and "replay ok" in result.output


@FUZZ
@given(data=st.data())
def test_damaged_logs_are_refused_with_a_diagnostic(logged, data):
    text = data.draw(logs(logged))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        path.write_text(text, encoding="utf-8")
        result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[:500])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 1:
        assert re.search(r"error\[E0[56]\d\d\]", result.output), result.output
