"""Plays seeded games in one process, for counting machine instructions under callgrind.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/callgrind_games.py \
        --games 120 [--agent policy:planner] [--option play_as=no_hero]

Run it twice, with --games 20 and --games 120, and subtract: the difference is
the cost of games 21 to 120 alone (start-up, compiling the pack and building
the fast module, and the first games' warming, are in both runs; run it once first so the pack
is cached). The games are deterministic: the same seeds play the same games on
any machine. The count repeats exactly with PYTHONHASHSEED=0; otherwise the
hashing of texts (sets and dicts of them) moves it by ~10 k instructions a game.
"""
from __future__ import annotations

import argparse

from bench_simulate import play_games


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pack", default="dungeon_roll")
    ap.add_argument("--games", type=int, default=120)
    ap.add_argument("--agent", default="policy:greedy")
    ap.add_argument("--engine", default="fast")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, a pack option")
    args = ap.parse_args()

    from runebook.compiler.pack import load_program
    from runebook.runtime.options import resolve_options

    program = load_program(args.pack)
    options = resolve_options(program, dict(o.split("=", 1) for o in args.option))
    scores = play_games(program, args.agent, options, args.games, program.players["default"], args.engine)
    print(f"{args.games} games, mean score {sum(scores) / len(scores):.3f}")


if __name__ == "__main__":
    main()
