"""`runebook tournament`: a round robin of the pack's entrants (cli/entrants.py), stored
as it is played (a rerun resumes), then the standings (cli/standings.py)."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

from .errors import load_program
from .matchsetup import agent_specs, build_agents, options_for, players_for
from .render import Out


def tournament(target: str, games: int, entrants_text: str, agents: str, players: Optional[int], seed: int,
               option_flags: list[str], workers: Optional[int], as_json: bool, engine: str,
               db: Optional[Path], backend: str, cluster: Optional[str], batch: int) -> None:
    from . import standings as standings_of
    from .entrants import parse_entrants, setups
    from .runs import interrupted, open_store, play_setups, worker_count
    from .simulate import peak_rss_mb

    program = load_program(target)
    options = options_for(program, option_flags)
    n = players_for(program, players)
    specs = agent_specs(agents, n)
    field = parse_entrants(program, entrants_text)
    planned = setups(program, field, options, specs, n)
    for _, setup in planned:  # a bad agent is a usage error (exit 2) before any worker starts
        build_agents(program, setup["agents"], seed)
    workers = worker_count(workers)
    seeds = range(seed, seed + games)
    spec = {"entrants": field.entrants, "sort": field.sort, "players": n, "options": options, "agents": specs}

    with open_store(db) as store:
        run_id = store.run("tournament", program, spec, seed, games)
        ids = [(store.setup(run_id, program, setup), setup) for _, setup in planned]
        started = time.perf_counter()
        outcome = play_setups(store, run_id, program, ids, seeds, target=target, engine=engine, backend=backend,
                              workers=workers, cluster=cluster, batch=batch)
        seconds = time.perf_counter() - started
        standings = standings_of.read(store, store.run_info(run_id))
    report = {"run": run_id, "pack": program.name, "players": n, "games_per_setup": games,
              "played": outcome.played, "seconds": round(seconds, 3), **standings.to_json(),
              "peak_rss_mb": peak_rss_mb()}
    if as_json:
        print(json.dumps(report))
    else:
        show(Out(), program, report, standings)
    if outcome.interrupted:
        interrupted(standings.matches, games * len(planned))


def show(out: Out, program, report: dict, standings) -> None:
    solo = report["players"] == 1
    out.line(f"{program.title}: run {report['run']}, {report['matches']} matches "
             f"({report['played']} played now in {report['seconds']:.1f} s), "
             f"{'solo, compared on the same seeds' if solo else 'head to head, both seatings'}", "bold")
    width = max(len(e) for e in standings.entrants)
    rated = standings.ratings is not None
    out.line(f"  {'entrant':<{width}}  {'win rate':>8}     95% CI         games  {'rating' if rated else ''}"
             f"{'  mean score' if solo else ''}")
    rows = sorted(report["entrants"], key=lambda r: -r["win_rate"])
    for r in rows:
        if not r["games"]:
            out.line(f"  {r['entrant']:<{width}}  no match yet")
            continue
        lo, hi = r["win_rate_ci95"]
        mark = "*" if r["significant"] else " "
        rating = f"{r['rating']:+7.0f}" if r["rating"] is not None else ""
        mean = f"  {r['mean_score']:.2f} ({r['mean_score_ci95'][0]:.2f} to {r['mean_score_ci95'][1]:.2f})" \
            if solo else ""
        out.line(f"  {r['entrant']:<{width}}  {r['win_rate']:8.1%} {mark}  {lo:6.1%} to {hi:6.1%}  "
                 f"{r['games']:>6}  {rating}{mean}")
    out.line("* significantly different from 50% against the field (its 95% interval excludes 50%)", "dim")
    if not rated:
        out.line("ratings need the 'balance' extra: pip install 'runebook[balance]'", "dim")
    out.line(f"report: runebook report --run {report['run']} --out DIR", "dim")
