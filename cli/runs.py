"""What simulate, tournament and balance share: opening the results store, playing a
run's missing matches on a backend with progress on stderr, and turning a failed
game into the right error."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Optional

import typer

from .errors import INTERRUPTED, content_error, pack_base, usage_error
from .render import Out


def open_store(db: Optional[Path]):
    from .store import Store, StoreError, default_path
    try:
        return Store(db if db is not None else default_path())
    except StoreError as err:
        usage_error(str(err))


def worker_count(workers: Optional[int]) -> int:
    import os
    if workers is None:
        return os.cpu_count() or 1
    if workers < 1:
        usage_error(f"--workers must be at least 1, not {workers}")
    return workers


def play_setups(store, run_id: int, program, setups: list, seeds: range, *, target: str, engine: str,
                backend: str, workers: int, cluster: Optional[str], batch: int):
    """Play the matches the setups miss over `seeds`; a failed game ends the command.
    Returns the backends.Outcome (interrupted: the caller reports what is stored)."""
    from .backends import BackendError, count_missing, play
    if cluster and backend != "dask":
        usage_error("--cluster is the address of a dask scheduler: use it with --backend dask")
    if batch < 1:
        usage_error(f"--batch must be at least 1, not {batch}")
    todo = count_missing(store, setups, seeds)
    try:
        with Progress(todo) as progress:
            outcome = play(store, run_id, program, engine, setups, seeds, backend=backend,
                           workers=min(workers, max(1, todo)), cluster=cluster, batch=batch,
                           on_rows=progress.advance)
    except BackendError as err:
        usage_error(str(err))
    if outcome.error is not None:
        _report_failed_game(outcome.error, target)
    return outcome


def interrupted(stored: int, wanted: int) -> None:
    Out.err().line(f"interrupted: {stored} of {wanted} matches are stored; run the same command again "
                   "to play the rest", "warning")
    raise typer.Exit(INTERRUPTED)


def _report_failed_game(error: tuple, target: str) -> None:
    kind, seed, *rest = error
    if kind == "agent":
        usage_error(f"the game with seed {seed}: {rest[0]}")
    from runebook.runtime.scripting import ScriptError
    Out.err().line(f"the game with seed {seed} failed (rerun it with 'runebook play {target} --seed {seed}"
                   f" --agents ...'):")
    content_error([ScriptError(*rest).diagnostic()], pack_base(target))


class Progress:
    """Matches done, rate and time left, on stderr: a live bar on a terminal, else a line
    every few seconds (logs of long runs on a cluster still show it moving).

    The bar's auto_refresh is off so no thread runs while the worker pool forks."""
    LINE_EVERY = 5.0

    def __init__(self, total: int):
        self.total, self.done = total, 0
        self.started = self.last = time.monotonic()
        self.bar = None

    def __enter__(self) -> "Progress":
        if sys.stderr.isatty() and self.total:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn,
                                       TimeRemainingColumn)
            self.bar = Bar(TextColumn("matches"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                           console=Console(stderr=True), auto_refresh=False, transient=True)
            self.task = self.bar.add_task("matches", total=self.total, rate="")
            self.bar.start()
        return self

    def status(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = f"{int(left // 60)}:{int(left % 60):02d}" if left != float("inf") else "?"
        return f"{self.done}/{self.total} matches, {rate:.0f}/s, ETA {eta}"

    def advance(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if self.bar is not None:
            elapsed = max(now - self.started, 1e-9)
            self.bar.update(self.task, advance=n, rate=f"{self.done / elapsed:.0f}/s")
            if now - self.last > 0.1:
                self.last = now
                self.bar.refresh()
        elif now - self.last > self.LINE_EVERY:
            self.last = now
            print(self.status(), file=sys.stderr, flush=True)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
