"""Dota 2's face-down consumables (Item Shop & Item Rules): which one a hero holds is private
to its owner. In recorded matches, nothing another seat may read names a face-down item
until it is used (and so revealed), while the owner is told which one it bought."""
from __future__ import annotations

from functools import lru_cache

from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

from packmaker import compiled  # tests/packmaker.py

FACE_DOWN = ("Dust of Appearance", "Enchanted Mango", "Healing Salve")


@lru_cache(maxsize=None)
def recorded(seed: int) -> list:
    program = compiled("dota2")
    agents = [make_agent("random", program, seed, seat) for seat in range(2)]
    match = Match(program, agents, seed, resolve_options(program, {"round_cap": 3}), 2, record=True)
    match.run()
    return match.events


def public_text(event: dict) -> str:
    """What every seat reads of an event that is not private to one seat."""
    if event["type"] == "say":
        return event["text"]
    if event["type"] == "decision":
        return " ".join([event["label"]] + event["options"])
    return ""


def test_no_seat_reads_which_face_down_item_another_bought():
    bought = told = 0
    for seed in range(1, 4):
        for event in recorded(seed):
            if event.get("private") is not None:
                told += event["type"] == "say" and "face-down item is" in event["text"]
                continue
            text = public_text(event)
            bought += "buys a face-down item" in text
            for name in FACE_DOWN:
                assert name not in text or f"uses {name}" in text, text
    assert bought > 0 and told == bought


def test_the_choice_of_a_face_down_item_is_private_to_its_owner():
    choices = [e for seed in range(1, 4) for e in recorded(seed)
               if e["type"] == "decision" and e["tag"] == "face_down"]
    assert choices and all(e.get("private") == e["player"] for e in choices)
