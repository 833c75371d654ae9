"""`runebook replay`: re-run a logged match from its decisions and prove it repeats.

A match is determined by (engine, pack hash, options, seed, decisions), so
replaying the recorded choices must reproduce every event exactly. Any
difference means the engine or the content is not deterministic.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .errors import CONTENT, file_error, load_program, script_error
from .render import Out

REQUIRED = ("pack", "pack_hash", "seed", "players", "options")
# Keys of the start record that name how decisions were made or where the pack
# was, not what happened: they legitimately differ between a match and its replay.
NOT_COMPARED = ("agents", "pack_source")


def replay(log: Path, pack_override: Optional[str], engine: str = "fast") -> None:
    from runebook.runtime.agents import AgentError, ScriptedAgent
    from runebook.runtime.match import Match
    from runebook.runtime.scripting import ScriptError

    recorded = read_log(log)
    start = recorded[0]
    target, program = program_for(start, pack_override)
    options = options_of(program, start)
    answers = answers_by_seat(recorded, start["players"])
    agents = [ScriptedAgent(a) for a in answers]
    # The log does not say which engine played it: both give the same events.
    match = Match(program, agents, start["seed"], options, start["players"], record=True, engine=engine)
    try:
        match.run()
    except ScriptError as err:
        script_error(err, target)
    except AgentError as err:
        partial = as_logged(match.events)
        if _is_partial(recorded) and first_difference(recorded, partial[:len(recorded)]) is None:
            # An interrupted match: its decisions ran out where it stopped, and every
            # event up to there repeated.
            Out().line(f"replay ok, partial log: the match stopped after {len(recorded)} events "
                       f"({sum(e.get('type') == 'decision' for e in recorded)} decisions); all of them repeat")
            return
        index = first_difference(recorded[:len(partial)], partial)
        diverged(recorded, partial, f"the recorded decisions no longer fit: {err}",
                 len(partial) if index is None else index)
    replayed = as_logged(match.events)
    index = first_difference(recorded, replayed)
    if index is not None:
        diverged(recorded, replayed, f"replay diverged at event {index + 1} of {len(recorded)}", index)
    end = replayed[-1] if replayed else {}
    Out().line(f"replay ok: {len(replayed)} events, same result (scores "
               f"{', '.join(map(str, end.get('scores', [])))})")


def program_for(start: dict, pack_override: Optional[str]) -> tuple:
    """(target, program) of the pack a log's start record names, which must be the same
    content the match was played with."""
    target = pack_override or _pack_target(start)
    program = load_program(target)
    if program.pack_hash != start["pack_hash"]:
        file_error("E0603", f"log was made with pack hash {str(start['pack_hash'])[:12]}…, this pack is "
                            f"{program.pack_hash[:12]}…; the content changed since the match was recorded",
                   "replay with the pack as it was (e.g. from version control), or record a new match")
    if start.get("engine") != program.engine_version:
        Out.err().line(f"note: the log was made by engine {start.get('engine')}, this is "
                       f"{program.engine_version}; events may differ", "warning")
    return target, program


# ---------------------------------------------------------------- reading
MAX_LOG_BYTES = 64_000_000  # a log is untrusted; one match's log is a few hundred KB at most


def read_log(path: Path) -> list:
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            file_error("E0602", f"the log '{path}' is larger than {MAX_LOG_BYTES:,} bytes: not one match's log")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        file_error("E0602", f"cannot read the log '{path}': {getattr(err, 'strerror', None) or err}")
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except (ValueError, RecursionError):  # a log is untrusted: '[' nested 100,000 deep too
            file_error("E0602", f"{path}:{number}: not a match log (this line is not JSON)",
                       "logs are written by 'runebook play --log FILE'")
    if not events or not _is_start(events[0]):
        file_error("E0602", f"{path}: not a match log (no start record on the first line)",
                   "logs are written by 'runebook play --log FILE'")
    return events


def _is_partial(events: list) -> bool:
    """A log of a match that did not finish (play writes the log as it goes): no end record."""
    return not (isinstance(events[-1], dict) and events[-1].get("type") == "end")


def _is_start(event) -> bool:
    return (isinstance(event, dict) and event.get("type") == "start" and all(k in event for k in REQUIRED)
            and isinstance(event["seed"], int) and isinstance(event["players"], int) and event["players"] >= 1
            and isinstance(event["options"], dict) and isinstance(event["pack"], str))


def _pack_target(start: dict) -> str:
    """Where the match's pack is: its recorded folder (or compiled file) if still there, else
    the built-in name."""
    source = start.get("pack_source")
    if isinstance(source, str) and source and (source == start["pack"] or Path(source).exists()):
        return source
    return start["pack"]


def options_of(program, start: dict) -> dict:
    from runebook.runtime.options import OptionError, resolve_options
    try:
        return resolve_options(program, start["options"])
    except OptionError as err:
        file_error("E0602", f"the log's options do not fit the pack: {err}")


def answers_by_seat(events: list, n_players: int) -> list[list[int]]:
    """Each seat's recorded choice indices, in the order that seat made them."""
    answers: list[list[int]] = [[] for _ in range(n_players)]
    for event in events:
        if isinstance(event, dict) and event.get("type") == "decision":
            seat, choice = event.get("player"), event.get("choice")
            if not (isinstance(seat, int) and 1 <= seat <= n_players and isinstance(choice, int)):
                file_error("E0602", f"malformed decision record in the log: {json.dumps(event)[:200]}")
            answers[seat - 1].append(choice)
    return answers


# ---------------------------------------------------------------- comparing
def as_logged(events: list) -> list:
    """Events as they read back from a log (tuples become lists, and so on)."""
    return json.loads(json.dumps(events))


def _comparable(event, index: int):
    if index == 0 and isinstance(event, dict):
        return {k: v for k, v in event.items() if k not in NOT_COMPARED}
    return event


def first_difference(recorded: list, replayed: list) -> Optional[int]:
    for i in range(max(len(recorded), len(replayed))):
        a = _comparable(recorded[i], i) if i < len(recorded) else None
        b = _comparable(replayed[i], i) if i < len(replayed) else None
        if a != b:
            return i
    return None


def diverged(recorded: list, replayed: list, message: str, index: int) -> None:
    from runebook.dsl.diagnostics import Diagnostic
    from .render import render_diagnostics

    err = Out.err()
    render_diagnostics([Diagnostic("E0604", message, None,
                                   "the log was edited, or the engine or the pack is not deterministic")], None, err)
    for name, events in (("recorded", recorded), ("replayed", replayed)):
        shown = json.dumps(events[index], ensure_ascii=False) if 0 <= index < len(events) else "(no event)"
        err.line(f"  {name}: {shown}")
    raise typer.Exit(CONTENT)
