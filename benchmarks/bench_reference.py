"""The pack's engine against the hand-written reference simulator, on the same strategy.

    python benchmarks/bench_reference.py [--reference PATH] [--games 2000] [--rounds 3] [--json]

The reference (shared/bench/dungeon_roll_ref.py, outside the project: run from its
path, never copied) plays solo Dungeon Roll with its own greedy strategy; the
pack's `policy:planner` is that strategy written with `decide`. For the plain game
(the reference with no hero, the pack with `play_as=no_hero`) and for the Knight,
each round runs the reference as a subprocess and then the engine in this process
(fast path, one game after another, as bench_simulate.py does), alternately, so
both see the same machine load. Reported: the medians of games/s over the rounds,
engine/reference, both mean scores (the reference's seed 1, the engine's seeds
1..games) and peak memory (the engine's process; the largest reference run, read
from /proc where there is one).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import time

from bench_simulate import play_games

REPO = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = REPO.parent / "shared" / "bench" / "dungeon_roll_ref.py"
# (label, the reference's --hero, the pack's play_as)
GAMES = (("plain", "none", "no_hero"), ("knight", "knight", "knight"))


# Runs the reference as its own main program, then prints the process's peak memory. The
# peak is read from /proc (VmHWM: this program's own pages), because a child's getrusage
# peak starts at the size of the parent it was spawned from.
RUN_AND_REPORT_PEAK = """
import runpy, sys
path = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(path, run_name="__main__")
try:
    with open("/proc/self/status") as status:
        print(next(line for line in status if line.startswith("VmHWM:")))
except OSError:
    pass
"""


def run_reference(path: pathlib.Path, hero: str, games: int) -> tuple[float, float, float | None]:
    """(games/s, mean score, peak MB or None) as the reference reports them: its own timing
    of its game loop."""
    out = subprocess.run([sys.executable, "-c", RUN_AND_REPORT_PEAK, str(path), "--games", str(games),
                          "--seed", "1", "--hero", hero], check=True, capture_output=True, text=True).stdout
    rate = re.search(r"games/sec=([\d,.]+)", out)
    mean = re.search(r"mean score=([\d.]+)", out)
    if rate is None or mean is None:
        raise SystemExit(f"the reference at {path} printed no games/sec or mean score:\n{out}")
    peak = re.search(r"VmHWM:\s*(\d+) kB", out)
    return float(rate.group(1).replace(",", "")), float(mean.group(1)), int(peak.group(1)) / 1024 if peak else None


def run_engine(program, options, games: int) -> tuple[float, float]:
    start = time.perf_counter()
    scores = play_games(program, "policy:planner", options, games, 1, "fast")
    return games / (time.perf_counter() - start), statistics.mean(scores)


def measure(program, reference: pathlib.Path, games: int, rounds: int) -> dict:
    from runebook.runtime.options import resolve_options

    report = {}
    for label, hero, play_as in GAMES:
        options = resolve_options(program, {"play_as": play_as})
        play_games(program, "policy:planner", options, 20, 1, "fast")  # warm up (compiles the module)
        ref_rates, engine_rates, ref_peaks = [], [], []
        for _ in range(rounds):
            rate, ref_mean, peak = run_reference(reference, hero, games)
            ref_rates.append(rate)
            ref_peaks.append(peak)
            rate, engine_mean = run_engine(program, options, games)
            engine_rates.append(rate)
        ref_median, engine_median = statistics.median(ref_rates), statistics.median(engine_rates)
        report[label] = {
            "reference": {"games_per_second_median": round(ref_median, 1),
                          "games_per_second_runs": [round(r, 1) for r in ref_rates],
                          "mean_score": ref_mean,
                          "peak_rss_mb": None if None in ref_peaks else round(max(ref_peaks), 1)},
            "engine": {"games_per_second_median": round(engine_median, 1),
                       "games_per_second_runs": [round(r, 1) for r in engine_rates],
                       "mean_score": round(engine_mean, 3)},
            "ratio": round(engine_median / ref_median, 3),
        }
    return report


def table(report: dict) -> str:
    lines = [f"{report['games']} games a run, medians of {report['rounds']} rounds",
             "| game | reference games/s | engine games/s | ratio | reference mean | engine mean "
             "| reference peak MB |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, _, _ in GAMES:
        row = report[label]
        lines.append(f"| {label} | {row['reference']['games_per_second_median']:,.0f} "
                     f"| {row['engine']['games_per_second_median']:,.0f} | {row['ratio']:.3f} "
                     f"| {row['reference']['mean_score']:.3f} | {row['engine']['mean_score']:.3f} "
                     f"| {row['reference']['peak_rss_mb']} |")
    lines.append(f"engine peak memory (this process, both games): {report['engine_peak_rss_mb']} MB")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=pathlib.Path, default=DEFAULT_REFERENCE,
                    help="the reference simulator (default: shared/bench/dungeon_roll_ref.py next to the repo)")
    ap.add_argument("--games", type=int, default=2000, help="games per run, each side (20000 for the means)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    args = ap.parse_args()
    if not args.reference.is_file():
        raise SystemExit(f"no reference simulator at {args.reference} (give --reference PATH)")

    from runebook.compiler.pack import load_program

    report = {"games": args.games, "rounds": args.rounds, "reference_path": str(args.reference)}
    report.update(measure(load_program("dungeon_roll"), args.reference, args.games, args.rounds))
    report["engine_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
