"""The TextMate grammar (editors/runebook.tmLanguage.json) is what editors/gen_tmlanguage.py
makes of the Lark grammar, and it highlights every keyword of the language."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from runebook.dsl.parser import build_parser

ROOT = Path(__file__).resolve().parent.parent
CHECKED_IN = ROOT / "editors" / "runebook.tmLanguage.json"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_tmlanguage", ROOT / "editors" / "gen_tmlanguage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def parser():
    return build_parser(cache=False)


@pytest.fixture(scope="module")
def grammar(parser):
    return json.loads(load_generator().render(parser))


def test_the_checked_in_grammar_is_what_the_generator_writes(parser):
    assert CHECKED_IN.read_text(encoding="utf-8") == load_generator().render(parser), \
        "editors/runebook.tmLanguage.json is out of date: run 'python editors/gen_tmlanguage.py'"


def spelled_words(parser) -> set[str]:
    return {t.pattern.value for t in parser.terminals
            if t.pattern.type == "str" and re.fullmatch(r"[a-z_]+", t.pattern.value)}


def test_every_keyword_of_the_grammar_is_highlighted_once(parser, grammar):
    patterns = grammar["repository"]["keywords"]["patterns"]
    words = spelled_words(parser)
    assert {"zone", "if", "true", "and", "rounded"} <= words
    for word in words:
        scopes = [p["name"] for p in patterns if re.fullmatch(p["match"], word)]
        assert len(scopes) == 1, (word, scopes)


def test_names_that_merely_start_with_a_keyword_are_not_keywords(grammar):
    patterns = grammar["repository"]["keywords"]["patterns"]
    for name in ("iffy", "zone_count", "to_do", "on_start"):
        assert not any(re.search(p["match"], name) for p in patterns), name


def test_keywords_are_sorted_by_their_place_in_the_grammar(grammar):
    by_scope = {p["name"]: re.compile(p["match"]) for p in grammar["repository"]["keywords"]["patterns"]}
    assert by_scope["storage.type.declaration.runebook"].fullmatch("kind")
    assert by_scope["keyword.control.runebook"].fullmatch("while")
    assert by_scope["constant.language.runebook"].fullmatch("none")
    assert by_scope["keyword.operator.word.runebook"].fullmatch("not")


def test_comments_numbers_operators_and_calls(grammar):
    repo = grammar["repository"]
    assert re.search(repo["comment"]["match"], 'x = 1  # a comment').group() == "# a comment"
    assert re.search(repo["number"]["match"], "hp + 12").group() == "12"
    assert [m.group() for m in re.finditer(repo["operator"]["match"], "a += 1; b == c; d -> e; 1..6")] \
        == ["+=", "==", "->", ".."]
    assert re.search(repo["call"]["match"], "let x = count_dice(hand)").group(1) == "count_dice"
