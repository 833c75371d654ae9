"""A person at the terminal answering decisions by number."""
from __future__ import annotations

import sys
from typing import TextIO

from runebook.runtime.agents import Agent


class EndOfInput(Exception):
    """stdin closed while a decision was waiting for an answer."""


class HumanAgent(Agent):
    name = "human"

    def __init__(self, seat: int, out: TextIO, inp: TextIO):
        self.seat = seat
        self.out = out
        self.inp = inp

    def choose(self, decision, view) -> int:
        labels = view.readable_labels(decision)
        # A secret choice's answers are revealed together: until then only this seat may look.
        secret = " (secret: the others' answers are not shown until all have chosen)" if decision.secret else ""
        print(f"\nPlayer {self.seat + 1}, {decision.kind} '{decision.tag}'{secret}:", file=self.out)
        for i, label in enumerate(labels, 1):
            print(f"  {i:>2}. {label}", file=self.out)
        while True:
            print(f"choose 1-{len(labels)}: ", end="", file=self.out, flush=True)
            line = self.inp.readline()
            if not line:
                raise EndOfInput(f"no answer for Player {self.seat + 1}'s '{decision.tag}' decision: input ended")
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(labels):
                return int(answer) - 1
            print(f"'{answer}' is not a number from 1 to {len(labels)}", file=self.out)


class HumanAgentFactory:
    """make_agent's `extra` entry: builds one HumanAgent per seat.

    Prompts go to `out` (stderr when stdout carries JSON).
    """

    def __init__(self, out: TextIO | None = None, inp: TextIO | None = None):
        self.out = out
        self.inp = inp

    def __call__(self, seat: int) -> HumanAgent:
        return HumanAgent(seat, self.out or sys.stdout, self.inp or sys.stdin)
