"""Agents answer decisions. None of them knows any game.

  random       uniform over the legal options (its own RNG, seeded from the match seed and seat)
  first        always the first option
  scripted     answers from a list (indices or option labels), for tests and replays
  policy:NAME  a strategy written in the pack's language: the pack's 'policy NAME'
               answers a decision itself where it says 'decide', else each option is
               rated and the best rating wins (first on ties). Where it decides an action
               group without reading `options`, a match nobody records asks it before the
               options are listed (answer_first; ASK_FIRST in runtime/opcodes.py)

Interactive agents (human) live in the CLI, the only layer that knows terminals.
An agent sees a match only through a SeatView (runtime/visibility.py): its own
decision's labels, and script calls that see other players' private zones as counts.
"""
from __future__ import annotations

import random

from .scripting import ScriptError


class AgentError(Exception):
    pass


class Agent:
    name = "agent"

    def choose(self, decision, view) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def __init__(self, seed, seat: int):
        self.rng = random.Random(f"agent:{seed}:{seat}")

    def choose(self, decision, view) -> int:
        return self.rng.randrange(len(decision.options))


class FirstAgent(Agent):
    name = "first"

    def choose(self, decision, view) -> int:
        return 0


class ScriptedAgent(Agent):
    """Answers in order; an answer is an option index or an option's label."""
    name = "scripted"

    def __init__(self, answers):
        self.answers = list(answers)
        self.used = 0

    def choose(self, decision, view) -> int:
        if self.used >= len(self.answers):
            labels = view.labels(decision)
            raise AgentError(f"no scripted answer left for a '{decision.tag}' decision; options: {', '.join(labels)}")
        answer = self.answers[self.used]
        self.used += 1
        if isinstance(answer, int):
            if not 0 <= answer < len(decision.options):
                raise AgentError(f"scripted answer {answer} is out of range for '{decision.tag}' "
                                 f"({len(decision.options)} options)")
            return answer
        labels = view.labels(decision)
        if answer in labels:
            return _only_match(labels, answer, f"scripted answer '{answer}'", decision.tag)
        raise AgentError(f"scripted answer '{answer}' is not an option of '{decision.tag}'; "
                         f"options: {', '.join(labels)}")


def _only_match(labels: list[str], answer: str, what: str, tag: str) -> int:
    """The index of the one option labelled `answer`: options labelled alike make the answer
    ambiguous, never silently the first of them."""
    matches = [i for i, label in enumerate(labels) if label == answer]
    if len(matches) > 1:
        raise AgentError(f"{what} matches {len(matches)} options of '{tag}' (options "
                         f"{', '.join(str(i) for i in matches)}, counting from 0): answer with the "
                         f"option's number instead; options: {', '.join(labels)}")
    return matches[0]


class PolicyAgent(Agent):
    def __init__(self, program, policy: str):
        if policy not in program.policies:
            from runebook.dsl.diagnostics import did_you_mean
            hint = did_you_mean(policy, program.policies)
            known = ", ".join(program.policies) or "none"
            raise AgentError(f"pack '{program.name}' has no policy '{policy}' "
                             f"({hint or 'policies: ' + known})")
        self.name = f"policy:{policy}"
        self.ratings = program.policies[policy]
        self.deciders = self.ratings["decide"]
        self.run_actions, self.fixed_actions, self.run_choices, self._blind = _policy_tables(program, policy)
        self._sizes = _option_sizes(program)
        self._first = None  # (player, group, answer) given by answer_first, for the decision it precedes
        if not self._blind:
            self.answer_first = None  # nothing to answer first: the match need not ask

    def answer_first(self, view, player, group: str):
        """The answer to `act group` decided before its options are listed, when this policy
        decides the group without reading them; None otherwise (and when deciding fails: the
        decision, if asked, fails the same way then). The act site checks the answer alone
        (its action, then each argument), so only an action option, of its action's
        length, is handed over: anything else is refused at the decision, as unlisted.
        The answer is kept for the decision that follows, so it is worked out once; it
        names the player, who belongs to this match's world, so no later match can take
        it for its own."""
        decider = self._blind.get(group)
        if decider is None:
            self._first = None
            return None
        try:
            answer = view.call(decider, (player, ()))
        except ScriptError:
            self._first = None
            return None
        self._first = (player, group, answer)
        # (sizes by action: a negative or unknown action finds none)
        if type(answer) is tuple and answer and type(answer[0]) is int and self._sizes.get(answer[0]) == len(answer):
            return answer
        return None

    def _legal(self, decision, answer) -> int:
        """The index of a decided answer among the legal options; an answer that is not one
        of them is the policy's mistake, named with the options it could have given."""
        options = decision.options
        try:
            i = options.index(answer)  # a search in C, then one of the same type (1 is not true)
        except ValueError:
            pass
        else:
            if type(options[i]) is type(answer):
                return i
            i = next((j for j, option in enumerate(options) if option == answer and type(option) is type(answer)), -1)
            if i >= 0:
                return i
        raise AgentError(f"{self.name} answered the '{decision.tag}' decision with {answer!r}, "
                         f"which is not one of its {len(decision.options)} legal options")

    def choose(self, decision, view) -> int:
        player = decision.player
        first = self._first
        if first is not None:
            self._first = None
            answer = first[2]
            # An act site that found the answer legal lists it first, the very value given,
            # with one other option: no search (an illegal one is not listed at all). Its
            # player's act site asked this agent (every act site asks, and the agent forgets
            # an older answer then), so it is this decision's act site.
            if decision.options[0] is answer and first[0] is player and decision.kind == "action":
                return 0
            if first[0] is player and answer is not None and first[1] == decision.tag and decision.kind == "action":
                return self._legal(decision, answer)
        decider = self.deciders[decision.kind].get(decision.tag)
        if decider is not None:
            answer = view.call(decider, (player, tuple(decision.options)))
            if answer is not None:
                return self._legal(decision, answer)
        call_each = view.call_each
        if call_each is not None:  # a masking view: every rating run at once, the zones masked once
            return self._best_of_all(decision, player, call_each)
        best, best_score = 0, None
        if decision.kind == "action":
            runs, fixed, call, actor = self.run_actions, self.fixed_actions, view.call, (player,)
            for i, option in enumerate(decision.options):
                fn = runs.get(option[0])
                score = fixed[option[0]] if fn is None else call(fn, actor + option[1:])
                if best_score is None or score > best_score:
                    best, best_score = i, score
        else:
            fn = self.run_choices.get(decision.tag)
            if fn is None:
                return 0  # every option rated the same: the first
            call = view.call
            for i, option in enumerate(decision.options):
                score = call(fn, (player, option))
                if best_score is None or score > best_score:
                    best, best_score = i, score
        return best

    def _best_of_all(self, decision, player, call_each) -> int:
        """choose's rating, the ratings run all at once by `call_each` (in the same order,
        each with its own budget; the first to fail fails as when run alone): the same
        answer. Only for a view that masks zones, where masking once pays for the lists."""
        options = decision.options
        if decision.kind == "action":
            to_run, fixed, actor = self.run_actions, self.fixed_actions, (player,)
            scores, runs, run_at = [], [], []
            for option in options:
                fn = to_run.get(option[0])
                if fn is None:
                    scores.append(fixed[option[0]])
                else:
                    run_at.append(len(scores))
                    scores.append(None)
                    runs.append((fn, actor + option[1:]))
            if runs:  # (none: nothing masked, nothing run, as when called one by one)
                for i, score in zip(run_at, call_each(runs)):
                    scores[i] = score
        else:
            fn = self.run_choices.get(decision.tag)
            if fn is None:
                return 0  # every option rated the same: the first
            scores = call_each([(fn, (player, option)) for option in options])
        return max(range(len(scores)), key=scores.__getitem__)  # the first of the best, as choose's


def _policy_tables(program, policy: str) -> tuple:
    """How the policy rates an option, worked out once per program for both ways of rating:
    ({action index: its rating function, to run}, per action index the score of an action
    whose rating is not run, {choice tag: its rating function, to run}), then {group: its
    decider} for the groups it decides without reading the options (asked first). An unrated
    action scores 0; a constant rating (`rate flee: 0 - 100`) is read, not run: the same
    answer, no engine call. An unrated choice, or one rated by a constant, rates every
    option the same."""
    tables = program.derived.policy_tables.get(policy)
    if tables is None:
        ratings = program.policies[policy]
        constants = {}
        for fn in (*ratings["action"].values(), *ratings["choice"].values()):
            is_constant, value = program.functions[fn].constant_result()
            if is_constant:
                constants[fn] = value
        rated = ratings["action"]
        run_actions = {action: fn for action, fn in rated.items() if fn not in constants}
        fixed_actions = tuple(0 if action not in rated else constants.get(rated[action])  # None: run
                              for action in range(len(program.actions)))
        run_choices = {tag: fn for tag, fn in ratings["choice"].items() if fn not in constants}
        deciders = ratings["decide"]
        blind = {group: deciders["action"][group] for group in deciders.get("blind", ())}
        tables = program.derived.policy_tables[policy] = (run_actions, fixed_actions, run_choices, blind)
    return tables


def _option_sizes(program) -> dict:
    """{action index: how many items its option holds} (the action's number, then its
    arguments): an answer given first of another length is never handed over."""
    sizes = program.derived.option_sizes
    if sizes is None:
        sizes = program.derived.option_sizes = {i: 1 + len(a.params) for i, a in enumerate(program.actions)}
    return sizes


def make_agent(spec: str, program, seed, seat: int, extra: dict | None = None) -> Agent:
    """An agent from its command-line name. `extra` adds front-end agents (human)."""
    if extra and spec in extra:
        return extra[spec](seat)
    if spec == "random":
        return RandomAgent(seed, seat)
    if spec == "first":
        return FirstAgent()
    if spec.startswith("policy:"):
        return PolicyAgent(program, spec.split(":", 1)[1])
    known = ["random", "first", "policy:NAME"] + sorted(extra or {})
    raise AgentError(f"unknown agent '{spec}' (agents: {', '.join(known)}; "
                     f"policies of {program.name}: {', '.join(program.policies) or 'none'})")


class PinnedAgent(Agent):
    """Answers one choice (by its tag) with a fixed option label and leaves every other
    decision to another agent: how a seat plays a given entrant when the game asks
    each player to pick one (a tournament entrant declared by the pack)."""

    def __init__(self, inner: Agent, tag: str, answer: str):
        self.inner, self.tag, self.answer = inner, tag, answer
        self.name = f"{inner.name}+{tag}={answer}"

    def choose(self, decision, view) -> int:
        if decision.kind != "choice" or decision.tag != self.tag:
            return self.inner.choose(decision, view)
        labels = view.labels(decision)
        if self.answer in labels:
            return _only_match(labels, self.answer, f"'{self.answer}'", self.tag)
        raise AgentError(f"'{self.answer}' is not an answer to the '{self.tag}' choice; "
                         f"answers: {', '.join(labels)}")
