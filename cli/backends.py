"""Where batches of matches are played: `local` (this process, or a pool of worker
processes) or `dask` (a dask.distributed cluster, optional extra `distributed`).

Either way the coordinator (this process) cuts the seeds a run still needs into
batches of one setup each, keeps a bounded window of them in flight, takes their
results back in submission order and writes every finished batch to the store as
one transaction. So memory stays flat however many games are asked for, a Ctrl-C
or a killed process loses at most the batches in flight, and the rows are the same
whichever backend or worker count played them.
"""
from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

BACKENDS = ("local", "dask")
DEFAULT_BATCH = 25       # seeds per task: large enough that a task's overhead is small
WINDOW_PER_WORKER = 4    # tasks in flight per worker: workers never wait, memory stays bounded


class BackendError(Exception):
    """A backend that cannot start (a missing extra, an unreachable cluster)."""


@dataclass
class Outcome:
    played: int = 0
    error: Optional[tuple] = None     # the first failing game's fields (cli/simulate.play_batch)
    interrupted: bool = False


def batches(store, setups: list, seeds: range, size: int) -> Iterator[tuple]:
    """(setup id, setup, [seeds]) for every seed a setup has not played yet."""
    for setup_id, setup in setups:
        missing = store.missing_seeds(setup_id, seeds)
        while chunk := list(itertools.islice(missing, size)):
            yield setup_id, setup, chunk


def count_missing(store, setups: list, seeds: range) -> int:
    return sum(len(seeds) - store.stored_count(setup_id, seeds) for setup_id, _ in setups)


def play(store, run_id: int, program, engine: str, setups: list, seeds: range, *, backend: str = "local",
         workers: int = 1, cluster: Optional[str] = None, batch: int = DEFAULT_BATCH,
         on_rows: Callable[[int], None] = lambda n: None) -> Outcome:
    """Play what the setups miss of `seeds` and store it; returns what happened."""
    tasks = batches(store, setups, seeds, batch)
    outcome = Outcome()
    with _executor(backend, program, engine, workers, cluster) as submit:
        try:
            for setup_id, rows, error in _in_order(submit, tasks, max(1, workers) * WINDOW_PER_WORKER):
                if rows:
                    store.add_matches(run_id, ((setup_id, *row) for row in rows))
                    outcome.played += len(rows)
                    on_rows(len(rows))
                if error is not None:
                    outcome.error = error
                    break
        except KeyboardInterrupt:
            outcome.interrupted = True
    return outcome


def _in_order(submit, tasks: Iterator, window: int) -> Iterator:
    """Results of tasks in submission order, with at most `window` in flight."""
    pending: deque = deque()
    for task in tasks:
        pending.append(submit(task))
        if len(pending) >= window:
            yield pending.popleft()()
    while pending:
        yield pending.popleft()()


class _executor:
    """A context giving submit(task) -> a function that waits for its result."""

    def __init__(self, backend: str, program, engine: str, workers: int, cluster: Optional[str]):
        self.backend, self.program, self.engine = backend, program, engine
        self.workers, self.cluster = workers, cluster
        self.closers: list = []

    def __enter__(self) -> Callable:
        from .simulate import init_worker, play_batch
        if self.backend == "dask":
            return self._dask()
        if self.workers <= 1:
            init_worker(self.program, self.engine)

            def play_here(task):  # played at once; its result is ready when asked for
                result = play_batch(task)
                return lambda: result
            return play_here
        import multiprocessing
        pool = multiprocessing.Pool(self.workers, initializer=init_worker,
                                    initargs=(self.program, self.engine, True))
        self.closers.append(pool.terminate)
        return lambda task: pool.apply_async(play_batch, (task,)).get

    def _dask(self) -> Callable:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise BackendError("the dask backend needs the 'distributed' extra: "
                               "pip install 'runebook[distributed]'") from None
        from .simulate import play_batch_with
        if self.cluster:
            try:
                client = Client(self.cluster, timeout="10s")
            except OSError as err:
                raise BackendError(f"cannot reach the dask scheduler at {self.cluster} ({err})") from None
        else:
            local = LocalCluster(n_workers=max(1, self.workers), threads_per_worker=1, processes=True,
                                 dashboard_address=None)
            self.closers.append(local.close)
            client = Client(local)
        self.closers.insert(0, client.close)
        # The program travels once to every worker; each task names it.
        program = client.scatter(self.program, broadcast=True)
        engine = self.engine
        return lambda task: client.submit(play_batch_with, program, engine, task, pure=False).result

    def __exit__(self, *exc) -> None:
        for close in self.closers:
            close()
