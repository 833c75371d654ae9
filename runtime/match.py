"""The match driver: run the pack's play() script, asking agents at decisions.

A match is fully determined by (engine version, pack hash, options, seed,
decisions). With record=True it keeps an event log (JSON-ready dicts):
start, say (narration), place (a thing moved on a board), decision, reveal (the
answers of a secret choice, together), end. `on_event` streams events as they
happen, so a watcher sees narration before the next question. Entries only
one player may read carry "private": that player's seat (1-based): lines
written with `log to p`, decisions whose options show things of a private
zone, and each player's part of a secret choice (public again in its reveal).
Agents see the match through a SeatView (runtime/visibility.py).
A match that records nothing lets an agent able to answer an action group without
its options answer before they are listed (vm.answer_first, ASK_FIRST): the same
play, with less listing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from .fastvm import make_vm
from .visibility import SeatView, is_private, new_decision
from .scripting import DEFAULT_BUDGET
from .world import World


@dataclass
class MatchResult:
    scores: list
    winners: list           # 0-based seats sharing the win
    titles: list            # per player, or None
    decisions: int
    events: list = field(default_factory=list)


def start_event(program, seed, options, n_players, agents) -> dict:
    return {"type": "start", "engine": program.engine_version, "pack": program.name,
            "pack_hash": program.pack_hash, "seed": seed, "players": n_players,
            "options": dict(options), "agents": [getattr(a, "name", "?") for a in agents]}


def _askers(agents: list, views: list, forgets: bool):
    """Per seat, ASK_FIRST's question to its agent: (ask, view), ask(view, player, group) ->
    an option or None, or None for an agent that never answers before the options are
    listed; None when no agent does. Made once per match: the agent's own method, called
    by the VM with no layer between them, where its view need not forget anything."""
    firsts = [getattr(agent, "answer_first", None) for agent in agents]
    if not any(firsts):
        return None
    return [None if first is None else (_forgetting(first) if forgets else first, view)
            for first, view in zip(firsts, views)]


def _forgetting(answer_first):
    """answer_first asked of a view that keeps something of a decision (masked zones)."""
    def ask(view: SeatView, player, group: str):
        new_decision(view)  # a new question: what the view saw for the last one is stale
        return answer_first(view, player, group)
    return ask


class Match:
    def __init__(self, program, agents: list, seed: int, options: dict, n_players: int,
                 record: bool = False, on_event: Optional[Callable] = None, budget: int = DEFAULT_BUDGET,
                 engine: str = "fast"):
        self.program = program
        self.agents = agents
        self.seed = seed
        self.options = options
        self.n_players = n_players
        self.world = World(program, seed, options, n_players)
        self.world.quiet = not (record or on_event is not None)
        self.vm = make_vm(engine, program, self.world, budget)
        self.record = record or on_event is not None
        self.on_event = on_event
        self.events: list = []
        self.decisions = 0

    def _event(self, event: dict):
        if self.record:
            self.events.append(event)
            if self.on_event is not None:
                self.on_event(event)

    def _flush_narration(self):
        narration = self.world.narration
        if narration:
            if self.record:
                for entry in narration:  # a text, (seat, text) for one player's eyes, or a record
                    if type(entry) is tuple:
                        self._event({"type": "say", "text": entry[1], "private": entry[0] + 1})
                    elif type(entry) is dict:
                        self._event(entry)
                    else:
                        self._event({"type": "say", "text": entry})
            narration.clear()

    def run(self, keep: bool = True) -> MatchResult:
        """Play the match to its end. keep=False: the caller reads only the result, so the
        world and the VM are released (see World.release) and the match cannot be read again."""
        program, vm, world = self.program, self.vm, self.world
        record = self.record
        if record:
            self._event(start_event(program, self.seed, self.options, self.n_players, self.agents))
        vm.start(program.entry_points["play"])
        agents = self.agents
        views = [SeatView(vm, world, seat) for seat in range(self.n_players)]
        # A view keeps something of a decision (masked zones, answers) only where some zone
        # is private: without one it calls the VM directly and has nothing to forget.
        forgets = world.has_private
        # Seats whose agent is asked at every act site before the options are listed, which is
        # a new decision for its view; listing changes nothing, so the view stays valid for the
        # action decision that follows.
        asked_first = [False] * self.n_players
        if not record:  # a recorded decision shows every option, so all are listed
            vm.answer_first = _askers(agents, views, forgets)
            if vm.answer_first is not None:
                asked_first = [ask is not None for ask in vm.answer_first]
        narration = world.narration
        resume = vm.resume
        decided = 0  # a local in the loop (an attribute costs more at every decision)
        decision = vm.run()
        while decision is not None:
            if narration:
                self._flush_narration()
            seat = decision.player.seat
            view = views[seat]
            if forgets and not (asked_first[seat] and decision.kind == "action"):
                new_decision(view)
            index = agents[seat].choose(decision, view)
            decided += 1
            if record:
                labels = decision.labels(world)
                event = {"type": "decision", "player": seat + 1, "kind": decision.kind,
                         "tag": decision.tag, "options": labels, "choice": index, "label": labels[index]}
                if decision.secret or (world.has_private and is_private(decision.options)):
                    event["private"] = seat + 1
                self._event(event)
            decision = resume(decision.options[index])
        self.decisions += decided
        self._flush_narration()
        result = self._finish()
        if not keep:
            world.release()
            for view in views:  # a view that masks zones holds its own methods: a cycle too
                view.call = view.call_each = None
            vm.__dict__.clear()
            self.__dict__.clear()
        return result

    def _finish(self) -> MatchResult:
        program, vm, world = self.program, self.vm, self.world
        scores = [vm.call(program.entry_points["score"], (p,)) for p in world.players]
        tiebreak = program.entry_points.get("tiebreak")
        keys = [(s, vm.call(tiebreak, (p,)) if tiebreak is not None else 0) for s, p in zip(scores, world.players)]
        best = max(keys)
        winners = [i for i, k in enumerate(keys) if k == best]
        title_fn = program.entry_points.get("title")
        titles = [vm.call(title_fn, (p,)) for p in world.players] if title_fn is not None else [None] * len(scores)
        if self.record:
            self._event({"type": "end", "scores": scores, "winners": [w + 1 for w in winners], "titles": titles})
        return MatchResult(scores, winners, titles, self.decisions, self.events)
