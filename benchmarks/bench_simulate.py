"""Simulation speed of a pack on both engines: games/s, instructions/s, peak memory.

    python benchmarks/bench_simulate.py [--pack dungeon_roll] [--games 2000]
        [--agent policy:greedy] [--runs 5] [--engine fast --engine interp] [--option k=v ...]

Plays the games in-process, one after another, several times per engine and
reports the medians and the fast/interp ratio, then counts the interpreter's
instructions per game with a counting copy of the VM (the same for both engines:
the fast path runs the same bytecode).
"""
from __future__ import annotations

import argparse
import collections
import json
import resource
import statistics
import time


def play_games(program, agent_spec, options, games, players, engine="fast", vm_class=None):
    import runebook.runtime.match as match_module
    from runebook.runtime.agents import make_agent

    scores = []
    for seed in range(1, games + 1):
        agents = [make_agent(agent_spec, program, seed, seat) for seat in range(players)]
        # a counting VM (vm_class) replaces the interpreter Match makes: no fast module is built for it
        match = match_module.Match(program, agents, seed, options, players,
                                   engine="interp" if vm_class is not None else engine)
        if vm_class is not None:
            match.vm = vm_class(program, match.world)
        scores.append(match.run(keep=False).scores[0])
    return scores


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--agent", default="policy:greedy")
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--engine", action="append", default=[])
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime.options import resolve_options
    from counting_vm import counting_vm_class

    program = load_program(args.pack)
    options = resolve_options(program, dict(o.split("=", 1) for o in args.option))
    report = {"pack": args.pack, "agent": args.agent, "games": args.games, "runs": args.runs}
    counts: collections.Counter = collections.Counter()
    sample = min(args.games, 300)
    play_games(program, args.agent, options, sample, args.players, vm_class=counting_vm_class(counts))
    per_game = sum(counts.values()) / sample
    report["instructions_per_game"] = round(per_game)
    medians = {}
    for engine in args.engine or ["fast", "interp"]:
        play_games(program, args.agent, options, 20, args.players, engine)  # warm up (compiles the module)
        rates = []
        for _ in range(args.runs):
            start = time.perf_counter()
            scores = play_games(program, args.agent, options, args.games, args.players, engine)
            rates.append(args.games / (time.perf_counter() - start))
        medians[engine] = statistics.median(rates)
        report[engine] = {
            "games_per_second_median": round(medians[engine], 1),
            "games_per_second_runs": [round(r, 1) for r in rates],
            "mean_score": round(statistics.mean(scores), 3),
            "instructions_per_second": round(per_game * medians[engine]),
        }
    if len(medians) == 2:
        report["fast_over_interp"] = round(medians["fast"] / medians["interp"], 2)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
