"""Options that would read the same are told apart in words: on the page, at the terminal
prompt and in the line that tells the decision. A player with two things of one name gets
them numbered: by the pack's own number (view.yaml `number_var`, as its narration numbers
them) or else by the order they were made in."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app

from packmaker import write_pack

runner = CliRunner()

# Player 1 keeps two hounds and Player 2 one, all in one shared field; Player 1 picks one
# to send (Player 2's is told by its player, Player 1's two only by a number).
HOUNDS = """\
    kind creature { name: str }
    creature hound { name: "Hound" }
    zone field
    var keeper: player per thing = none
    var number: int per thing = 0
    var sent: int per player = 0
    proc play() {
      for p in players {
        let many = 1
        if p.seat == 1 { many = 2 }
        repeat many {
          let h = create hound in field
          h.keeper = p
          h.number = count(x in field where x.keeper == p)
        }
      }
      let chosen = choose send from each(x in field) for players[0]
      players[0].sent += chosen.number
      log "Off it goes."
    }
    fn score(p: player) -> int { return p.sent }
"""
VIEW = 'owner_var: keeper\nphrases: {send: "sends {choice}"}\n'


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def hounds(tmp_path, view: str):
    return write_pack(tmp_path / "hounds", {"main.rune": HOUNDS, "view.yaml": view},
                      players="{min: 2, max: 2}")


def steps(page) -> list:
    found = re.search(r'<script id="match" type="application/json">(.*?)</script>', page.read_text("utf-8"), re.S)
    return json.loads(found.group(1))["steps"]


def page_decision(tmp_path, pack) -> dict:
    log, out = tmp_path / "m.jsonl", tmp_path / "m.html"
    result = runner.invoke(app, ["play", str(pack), "--seed", "1", "--log", str(log)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["view", str(log), "--out", str(out)])
    assert result.exit_code == 0, result.output
    (step, _end) = steps(out)
    return step["decision"]


def prompt(pack, answer: str) -> str:
    result = runner.invoke(app, ["play", str(pack), "--agents", "human,random", "--seed", "1"],
                           input=answer + "\n")
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("view, first, second", [
    (VIEW, "Hound 1 (Player 1)", "Hound 2 (Player 1)"),
    (VIEW + "number_var: number\n", "Hound (Player 1)", "Hound 2 (Player 1)"),
])
def test_two_alike_things_of_one_player_read_apart(tmp_path, view, first, second):
    pack = hounds(tmp_path, view)
    words = [f"sends {first}", f"sends {second}", "sends Hound (Player 2)"]
    shown = page_decision(tmp_path, pack)
    assert shown["options"] == words
    # the decision's line names the chosen one as its option reads
    assert shown["text"] == f"Player 1 {words[shown['choice']]}."
    asked = prompt(pack, "2")
    for number, told in enumerate(words, 1):
        assert re.search(rf"^ +{number}\. {re.escape(told)}  \[", asked, re.M), asked
    assert "Player 1: 2 points" in asked  # the second hound went


def test_a_number_that_does_not_tell_them_apart_gives_way_to_the_order_made(tmp_path):
    pack = hounds(tmp_path, VIEW + "number_var: sent\n")  # a player variable's name is refused ...
    result = runner.invoke(app, ["validate", str(pack)])
    assert result.exit_code == 1 and "E0419" in result.output and "the thing variable 'sent'" in result.output
    pack = hounds(tmp_path, VIEW + "number_var: keeper\n")  # ... a thing variable not numbering them is passed over
    assert page_decision(tmp_path, pack)["options"][:2] == ["sends Hound 1 (Player 1)", "sends Hound 2 (Player 1)"]


def test_a_shire_players_two_wolves_read_as_the_narration_names_them(tmp_path):
    """Seed 3: Player 2's Hunter summons a second Wolf, which the narration calls "Wolf 2
    (Player 2)"; the options name it so too, and no step offers two options alike."""
    log, out = tmp_path / "m.jsonl", tmp_path / "m.html"
    result = runner.invoke(app, ["play", "shire", "--seed", "3", "--agents", "random", "--log", str(log)])
    assert result.exit_code == 0 and "summons another Wolf: Wolf 2 (Player 2)." in result.output
    assert runner.invoke(app, ["view", str(log), "--out", str(out)]).exit_code == 0
    offered = [step["decision"]["options"] for step in steps(out) if step["decision"]]
    assert all(len(set(options)) == len(options) for options in offered)
    assert any({"casts Aimed Shot on Wolf (Player 2)", "casts Aimed Shot on Wolf 2 (Player 2)"} <= set(options)
               for options in offered)


def test_what_a_phrase_leaves_out_follows_it_where_options_would_read_alike(tmp_path):
    pack = hounds(tmp_path, 'owner_var: keeper\nphrases: {send: "sends a hound"}\n')
    shown = page_decision(tmp_path, pack)
    assert shown["options"] == ["sends a hound (Hound 1 (Player 1))", "sends a hound (Hound 2 (Player 1))",
                                "sends a hound (Hound (Player 2))"]
    assert shown["text"] == f"Player 1 {shown['options'][shown['choice']]}."


def test_a_dominaria_players_two_heroes_are_told_apart_where_moves_would_read_alike(tmp_path):
    """Dominaria's phrase "moves a hero to {to}" leaves out which hero: where two heroes
    can reach one place, the options add it."""
    log, out = tmp_path / "m.jsonl", tmp_path / "m.html"
    assert runner.invoke(app, ["play", "dominaria", "--seed", "2", "--agents", "random", "--log", str(log)]).exit_code == 0
    assert runner.invoke(app, ["view", str(log), "--out", str(out)]).exit_code == 0
    offered = [step["decision"]["options"] for step in steps(out) if step["decision"]]
    assert all(len(set(options)) == len(options) for options in offered)
    assert any({"moves a hero to Orvada (Hero 1)", "moves a hero to Orvada (Hero 2)"} <= set(options)
               for options in offered)
