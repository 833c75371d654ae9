"""Act sites that ask a policy first (ASK_FIRST): a policy that decides an action group without
reading `options` is asked before they are listed when nobody records the match; its answer is
checked alone (`check NAME`: each argument in its domain, each `require`) and, when legal, only
one other option is looked for. What a match gives must not change: the scores, the number of
decisions asked, the errors of illegal answers, and the rule that a decision with one option is
not asked. Every case runs on both engines."""
from __future__ import annotations

import pytest

from packmaker import compiled, write_pack  # tests/packmaker.py
from runebook.runtime.agents import AgentError, PolicyAgent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options
from runebook.runtime.scripting import DEFAULT_BUDGET

ENGINES = ("interp", "fast")

GAME = """
var round: int = 0
var total: int per player = 0

# Round by round: hold in rounds 1-5 and 10, grab(n) for n up to 8 - round, give(n) for n up
# to round - 6 until round 9; so round 10 offers one option (hold), which is not asked.
action hold() in turn
  require round < 6 or round == 10
{
}

action grab(n: int from [1, 2, 3, 4, 5, 6, 7, 8]) in turn
  require n <= 8 - round
{
  actor.total += n
}

action give(n: int from [1, 2, 3]) in turn
  require n <= round - 6 and round < 10
{
  actor.total -= n
}

proc play() {
  while round < 10 {
    round += 1
    act turn for players[0]
  }
}

fn score(p: player) -> int {
  return p.total
}

policy small {                  # grab(1): listed with hold before it, so give is never listed
  decide action turn {
    if round < 8 { return grab(1) }
    return give(1)
  }
}
policy big {                    # the largest grab, worked out without the options
  decide action turn {
    if round < 8 { return grab(8 - round) }
    return give(round - 6)
  }
}
policy reads {                  # reads its options: never asked first
  decide action turn {
    if grab(2) in options { return grab(2) }
    return none
  }
  rate action grab: n
}
policy defer {                  # answers none: its ratings decide
  decide action turn { return none }
  rate action grab: n
  rate action give: 0 - n
}
policy cheat {                  # an answer that is never legal
  decide action turn { return grab(9) }
}
policy fragile {                # fails in round 10, where only hold is offered
  decide action turn {
    let n = [1, 1, 1, 1, 1, 1, 1, 1, 1][round - 1]
    if round < 8 { return grab(n) }
    return give(n)
  }
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    return compiled(write_pack(tmp_path_factory.mktemp("answer_first") / "firsts", {"game.rune": GAME}))


def play(prog, policy: str, engine: str, record: bool):
    match = Match(prog, [PolicyAgent(prog, policy)], 1, resolve_options(prog, {}), 1, record=record, engine=engine)
    result = match.run()
    return result.scores, result.decisions, match.vm.budget


def test_only_policies_that_never_read_options_are_asked_first(prog):
    assert {name: p["decide"]["blind"] for name, p in prog.policies.items()} == {
        "small": ["turn"], "big": ["turn"], "reads": [], "defer": ["turn"], "cheat": ["turn"], "fragile": ["turn"]}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", ["small", "big", "reads", "defer"])
def test_a_quiet_match_gives_what_a_recorded_one_gives(prog, policy, engine):
    scores, decisions, _ = play(prog, policy, engine, record=True)
    assert play(prog, policy, engine, record=False)[:2] == (scores, decisions)
    # the same whichever engine runs it, down to the steps spent
    other = "fast" if engine == "interp" else "interp"
    assert play(prog, policy, engine, record=False) == play(prog, policy, other, record=False)


@pytest.mark.parametrize("engine", ENGINES)
def test_listing_stops_once_the_answer_and_a_second_option_are_listed(prog, engine):
    # small's answer, grab(1), is listed right after hold in rounds 1-5: a quiet match skips
    # give's listing there, and so spends fewer steps
    scores, decisions, left_recorded = play(prog, "small", engine, record=True)
    assert scores == [7 - 2] and decisions == 9  # round 10 offers hold alone: not asked
    _, _, left_quiet = play(prog, "small", engine, record=False)
    assert left_quiet > left_recorded
    assert play(prog, "big", engine, record=False)[:2] == ([7 + 6 + 5 + 4 + 3 + 2 + 1 - 2 - 3], 9)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_answer_given_first_is_refused_as_when_all_options_are_listed(prog, engine):
    message = r"policy:cheat answered the 'turn' decision with .*, which is not one of its 8 legal options"
    for record in (True, False):
        with pytest.raises(AgentError, match=message):
            play(prog, "cheat", engine, record)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_decision_with_one_option_is_still_not_asked(prog, engine):
    # fragile fails in round 10 (its list has 9 items), where hold is the only option: the
    # decision is not asked, so the failure of answering it first must not surface either
    assert play(prog, "fragile", engine, record=False)[:2] == play(prog, "fragile", engine, record=True)[:2] \
        == ([7 - 2], 9)


@pytest.mark.parametrize("engine", ENGINES)
def test_where_the_answer_would_be_listed_does_not_matter(prog, engine):
    # small's answer, grab(1), is the first grab listed, big's the last: checked alone, neither
    # is listed, so both spend about the same (a few steps apart: the other option found)
    assert play(prog, "small", engine, record=True)[2] == play(prog, "big", engine, record=True)[2]
    assert abs(play(prog, "small", engine, record=False)[2] - play(prog, "big", engine, record=False)[2]) < 10


CHECKED = """
var round: int = 0
var total: int per player = 0

action many(a: int from [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], b: int from [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) in turn {
}

action wait() in turn {
}

action pick(n: int from [1, 2, 3]) in turn
  require n <= round
{
  actor.total += n
}

action echo(n: int from [1, 1]) in lone {   # two options alike: the decision is asked
  actor.total += 10 * n
}

action rest() in other {
}

proc play() {
  while round < 4 {
    round += 1
    act turn for players[0]
    act lone for players[0]
  }
  act other for players[0]
}

fn score(p: player) -> int {
  return p.total
}

policy late {                   # listed after many's 100 options
  decide action turn {
    if round < 3 { return pick(round) }
    return pick(3)
  }
  decide action lone { return echo(1) }
}
policy idle {                   # an action without parameters, listed after many's
  decide action turn { return wait() }
  decide action lone { return echo(1) }
}
policy stray {                  # another group's action
  decide action turn { return rest() }
}
policy eager {                  # pick(3) is in pick's domain, but its require fails in round 1
  decide action turn { return pick(3) }
}
"""


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return compiled(write_pack(tmp_path_factory.mktemp("answer_checked") / "checked", {"game.rune": CHECKED}))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy, score", [("late", 1 + 2 + 3 + 3 + 40), ("idle", 40)])
def test_a_legal_answer_is_checked_alone_not_listed(checked, engine, policy, score):
    scores, decisions, left_recorded = play(checked, policy, engine, record=True)
    assert (scores, decisions) == ([score], 4 + 4)  # echo's two options alike are asked, as listed
    quiet = play(checked, policy, engine, record=False)
    assert quiet[:2] == (scores, decisions)
    # the recorded match lists many's 100 options every round; the quiet one finds one of them
    spent_recorded, spent_quiet = DEFAULT_BUDGET - left_recorded, DEFAULT_BUDGET - quiet[2]
    assert spent_quiet < spent_recorded - 4 * 90
    other = "fast" if engine == "interp" else "interp"
    assert quiet == play(checked, policy, other, record=False)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy, answer", [("stray", r"\(4,\)"), ("eager", r"\(2, 3\)")])
def test_an_answer_that_fails_its_check_is_refused_after_a_full_listing(checked, engine, policy, answer):
    # round 1 offers many's 100 options, wait and pick(1)
    message = rf"policy:{policy} answered the 'turn' decision with {answer}, which is not one of its 102 legal options"
    for record in (True, False):
        with pytest.raises(AgentError, match=message):
            play(checked, policy, engine, record)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_agent_playing_match_after_match_answers_each_for_itself(prog, engine):
    # one agent, a quiet match then a recorded one: what it answered first in the quiet
    # match (where the last act site offered one option, so nothing was asked) is not
    # taken for the recorded match's first decision
    agent = PolicyAgent(prog, "small")
    options = resolve_options(prog, {})
    quiet = Match(prog, [agent], 1, options, 1, engine=engine).run()
    recorded = Match(prog, [agent], 1, options, 1, record=True, engine=engine).run()
    assert (quiet.scores, quiet.decisions) == (recorded.scores, recorded.decisions) == ([7 - 2], 9)


def many_actions(n: int) -> str:
    """A group of n actions; the policy answers a different one each round, counting down."""
    actions = "".join(f"action a{i}(k: int from [{i}, {i + 1}]) in turn\n  require k == {i}\n{{\n  actor.total += k\n}}\n"
                      for i in range(n))
    answers = "".join(f"    if round == {r} {{ return a{n - 1 - 7 * r}({n - 1 - 7 * r}) }}\n" for r in range(1, 6))
    return (f"var round: int = 0\nvar total: int per player = 0\n{actions}"
            "proc play() {\n  while round < 5 {\n    round += 1\n    act turn for players[0]\n  }\n}\n"
            "fn score(p: player) -> int {\n  return p.total\n}\n"
            f"policy pick {{\n  decide action turn {{\n{answers}    return none\n  }}\n}}\n")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_answer_is_found_among_many_actions(tmp_path, engine):
    # 120 actions in one group: the answer's action is found by halving (the generated Python
    # stays a few levels deep), each answer checked alone
    big = compiled(write_pack(tmp_path / "many", {"game.rune": many_actions(120)}))
    expected = sum(119 - 7 * r for r in range(1, 6))
    scores, decisions, left_recorded = play(big, "pick", engine, record=True)
    assert (scores, decisions) == ([expected], 5)
    quiet = play(big, "pick", engine, record=False)
    assert quiet[:2] == ([expected], 5) and quiet[2] > left_recorded
    assert quiet == play(big, "pick", "fast" if engine == "interp" else "interp", record=False)
