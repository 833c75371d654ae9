"""How options are named for scripted answers: alike actions are told apart, and an answer
naming several options is refused (docs/card-tests.md, Scripted decisions). Heroes of
Dominaria's card tests name two hero figures and two copies of a quest this way."""
import pytest

from runebook.runtime.agents import AgentError, ScriptedAgent


class _View:
    def __init__(self, labels):
        self._labels = labels

    def labels(self, decision):
        return self._labels


class _Decision:
    tag = "main"
    options = [("a",), ("b",), ("c",)]


def test_an_answer_naming_two_options_is_an_error_listing_them():
    agent = ScriptedAgent(["move(h=figure, to=x)"])
    with pytest.raises(AgentError, match=r"matches 2 options of 'main' \(options 0, 2"):
        agent.choose(_Decision(), _View(["move(h=figure, to=x)", "end_turn", "move(h=figure, to=x)"]))


def test_an_answer_naming_one_option_picks_it():
    agent = ScriptedAgent(["end_turn"])
    assert agent.choose(_Decision(), _View(["move(h=figure, to=x)", "end_turn", "pass"])) == 1


def test_alike_actions_name_their_things_by_id():
    """Two options reading alike (one action on two things of one entry) are named with the
    things' ids; an option that reads uniquely keeps its plain label."""
    from runebook.runtime.scripting import Decision

    class World:
        def option_label(self, option, ids=False):
            name, thing = option
            return f"{name}(q={thing[0]}{f' (#{thing[1]})' if ids else ''})"

    options = [("start", ("kieve", 71)), ("start", ("kieve", 73)), ("start", ("hoard", 80))]
    labels = Decision(None, "action", "main", options).labels(World())
    assert labels == ["start(q=kieve (#71))", "start(q=kieve (#73))", "start(q=hoard)"]
