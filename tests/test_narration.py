"""Narration a person can follow: each pack's seeded match, as `runebook play` tells it,
checked against its golden text in tests/golden/. A change of narration fails here
until the golden text is written again on purpose:

    RUNEBOOK_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_narration.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app
from runebook.runtime.text import article, counted, joined, plural_form

GOLDEN = Path(__file__).with_name("golden")
# (pack, seed, agents): a match long enough to show each pack's kinds of decisions.
MATCHES = [("dungeon_roll", 3, "policy:greedy"), ("shire", 9, "policy:greedy,random"), ("dominaria", 3, "policy:greedy")]


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.mark.parametrize("pack, seed, agents", MATCHES)
def test_narration_matches_its_golden_text(pack, seed, agents):
    result = CliRunner().invoke(app, ["play", pack, "--seed", str(seed), "--agents", agents])
    assert result.exit_code == 0, result.output
    golden = GOLDEN / f"{pack}.txt"
    if os.environ.get("RUNEBOOK_UPDATE_GOLDEN"):
        golden.write_text(result.output, encoding="utf-8")
    assert golden.is_file(), f"no golden narration for {pack}: run with RUNEBOOK_UPDATE_GOLDEN=1"
    assert result.output == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("pack", [m[0] for m in MATCHES])
def test_decisions_are_told_in_words_where_the_pack_has_a_phrase(pack):
    text = (GOLDEN / f"{pack}.txt").read_text(encoding="utf-8")
    assert "chose: " not in text  # the code form (fight(c=...)) is for logs and --json
    assert "(s)" not in text and " 1 points" not in text


def test_same_named_figures_are_told_apart_in_a_mirror_match():
    text = (GOLDEN / "shire.txt").read_text(encoding="utf-8")
    assert "Player 1 picks the Paladin." in text and "Player 2 picks the Paladin." in text
    assert "on Paladin (Player 2)." in text and "on Paladin (Player 1)." in text


def test_conditions_are_explained_and_a_useless_heal_is_said():
    text = (GOLDEN / "shire.txt").read_text(encoding="utf-8")
    assert "is afflicted: Imprisoned (its STR and INT count as 0)." in text
    assert "is already at full HP (40 HP): the heal does nothing." in text
    assert "/40 HP (Imprisoned)" in text  # the round's status line


def test_mana_paid_is_narrated_once_per_payment():
    text = (GOLDEN / "dominaria.txt").read_text(encoding="utf-8")
    builds = text.count(" builds a manalith on ") // 2  # the decision and its narration
    assert builds > 0 and text.count(" pays ") >= builds
    assert "VP so far" in text and "Player 1: 32 VP" in text


@pytest.mark.parametrize("word, plural", [("coin", "coins"), ("box", "boxes"), ("city", "cities"),
                                          ("day", "days"), ("match", "matches"), ("HP", "HP")])
def test_plural_forms(word, plural):
    assert plural_form(word) == plural


def test_counts_articles_and_lists():
    assert counted(1, "coin") == "1 coin" and counted(0, "coin") == "0 coins" and counted(2, "coin") == "2 coins"
    assert article("apple") == "an apple" and article("coin") == "a coin" and article("London") == "London"
    assert joined(["a", "b", "c"]) == "a, b and c" and joined(["a"]) == "a" and joined([]) == ""
