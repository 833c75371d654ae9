"""Start-up costs: cold validate+compile (no cache) and warm `play` start-up.

    python benchmarks/bench_startup.py [--pack dungeon_roll] [--runs 7]

Cold: a fresh cache folder each run, timing `runebook compile` end to end, with
the parser tables shipped in the package, then again with those hidden (what a
Lark version other than the one that made them costs: the tables are built).
Warm: `runebook play PACK --seed 1 --json` with a filled cache, minus nothing:
the whole command, as a person would time it. It runs with Python's bytecode
files (.pyc) allowed, as an installed package has them (pip writes them): with
PYTHONDONTWRITEBYTECODE set, as in this workplace, an editable install would
compile every one of its modules again on each start (~25 ms more).
"""
from __future__ import annotations

import argparse
import json
import os
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
    # The same command with the shipped parser tables out of sight.
    no_tables = [sys.executable, "-c", "import sys; from pathlib import Path; import runebook.dsl.parser as p; "
                 "p.SHIPPED_TABLES = Path('/nonexistent'); from runebook.cli.main import main; "
                 "sys.argv[0] = 'runebook'; main()"]
    cold, cold_built, warm, noop = [], [], [], []
    with tempfile.TemporaryDirectory() as out:
        for i in range(args.runs):
            compile_args = ["compile", args.pack, "-o", os.path.join(out, "p.json")]
            cold.append(timed(exe + compile_args, dict(os.environ, RUNEBOOK_CACHE=tempfile.mkdtemp())))
            cold_built.append(timed(no_tables + compile_args, dict(os.environ, RUNEBOOK_CACHE=tempfile.mkdtemp())))
        env = dict(os.environ, RUNEBOOK_CACHE=tempfile.mkdtemp())
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        play = exe + ["play", args.pack, "--seed", "1", "--json", "--agents", "first"]
        timed(play, env)  # fill the caches: the compiled pack, the fast module, the .pyc files
        for _ in range(args.runs):
            warm.append(timed(play, env))
            noop.append(timed([sys.executable, "-c", "pass"], env))
    print(json.dumps({
        "cold_compile_s_median": round(statistics.median(cold), 3),
        "cold_compile_tables_built_s_median": round(statistics.median(cold_built), 3),
        "warm_play_s_median": round(statistics.median(warm), 3),
        "python_startup_s_median": round(statistics.median(noop), 3),
    }, indent=2))


if __name__ == "__main__":
    main()
