"""Start-up costs: cold validate+compile (no cache) and warm `play` start-up.

    python benchmarks/bench_startup.py [--pack dungeon_roll] [--runs 7]

Cold: a fresh cache folder each run, timing `runebook compile` end to end
(grammar built too), then again with only the built grammar kept.
Warm: `runebook play PACK --seed 1 --json` with a filled cache, minus nothing:
the whole command, as a person would time it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    exe = [sys.executable, "-m", "runebook.cli.main"]
    cold, cold_pack, warm, noop = [], [], [], []
    with tempfile.TemporaryDirectory() as out:
        for i in range(args.runs):
            env = dict(os.environ, RUNEBOOK_CACHE=tempfile.mkdtemp())
            cold.append(timed(exe + ["compile", args.pack, "-o", os.path.join(out, "p.json")], env))
            # Same cache folder again: the built grammar is kept, only the pack is compiled anew.
            shutil.rmtree(os.path.join(env["RUNEBOOK_CACHE"], "packs"), ignore_errors=True)
            shutil.rmtree(os.path.join(env["RUNEBOOK_CACHE"], "manifests"), ignore_errors=True)
            cold_pack.append(timed(exe + ["compile", args.pack, "-o", os.path.join(out, "p.json")], env))
        env = dict(os.environ, RUNEBOOK_CACHE=tempfile.mkdtemp())
        timed(exe + ["play", args.pack, "--seed", "1", "--json"], env)  # fill the cache
        for _ in range(args.runs):
            warm.append(timed(exe + ["play", args.pack, "--seed", "1", "--json", "--agents", "first"], env))
            noop.append(timed([sys.executable, "-c", "pass"], env))
    print(json.dumps({
        "cold_compile_s_median": round(statistics.median(cold), 3),
        "cold_pack_with_built_grammar_s_median": round(statistics.median(cold_pack), 3),
        "warm_play_s_median": round(statistics.median(warm), 3),
        "python_startup_s_median": round(statistics.median(noop), 3),
    }, indent=2))


if __name__ == "__main__":
    main()
