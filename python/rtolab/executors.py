"""Where sweep runs execute: local processes (default: all cores) or a Dask cluster.

Both call the same pure worker function and hand back its results unordered; the sweep
writes them and sorts on load, so the tables are bit-identical whichever executor ran them.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn`` over ``items`` and yields results as they finish."""

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]: ...


class LocalExecutor:
    """A pool of local worker processes (spawned, so no thread state is forked)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        if self.workers == 1 or len(items) <= 1:
            for item in items:
                yield fn(item)
            return
        with ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(fn, item) for item in items]
            for future in as_completed(futures):
                yield future.result()


class DaskExecutor:
    """A Dask distributed cluster, by scheduler address (``tcp://host:8786``) or client."""

    def __init__(self, cluster: Any) -> None:
        from dask.distributed import Client

        self.client = cluster if isinstance(cluster, Client) else Client(cluster)

    def run_all(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        from dask.distributed import as_completed as dask_completed

        futures = self.client.map(fn, list(items), pure=False)
        for future in dask_completed(futures):
            result: R = future.result()
            future.release()
            yield result
