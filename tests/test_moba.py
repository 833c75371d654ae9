"""The MOBA pack plays: its greedy policy beats random players, and 3v3 and 5v5 matches
end with a result (content/moba; its rules are checked by its card tests)."""
from __future__ import annotations

import pytest

from runebook.cli.simulate import wilson
from runebook.runtime.agents import make_agent
from runebook.runtime.match import Match
from runebook.runtime.options import resolve_options

from packmaker import compiled  # tests/packmaker.py
from test_packs import greedy_against_random


def test_greedy_beats_random_at_moba():
    """Seat 1 plays policy:greedy: it walks to the objective areas and scores them. Its win
    rate's Wilson 95% interval lies wholly above one half, and so does its share of the
    victory points (greedy's VP against both seats' VP, counted as wins of n trials)."""
    results = greedy_against_random("moba", 2, {}, 30)
    wins = sum(0 in r.winners for r in results)
    low, _ = wilson(wins, len(results))
    assert low > 0.5, (wins, len(results))
    greedy_vp = sum(r.scores[0] for r in results)
    all_vp = greedy_vp + sum(r.scores[1] for r in results)
    vp_low, _ = wilson(greedy_vp, all_vp)
    assert vp_low > 0.5, (greedy_vp, all_vp)


@pytest.mark.parametrize("team_size", [3, 5])
def test_a_moba_match_ends_with_a_result(team_size):
    prog = compiled("moba")
    options = resolve_options(prog, {"team_size": team_size, "max_rounds": 40})
    agents = [make_agent("random", prog, 7, seat) for seat in range(2)]
    result = Match(prog, agents, 7, options, 2).run()
    best = max(result.scores)
    assert best >= 5                                     # a team reached 5 VP before the cap
    assert result.winners == [seat for seat, s in enumerate(result.scores) if s == best]


SECRET_TAGS = {"payday", "plan", "attack_card", "defense_card", "start_card", "unlock"}


@pytest.mark.parametrize("engine", ["fast", "interp"])
def test_moba_choices_stay_private_to_their_seat(engine):
    """Payday, planning and battle cards are each seat's secret: the log marks every such
    decision private to the deciding seat, and between an attacker's first attack card and
    the line that turns the cards over there is nothing but both sides' private picks."""
    prog = compiled("moba")
    agents = [make_agent("random", prog, 3, seat) for seat in range(2)]
    m = Match(prog, agents, 3, resolve_options(prog, {"max_rounds": 4}), 2, record=True, engine=engine)
    m.run()
    events = m.events
    secret = [e for e in events if e["type"] == "decision" and e["tag"] in SECRET_TAGS]
    assert {e["tag"] for e in secret} >= {"payday", "plan", "attack_card", "defense_card"}
    assert all(e.get("private") == e["player"] for e in secret)
    attacks = 0
    for i, e in enumerate(events):
        if e["type"] == "decision" and e["tag"] == "attack_card" and events[i - 1].get("tag") != "attack_card":
            end = next(j for j in range(i, len(events))
                       if events[j]["type"] == "say" and events[j]["text"].startswith("Attack:"))
            between = events[i:end]
            assert all(x["type"] == "decision" and x["tag"] in ("attack_card", "defense_card")
                       and x.get("private") == x["player"] for x in between), between
            attacks += 1
    assert attacks > 0
