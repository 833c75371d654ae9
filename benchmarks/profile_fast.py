"""Where the fast path's time goes: a cProfile of seeded matches, grouped.

    python benchmarks/profile_fast.py [--pack dungeon_roll] [--games 300] [--agent policy:greedy]

    python benchmarks/profile_fast.py --sample [--games 3000] [--functions]

    python benchmarks/profile_fast.py --agent policy:planner --option play_as=no_hero


Groups the profile's own time (tottime) by what runs: the pack's scripts
(by the kind of script: `options ...` enumerators, `rate ...` policy ratings,
`action ...` bodies, handlers and other functions), the world's operations,
the builtins, and the driver (match loop, agents, FastVM). cProfile adds a
fixed cost per Python call, so small functions look dearer than they are:
read the shares, not the absolute times. `--sample` instead interrupts the
run every half millisecond of CPU time and charges the Python function then
running (C functions count for their caller); it adds no cost per call, but
Python only takes the interruption at certain points (calls, loop turns), so
it is a second opinion, not a truth: where both agree, trust the share.
`--functions` lists the largest single functions instead of the groups.
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import signal

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
    ap.add_argument("--sample", action="store_true", help="a sampling profile instead of cProfile")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, a pack option")
    ap.add_argument("--functions", action="store_true", help="the 25 largest functions, not the groups")
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime.options import resolve_options

    program = load_program(args.pack)
    options = resolve_options(program, dict(o.split("=", 1) for o in args.option))

    def run():
        play_games(program, args.agent, options, args.games, program.players["default"])

    run()  # warm: the module is built and cached before profiling
    group = function_of if args.functions else group_of
    groups = sampled(run, program, group) if args.sample else profiled(run, program, group)
    total = sum(groups.values())
    how = "samples" if args.sample else "cProfile's own time"
    print(f"| what | share ({how}, {args.games} games, {args.agent}) |")
    print("| --- | ---: |")
    for name, t in groups.most_common(25 if args.functions else None):
        print(f"| {name} | {100 * t / total:.1f}% |")


def function_of(file: str, func: str, program, rest: str) -> str:
    if file.startswith("<runebook fast"):
        return f"`{program.functions[int(func[1:])].name}`"
    return f"{file.rsplit('/', 1)[-1]}:{func}"


def group_of(file: str, func: str, program, rest: str) -> str:
    if file.startswith("<runebook fast"):
        return "scripts: " + kind_of(program.functions[int(func[1:])].name)
    if file.endswith("world.py"):
        return "world operations (move, roll, create ...)"
    if file.endswith("builtins.py") or func.startswith("<lambda>"):
        return "builtins"
    if file.endswith(("agents.py", "match.py", "fastvm.py", "visibility.py")):
        return "driver: match loop, agents, FastVM calls"
    return rest


def profiled(run, program, group) -> collections.Counter:
    profiler = cProfile.Profile()
    profiler.runcall(run)
    groups: collections.Counter = collections.Counter()
    for (file, _, func), (_, _, tottime, _, _) in pstats.Stats(profiler).stats.items():
        groups[group(file, func, program, "Python's own (len, list and dict methods ...)")] += tottime
    return groups


def sampled(run, program, group) -> collections.Counter:
    groups: collections.Counter = collections.Counter()

    def sample(signum, frame):
        code = frame.f_code  # a C function counts for the Python function that called it
        groups[group(code.co_filename, code.co_name, program, "elsewhere (the benchmark loop, the standard library)")] += 1

    previous = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)
    try:
        run()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
    return groups


if __name__ == "__main__":
    main()
