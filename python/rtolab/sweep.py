"""Sweeps: every run of a study, in parallel, resumable, written as a Parquet dataset.

``import rtolab`` imports this module, so it loads polars, rich's progress bar and the
executors only inside the functions that use them.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from rtolab import _core

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import polars as pl

    from rtolab.result import Result
    from rtolab.store import EncodedRun, RunColumns, Store
    from rtolab.study import RunPoint, Study

R = TypeVar("R")
#: A run for a worker: its index among the study's points, spec (JSON), seed, and the columns
#: its files put in front of the simulator's.
Task = tuple[int, str, int, "RunColumns"]
#: How many times a run is started when its worker process dies under it, before the sweep
#: records it as failed (``errors/``) and goes on.
RUN_ATTEMPTS = 3
#: A worker's answer: the run's index, its encoded files or, when it failed, why.
Outcome = tuple[int, "EncodedRun | None", "str | None"]


def run_reporting(index: int, spec_json: str, seed: int, keep: Callable[[Result], R]) -> tuple[int, R | None, str | None]:
    """A worker's run: (index, what ``keep`` takes from the result, None), or, when the run or
    ``keep`` fails, (index, None, why) as text; never raises."""
    from rtolab.api import run

    try:
        return index, keep(run(json.loads(spec_json), seed=seed)), None
    except (_core.SpecError, _core.SimulationError) as e:
        return index, None, f"{type(e).__name__}: {e}"
    except Exception:  # noqa: BLE001 - a worker must report, not die
        return index, None, traceback.format_exc(limit=3)


def execute(task: Task) -> Outcome:
    """The worker: runs one (index, spec JSON, seed) and encodes its run files, so that the
    sweep's own process, which every result passes through, only writes bytes."""
    from rtolab.store import encode_run

    index, spec_json, seed, columns = task
    return run_reporting(index, spec_json, seed, lambda result: encode_run(columns, result.flows, result.links))


def _as_study(study: Study | Mapping[str, Any] | str | os.PathLike[str]) -> Study:
    from rtolab.study import Study

    if isinstance(study, Study):
        return study
    if isinstance(study, Mapping):
        return Study.from_dict(study)
    return Study.load(study)


def spec_errors(points: Sequence[RunPoint]) -> dict[int, str]:
    """Grid point → why its scenario cannot run, for the grid points that cannot (each checked
    once: its replications differ only in seed). Raises ``SpecError`` when no grid point can
    run, so that a study whose every run would fail starts none."""
    errors: dict[int, str] = {}
    first_run: dict[int, RunPoint] = {}
    for p in points:
        if first_run.setdefault(p.point, p) is not p:
            continue
        try:
            _core.validate(json.dumps(p.spec), "json")
        except _core.SpecError as e:
            errors[p.point] = str(e)
    if first_run and len(errors) == len(first_run):
        from rtolab.study import describe_params

        point = min(errors)
        fails = "every grid point fails with" if len(set(errors.values())) == 1 else f"all {len(errors)} grid points fail, the first with"
        where = f"grid point {point}: {describe_params(first_run[point].params)}"
        raise _core.SpecError(f"study: no run can start; {fails}: {errors[point]} ({where})")
    return errors


#: What a script that sweeps at its top level needs (Python's multiprocessing guidelines,
#: "safe importing of main module").
MAIN_GUARD = 'call rtolab.sweep under `if __name__ == "__main__":` in a script that uses local worker processes'


class SweepFailed(RuntimeError):
    """No run of the study finished: every one failed or was lost, or the local workers
    cannot start (a script that sweeps at its top level). The message names the cause and the
    fix; the failures stay recorded in ``errors/`` (``rtolab.errors``)."""


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C (or SIGTERM, SIGHUP in the command line): what it kept and
    lost. ``kept`` runs of the study are finished in ``out`` (``made`` of them by this call),
    ``lost`` were running and their work is gone, ``left`` had not started; sweeping again
    runs the ``lost + left`` others."""

    def __init__(self, out: Path, runs: int, kept: int, made: int, lost: int, left: int) -> None:
        super().__init__(
            f"{out}: stopped; {kept} of {runs} runs kept ({made} made now), {lost} in flight lost, {left} not started; "
            "the same sweep resumes with the rest"
        )
        self.out, self.runs, self.kept, self.made, self.lost, self.left = out, runs, kept, made, lost, left


class RunsFailed(UserWarning):
    """Some runs of a sweep failed; the others are returned. ``failed`` and ``runs`` count
    them; ``rtolab.errors(out)`` lists them, and sweeping again retries only those."""

    def __init__(self, message: str, failed: int, runs: int) -> None:
        super().__init__(message)
        self.failed = failed
        self.runs = runs


def _is_main_test(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(a, ast.Name) and a.id == "__name__" for a in sides) and any(isinstance(a, ast.Constant) and a.value == "__main__" for a in sides)


def unguarded_call_site() -> tuple[str, int] | None:
    """The script and line from which this sweep was reached, when spawned workers would run
    that line again: a ``__main__`` they import (a file, or a module run with ``-m``) whose
    top-level code makes the call outside an ``if __name__ == "__main__":`` block. None
    otherwise (a notebook, ``python -c``, standard input, a guarded call, a source that
    cannot be read)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or not os.path.isfile(path):
        return None
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.body[0].lineno <= line <= (node.body[-1].end_lineno or line):
            return None
    return path, line


def _spawns_workers(executor: Executor | None) -> bool:
    """Whether ``executor`` runs calls in spawned local processes that import ``__main__``."""
    from rtolab.executors import LocalExecutor

    if executor is None:
        return (os.cpu_count() or 1) > 1
    return isinstance(executor, LocalExecutor) and executor.workers > 1


def _refuse_in_a_worker_importing_the_script() -> None:
    """A local worker process is started by importing the user's script as ``__mp_main__``; a
    sweep at the script's top level would then start again in every worker and wait for the
    store's lock forever. Such a worker stops at once, saying why (its runs are reported by
    the sweep that started it)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") != "__mp_main__":
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None:
        sys.stderr.write(f"rtolab: a worker process imported the script that sweeps and reached rtolab.sweep again: {MAIN_GUARD}\n")
        sys.stderr.flush()
        os._exit(2)


def sweep(
    study: Study | Mapping[str, Any] | str | os.PathLike[str],
    out: str | os.PathLike[str],
    executor: Executor | None = None,
    progress: bool = False,
    extend: bool = False,
    wait: bool = True,
    on_todo: Callable[[set[str]], object] | None = None,
    force: bool = False,
    load: bool = True,
) -> pl.DataFrame:
    """Runs every not-yet-finished run of ``study`` into ``out`` and returns the flow rows of
    all finished runs (see ``load``; with ``load=False`` nothing is read back and an empty
    table is returned: a study of millions of flows is read in parts with
    ``rtolab.store.Store.batches`` or lazily with ``rtolab.load(out, lazy=True)``). Failed runs are recorded in ``out/errors`` and do not
    stop the others; running the same sweep again skips every finished run. ``executor`` is
    any ``concurrent.futures.Executor`` (see ``rtolab.executors``); without one, local worker
    processes on every core, shut down at the end.

    Raises ``SpecError``, before anything runs or is written, for a study no run of which can
    start and for an ``out`` that holds a different study; with ``extend``, a study that only
    adds grid values or cases to the one in ``out`` extends it (see ``rtolab.manifest``).
    Raises ``OutputError`` (``rtolab.store_lock``) for an ``out`` that cannot be created or
    written, and its ``OutputRefused`` for one rtolab does not write into (``rtolab.output_dir``:
    the working or home directory, a root, a repository, a directory of another kind, or one
    holding files rtolab did not write unless ``force``), before any run, and ``WriteFailed`` when writing fails mid-sweep (a full disk:
    the runs written before are kept). One sweep writes to a directory at a time: while another process
    sweeps into ``out`` this one waits for it, saying so, or with ``wait=False`` raises
    ``StoreBusy``; either way no run is done twice. ``on_todo`` hears, once and before any
    run starts, the keys of the runs this sweep is about to run (not yet finished, failed
    before, or found damaged), so that a caller can tell them from the runs it reused."""
    from rtolab._console import err
    from rtolab.store import Store
    from rtolab.output_dir import open_store
    from rtolab.store_lock import exclusive

    _refuse_in_a_worker_importing_the_script()
    site = unguarded_call_site() if _spawns_workers(executor) else None
    if site is not None:
        raise SweepFailed(
            f"{site[0]}, line {site[1]}: rtolab.sweep is reached from the script's top level, which every local worker "
            f"process imports again; {MAIN_GUARD} (or pass executor=rtolab.LocalExecutor(1) to run in this process)"
        )
    study = _as_study(study)
    points = study.points()
    invalid = spec_errors(points)
    open_store(Path(out), "sweep", force)
    with exclusive(Path(out), wait, on_wait=lambda message: err.print(message, markup=False, highlight=False)):
        _sweep_locked(study, points, invalid, Store(out), executor, progress, extend, on_todo)
    _judge(Store(out), points, Path(out))
    if load:
        return Store(out).load("flows", study, points)
    import polars as pl

    return pl.DataFrame()


def _judge(store: Store, points: Sequence[RunPoint], out: Path) -> None:
    """Raises ``SweepFailed`` when no run of the study finished, naming the cause and the fix;
    warns ``RunsFailed`` with the count when some failed."""
    failed = store.errors(points=points)
    if not failed.height:
        return
    finished = len(store.finished() & {p.key for p in points})
    listed = f"rtolab.errors({str(out)!r}) lists them"
    if finished == 0:
        messages = failed["error"].to_list()
        if all(m.startswith("WorkerLost") for m in messages):
            raise SweepFailed(
                f"{out}: all {len(points)} runs were lost: their worker processes died (killed, out of memory, or a script that "
                f"sweeps at its top level: {MAIN_GUARD}); {listed}"
            )
        first = messages[0].strip().splitlines()[-1]
        raise SweepFailed(f"{out}: all {len(points)} runs failed, the first with {first}; {listed}, and sweeping again retries them")
    warnings.warn(
        RunsFailed(f"{out}: {failed.height} of {len(points)} runs failed and are left out; {listed}, and sweeping again retries only those", failed.height, len(points)),
        stacklevel=3,
    )


def _sweep_locked(
    study: Study, points: Sequence[RunPoint], invalid: dict[int, str], store: Store, executor: Executor | None, progress: bool, extend: bool, on_todo: Callable[[set[str]], object] | None
) -> None:
    """``sweep``'s work once it holds the store's lock."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from rtolab._console import err
    from rtolab.executors import LocalExecutor, run_all
    from rtolab.store import param_dtypes, param_quantities, run_columns
    from rtolab.store_lock import OutputError

    try:
        replaced = store.prepare(study, extend)
    except OSError as e:
        raise OutputError(f"{store.root}: cannot write the study's record there: {e.strerror or e}") from None
    if replaced is not None:
        err.print(f"{study.name}: {replaced}", markup=False, highlight=False)
    dtypes, quantities = param_dtypes(study), param_quantities(study)
    finished = store.finished()
    problems = store.verify(finished & {p.key for p in points})
    if problems:
        first = problems[0]
        err.print(f"re-running {len({p.run for p in problems})} finished run(s) whose files are missing, corrupted or damaged, the first {first.path} ({first.kind})", markup=False, highlight=False)
        for problem in problems:
            store.discard(problem.run)
            finished.discard(problem.run)
    todo = [i for i, p in enumerate(points) if p.key not in finished]
    for i in todo:
        if points[i].point in invalid:
            store.write_error(points[i], f"SpecError: {invalid[points[i].point]}")
    tasks: list[Task] = [(i, json.dumps(points[i].spec), points[i].seed, run_columns(points[i], dtypes, quantities)) for i in todo if points[i].point not in invalid]
    if on_todo is not None:
        on_todo({points[task[0]].key for task in tasks})
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn()]
    pool_of_sweep = LocalExecutor() if executor is None else executor
    owned = pool_of_sweep if executor is None else contextlib.nullcontext(executor)
    def lost(task: Task, attempts: int) -> Outcome:
        return task[0], None, f"WorkerLost: the worker process running this run died {attempts} times (killed, out of memory, or a script that sweeps at its top level: {MAIN_GUARD})"

    told: list[int] = []

    def retrying(n: int) -> None:
        """Says once per sweep that runs go round again: a study whose every run kills its
        worker would otherwise say it for each."""
        if not told:
            err.print(f"a worker process died; running its {n} run{'s' if n != 1 else ''} again, one at a time, on fresh workers", markup=False, highlight=False)
        told.append(n)

    in_flight: list[int] = []
    written = [0]
    try:
        with owned as pool, Progress(*columns, console=err, disable=not progress, transient=True) as bar, contextlib.closing(run_all(pool, execute, tasks, lost, RUN_ATTEMPTS, retrying, in_flight.append)) as results:
            task_id = bar.add_task(study.name, total=len(points), completed=len(points) - len(tasks), rate="")
            for index, encoded, error in results:
                _write_result(store, points[index], encoded, error, written[0])
                written[0] += 1
                elapsed = bar.tasks[0].elapsed or 0.0
                bar.update(task_id, advance=1, rate=f"{written[0] / elapsed:.1f} runs/s" if elapsed else "")
    except KeyboardInterrupt:
        # A process pool marks a call running once it is queued for a worker (one beyond the
        # workers); no more than the workers can have been executing.
        lost_now = min(in_flight[0] if in_flight else 0, getattr(pool_of_sweep, "workers", len(tasks)))
        kept = len(store.finished() & {p.key for p in points})
        raise SweepInterrupted(store.root, len(points), kept, written[0], lost_now, len(tasks) - written[0] - lost_now) from None


def _write_result(store: Store, point: RunPoint, encoded: EncodedRun | None, error: str | None, before: int) -> None:
    """Writes one run's files, or its error; a write that fails (a full disk) raises
    ``WriteFailed`` saying that the ``before`` runs written earlier are kept."""
    from rtolab.store_lock import WriteFailed

    try:
        if encoded is not None:
            store.write_encoded(point.key, encoded)
        else:
            store.write_error(point, error or "unknown error")
    except OSError as e:
        raise WriteFailed(
            f"{store.root}: writing a run's results failed: {e.strerror or e}; the {before} run{'s' if before != 1 else ''} "
            "written before are kept, and the same sweep resumes from them once there is room"
        ) from None


@overload
def load(directory: str | os.PathLike[str], table: str = ..., lazy: Literal[False] = ..., skip_damaged: bool = ...) -> pl.DataFrame: ...


@overload
def load(directory: str | os.PathLike[str], table: str = ..., *, lazy: Literal[True], skip_damaged: bool = ...) -> pl.LazyFrame: ...


def load(directory: str | os.PathLike[str], table: str = "flows", lazy: bool = False, skip_damaged: bool = False) -> pl.DataFrame | pl.LazyFrame:
    """Reads a finished or partial sweep: one row per flow (or link direction) per run, with
    the run key, grid point, replication, seed, spec hash and every parameter (named by its
    dotted path) as columns. With ``lazy``, a ``LazyFrame`` over the run files: filters and
    column selections are pushed into the Parquet scan. A damaged run file (overwritten, cut
    short, or with bytes Parquet cannot decode: found by its checksum) raises
    ``rtolab.store.StoreDamaged`` naming it and how to repair it; with ``skip_damaged`` it is
    left out with a warning (a lazy scan checks only that files are whole)."""
    from rtolab.store import Store

    store = Store(Path(directory))
    return store.scan(table, skip_damaged=skip_damaged) if lazy else store.load(table, skip_damaged=skip_damaged)


def errors(directory: str | os.PathLike[str]) -> pl.DataFrame:
    """The runs of a sweep that failed, with their error message."""
    from rtolab.store import Store

    return Store(Path(directory)).errors()
