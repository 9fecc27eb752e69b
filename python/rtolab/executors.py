"""Where sweep runs execute: local processes (default: all cores) or a Dask cluster.

Both call the same pure worker function and hand back its results unordered; the sweep
writes them and sorts on load, so the tables are bit-identical whichever executor ran them.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn`` over ``items`` and yields results as they finish."""

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]: ...


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C from the terminal reaches the whole process group; the
    parent alone decides what stops, so the workers ignore it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor:
    """A pool of local worker processes (spawned, so no thread state is forked).

    When the caller stops early (Ctrl-C, an error, or dropping the iterator) the pool is
    terminated: the runs in flight stop at once and nothing more starts; every result already
    yielded stays the caller's."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        if self.workers == 1 or len(items) <= 1:
            for item in items:
                yield fn(item)
            return
        pool = multiprocessing.get_context("spawn").Pool(min(self.workers, len(items)), initializer=_ignore_interrupts)
        try:
            yield from pool.imap_unordered(fn, items, chunksize=1)
        except BaseException:
            pool.terminate()
            raise
        else:
            pool.close()
        finally:
            pool.join()


class DaskExecutor:
    """A Dask distributed cluster, by scheduler address (``tcp://host:8786``) or client.
    When the caller stops early, the runs not yet finished are cancelled on the cluster."""

    def __init__(self, cluster: Any) -> None:
        from dask.distributed import Client

        self.client = cluster if isinstance(cluster, Client) else Client(cluster)

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        from dask.distributed import as_completed as dask_completed

        futures = self.client.map(fn, list(items), pure=False)
        try:
            for future in dask_completed(futures):
                result: R = future.result()
                future.release()
                yield result
        except BaseException:
            self.client.cancel(futures)
            raise
