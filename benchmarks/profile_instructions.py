"""Where the interpreter's time goes: instructions per game by script and by opcode.

    python benchmarks/profile_instructions.py [--pack dungeon_roll] [--agent policy:greedy] [--games 200]

Instruction counts are deterministic (same seeds, same counts on any
machine), so they are the figure to compare when changing the compiler or
the content; the games/s of bench_simulate.py turn them into time.
"""
from __future__ import annotations

import argparse
import collections

from bench_simulate import play_games
from counting_vm import counting_vm_class


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--agent", default="policy:greedy")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime import opcodes as O
    from runebook.runtime.options import resolve_options

    program = load_program(args.pack)
    options = resolve_options(program, {})
    for by in ("function", "op"):
        counts: collections.Counter = collections.Counter()
        play_games(program, args.agent, options, args.games, 1, vm_class=counting_vm_class(counts, by))
        total = sum(counts.values())
        print(f"\n{'script' if by == 'function' else 'opcode':<32} instructions/game   share")
        for key, n in counts.most_common(args.top):
            name = key if by == "function" else O.OPS[key].name
            print(f"{name:<32} {n / args.games:>17.0f} {100 * n / total:>6.1f}%")
        print(f"{'total':<32} {total / args.games:>17.0f}")


if __name__ == "__main__":
    main()
