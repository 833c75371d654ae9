"""`runebook new`: a scaffolded pack validates and its card test passes; an entry scaffolded
for every kind of every shipped pack (in a copy) still validates and its card test passes."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from ruamel.yaml import YAML
from typer.testing import CliRunner

from runebook.cli.cardtests import run_card_tests
from runebook.cli.main import app
from runebook.compiler.pack import compile_pack, content_root
from runebook.dsl import ast as A
from runebook.dsl.formatter import format_source
from runebook.dsl.parser import parse_module

runner = CliRunner()
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def new(*args) -> str:
    result = runner.invoke(app, ["new", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def assert_clean(pack: Path) -> None:
    program, diags, _ = compile_pack(str(pack))
    errors = [str(d) for d in diags if d.severity == "error"]
    assert program is not None and not errors, errors


def assert_tests_pass(files: list[Path]) -> int:
    results, diags = run_card_tests([str(f) for f in files])
    assert not diags, [str(d) for d in diags]
    assert results and all(r.ok for r in results), [(r.name, r.failures) for r in results if not r.ok]
    return len(results)


def assert_follows_its_schema(yaml_file: Path) -> None:
    """The modeline names a schema file that exists, and the file validates against it."""
    first = yaml_file.read_text().splitlines()[0]
    schema_path = yaml_file.parent / MODELINE.fullmatch(first).group(1)
    schema = json.loads(schema_path.read_text())
    assert list(Draft7Validator(schema).iter_errors(YAML(typ="safe").load(yaml_file.read_text()))) == []


def test_a_new_pack_validates_and_its_card_test_passes(tmp_path):
    new("pack", "my_game", "--dir", tmp_path)
    pack = tmp_path / "my_game"
    assert_clean(pack)
    assert assert_tests_pass([pack / "tests" / "rules.yaml"]) == 1
    assert_follows_its_schema(pack / "pack.yaml")
    assert_follows_its_schema(pack / "tests" / "rules.yaml")
    rules = (pack / "rules.rune").read_text()
    assert format_source(rules, "rules.rune") == rules


def test_an_entry_added_to_a_new_pack_is_one_block_with_its_card_test(tmp_path):
    new("pack", "my_game", "--dir", tmp_path)
    pack = tmp_path / "my_game"
    new("piece", "red_cube", "--pack", pack)
    text = (pack / "red_cube.rune").read_text()
    assert 'name: "Red Cube"' in text and "# points: 1" in text  # a default shown, not repeated
    assert [type(d).__name__ for d in parse_module(text, "red_cube.rune").decls] == ["EntryDecl"]
    assert format_source(text, "red_cube.rune") == text
    assert_clean(pack)
    assert assert_tests_pass([pack / "tests" / "red_cube.yaml"]) == 1
    assert_follows_its_schema(pack / "tests" / "red_cube.yaml")


def kinds_of(pack: Path) -> list[str]:
    return sorted({d.name for path in pack.rglob("*.rune")
                   for d in parse_module(path.read_text(), path.name).decls if isinstance(d, A.KindDecl)})


@pytest.mark.parametrize("name", ["dungeon_roll", "dominaria", "shire"])
def test_an_entry_of_every_kind_added_to_a_shipped_pack_still_validates(name, tmp_path):
    pack = tmp_path / name
    shutil.copytree(content_root() / name, pack)
    kinds = kinds_of(pack)
    assert len(kinds) >= 3
    for kind in kinds:
        new(kind, f"new_{kind}", "--pack", pack)
    assert_clean(pack)
    tests = [pack / "tests" / f"new_{kind}.yaml" for kind in kinds]
    assert assert_tests_pass(tests) == len(kinds)
    assert_follows_its_schema(tests[0])
    # the pack's usual defaults: what most of its own card tests start from
    assert "defaults:" in tests[0].read_text()


@pytest.mark.parametrize("args, message", [
    (["piec", "blue_cube", "--pack", "{pack}"], "did you mean 'piece'"),
    (["piece", "Blue", "--pack", "{pack}"], "lower_snake_case"),
    (["piece", "blue_cube"], "--pack PACK"),
    (["piece", "first_piece", "--pack", "{pack}"], "already declares 'first_piece'"),
])
def test_mistakes_are_usage_errors_that_write_nothing(args, message, tmp_path):
    new("pack", "my_game", "--dir", tmp_path)
    pack = tmp_path / "my_game"
    before = sorted(pack.rglob("*"))
    result = runner.invoke(app, ["new", *[a.format(pack=pack) for a in args]])
    assert result.exit_code == 2 and message in result.output, result.output
    assert sorted(pack.rglob("*")) == before


def test_a_pack_folder_that_exists_is_not_overwritten(tmp_path):
    (tmp_path / "taken").mkdir()
    result = runner.invoke(app, ["new", "pack", "taken", "--dir", str(tmp_path)])
    assert result.exit_code == 2 and "already exists" in result.output
    assert list((tmp_path / "taken").iterdir()) == []
