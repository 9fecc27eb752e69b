"""Where sweep runs execute: any ``concurrent.futures.Executor``. rtolab brings local worker
processes (``LocalExecutor``, a ``ProcessPoolExecutor``; all cores by default) and a Dask
cluster (``DaskExecutor``, the client's own ``Client.get_executor()``); a plain
``ProcessPoolExecutor`` or any other executor works too.

``run_all`` hands a pure worker function to the executor and yields the results as they
finish; the sweep writes them and sorts on load, so the tables are bit-identical whichever
executor ran them.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import CancelledError, Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["DaskExecutor", "Executor", "ExecutorLost", "ExecutorUnavailable", "LocalExecutor", "interrupts_ignored", "run_all"]


def run_all(
    executor: Executor,
    fn: Callable[[T], R],
    items: Iterable[T],
    lost: Callable[[T, int], R] | None = None,
    attempts: int = 3,
    on_retry: Callable[[int], None] | None = None,
    on_stop: Callable[[int], None] | None = None,
) -> Generator[R, None, None]:
    """``fn(item)`` for every item, yielded as each finishes (in no fixed order); a call that
    is already done when submitted (a one-worker ``LocalExecutor`` runs it then) is yielded
    before the next is submitted.

    With ``lost``, calls whose worker process died (killed, out of memory: the pool breaks,
    and every call it held fails with ``BrokenProcessPool``) run again on fresh workers, one
    at a time, so that a call that breaks the pool alone is known for the culprit: it is
    started up to ``attempts`` times in all, then ``lost(item, attempts)`` stands for its
    result; the others finish. ``on_retry(n)`` hears of each breakage with the number of
    calls it sent round again. Without ``lost``, the breakage is raised.

    When the caller stops early (Ctrl-C, an error, or closing the iterator) every call not
    yet finished is cancelled, and the running ones are stopped too when the executor can
    (``terminate_workers``: ``LocalExecutor``, and ``ProcessPoolExecutor`` from Python 3.14),
    with Ctrl-C ignored meanwhile; every result already yielded stays the caller's. A caller
    that stops on Ctrl-C should close the iterator itself (``contextlib.closing``) rather
    than leave that to the garbage collector, which prints what goes wrong in a clean-up.
    ``on_stop(n)`` then hears how many calls had started and not finished: their work is
    lost (the calls still queued had not started)."""
    finished: queue.SimpleQueue[Future[R]] = queue.SimpleQueue()
    pending: set[Future[R]] = set()
    # Each call's item and how many times it has been started, this start included.
    calls: dict[Future[R], tuple[T, int]] = {}
    suspects: collections.deque[tuple[T, int]] = collections.deque()
    # Set while a call is submitted: an executor that runs it then (one local worker) is
    # running it, so an interrupt there stops a started call.
    submitting = [False]

    def submit(item: T, starts: int) -> None:
        submitting[0] = True
        future = executor.submit(fn, item)
        submitting[0] = False
        pending.add(future)
        calls[future] = (item, starts)
        future.add_done_callback(finished.put)

    def take() -> Generator[R, None, None]:
        """The next finished call's result. When the pool broke, every call it held becomes a
        suspect and runs again alone (``retry_alone``). A call that failed with a pool after
        it was sent round again yields nothing."""
        future = finished.get()
        if future not in calls:
            return
        pending.discard(future)
        item, starts = calls.pop(future)
        try:
            result = future.result()
        except CancelledError:
            # run_all cancels only on its way out; a call cancelled under it was given up by
            # the executor itself.
            raise ExecutorLost("the executor gave up the runs it held (its scheduler or cluster is gone)") from None
        except BrokenProcessPool:
            if lost is None:
                raise
            suspects.append((item, starts))
            suspects.extend(calls.pop(f) for f in pending)
            pending.clear()
            _restart(executor)
            if on_retry is not None:
                on_retry(len(suspects))
            yield from retry_alone()
            return
        yield result

    def retry_alone() -> Generator[R, None, None]:
        """Each suspect alone on fresh workers: a breakage now is that call's own."""
        assert lost is not None
        while suspects:
            item, starts = suspects.popleft()
            submit(item, starts + 1)
            future = next(iter(pending))
            try:
                result = future.result()
            except BrokenProcessPool:
                pending.clear()
                calls.pop(future)
                _restart(executor)
                if starts + 1 >= attempts:
                    yield lost(item, attempts)
                else:
                    suspects.appendleft((item, starts + 1))
                continue
            pending.clear()
            calls.pop(future)
            yield result

    try:
        for item in items:
            submit(item, 1)
            while not finished.empty():
                yield from take()
        while pending:
            yield from take()
    except BaseException:
        if on_stop is not None:
            on_stop(sum(1 for future in pending if future.running()) + int(submitting[0]))
        with interrupts_ignored():
            # An executor that can stop its workers cancels what they held itself: cancelling
            # here first races Python 3.11's pool, whose manager thread then sets an error on
            # a cancelled future and prints InvalidStateError.
            if not _restart(executor):
                for future in pending:
                    future.cancel()
        raise


def _restart(executor: Executor) -> bool:
    """Stops ``executor``'s workers when it can (``terminate_workers``), so that the next call
    starts fresh ones: after its pool broke, or when the caller stops early. Whether it could."""
    terminate = getattr(executor, "terminate_workers", None)
    if callable(terminate):
        terminate()
        return True
    return False


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Ctrl-C is ignored inside the block (on the main thread, the one Python's signal
    handlers run in), so that a clean-up after an interrupt runs to its end. One Ctrl-C can
    raise KeyboardInterrupt twice: polars installs a SIGINT handler of its own in front of
    Python's, so a polars call in progress can raise it and Python's handler again after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C from the terminal reaches the whole process group; the
    parent alone decides what stops, so the workers ignore it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _main_without_a_file_left_out() -> Iterator[None]:
    """A spawned worker imports the parent's ``__main__`` from its ``__file__``
    (``multiprocessing.spawn.get_preparation_data``). A script read from standard input has
    ``__file__ == "<stdin>"``, which no worker can import: each would die at start with a
    ``FileNotFoundError`` traceback. While workers start, such a ``__main__`` is hidden from
    them, as multiprocessing itself does for an interactive session or ``python -c``; the
    workers of a sweep run only rtolab's own functions."""
    import sys

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or getattr(getattr(main, "__spec__", None), "name", None) or os.path.exists(path):
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def _call_now(fn: Callable[..., R], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Future[R]:
    """A future that holds ``fn(*args, **kwargs)``, called here and now. Its exceptions go into
    the future; Ctrl-C and other ``BaseException``s reach the caller at once."""
    future: Future[R] = Future()
    future.set_running_or_notify_cancel()
    try:
        future.set_result(fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 - the future carries it, as a pool's would
        future.set_exception(e)
    return future


class LocalExecutor(Executor):
    """Local worker processes: a ``ProcessPoolExecutor`` of ``workers`` spawned processes (so
    no thread state is forked), started with the first call, that ignore Ctrl-C. With one
    worker the calls run in this process, each when it is submitted."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: ProcessPoolExecutor | None = None
        self._shut = False

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        if self._shut:
            raise RuntimeError("cannot schedule new futures after shutdown")
        if self.workers == 1:
            return _call_now(fn, args, kwargs)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts)
        if len(self._pool._processes or {}) < self.workers:
            # This call may start a worker: it is born ignoring Ctrl-C (an ignored signal stays
            # ignored across exec), so a Ctrl-C while it starts up cannot print a traceback
            # from it before its initializer runs.
            with interrupts_ignored(), _main_without_a_file_left_out():
                return self._pool.submit(fn, *args, **kwargs)
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._shut = True
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def terminate_workers(self) -> None:
        """Stops the calls in flight at once (their workers are terminated), cancels the
        queued ones and waits until the pool has let its processes go, so that none of its
        clean-up is left running when the interpreter exits (on Python 3.11 that can end in
        "Bad file descriptor"); the next ``submit`` starts fresh workers."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The pool forgets its processes when it shuts down, so they are taken first.
        processes = list((pool._processes or {}).values())
        for process in processes:
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


class ExecutorUnavailable(RuntimeError):
    """The executor asked for cannot be reached (a Dask scheduler that does not answer)."""


class ExecutorLost(RuntimeError):
    """The executor gave up calls it held (a Dask client whose scheduler went away cancels
    every future)."""


def DaskExecutor(cluster: Any, timeout_s: float = 10.0) -> Executor:  # noqa: N802 - used like the class it stands for
    """A Dask distributed cluster, by scheduler address (``tcp://host:8786``) or client: the
    client's ``concurrent.futures`` executor (``Client.get_executor``), whose cancelled
    futures cancel their tasks on the cluster. Every call is a new task (``pure=False``).
    Raises ``ExecutorUnavailable`` naming the address when no scheduler answers within
    ``timeout_s`` seconds."""
    from dask.distributed import Client

    if isinstance(cluster, Client):
        client = cluster
    else:
        try:
            client = Client(cluster, timeout=timeout_s)
        except (OSError, TimeoutError, ValueError) as e:
            raise ExecutorUnavailable(
                f"{cluster}: no Dask scheduler answered within {timeout_s:g} s ({e}); start one there "
                f"(`dask scheduler`, then `dask worker {cluster}` on each machine), or leave out --dask to run on this machine"
            ) from None
    executor: Executor = client.get_executor(pure=False)
    return executor
