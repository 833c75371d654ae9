"""`runebook explain CODE`: a diagnostic code's meaning, an example and the fix, from the
one table of codes (dsl/codes.py); a family (E03, E03xx) lists its codes."""
from __future__ import annotations

from .errors import usage_error
from .render import Out


def explain(text: str) -> None:
    from runebook.dsl.codes import CODES, Code, lookup
    from runebook.dsl.diagnostics import did_you_mean

    found = lookup(text)
    if found is None:
        hint = did_you_mean(text.strip().upper(), CODES) or "a code looks like E0301, or a family like E03"
        usage_error(f"unknown diagnostic code '{text}' ({hint})")
    out = Out()
    if isinstance(found, Code):
        _code(found, out)
    else:
        _family(found, CODES.values(), out)


def _code(code, out: Out) -> None:
    family = code.family
    out.line(f"{code.code}: {code.title}", "bold")
    out.line(f"({family.prefix}xx, {family.title}: {family.when})", "dim")
    out.line()
    out.line(code.meaning)
    out.line()
    out.parts(("Example: ", "bold"), (code.example, None))
    out.parts(("Fix: ", "bold"), (code.fix, None))


def _family(family, codes, out: Out) -> None:
    out.line(f"{family.prefix}xx: {family.title}", "bold")
    out.line(f"({family.when})", "dim")
    if family.about:
        out.line()
        out.line(family.about)
    out.line()
    for code in codes:
        if code.family is family:
            out.line(f"  {code.code}  {code.title}")
    out.line()
    out.line(f"'runebook explain {family.prefix}NN' explains one of them.")
