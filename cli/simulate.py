"""Playing batches of seeded matches, and summing their results.

A worker gets the compiled program once and plays batches of seeds of one setup
(cli/store.py: options, players, agents, pinned answers, tuning), sending back one
small row per game. Totals are integer sums, the same for any order of games, any
number of workers and either backend (cli/backends.py).
No Match outlives its game. This module imports no typer or rich: workers import it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

Z95 = 1.96

_STATE: Optional[tuple] = None  # (program, engine, {tuning: tuned program}), per process


def init_worker(program, engine: str = "fast", worker: bool = False) -> None:
    global _STATE
    _STATE = (program, engine, {})
    if worker:
        # Ctrl-C reaches the whole process group: the parent stops and keeps what it
        # finished; workers would only print a traceback each.
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_batch(task: tuple) -> tuple:
    """(setup id, [(seed, scores, winners, titles, decisions)], error) for a batch of seeds of
    one setup. The rows stop at the first failing game; error is then its fields, sent as plain
    values (ScriptError's constructor does not survive pickling): ("script", seed, code, message,
    function, file, line, hint, chain, col) or ("agent", seed, message)."""
    from runebook.runtime.agents import AgentError
    from runebook.runtime.match import Match
    from runebook.runtime.scripting import ScriptError

    setup_id, setup, seeds = task
    _, engine, _ = _STATE
    program = tuned_program(setup["tuning"])
    rows = []
    for seed in seeds:
        try:
            agents = setup_agents(program, setup, seed)
            match = Match(program, agents, seed, setup["options"], setup["players"], engine=engine)
            result = match.run(keep=False)  # only the result is read: the world is freed at once
        except ScriptError as err:
            return setup_id, rows, ("script", seed, err.code, err.message, err.function, err.file, err.line, err.hint,
                                    err.chain, err.col)
        except AgentError as err:
            return setup_id, rows, ("agent", seed, str(err))
        rows.append((seed, list(result.scores), list(result.winners), list(result.titles), result.decisions))
    return setup_id, rows, None


def play_batch_with(program, engine: str, task: tuple) -> tuple:
    """play_batch where the program comes with the task (a distributed worker, which may
    serve several runs): the worker's state is set when the program changes."""
    if _STATE is None or _STATE[0] is not program or _STATE[1] != engine:
        init_worker(program, engine)
    return play_batch(task)


def setup_agents(program, setup: dict, seed: int) -> list:
    from runebook.runtime.agents import PinnedAgent, make_agent
    agents = []
    for seat, (spec, pin) in enumerate(zip(setup["agents"], setup["pins"])):
        agent = make_agent(spec, program, seed, seat)
        agents.append(agent if pin is None else PinnedAgent(agent, *pin))
    return agents


def tuned_program(tuning: dict):
    """The program with some entries' numeric fields changed ({entry: {field: value}}),
    made once per process and tuning. Only data changes: the compiled code reads entry
    fields from the entries table while it runs."""
    program, _, tuned = _STATE
    if not tuning:
        return program
    from .store import canonical
    key = canonical(tuning)
    if key not in tuned:
        tuned[key] = with_tuning(program, tuning)
    return tuned[key]


def with_tuning(program, tuning: dict):
    from dataclasses import replace
    from runebook.runtime.program import Derived
    entries = dict(program.entries)
    for entry, fields in tuning.items():
        entries[entry] = {**entries[entry], **fields}
    return replace(program, entries=entries, derived=Derived())  # its own compiled module: entries are baked in


@dataclass
class Tally:
    """Running totals; integer sums, so exact whatever the order of games."""
    players: int
    games: int = 0
    score_sum: list = field(default_factory=list)
    score_sq: list = field(default_factory=list)
    wins: list = field(default_factory=list)
    titles: dict = field(default_factory=dict)
    interrupted: bool = False  # Ctrl-C: the totals are those of the games finished before it

    def __post_init__(self):
        self.score_sum = [0] * self.players
        self.score_sq = [0] * self.players
        self.wins = [0] * self.players

    def add(self, scores, winners, titles) -> None:
        self.games += 1
        for seat, score in enumerate(scores):
            self.score_sum[seat] += score
            self.score_sq[seat] += score * score
        for seat in winners:  # a shared win counts for every tied seat
            self.wins[seat] += 1
        for title in titles:
            if title is not None:
                self.titles[title] = self.titles.get(title, 0) + 1

    def mean(self, seat: int) -> float:
        return self.score_sum[seat] / self.games

    def mean_ci(self, seat: int) -> tuple[float, float]:
        n, mean = self.games, self.mean(seat)
        if n < 2:
            return mean, mean
        var = max(0.0, (self.score_sq[seat] - n * mean * mean) / (n - 1))
        half = Z95 * math.sqrt(var) / math.sqrt(n)
        return mean - half, mean + half

    def win_rate(self, seat: int) -> float:
        return self.wins[seat] / self.games

    def win_ci(self, seat: int) -> tuple[float, float]:
        return wilson(self.wins[seat], self.games)


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a rate: sound near 0% and 100%, unlike the
    normal approximation. A tie counted as half a win keeps it meaningful."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def peak_rss_mb() -> float:
    import resource
    import sys
    kb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
          + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    if sys.platform == "darwin":  # macOS reports bytes, Linux kilobytes
        kb /= 1024
    return round(kb / 1024, 1)
