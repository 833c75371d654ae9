"""The MOBA pack plays: its greedy policy beats random players, and 3v3 and 5v5 matches
end with a result (content/moba; its rules are checked by its card tests)."""
from __future__ import annotations

import pytest

from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

from packmaker import compiled  # tests/packmaker.py
from test_packs import greedy_against_random


def test_greedy_beats_random_at_moba():
    """Seat 1 plays policy:greedy: it walks to the objective areas and scores them, so it
    wins well over half of a seeded series against random."""
    results = greedy_against_random("moba", 2, {}, 30)
    wins = sum(0 in r.winners for r in results)
    assert wins / len(results) > 0.6
    assert sum(r.scores[0] for r in results) > 1.5 * sum(r.scores[1] for r in results)


@pytest.mark.parametrize("team_size", [3, 5])
def test_a_moba_match_ends_with_a_result(team_size):
    prog = compiled("moba")
    options = resolve_options(prog, {"team_size": team_size, "max_rounds": 40})
    agents = [make_agent("random", prog, 7, seat) for seat in range(2)]
    result = Match(prog, agents, 7, options, 2).run()
    best = max(result.scores)
    assert best >= 5                                     # a team reached 5 VP before the cap
    assert result.winners == [seat for seat, s in enumerate(result.scores) if s == best]
