"""`runebook play`: one match, narrated, optionally logged for replay."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .errors import CONTENT, INTERRUPTED, load_program, script_error, usage_error
from .matchsetup import agent_specs, build_agents, options_for, players_for
from .render import Out, diagnostics_json


def play(target: str, agents: str, players: Optional[int], seed: Optional[int], option_flags: list[str],
         log: Optional[Path], as_json: bool, engine: str = "fast", html: Optional[Path] = None,
         watch: bool = False) -> None:
    if watch:
        _watch(target, agents, players, seed, option_flags, log, as_json, engine, html)
        return
    from runebook.runtime.match import Match
    from runebook.runtime.scripting import ScriptError
    from .compiled import pack_folder
    from .human import EndOfInput, HumanAgent, HumanAgentFactory
    from .presentation import Phraser, Watched, load_presentation

    for path, what in ((log, "the log"), (html, "the page")):
        if path is not None and not path.parent.is_dir():  # say so now, not after a long game
            usage_error(f"cannot write {what} '{path}': no folder '{path.parent}'")
    program = load_program(target)
    presentation = load_presentation(pack_folder(target), program)
    options = options_for(program, option_flags)
    n = players_for(program, players)
    specs = agent_specs(agents, n)
    if seed is None:
        seed = fresh_seed()
    # With --json, stdout carries one JSON object only: questions go to stderr.
    humans = HumanAgentFactory(out=sys.stderr if as_json else sys.stdout)
    built = build_agents(program, specs, seed, extra={"human": humans})
    people = {a.seat + 1: a for a in built if isinstance(a, HumanAgent)}
    is_human = [seat in people for seat in range(1, n + 1)]
    for person in people.values():
        person.shared = len(people) > 1  # people share the terminal: each prompt says whose it is
    seen: list = []  # (decision, choice) as agents answer: narration and the page put them into words
    seats = [Watched(a, seen) for a in built]

    out = Out()
    narrator = None
    if not as_json:
        out.line(f"{program.title}: {n} player{'s' if n > 1 else ''}, seed {seed}, "
                 f"agents {', '.join(specs)}", "bold")
        narrator = Narrator(out, is_human, seen, people)
    writer = LogWriter(log, pack_source(target)) if log is not None else None
    recorder = None
    if html is not None:
        from .viewer import PageRecorder
        recorder = PageRecorder(program, presentation, seen)
    listeners = [f for f in (narrator, writer, recorder) if f is not None]
    on_event = (lambda event: [f(event) for f in listeners]) if listeners else None
    match = Match(program, seats, seed, options, n, record=log is not None, on_event=on_event, engine=engine)
    phraser = Phraser(presentation, program, match.world)
    for listener in (narrator, recorder, *people.values()):
        if listener is not None:
            listener.phraser = phraser
    try:
        result = match.run()
    except ScriptError as err:
        _close_partial(writer)
        if as_json:  # stdout carries one JSON object: the diagnostic, with its call chain
            print(diagnostics_json([err.diagnostic()]))
            raise typer.Exit(CONTENT) from None
        script_error(err, target)
    except EndOfInput as err:
        _close_partial(writer)
        usage_error(str(err))
    except KeyboardInterrupt:
        _close_partial(writer)
        Out.err().line("interrupted", "warning")
        raise typer.Exit(INTERRUPTED) from None
    if writer is not None:
        writer.close()
    if recorder is not None:
        from .viewer import write_page
        write_page(html, recorder.page(program.title))
    if as_json:
        print(json.dumps({"winner": [w + 1 for w in result.winners], "scores": result.scores,
                          "titles": result.titles, "seed": seed, "decisions": result.decisions}))
    else:
        show_result(out, result, seed, log, presentation.score_unit)


def fresh_seed() -> int:
    import random
    return random.SystemRandom().randrange(1, 1_000_000_000)


class Narrator:
    """Match.on_event: prints narration as it happens, and what agents chose.

    An entry private to a seat (a `log to p` line, a choice among one's own hidden
    things) is shown only when that seat is played by the one person at this terminal.
    When several people share it, such a line is held for its seat's next prompt
    (`people`: their agents by seat), and every decision is told as to a bystander.
    """

    def __init__(self, out: Out, is_human: list[bool], seen: Optional[list] = None, people: Optional[dict] = None):
        self.out = out
        self.is_human = is_human
        self.alone = sum(is_human) == 1  # one person here: what is theirs may be printed
        self.seen = seen     # the agents' (decision, choice), the last one being this event's;
                             # without them (events read back) decisions are told in code form
        self.phraser = None  # set once the match's world exists
        self.people = people or {}

    def __call__(self, event: dict) -> None:
        kind = event.get("type")
        private = event.get("private")
        may_read = private is None or (self.alone and self.is_human[private - 1])
        if kind == "say":
            if may_read:
                self.out.line(event["text"])
            elif private in self.people:
                self.people[private].held.append(event["text"])
        elif kind == "reveal":
            self.out.line("  " + reveal_text(event), "dim")
        elif kind == "decision" and not (self.alone and self.is_human[event["player"] - 1]):
            seen = self.seen[-1] if self.seen else None
            if seen is not None and self.phraser is not None and self.phraser.narrated(*seen, may_read):
                return  # the pack's narration of what follows tells this choice
            self.out.line("  " + decision_text(event, self.phraser, seen, may_read), "dim")
        elif kind == "end":  # what no later prompt could tell: the match is over, nothing is at stake
            for seat, person in self.people.items():
                for text in person.held:
                    self.out.line(f"(told to Player {seat} alone) {text}")
                person.held.clear()


def decision_text(event: dict, phraser, seen: Optional[tuple], may_read: bool) -> str:
    """A decision in words (the pack's phrase, else its names), or in code form when only
    the event is known (events read back from a log)."""
    if not may_read:
        hidden = phraser.hidden(seen[0]) if phraser is not None and seen is not None else None
        return (hidden or f"Player {event['player']} chooses (hidden)") + "."
    if phraser is None or seen is None:
        return f"Player {event['player']} chose: {event['label']}"
    return phraser.decision(*seen) + "."


def reveal_text(event: dict) -> str:
    """The answers of a secret choice, shown to everyone once all are in."""
    answers = "; ".join(f"Player {c['player']}: {c['label']}" for c in event["choices"])
    return f"Revealed together ({event['tag'].replace('_', ' ')}): {answers}."


def show_result(out: Out, result, seed: int, log: Optional[Path], unit: str = "point") -> None:
    from runebook.runtime.text import counted, joined
    out.line()
    contest = len(result.scores) > 1
    draw = contest and len(result.winners) == len(result.scores)  # every player ties: nobody is ahead
    for seat, (score, title) in enumerate(zip(result.scores, result.titles), 1):
        won = contest and not draw and seat - 1 in result.winners
        text = f"Player {seat}: {counted(score, unit)}" + (f"  ({title})" if title else "") + ("  *winner*" if won else "")
        out.line(text, "bold" if won else None)
    if contest:
        names = joined([f"Player {w + 1}" for w in result.winners])
        if draw:
            out.line(f"Draw: {names} tie", "bold")
        else:
            out.line(f"Winner: {names}" if len(result.winners) == 1 else f"Shared win: {names}", "bold")
    out.line(f"{counted(result.decisions, 'decision')}; seed {seed}" + (f"; log written to {log}" if log else ""), "dim")


# ---------------------------------------------------------------- logs
def _watch(target: str, agents: str, players, seed, option_flags, log, as_json, engine, html) -> None:
    """The same match (one seed, chosen once) again after every change to the pack."""
    from .watch import pack_files, watch

    if "human" in agents.split(","):
        usage_error("--watch replays a match of bots after each change; play yourself without it")
    seed = fresh_seed() if seed is None else seed
    watch(lambda: play(target, agents, players, seed, option_flags, log, as_json, engine, html),
          lambda: pack_files([target]), Out.err().line)


def pack_source(target: str) -> str:
    """What replay needs to find the pack again: a built-in's name, else its absolute folder
    (or compiled file)."""
    from runebook.compiler.pack import content_root, find_pack
    from .compiled import is_compiled_file
    if is_compiled_file(target):
        return str(Path(target).resolve())
    root = find_pack(target).resolve()
    return root.name if root.parent == content_root().resolve() else str(root)


class LogWriter:
    """Match.on_event: the log written as the match goes, one JSON line per event, flushed
    at every decision. A match that ends early (input closed, Ctrl-C, a script error) keeps
    everything up to there, and replay verifies it as a partial log. The start record
    also says where the pack came from (for replay)."""

    def __init__(self, path: Path, source: str):
        self.path = path
        self.source = source
        self.first = True
        try:  # opened before the match starts: a log that cannot be written is said at once
            self.file = open(path, "w", encoding="utf-8")
        except OSError as err:
            usage_error(f"cannot write the log '{path}': {err.strerror or err}")

    def __call__(self, event: dict) -> None:
        if self.first and event.get("type") == "start":
            event = {**event, "pack_source": self.source}
        self.first = False
        try:
            self.file.write(json.dumps(event, ensure_ascii=False) + "\n")
            if event.get("type") in ("decision", "end"):
                self.file.flush()
        except OSError as err:
            usage_error(f"cannot write the log '{self.path}': {err.strerror or err}")

    def close(self) -> None:
        self.file.close()


def _close_partial(writer: Optional[LogWriter]) -> None:
    """Keep what an interrupted match logged, and say where (stderr: stdout may carry JSON)."""
    if writer is not None:
        writer.close()
        Out.err().line(f"partial log written to {writer.path}: 'runebook replay' checks it up to where it stopped",
                       "dim")
