"""`runebook simulate`: play N seeded games with bots and report the statistics."""
from __future__ import annotations

import json
import os
import sys
import time
from typing import Optional

import typer

from .errors import INTERRUPTED, content_error, load_program, pack_base, usage_error
from .matchsetup import agent_specs, build_agents, options_for, players_for
from .render import Out


def simulate(target: str, games: int, agents: str, players: Optional[int], seed: int,
             option_flags: list[str], workers: Optional[int], as_json: bool, engine: str = "fast") -> None:
    from .simulate import peak_rss_mb, run_games

    program = load_program(target)
    options = options_for(program, option_flags)
    n = players_for(program, players)
    specs = agent_specs(agents, n)
    build_agents(program, specs, seed)  # fail fast (exit 2) on a bad agent, before any worker starts
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        usage_error(f"--workers must be at least 1, not {workers}")
    workers = min(workers, games)

    started = time.perf_counter()
    with ProgressBar(games) as bar:
        tally, error = run_games(program, options, specs, n, range(seed, seed + games), workers, bar.advance,
                                 engine=engine)
    seconds = time.perf_counter() - started
    if error is not None:
        _report_script_error(error, target)
    if tally.interrupted and tally.games == 0:
        Out.err().line("interrupted before any game finished", "warning")
        raise typer.Exit(INTERRUPTED)
    report = summary(tally, seconds, workers, specs, seed, peak_rss_mb())
    if as_json:
        print(json.dumps(report))
    else:
        show(Out(), program, report)
    if tally.interrupted:
        Out.err().line(f"interrupted: the statistics are those of the {tally.games} games finished "
                       f"(seeds {seed}..{seed + tally.games - 1}) of {games}", "warning")
        raise typer.Exit(INTERRUPTED)


def _report_script_error(fields: tuple, target: str) -> None:
    from runebook.runtime.scripting import ScriptError
    seed, *rest = fields
    Out.err().line(f"the game with seed {seed} failed (rerun it with 'runebook play {target} --seed {seed}"
                   f" --agents ...'):")
    content_error([ScriptError(*rest).diagnostic()], pack_base(target))


def summary(tally, seconds: float, workers: int, specs: list, seed: int, rss: float) -> dict:
    report = {"games": tally.games, **({"interrupted": True} if tally.interrupted else {}),
              "seconds": round(seconds, 3),
              "games_per_second": round(tally.games / seconds, 1) if seconds > 0 else None,
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
    out.line(f"{program.name}: {r['games']} games in {r['seconds']:.2f} s ({rate}, {r['workers']} "
             f"worker{'s' if r['workers'] > 1 else ''}), seeds {r['seed']}..{r['seed'] + r['games'] - 1}, "
             f"agents {', '.join(r['agents'])}", "bold")
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


class ProgressBar:
    """A rich progress bar on stderr, only when stderr is a terminal.

    auto_refresh is off so no thread runs while the worker pool forks.
    """

    def __init__(self, total: int):
        self.total = total
        self.progress = None
        self.last = 0.0

    def __enter__(self) -> "ProgressBar":
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress
            self.progress = Progress(console=Console(stderr=True), auto_refresh=False, transient=True)
            self.task = self.progress.add_task("simulating", total=self.total)
            self.progress.start()
        return self

    def advance(self) -> None:
        if self.progress is None:
            return
        self.progress.advance(self.task)
        now = time.monotonic()
        if now - self.last > 0.1:
            self.last = now
            self.progress.refresh()

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
