"""Simulation speed of a pack on the interpreter: games/s, instructions/s, peak memory.

    python benchmarks/bench_simulate.py [--pack dungeon_roll] [--games 2000]
        [--agent policy:greedy] [--runs 5] [--option k=v ...]

Runs `simulate` in-process with one worker several times and reports the
median, then counts instructions per game with a counting copy of the VM.
"""
from __future__ import annotations

import argparse
import collections
import json
import resource
import statistics
import time


def play_games(program, agent_spec, options, games, players, vm_class=None):
    import runebook.runtime.match as match_module
    from runebook.runtime.agents import make_agent

    saved = match_module.VM
    if vm_class is not None:
        match_module.VM = vm_class
    try:
        scores = []
        for seed in range(1, games + 1):
            agents = [make_agent(agent_spec, program, seed, seat) for seat in range(players)]
            result = match_module.Match(program, agents, seed, options, players).run()
            scores.append(result.scores[0])
        return scores
    finally:
        match_module.VM = saved


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--agent", default="policy:greedy")
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--option", action="append", default=[])
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime.options import resolve_options
    from counting_vm import counting_vm_class

    program = load_program(args.pack)
    options = resolve_options(program, dict(o.split("=", 1) for o in args.option))
    rates = []
    for _ in range(args.runs):
        start = time.perf_counter()
        scores = play_games(program, args.agent, options, args.games, args.players)
        rates.append(args.games / (time.perf_counter() - start))
    counts: collections.Counter = collections.Counter()
    sample = min(args.games, 300)
    play_games(program, args.agent, options, sample, args.players, counting_vm_class(counts))
    per_game = sum(counts.values()) / sample
    median = statistics.median(rates)
    print(json.dumps({
        "pack": args.pack, "agent": args.agent, "games": args.games, "runs": args.runs,
        "games_per_second_median": round(median, 1),
        "games_per_second_runs": [round(r, 1) for r in rates],
        "mean_score": round(statistics.mean(scores), 3),
        "instructions_per_game": round(per_game),
        "instructions_per_second": round(per_game * median),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
