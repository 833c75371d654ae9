"""Resolve a match's pack options from their declared types and choices."""
from __future__ import annotations

from .builtins import INT_BOUND, MAX_INT_BITS


class OptionError(ValueError):
    """A usage error: an unknown option or a value of the wrong kind."""


def resolve_options(program, given: dict) -> dict:
    """Defaults overridden by `given` (values may be texts from the command line)."""
    from runebook.dsl.diagnostics import did_you_mean

    values = {name: spec["default"] for name, spec in program.options.items()}
    for name, raw in given.items():
        spec = program.options.get(name)
        if spec is None:
            hint = did_you_mean(name, program.options) or (
                f"options of {program.name}: {', '.join(program.options) or 'none'}")
            raise OptionError(f"unknown option '{name}' ({hint})")
        values[name] = _convert(name, raw, spec, program)
    for name, value in values.items():  # defaults too: runtime/ranges.py relies on what this lets through
        spec = program.options[name]
        if spec["type"] == "int":
            low, high = int_option_range(spec)
            if type(value) is not int or not low <= value <= high:
                within = f"between {low} and {high}" if high < INT_BOUND - 1 else \
                    f"below 2^{MAX_INT_BITS} either side of 0"
                raise OptionError(f"option '{name}' must be a whole number {within}")
    return values


def int_option_range(spec: dict) -> tuple:
    """The least and the largest value an int option may take: its declared range, else
    its choices, else the bounds of a number."""
    bounds = spec.get("range")
    if bounds is not None:
        return (bounds[0], bounds[1])
    choices = spec.get("choices")
    if choices and all(type(c) is int for c in choices):
        return (min(choices), max(choices))
    return (1 - INT_BOUND, INT_BOUND - 1)


def _convert(name: str, raw, spec: dict, program):
    t, choices = spec["type"], spec["choices"]
    value = raw
    shown_raw = str(raw) if len(str(raw)) <= 40 else f"{str(raw)[:40]}..."  # a value is untrusted too
    if t == "int":
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise OptionError(f"option '{name}' needs a whole number, not '{shown_raw}'") from None
    elif t == "bool":
        if isinstance(raw, bool):
            value = raw
        elif str(raw).lower() in ("true", "yes", "1", "on"):
            value = True
        elif str(raw).lower() in ("false", "no", "0", "off"):
            value = False
        else:
            raise OptionError(f"option '{name}' needs true or false, not '{shown_raw}'")
    else:
        value = str(raw)
    kind_entries = program.kinds.get(t) if t not in ("int", "bool", "str") else None
    if kind_entries is not None and value not in kind_entries:
        shown = ", ".join(kind_entries)
        raise OptionError(f"option '{name}' must be a {t}: one of {shown} (got '{shown_raw}')")
    if choices is not None and value not in choices:
        shown = ", ".join(map(str, choices))
        raise OptionError(f"option '{name}' must be one of: {shown} (got '{shown_raw}')")
    bounds = spec.get("range")  # declared `int in low..high`
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise OptionError(f"option '{name}' must be between {bounds[0]} and {bounds[1]} (got '{shown_raw}')")
    return value
