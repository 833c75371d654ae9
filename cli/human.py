"""A person at the terminal answering decisions by number.

Several people may share one terminal (`--agents human,human`): each prompt then begins
with a line that says whose turn it is, shows only that seat's own private zones, and
tells that seat alone what the game told it in private since its last prompt (held
until then, so that it is not printed while another person is looking).
"""
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
        self.shared = False      # another person answers at this terminal too
        self.held: list = []     # private narration for this seat, told at its next prompt
        self.phraser = None      # options in the pack's words, once the match's world exists

    def choose(self, decision, view) -> int:
        labels = self._labels(decision, view)
        me = f"Player {self.seat + 1}"
        if self.shared:
            print(f"\n──── {me}'s turn: only {me} looks at what follows ────", file=self.out)
        # A secret choice's answers are revealed together: until then only this seat may look.
        secret = " (secret: the others' answers are not shown until all have chosen)" if decision.secret else ""
        print(f"\n{me}, {decision.kind} '{decision.tag}'{secret}:", file=self.out)
        for text in self.held:
            print(f"  (to you alone) {text}", file=self.out)
        self.held.clear()
        for zone, things in view.own_private_zones():
            if things:
                print(f"  your {zone.replace('_', ' ')}: {', '.join(things)}", file=self.out)
        for i, label in enumerate(labels, 1):
            print(f"  {i:>2}. {label}", file=self.out)
        while True:
            print(f"choose 1-{len(labels)}: ", end="", file=self.out, flush=True)
            line = self.inp.readline()
            if not line:
                raise EndOfInput(f"no answer for {me}'s '{decision.tag}' decision: input ended")
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(labels):
                return int(answer) - 1
            print(f"'{answer}' is not a number from 1 to {len(labels)}", file=self.out)

    def _labels(self, decision, view) -> list:
        """Each option in the pack's words, with its code form beside where that says more
        (ids tell alike things apart)."""
        codes = view.readable_labels(decision)
        if self.phraser is None:
            return codes
        return [words if words == code else f"{words}  [{code}]"
                for words, code in zip(self.phraser.options(decision), codes)]


class HumanAgentFactory:
    """make_agent's `extra` entry: builds one HumanAgent per seat.

    Prompts go to `out` (stderr when stdout carries JSON).
    """

    def __init__(self, out: TextIO | None = None, inp: TextIO | None = None):
        self.out = out
        self.inp = inp

    def __call__(self, seat: int) -> HumanAgent:
        return HumanAgent(seat, self.out or sys.stdout, self.inp or sys.stdin)
