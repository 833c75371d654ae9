"""Grammar fuzzing: programs generated from dsl/runebook.lark never crash the front end.

Hypothesis builds random programs from the grammar itself (from_lark). Every
terminal gets an explicit strategy padded with spaces: without it, generated
keywords run into names ('effectx') and most programs fail to lex (see
ENGINEERING-NOTES, "Grammar fuzzing"). Each program then goes through
parse_module and the whole checker (DeclarationCollector + BodyCompiler); the
only acceptable outcomes are a module with diagnostics or a ContentError.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from runebook.compiler.bodies import BodyCompiler
from runebook.compiler.declarations import DeclarationCollector
from runebook.dsl.diagnostics import ContentError, Diagnostic
from runebook.dsl.parser import build_parser, parse_module, parse_stmts

GRAMMAR = build_parser(cache=False)
KEYWORDS = {t.pattern.value for t in GRAMMAR.terminals
            if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value)}

# A few names that mean something to the checker, so generated code sometimes
# hits real symbols (players, a builtin, a contract function) and not only typos.
_MEANINGFUL = ["players", "len", "min", "max", "play", "score", "actor", "event", "option", "x", "p"]
_NAMES = st.one_of(
    st.sampled_from(_MEANINGFUL),
    st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in KEYWORDS),
)
_TEXT = st.text(alphabet="abc xyz_.,!", max_size=8)
_STRINGS = st.one_of(
    _TEXT.map(lambda s: f'"{s}"'),
    st.tuples(_TEXT, st.sampled_from(["x", "1 + 2", "len(players)", "p.xp"]), _TEXT)
      .map(lambda t: f'"{t[0]}{{{t[1]}}}{t[2]}"'),
)


def _padded(strategy):
    return strategy.map(lambda s: f" {s} ")


def _explicit() -> dict:
    compiled_terminals, _, _ = GRAMMAR.grammar.compile(["start"], ())
    explicit = {}
    for t in compiled_terminals:
        if t.name == "NAME":
            explicit[t.name] = _padded(_NAMES)
        elif t.name == "INT":
            explicit[t.name] = _padded(st.integers(0, 10**6).map(str))
        elif t.name == "STRING":
            explicit[t.name] = _padded(_STRINGS)
        elif t.name == "_NL":
            explicit[t.name] = st.sampled_from(["\n", "\n  ", "\n# note\n", "\n\f\n"])
        elif t.name == "COMMENT":
            # Ignored terminals are sprinkled anywhere; a comment mid-line would
            # swallow the rest of the line. Comments come with _NL instead.
            explicit[t.name] = st.just(" ")
        elif t.name.startswith("__IGNORE"):
            explicit[t.name] = st.sampled_from([" ", "\t", "\f"])
        elif t.pattern.type == "str":
            explicit[t.name] = st.just(f" {t.pattern.value} ")
        else:  # operator alternations (ASSIGN_OP, COMP_OP, ...): padded so '=' '=' never fuse
            explicit[t.name] = _padded(st.from_regex(t.pattern.to_regexp(), fullmatch=True))
    return explicit


PROGRAMS = from_lark(GRAMMAR, start="start", explicit=_explicit())


def check_program(text: str) -> list[Diagnostic] | None:
    """Parse and check like compile_source does; None when the text does not parse."""
    try:
        module = parse_module(text, "fuzz.rune")
    except ContentError as err:
        assert err.diagnostics and all(isinstance(d, Diagnostic) for d in err.diagnostics)
        return None
    diags: list = []
    collector = DeclarationCollector(diags)
    syms = collector.collect([module])
    BodyCompiler(syms, collector.types, diags).compile_all()
    assert all(isinstance(d, Diagnostic) for d in diags)
    return diags


_OUTCOMES: list[bool] = []  # parsed or not, one per generated program


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(PROGRAMS)
def test_generated_programs_never_crash_the_checker(text):
    _OUTCOMES.append(check_program(text) is not None)


def test_generated_programs_mostly_parse():
    """The padding works: generated programs are overwhelmingly parseable.

    Without explicit strategies about a fifth of them failed to lex; a low rate
    here would mean the fuzzer above only tests the error path. Uses the
    programs of the test above (pytest runs a file's tests in order).
    """
    if len(_OUTCOMES) < 50:
        pytest.skip("run together with test_generated_programs_never_crash_the_checker")
    parsed = sum(_OUTCOMES)
    assert parsed >= 0.9 * len(_OUTCOMES), f"only {parsed}/{len(_OUTCOMES)} generated programs parsed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet='abcdefxyz_01239 \n\t{}()[]<>=+-*/%.,:;"#\\', max_size=80))
def test_arbitrary_text_gives_diagnostics_not_exceptions(text):
    """Not from the grammar at all: noise must end in a ContentError or a clean check."""
    check_program(text)


@pytest.mark.parametrize("text", [
    "",                                   # an empty file is a valid (empty) module
    "proc play() {}",
    "fn f() -> int { return 1 }\nfn f() -> str { return \"\" }",
    "on e {}\non e priority -3 when 1 {}",
    "kind k { k: k }\nk k { k: k }",
    "policy p { rate action a: b; rate choice c: option }",
    "action a(x: int from x) in g require x { cancel }",
    "option o: one of [all nothing, 1, \"a\"] = 2",
    "var v: list[list[zone]] per thing = [[none]]",
])
def test_odd_but_parseable_programs(text):
    assert check_program(text) is not None


@pytest.mark.parametrize("text", [
    "action a (x: int from 0) in g\n require nope() {}",                 # in the action's guard
    "fn t() -> bool { return nope() }\naction a () in g\n require t() {}",  # in a fn compiled in place
])
def test_an_error_in_code_compiled_again_elsewhere_is_reported_not_a_crash(text):
    """An action's guard is compiled again into the functions that answer for its group, a
    fn's body into its callers, their diagnostics reported once where they are declared:
    the code they make holds the error all the same, so it is not checked as runnable."""
    codes = {d.code for d in check_program(text)}
    assert "E0305" in codes  # unknown function, reported once where it is written


def test_statement_snippets_parse_or_fail_cleanly():
    for text in ["let x = ", "x +=", "move to", "}", "roll", "log 3", "cancel; cancel"]:
        try:
            parse_stmts(text, "snippet")
        except ContentError as err:
            assert err.diagnostics[0].code.startswith("E02")
