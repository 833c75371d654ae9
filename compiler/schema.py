"""JSON Schemas (draft-07) for the YAML files of a pack, and their validation.

One Draft7Validator per schema is built once and reused (checking the schema
on every call is ~40x slower). Every error becomes a diagnostic pointing at
the offending YAML node; unknown keys get a "did you mean".
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.yaml_load import locate

_NAME = {"type": "string", "pattern": "^[a-z_][a-z0-9_]*$"}

PACK_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "runebook pack manifest (pack.yaml)",
    "type": "object",
    "required": ["name", "title", "version", "players"],
    "additionalProperties": False,
    "properties": {
        "name": _NAME,
        "title": {"type": "string", "minLength": 1},
        "version": {"type": ["string", "number"]},
        "description": {"type": "string"},
        "players": {
            "type": "object", "additionalProperties": False, "required": ["min", "max"],
            "properties": {"min": {"type": "integer", "minimum": 1, "maximum": 16},
                           "max": {"type": "integer", "minimum": 1, "maximum": 16},
                           "default": {"type": "integer", "minimum": 1, "maximum": 16}},
        },
        "sources": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "include": {"type": "array", "items": {"type": "string"}},
        "tests": {"type": "array", "items": {"type": "string"}},
        # rules-text phrases: per kind (or 'all'), a name's phrase (docs/language.md, "Rules text")
        "phrases": {"type": "object", "propertyNames": _NAME,
                    "additionalProperties": {"type": "object", "propertyNames": _NAME,
                                             "additionalProperties": {"type": "string"}}},
        "balance": {  # compiler/balance_manifest.py
            "type": "object", "additionalProperties": False,
            "properties": {
                "entrants": {"type": "object", "additionalProperties": False, "minProperties": 1,
                             "maxProperties": 1, "properties": {"option": _NAME, "choice": _NAME}},
                "tunable": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["field", "min", "max"],
                    "properties": {"field": {"type": "string", "pattern": "^[a-z_][a-z0-9_]*\\.[a-z_][a-z0-9_]*$"},
                                   "min": {"type": "integer"}, "max": {"type": "integer"}}}},
            },
        },
        "boards": {"type": "array", "items": {"type": "string"}},
    },
}

# view.yaml: how a match of the pack is shown to people (narration of decisions, the board).
# It changes no rule, so it is not part of the pack's hash: a log stays valid when it changes.
_SPACE_POSITION = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
# How a region's tiles or a token on a tile is drawn: every part optional.
_DRAWN = {"colour": {"type": "string"}, "glyph": {"type": "string"}, "label": {"type": "string"}}
VIEW_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "runebook pack presentation (view.yaml)",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score_unit": {"type": "string", "minLength": 1},
        "owner_var": _NAME,
        "number_var": _NAME,
        "player_colours": {"type": "object", "additionalProperties": False, "required": ["var", "colours"],
                           "properties": {"var": _NAME, "colours": {"type": "object",
                                                                    "additionalProperties": {"type": "string"}}}},
        "phrases": {"type": "object", "propertyNames": _NAME, "additionalProperties": {"type": "string"}},
        "narrated": {"type": "array", "items": _NAME, "uniqueItems": True},
        "tiles": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "regions": {"type": "object", "propertyNames": _NAME, "additionalProperties": {
                    "type": "object", "additionalProperties": False, "properties": _DRAWN}},
                "tokens": {"type": "object", "propertyNames": _NAME, "additionalProperties": {
                    "type": "object", "additionalProperties": False, "properties": {**_DRAWN, "facing": _NAME}}},
            },
        },
        "board": {
            "type": "object", "additionalProperties": False, "required": ["grid", "spaces", "positions"],
            "properties": {
                "grid": {"enum": ["square", "hex"]},
                "spaces": _NAME,
                "positions": {"type": "object", "propertyNames": _NAME, "additionalProperties": _SPACE_POSITION},
                "links": {"type": "object", "additionalProperties": False, "required": ["entry", "field"],
                          "properties": {"entry": _NAME, "field": _NAME}},
                "colour_field": _NAME,
                "colours": {"type": "object", "additionalProperties": {"type": "string"}},
                "counters": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["var", "glyph"],
                    "properties": {"var": _NAME, "glyph": {"type": "string"}}}},
                "pieces": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["zone", "at"],
                    "properties": {"zone": _NAME, "at": _NAME, "glyph": {"type": "string"},
                                   "facing": _NAME}}},
            },
        },
    },
}

_CODE = {"type": "string"}
TEST_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "runebook card tests",
    "type": "object",
    "additionalProperties": False,
    "required": ["scenarios"],
    "properties": {
        "defaults": {"$ref": "#/definitions/settings"},
        "scenarios": {"type": "array", "items": {"$ref": "#/definitions/scenario"}},
    },
    "definitions": {
        "settings": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "players": {"type": "integer", "minimum": 1, "maximum": 16},
                "seed": {"type": "integer"},
                "options": {"type": "object", "additionalProperties": {"type": ["string", "integer", "boolean"]}},
                "setup": _CODE,
            },
        },
        "scenario": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "rule", "expect"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "rule": {"type": "string", "minLength": 1},
                "players": {"type": "integer", "minimum": 1, "maximum": 16},
                "seed": {"type": "integer"},
                "options": {"type": "object", "additionalProperties": {"type": ["string", "integer", "boolean"]}},
                "given": _CODE,
                "rolls": {"type": "array", "items": {"type": "string"}},
                "random": {"type": "array", "items": {"type": "integer"}},
                "decisions": {"type": "array", "items": {"type": ["string", "integer"]}},
                "decisions_for": {"type": "object", "propertyNames": {"pattern": "^p[1-9][0-9]*$"},
                                  "additionalProperties": {"type": "array",
                                                           "items": {"type": ["string", "integer"]}}},
                "do": _CODE,
                "expect": {"type": "array", "minItems": 1, "items": _CODE},
                "expect_error": {"type": "string"},
            },
        },
    },
}


# The schemas by name, and the file `runebook schema` writes each to: editors and the
# loader read the same dicts.
SCHEMAS = {"pack": PACK_SCHEMA, "test": TEST_SCHEMA, "view": VIEW_SCHEMA}
SCHEMA_FILES = {"pack": "pack.schema.json", "test": "card-tests.schema.json", "view": "view.schema.json"}


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema as JSON into `folder` (made if missing); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in SCHEMAS.items():
        path = folder / SCHEMA_FILES[name]
        path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def modeline(schema_name: str, schema_folder: str) -> str:
    """The comment that tells YAML editors (yaml-language-server) which schema a file follows."""
    return f"# yaml-language-server: $schema={schema_folder}/{SCHEMA_FILES[schema_name]}"


@lru_cache(maxsize=None)
def _validator(name: str):
    from jsonschema import Draft7Validator
    return Draft7Validator(SCHEMAS[name])


def validate(data, schema_name: str, file: str) -> list[Diagnostic]:
    diags = []
    validator = _validator(schema_name)
    for err in sorted(validator.iter_errors(plain_data(data)), key=lambda e: list(map(str, e.absolute_path))):
        path = list(err.absolute_path)
        if err.validator == "additionalProperties":
            extra = [k for k in (err.instance or {}) if k not in err.schema.get("properties", {})]
            for key in extra:
                diags.append(Diagnostic("E0401", f"unknown key '{key}'", locate(data, path + [key], file, key=True),
                                        did_you_mean(key, err.schema.get("properties", {}))
                                        or f"known keys: {', '.join(err.schema.get('properties', {}))}"))
            continue
        where = ".".join(str(p) for p in path) or "the file"
        diags.append(Diagnostic("E0402", f"{where}: {err.message}", locate(data, path, file)))
    return diags


def plain_data(value):
    """ruamel containers to plain dicts/lists (jsonschema type checks want them)."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    return value
