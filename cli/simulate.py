"""Many matches, in parallel, summarised.

Game i is played with seed S+i. Workers get the compiled program once (pool
initializer) and send back one small tuple per game; results are consumed in
seed order (Pool.imap), so every total is the same for any number of workers
(and on either engine: both play a seed the same way).
No Match outlives its game. This module imports no typer or rich: spawned
workers import it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

Z95 = 1.96

_STATE: Optional[tuple] = None  # (program, options, agent specs, players, engine), per process


def init_worker(program, options: dict, specs: list, n_players: int, engine: str = "fast",
                worker: bool = False) -> None:
    global _STATE
    _STATE = (program, options, specs, n_players, engine)
    if worker:
        # Ctrl-C reaches the whole process group: the parent stops and reports what it
        # finished; workers would only print a traceback each.
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_one(seed: int) -> tuple:
    """(scores, winners, titles, None) or (None, None, None, error fields) for one game."""
    from runebook.runtime.agents import make_agent
    from runebook.runtime.match import Match
    from runebook.runtime.scripting import ScriptError

    program, options, specs, n_players, engine = _STATE
    agents = [make_agent(spec, program, seed, seat) for seat, spec in enumerate(specs)]
    try:
        result = Match(program, agents, seed, options, n_players, engine=engine).run()
    except ScriptError as err:
        # Sent as plain fields: ScriptError's constructor does not survive pickling.
        return None, None, None, (seed, err.code, err.message, err.function, err.file, err.line, err.hint)
    return tuple(result.scores), tuple(result.winners), tuple(result.titles), None


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
        """Wilson score interval: sound near 0% and 100%, unlike the normal approximation."""
        n, p = self.games, self.win_rate(seat)
        denom = 1 + Z95 * Z95 / n
        centre = (p + Z95 * Z95 / (2 * n)) / denom
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / denom
        return max(0.0, centre - half), min(1.0, centre + half)


def run_games(program, options: dict, specs: list, n_players: int, seeds: range, workers: int,
              on_game: Callable[[], None] = lambda: None, engine: str = "fast") -> tuple[Tally, Optional[tuple]]:
    """Play every seed on the named engine; returns the tally and the first script error (then it stops)."""
    tally = Tally(n_players)
    args = (program, options, specs, n_players, engine)
    if workers <= 1:
        init_worker(*args)
        return _consume(map(play_one, seeds), tally, on_game)
    import multiprocessing
    chunk = max(1, min(50, math.ceil(len(seeds) / (workers * 4))))
    with multiprocessing.Pool(workers, initializer=init_worker, initargs=(*args, True)) as pool:
        return _consume(pool.imap(play_one, seeds, chunksize=chunk), tally, on_game)


def _consume(results, tally: Tally, on_game) -> tuple[Tally, Optional[tuple]]:
    """Results in seed order; on Ctrl-C, the games finished so far (the first seeds, all of
    them: a game cut short is dropped), marked interrupted."""
    try:
        for scores, winners, titles, error in results:
            if error is not None:
                return tally, error
            tally.add(scores, winners, titles)
            on_game()
    except KeyboardInterrupt:
        tally.interrupted = True
    return tally, None


def peak_rss_mb() -> float:
    import resource
    import sys
    kb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
          + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    if sys.platform == "darwin":  # macOS reports bytes, Linux kilobytes
        kb /= 1024
    return round(kb / 1024, 1)
