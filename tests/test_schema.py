"""`runebook schema` writes the JSON Schemas the loader validates with (compiler/schema.py):
every shipped pack.yaml and card-test file validates against the written files, and a
broken one fails there as it fails in the loader."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from ruamel.yaml import YAML
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.compiler.schema import SCHEMA_FILES, SCHEMAS, validate

ROOT = Path(__file__).resolve().parent.parent
MANIFESTS = sorted(ROOT.glob("content/*/pack.yaml")) + sorted(ROOT.glob("tests/packs/*/pack.yaml"))
CARD_TESTS = sorted(ROOT.glob("content/*/tests/**/*.yaml"))


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("schemas")
    result = CliRunner().invoke(app, ["schema", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    return {name: json.loads((folder / file).read_text()) for name, file in SCHEMA_FILES.items()}


def load(path: Path):
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_the_written_schemas_are_the_loaders_and_valid_draft_07(written):
    assert written == SCHEMAS
    for schema in written.values():
        assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
        Draft7Validator.check_schema(schema)


def test_the_shipped_files_are_found():
    assert len(MANIFESTS) >= 3 and len(CARD_TESTS) >= 10


@pytest.mark.parametrize("path", MANIFESTS + CARD_TESTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_validates_against_the_written_schema(path, written):
    schema = written["pack" if path.name == "pack.yaml" else "test"]
    errors = [e.message for e in Draft7Validator(schema).iter_errors(load(path))]
    assert errors == []


BROKEN = {
    "pack": {"name": "Not A Name", "title": "x", "version": 1, "players": {"min": 1, "max": 2}, "colour": "red"},
    "test": {"scenarios": [{"name": "no rule and no expect"}]},
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_file_fails_the_written_schema_as_it_fails_the_loader(name, written):
    data = BROKEN[name]
    assert list(Draft7Validator(written[name]).iter_errors(data))
    assert validate(data, name, "broken.yaml")


def test_an_unwritable_folder_is_a_usage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = CliRunner().invoke(app, ["schema", "--out", str(blocker / "sub")])
    assert result.exit_code == 2 and "cannot write" in result.output
