"""`runebook simulate`: play N seeded games with bots, store them, and report the statistics
of every stored game of those seeds (a rerun resumes: it plays only the missing seeds)."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer

from .errors import INTERRUPTED, load_program
from .matchsetup import agent_specs, build_agents, options_for, players_for
from .render import Out


def simulate(target: str, games: int, agents: str, players: Optional[int], seed: int,
             option_flags: list[str], workers: Optional[int], as_json: bool, engine: str = "fast",
             db: Optional[Path] = None, backend: str = "local", cluster: Optional[str] = None,
             batch: int = 25) -> None:
    from .runs import interrupted, open_store, play_setups, worker_count
    from .simulate import Tally, peak_rss_mb

    program = load_program(target)
    options = options_for(program, option_flags)
    n = players_for(program, players)
    specs = agent_specs(agents, n)
    build_agents(program, specs, seed)  # fail fast (exit 2) on a bad agent, before any worker starts
    workers = min(worker_count(workers), games)
    seeds = range(seed, seed + games)
    setup = {"players": n, "options": options, "agents": specs, "entrants": [None] * n,
             "pins": [None] * n, "tuning": {}}

    with open_store(db) as store:
        run_id = store.run("simulate", program, {"setup": setup}, seed, games)
        setup_id = store.setup(run_id, program, setup)
        started = time.perf_counter()
        outcome = play_setups(store, run_id, program, [(setup_id, setup)], seeds, target=target, engine=engine,
                              backend=backend, workers=workers, cluster=cluster, batch=batch)
        seconds = time.perf_counter() - started
        tally = Tally(n)
        for _, scores, winners, titles, _ in store.matches(setup_id, seeds):
            tally.add(scores, winners, titles)
    if tally.games == 0:
        Out.err().line("interrupted before any game finished", "warning")
        raise typer.Exit(INTERRUPTED)
    tally.interrupted = outcome.interrupted
    report = summary(tally, seconds, outcome.played, workers, specs, seed, peak_rss_mb())
    report["run"] = run_id
    if as_json:
        print(json.dumps(report))
    else:
        show(Out(), program, report)
    if outcome.interrupted:
        interrupted(tally.games, games)


def summary(tally, seconds: float, played: int, workers: int, specs: list, seed: int, rss: float) -> dict:
    """The statistics of every stored game of the run's seeds; `played` of them were played now."""
    report = {"games": tally.games, **({"interrupted": True} if tally.interrupted else {}),
              "played": played, "seconds": round(seconds, 3),
              "games_per_second": round(played / seconds, 1) if seconds > 0 and played else None,
              "players": tally.players, "agents": specs, "seed": seed, "workers": workers}
    if tally.players == 1:
        report["mean_score"] = tally.mean(0)
        report["mean_score_ci95"] = list(tally.mean_ci(0))
    else:
        report["wins"] = list(tally.wins)
        report["win_rate"] = [tally.win_rate(s) for s in range(tally.players)]
        report["win_rate_ci95"] = [list(tally.win_ci(s)) for s in range(tally.players)]
        report["mean_scores"] = [tally.mean(s) for s in range(tally.players)]
    if tally.titles:
        report["titles"] = dict(sorted(tally.titles.items(), key=lambda kv: (-kv[1], kv[0])))
    report["peak_rss_mb"] = rss
    return report


def show(out: Out, program, r: dict) -> None:
    rate = f"{r['games_per_second']} games/s" if r["games_per_second"] else "instant"
    stored = r["games"] - r["played"]
    out.line(f"{program.name}: {r['games']} games ({r['played']} played in {r['seconds']:.2f} s, {rate}, "
             f"{r['workers']} worker{'s' if r['workers'] > 1 else ''}"
             f"{f'; {stored} from the results store' if stored else ''}), agents {', '.join(r['agents'])}, "
             f"run {r['run']}", "bold")
    if r["players"] == 1:
        lo, hi = r["mean_score_ci95"]
        out.line(f"mean score {r['mean_score']:.2f}  (95% CI {lo:.2f} to {hi:.2f})")
    else:
        out.line("win rate per seat (a shared win counts as a win for every tied seat):")
        for seat, (wins, rate, (lo, hi), mean) in enumerate(
                zip(r["wins"], r["win_rate"], r["win_rate_ci95"], r["mean_scores"]), 1):
            out.line(f"  Player {seat} ({r['agents'][seat - 1]}): {rate:6.1%}  (95% CI {lo:.1%} to {hi:.1%}), "
                     f"{wins} wins, mean score {mean:.2f}")
    if "titles" in r:
        out.line("titles:")
        total = sum(r["titles"].values())
        width = max(len(t) for t in r["titles"])
        for title, n in r["titles"].items():
            out.line(f"  {title:<{width}}  {n:>6}  {n / total:6.1%}")
    out.line(f"peak memory {r['peak_rss_mb']} MB (this process + workers)", "dim")
