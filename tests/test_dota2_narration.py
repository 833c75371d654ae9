"""Dota 2 narration in the order things happen: the card tests marked "(narrated)" in
content/dota2/tests/movement.yaml run through the real turn, and their narration must say
the move before what it caused (a tower's hit, a death), where a jump or a tile-aimed
ability lands, and what a teleport will do."""
from __future__ import annotations

import re
from functools import lru_cache

from runebook.cli.cardtests import run_card_tests
from runebook.compiler.pack import content_root


@lru_cache(maxsize=None)
def narrated() -> dict:
    results, diagnostics = run_card_tests([str(content_root() / "dota2" / "tests" / "movement.yaml")])
    assert not [d for d in diagnostics if d.severity == "error"]
    assert all(r.ok for r in results), [r.failures for r in results if not r.ok]
    return {r.name: [line for line in r.narration if "level" not in line and " learns " not in line]
            for r in results if "(narrated)" in r.name}


def index_of(lines: list, text: str) -> int:
    return next(i for i, line in enumerate(lines) if text in line)


def test_a_hero_killed_on_the_way_is_first_seen_to_move_there():
    lines = narrated()["a hero killed by a tower on the way got as far as the tower (narrated)"]
    moved = index_of(lines, "Anti-Mage moves from (14,16) to (12,18)")
    assert moved < index_of(lines, "takes 3 from the Radiant mid tier 1 tower") < index_of(lines, "Anti-Mage dies.")


def test_each_tower_hit_follows_the_stretch_of_the_move_that_caused_it():
    lines = narrated()["a walk through a tower's zone is told stretch by stretch (narrated)"]
    hits = [i for i, line in enumerate(lines) if " takes " in line]
    moves = [i for i, line in enumerate(lines) if " moves from " in line]
    assert len(hits) >= 2 and moves[0] < hits[0]
    assert lines[moves[-1]].startswith("Anti-Mage moves from") and "to (9,19)" in lines[moves[-1]]
    # every stretch starts where the previous one ended
    stretches = [re.search(r"from (\(\d+,\d+\)) to (\(\d+,\d+\))", lines[i]).groups() for i in moves]
    for before, after in zip(stretches, stretches[1:]):
        assert before[1] == after[0]


def test_a_tile_aimed_ability_says_its_tile_and_a_jump_where_it_lands():
    lines = narrated()["Time Walk says where Faceless Void lands (narrated)"]
    assert "Faceless Void uses Time Walk on (14,21)." in lines
    assert "Faceless Void jumps from (10,21) to (14,21)." in lines


def test_a_placing_ability_is_told_once():
    lines = narrated()["a placing ability is told once, with its tile (narrated)"]
    assert [line for line in lines if "Healing Ward" in line] == ["Juggernaut uses Healing Ward on (12,21)."]


def test_a_teleport_says_when_it_arrives_not_a_count_of_rounds():
    lines = narrated()["a Town Portal Scroll says when the hero arrives (narrated)"]
    started = lines[index_of(lines, "starts teleporting to (7,27)")]
    assert "next turn" in started
    assert not any("Teleporting (" in line for line in lines)


def test_an_interrupted_teleport_is_said_to_be_lost_after_the_attack():
    lines = narrated()["an attack on a teleporting hero says the teleport is lost (narrated)"]
    attacked = index_of(lines, "Ogre Magi attacks Anti-Mage")
    assert attacked < index_of(lines, "Anti-Mage is interrupted: the teleport is lost.")
    assert not any("no longer" in line for line in lines)
