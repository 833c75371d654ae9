"""Where the fast path's time goes: a cProfile of seeded matches, grouped.

    python benchmarks/profile_fast.py [--pack dungeon_roll] [--games 300] [--agent policy:greedy]

Groups the profile's own time (tottime) by what runs: the pack's scripts
(by the kind of script: `options ...` enumerators, `rate ...` policy ratings,
`action ...` bodies, handlers and other functions), the world's operations,
the builtins, and the driver (match loop, agents, FastVM). cProfile adds a
fixed cost per Python call, so small functions look dearer than they are:
read the shares, not the absolute times.
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import pstats

from bench_simulate import play_games


def kind_of(name: str) -> str:
    word = name.split(" ", 1)[0]
    return {"options": "decision enumeration (options ...)", "rate": "policy ratings (rate ...)",
            "action": "action bodies", "on": "event handlers"}.get(word, "game flow (proc/fn)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--agent", default="policy:greedy")
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime.options import resolve_options

    program = load_program(args.pack)
    options = resolve_options(program, {})

    def run():
        play_games(program, args.agent, options, args.games, program.players["default"])

    run()  # warm: the module is built and cached before profiling
    profiler = cProfile.Profile()
    profiler.runcall(run)
    stats = pstats.Stats(profiler).stats
    groups: collections.Counter = collections.Counter()
    for (file, _, func), (_, _, tottime, _, _) in stats.items():
        if file.startswith("<runebook fast"):
            index = int(func[1:])
            groups["scripts: " + kind_of(program.functions[index].name)] += tottime
        elif file.endswith("world.py"):
            groups["world operations (move, roll, create ...)"] += tottime
        elif file.endswith("builtins.py") or func.startswith("<lambda>"):
            groups["builtins"] += tottime
        elif file.endswith(("agents.py", "match.py", "fastvm.py")):
            groups["driver: match loop, agents, FastVM calls"] += tottime
        else:
            groups["Python's own (len, list and dict methods ...)"] += tottime
    total = sum(groups.values())
    print(f"| what | share of time ({args.games} games, {args.agent}) |")
    print("| --- | ---: |")
    for name, t in groups.most_common():
        print(f"| {name} | {100 * t / total:.1f}% |")


if __name__ == "__main__":
    main()
