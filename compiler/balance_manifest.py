"""The `balance:` section of pack.yaml: what a tournament's entrants are, and which
numeric entry fields a balance search may change. The JSON Schema checks its shape;
this checks it against the compiled pack (names that exist, fields that are numbers).

    balance:
      entrants: {option: play_as}      # an option's values, for solo play or the whole table
      # or  entrants: {choice: pick}   # each seat's answer to the choice named 'pick'
      tunable:
        - {field: KIND.FIELD, min: 3, max: 9}    # that field of the target entrant's own entry
        - {field: ENTRY.FIELD, min: 0, max: 4}   # one named entry's field, whatever the target
"""
from __future__ import annotations

from runebook.dsl.diagnostics import Diagnostic, did_you_mean
from runebook.dsl.yaml_load import locate

CODE = "E0425"


def balance_section(manifest: dict, mfile: str, syms, diags: list) -> dict:
    """The section as the program keeps it ({} when the pack declares none)."""
    section = manifest.get("balance") or {}
    entrants = dict(section.get("entrants") or {})
    if "option" in entrants and entrants["option"] not in syms.options:
        _error(diags, manifest, mfile, ["balance", "entrants", "option"],
               f"balance: entrants names no option of the pack: '{entrants['option']}'",
               did_you_mean(entrants["option"], syms.options) or "entrants vary an option declared with 'option'")
    if "choice" in entrants and entrants["choice"] not in syms.choice_types:
        _error(diags, manifest, mfile, ["balance", "entrants", "choice"],
               f"balance: entrants names no choice of the pack: '{entrants['choice']}'",
               did_you_mean(entrants["choice"], syms.choice_types)
               or "choices are named where a script says 'choose NAME from ...'")
    tunable = []
    for i, item in enumerate(section.get("tunable") or []):
        problem = _tunable_problem(item, syms)
        if problem is not None:
            _error(diags, manifest, mfile, ["balance", "tunable", i, "field"], *problem)
        else:
            tunable.append({"field": item["field"], "min": item["min"], "max": item["max"]})
    return {"entrants": entrants, "tunable": tunable} if section else {}


def _tunable_problem(item: dict, syms):
    """(message, hint) when a tunable field is not an int field of a kind or an entry."""
    from .types import INT
    owner, _, name = item["field"].partition(".")
    kind = owner if owner in syms.kinds else syms.entries.get(owner, {}).get("kind")
    if kind is None or kind not in syms.kinds:
        return (f"balance: tunable field '{item['field']}' starts with no kind or entry of the pack",
                did_you_mean(owner, list(syms.kinds) + list(syms.entries)) or "write KIND.FIELD or ENTRY.FIELD")
    fields = syms.kinds[kind].fields
    if name not in fields:
        return (f"balance: kind '{kind}' has no field '{name}'",
                did_you_mean(name, fields) or f"fields of {kind}: {', '.join(fields)}")
    if fields[name][0] != INT:
        return f"balance: tunable field '{item['field']}' is not an int", "only whole-number fields can be tuned"
    if item["min"] > item["max"]:
        return f"balance: tunable field '{item['field']}' has min {item['min']} above max {item['max']}", \
            "write the smaller bound as min"
    return None


def _error(diags: list, manifest: dict, mfile: str, path: list, message: str, hint: str) -> None:
    diags.append(Diagnostic(CODE, message, locate(manifest, path, mfile), hint))
