"""JSON Schemas (draft-07) for the YAML files of a pack, and their validation.

One Draft7Validator per schema is built once and reused (checking the schema
on every call is ~40x slower). Every error becomes a diagnostic pointing at
the offending YAML node; unknown keys get a "did you mean".
"""
from __future__ import annotations

from functools import lru_cache

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
                "do": _CODE,
                "expect": {"type": "array", "minItems": 1, "items": _CODE},
                "expect_error": {"type": "string"},
            },
        },
    },
}


@lru_cache(maxsize=None)
def _validator(name: str):
    from jsonschema import Draft7Validator
    schema = {"pack": PACK_SCHEMA, "test": TEST_SCHEMA}[name]
    return Draft7Validator(schema)


def validate(data, schema_name: str, file: str) -> list[Diagnostic]:
    diags = []
    validator = _validator(schema_name)
    for err in sorted(validator.iter_errors(_plain(data)), key=lambda e: list(map(str, e.absolute_path))):
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


def _plain(value):
    """ruamel containers to plain dicts/lists (jsonschema type checks want them)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
