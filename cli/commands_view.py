"""`runebook view`: a logged match as one HTML page to step through.

The log holds the decisions, not the state: the match is replayed from them (as
`replay` does, and it must repeat exactly) while the page's steps are gathered.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from .errors import script_error, usage_error


def view(log: Path, out: Path, seat: Optional[int], pack_override: Optional[str]) -> None:
    from runebook.runtime.agents import AgentError, ScriptedAgent
    from runebook.runtime.match import Match
    from runebook.runtime.scripting import ScriptError
    from .commands_replay import (as_logged, answers_by_seat, diverged, first_difference, options_of,
                                  program_for, read_log)
    from .compiled import pack_folder
    from .presentation import Phraser, Watched, load_presentation
    from .viewer import PageRecorder, write_page

    if not out.parent.is_dir():
        usage_error(f"cannot write the page '{out}': no folder '{out.parent}'")
    recorded = read_log(log)
    start = recorded[0]
    if seat is not None and seat > start["players"]:
        usage_error(f"--seat {seat}: the match has {start['players']} players")
    target, program = program_for(start, pack_override)
    presentation = load_presentation(pack_folder(target), program)
    seen: list = []
    agents = [Watched(ScriptedAgent(a), seen) for a in answers_by_seat(recorded, start["players"])]
    recorder = PageRecorder(program, presentation, seen, seat)
    match = Match(program, agents, start["seed"], options_of(program, start), start["players"],
                  on_event=recorder)
    recorder.phraser = Phraser(presentation, program, match.world)
    try:
        match.run()
    except ScriptError as err:
        script_error(err, target)
    except AgentError:
        pass  # a partial log: its decisions ran out where the match stopped; checked below
    replayed = as_logged(match.events)
    index = first_difference(recorded, replayed[:len(recorded)] if len(replayed) > len(recorded) else replayed)
    if index is not None:
        diverged(recorded, replayed, f"the log does not replay: event {index + 1} differs", index)
    write_page(out, recorder.page(program.title))
