"""--watch: run a command again whenever a file it read changes, until Ctrl-C.

Files are polled (their modification time and size, twice a second) rather than
watched through the operating system: a pack is a few dozen small files, polling
them costs nothing measurable, and it needs no dependency and works the same on
every system and file system (network folders and containers included).
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Iterable

import typer

from .errors import INTERRUPTED

POLL_SECONDS = 0.5


def pack_files(pack_refs: Iterable[str], extra: Iterable[Path] = ()) -> list[Path]:
    """Every file a run may read: each pack's folder (all of it, so a new file a pattern
    matches counts), what its manifest names outside it (included packs), and `extra`."""
    from runebook.compiler.pack import find_pack, read_pack
    from runebook.dsl.diagnostics import ContentError

    files: set = {Path(p) for p in extra}
    for ref in pack_refs:
        try:
            root = find_pack(ref)
        except ContentError:
            files.add(Path(ref))  # not a pack (yet): its appearing is a change too
            continue
        files.update(p for p in root.rglob("*") if p.is_file() and not _hidden(p, root))
        source = read_pack(root, [], check=False)
        if source is not None:
            files.update(p for _, p in [*source.sources, *source.boards])
            files.update(source.tests)
    return sorted(files)


def _hidden(path: Path, root: Path) -> bool:
    """Editors' and tools' own files (.git, .venv, swap files): changing them changes nothing."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def snapshot(files: list[Path]) -> dict:
    """(modification time, size) of each file; None for one that is missing."""
    state = {}
    for path in files:
        try:
            info = os.stat(path)
            state[path] = (info.st_mtime_ns, info.st_size)
        except OSError:
            state[path] = None
    return state


def watch(run: Callable[[], int], files: Callable[[], list[Path]], echo: Callable[[str], None]) -> None:
    """Run, then again after every change to `files()` (asked again before each run, whose
    files are those of the pack as it is then; a change during a run counts too), until
    Ctrl-C, which ends the command with exit code 0."""
    try:
        while True:
            watched = files()
            before = snapshot(watched)
            code = _run_once(run)
            echo(f"[{'ok' if code == 0 else f'exit {code}'}] watching {len(watched)} files; "
                 "Ctrl-C to stop")
            while snapshot(watched) == before:
                time.sleep(POLL_SECONDS)
            echo("[changed] running again")
    except KeyboardInterrupt:
        echo("stopped watching")
        raise typer.Exit(0) from None


def _run_once(run: Callable[[], int]) -> int:
    """The run's exit code: what it returns, or the code it stops with (a content error)."""
    try:
        code = run() or 0
    except typer.Exit as stop:
        code = stop.exit_code
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    if code == INTERRUPTED:  # Ctrl-C, caught by the run itself (a match keeps its partial log)
        raise KeyboardInterrupt
    return code
