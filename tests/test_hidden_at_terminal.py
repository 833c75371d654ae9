"""Hidden information when people play at one terminal (`runebook play PACK --agents
human,human`), and on one seat's page of the match viewer.

Each prompt begins with a line naming whose turn it is; what follows it is for that seat
alone: its own private zones, what the game told it alone since its last prompt, and its
options. The tests read the terminal as the people at it would: one seat's part must hold
its own hand and nothing of another's, and nothing printed before a seat's prompt may
change with what another seat answered in secret (until the reveal, which must).
"""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from runebook.cli.main import app

runner = CliRunner()
TURN = re.compile(r"^──── Player (\d+)'s turn: only Player \1 looks at what follows ────$", re.M)
ID = re.compile(r"\(#(\d+)\)")
ANSWERS = 300  # enough for a MOBA round's payday, planning and a battle with first options


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("RUNEBOOK_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


def at_terminal(pack: str, answers: list, *flags) -> str:
    """The terminal of a match of people answering `answers` in turn (it ends, with a
    usage error, where the answers run out)."""
    result = runner.invoke(app, ["play", pack, "--seed", "3", "--agents", "human,human", *flags],
                           input="".join(f"{a}\n" for a in answers))
    assert result.exit_code in (0, 2), result.output
    assert result.exit_code == 0 or "input ended" in result.output
    return result.output


def parts(output: str) -> list:
    """(seat, text) of every prompt: from its turn line to the next one."""
    starts = list(TURN.finditer(output))
    ends = [m.start() for m in starts[1:]] + [len(output)]
    return [(int(m.group(1)), output[m.start():end]) for m, end in zip(starts, ends)]


def own_ids(text: str) -> set:
    """The ids of the things a prompt lists as the seat's own private zones."""
    return {i for line in text.splitlines() if line.startswith("  your ") for i in ID.findall(line)}


@pytest.fixture(scope="module")
def moba_terminal():
    return at_terminal("moba", ["1"] * ANSWERS)


def test_each_prompt_shows_its_seats_own_hand_and_nothing_of_the_others(moba_terminal):
    prompts = parts(moba_terminal)
    assert {seat for seat, _ in prompts} == {1, 2}
    mine = {seat: set().union(*(own_ids(text) for s, text in prompts if s == seat)) for seat in (1, 2)}
    assert mine[1] and mine[2] and not mine[1] & mine[2]  # a MOBA card never changes hands
    for seat, text in prompts:
        assert "  your battle hand: " in text
        other = mine[3 - seat]
        assert not set(ID.findall(text)) & other, f"Player {seat}'s prompt names another seat's private thing"
    # the secret choices are all there, each asked of its seat in its own part
    asked = {(seat, tag) for seat, text in prompts for tag in re.findall(r"^Player \d+, choice '(\w+)'", text, re.M)}
    assert {(1, "payday"), (2, "payday"), (1, "plan"), (2, "plan")} <= asked
    assert {"attack_card", "defense_card"} <= {tag for _, tag in asked}
    # options in the pack's words, the code form beside (its ids tell alike cards apart)
    assert re.search(r"^   1\. selects an attack card: \w+ card  \[\w+ card \(#\d+\)\]$", moba_terminal, re.M)
    assert re.search(r"^ +\d+\. ends the activation  \[end_activation\]$", moba_terminal, re.M)


def prompt_starts(output: str) -> list:
    """(seat, tag, where the prompt's turn line starts, its answer's index)."""
    return [(int(m.group(1)), re.search(r"choice '(\w+)'|action '(\w+)'", output[m.end():]).group(0), m.start(), i)
            for i, m in enumerate(TURN.finditer(output))]


CHOOSE = re.compile(r"choose \d+-\d+: ")


def shown_to(output: str, seat: int, until: int) -> str:
    """What a seat sees of the terminal while its prompt number `until` waits: everything
    up to it but other seats' prompts (from their turn line to their answer; what the
    game says after an answer is for all)."""
    turns = list(TURN.finditer(output))
    seen, where = [], 0
    for number, turn in enumerate(turns):
        if number == until:
            return "".join(seen) + output[where:CHOOSE.search(output, turn.end()).end()]
        if int(turn.group(1)) != seat:
            seen.append(output[where:turn.start()])
            part_end = turns[number + 1].start() if number + 1 < len(turns) else len(output)
            where = list(CHOOSE.finditer(output, turn.end(), part_end))[-1].end()
    raise AssertionError(f"no prompt number {until}")


@pytest.mark.parametrize("tag", ["payday", "plan", "attack_card"])
def test_nothing_shown_before_the_next_persons_prompt_tells_a_secret_answer(moba_terminal, tag):
    """The first secret answer of the tag is changed; all that the next other person sees
    until its prompt must stay the same, and what follows must not (the reveal)."""
    prompts = prompt_starts(moba_terminal)
    seat, _, _, index = next(p for p in prompts if p[1] == f"choice '{tag}'")
    other, _, _, after = next(p for p in prompts[index + 1:] if p[0] != seat)  # the next other person's prompt
    answers = ["1"] * ANSWERS
    answers[index] = "2"
    changed = at_terminal("moba", answers)
    assert prompt_starts(changed)[after][0] == other
    assert shown_to(changed, other, after) == shown_to(moba_terminal, other, after), \
        f"Player {other} could learn Player {seat}'s {tag}"
    assert changed != moba_terminal  # the answer was told in the end, so the test could have failed


def test_what_the_game_tells_one_seat_waits_for_that_seats_prompt():
    """Dominaria tells each player alone which quests it kept: with people sharing the
    terminal, that line is shown at the player's next prompt, beside its own hand."""
    output = at_terminal("dominaria", ["1"] * 40)
    told = re.findall(r"^.*You keep .*$", output, re.M)
    assert told and all(line.startswith("  (to you alone) You keep ") for line in told)
    for seat, text in parts(output):
        for line in re.findall(r"^  \(to you alone\) You keep (.*)\.$", text, re.M):
            hand = re.search(r"^  your hand: (.*)$", text, re.M).group(1)
            plain = lambda name: name.lower().replace("'", "")  # noqa: E731 (a name as its id reads)
            assert all(plain(quest) in hand for quest in line.split(", ")), (seat, line, hand)


def test_one_person_with_bots_reads_its_private_lines_at_once():
    result = runner.invoke(app, ["play", "dominaria", "--seed", "3", "--agents", "human,random,random"],
                           input="1\n" * 40)
    assert "──── " not in result.output  # no turn lines: one person, nobody to look away
    assert "You keep " in result.output and "(to you alone)" not in result.output


# ---------------------------------------------------------------- one seat's page
def page_steps(html: str) -> list:
    found = re.search(r'<script id="match" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))["steps"]


def seat_page(tmp_path, answers: list, seat: int, name: str) -> list:
    log, page = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.html"
    at_terminal("moba", answers, "--log", str(log))
    result = runner.invoke(app, ["view", str(log), "--seat", str(seat), "--out", str(page)])
    assert result.exit_code == 0, result.output
    return page_steps(page.read_text(encoding="utf-8"))


def test_a_seats_page_of_a_moba_match_hides_the_others_plans_and_battle_cards(tmp_path, moba_terminal):
    prompts = prompt_starts(moba_terminal)
    answers = ["1"] * ANSWERS
    steps = seat_page(tmp_path, answers, 2, "base")
    theirs = [s["decision"] for s in steps if s["decision"] and s["decision"]["player"] == 1]
    hidden = [d for d in theirs if d.get("hidden")]
    assert {d["tag"] for d in hidden} >= {"payday", "plan", "attack_card"}
    assert all(d["options"] == [] and d["codes"] == [] and d["label"] is None for d in hidden)
    assert all(d["text"].endswith(" (hidden).") for d in hidden if d["kind"] == "choice")  # what, not which
    for step in steps:  # Player 1's private zones: counts only
        for zone in step["state"]["zones"]:
            if zone["private"] and zone["owner"] == 1:
                assert zone["items"] is None
    mine = [s["decision"] for s in steps if s["decision"] and s["decision"]["player"] == 2]
    assert any(d["tag"] == "plan" and d["options"] and d["label"] for d in mine)  # its own, in full
    # Player 1 plans another card: Player 2's page is the same up to its own planning.
    first_plan = next(p for p in prompts if p[0] == 1 and p[1] == "choice 'plan'")
    answers[first_plan[3]] = "2"
    changed = seat_page(tmp_path, answers, 2, "changed")
    own_plan = next(i for i, s in enumerate(steps) if s["decision"] and s["decision"]["player"] == 2
                    and s["decision"]["tag"] == "plan")
    assert changed[:own_plan + 1] == steps[:own_plan + 1]
    assert changed != steps
