"""A tournament's standings, read from the results store as a stream (counts and
counters only, so memory does not grow with the number of games).

Head to head, a match is won by the entrant whose seats alone hold the win (a win
shared across both entrants counts a half each). Solo, two entrants are compared on
each seed both played: the higher score wins, equal scores count a half each
(common random numbers: the same dice for both).

Every win rate has a Wilson 95% interval; an entrant is *significantly different*
when its interval against the field excludes 50%, and a pairing when its interval
excludes 50%. The rating is a Bradley-Terry fit of the pairwise wins (choix, extra
'balance'), shown on the Elo scale (+400 = ten times the odds), centred on 0.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from .simulate import Z95, wilson

ELO = 400 / math.log(10)


@dataclass
class Standings:
    entrants: list
    wins: list = field(default_factory=list)      # wins[i][j]: i's wins over j (halves for ties)
    games: list = field(default_factory=list)     # games[i][j]: matches between i and j
    scores: list = field(default_factory=list)    # per entrant: Counter {score: times}
    lengths: Counter = field(default_factory=Counter)  # decisions per match: times
    matches: int = 0
    ratings: list = None                           # Elo-scale Bradley-Terry, or None without choix

    def __post_init__(self):
        n = len(self.entrants)
        self.wins = [[0.0] * n for _ in range(n)]
        self.games = [[0] * n for _ in range(n)]
        self.scores = [Counter() for _ in range(n)]

    def record(self, i: int, j: int, share_i: float) -> None:
        self.wins[i][j] += share_i
        self.wins[j][i] += 1 - share_i
        self.games[i][j] += 1
        self.games[j][i] += 1

    # ------------------------------------------------------------ per entrant
    def field_record(self, i: int) -> tuple:
        return sum(self.wins[i]), sum(self.games[i])

    def field_rate(self, i: int) -> float:
        wins, n = self.field_record(i)
        return wins / n if n else 0.0

    def field_ci(self, i: int) -> tuple:
        return wilson(*self.field_record(i))

    def pair_rate(self, i: int, j: int):
        return self.wins[i][j] / self.games[i][j] if self.games[i][j] else None

    def significant(self, i: int, j: int = None) -> bool:
        lo, hi = wilson(self.wins[i][j], self.games[i][j]) if j is not None else self.field_ci(i)
        n = self.games[i][j] if j is not None else self.field_record(i)[1]
        return n > 0 and (lo > 0.5 or hi < 0.5)

    def mean_score(self, i: int) -> tuple:
        """(mean, low, high) of the entrant's scores (its own seats), with a 95% interval."""
        counts = self.scores[i]
        n = sum(counts.values())
        if n == 0:
            return 0.0, 0.0, 0.0
        mean = sum(s * c for s, c in counts.items()) / n
        if n < 2:
            return mean, mean, mean
        var = sum(c * (s - mean) ** 2 for s, c in counts.items()) / (n - 1)
        half = Z95 * math.sqrt(var / n)
        return mean, mean - half, mean + half

    def to_json(self) -> dict:
        rows = []
        for i, name in enumerate(self.entrants):
            wins, n = self.field_record(i)
            mean, lo, hi = self.mean_score(i)
            rows.append({"entrant": name, "wins": wins, "games": n, "win_rate": round(self.field_rate(i), 4),
                         "win_rate_ci95": [round(x, 4) for x in self.field_ci(i)],
                         "significant": self.significant(i),
                         "rating": None if self.ratings is None or self.ratings[i] is None
                         else round(self.ratings[i], 1),
                         "mean_score": round(mean, 3), "mean_score_ci95": [round(lo, 3), round(hi, 3)]})
        pairs = {a: {b: None if i == j else self.pair_rate(i, j) for j, b in enumerate(self.entrants)}
                 for i, a in enumerate(self.entrants)}
        return {"matches": self.matches, "entrants": rows, "pairwise_win_rate": pairs}


def rate(standings: Standings) -> None:
    """Fill in the Bradley-Terry ratings of the entrants that played (None for the others,
    e.g. after an interruption); left None when choix is not installed."""
    try:
        import choix
        import numpy
    except ImportError:
        return
    played = [i for i in range(len(standings.entrants)) if any(standings.games[i])]
    standings.ratings = [None] * len(standings.entrants)
    if len(played) < 2:
        return
    wins = numpy.array([[standings.wins[i][j] for j in played] for i in played], dtype=float)
    # A little regularisation: an entrant that won (or lost) every game still gets a finite rating.
    params = choix.ilsr_pairwise_dense(wins, alpha=0.01)
    for i, p in zip(played, params - params.mean()):
        standings.ratings[i] = float(p) * ELO


def read(store, run: dict) -> Standings:
    """The standings of a stored run (a tournament's or a simulation's setups)."""
    seeds = range(run["first_seed"], run["first_seed"] + run["games"])
    infos = [(sid, store.setup_info(sid)) for sid in run["setups"]]
    names = []
    for _, info in infos:
        for e in _names(info):
            if e not in names:
                names.append(e)
    st = Standings(names)
    index = {e: i for i, e in enumerate(names)}
    for sid, info in infos:
        seats = [index[e] for e in _names(info)]
        for _, scores, winners, _, decisions in store.matches(sid, seeds):
            st.matches += 1
            st.lengths[decisions] += 1
            for seat, score in enumerate(scores):
                st.scores[seats[seat]][score] += 1
            sides = sorted({seats[w] for w in winners})
            present = sorted(set(seats))
            if len(present) == 2:
                a, b = present
                st.record(a, b, 1.0 if sides == [a] else 0.0 if sides == [b] else 0.5)
    if all(info["players"] == 1 for _, info in infos):
        _compare_solo(store, infos, index, seeds, st)
    rate(st)
    return st


def _names(info: dict) -> list:
    """Per seat, who plays it: the entrant, else the agent (a plain simulation)."""
    return [e if e is not None else a for e, a in zip(info["entrants"], info["agents"])]


def _compare_solo(store, infos: list, index: dict, seeds: range, st: Standings) -> None:
    for x, (sid_a, info_a) in enumerate(infos):
        for sid_b, info_b in infos[x + 1:]:
            a, b = index[_names(info_a)[0]], index[_names(info_b)[0]]
            for score_a, score_b in store.paired_scores(sid_a, sid_b, seeds):
                st.record(a, b, 1.0 if score_a > score_b else 0.0 if score_a < score_b else 0.5)

