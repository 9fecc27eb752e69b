"""Sweeps: every run of a study, in parallel, resumable, written as a Parquet dataset.

``import rtolab`` imports this module, so it loads polars, rich's progress bar and the
executors only inside the functions that use them.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtolab import _core
from rtolab.study import Study

if TYPE_CHECKING:
    import polars as pl

    from rtolab.executors import Executor

Task = tuple[int, str, int]
Outcome = tuple[int, "pl.DataFrame | None", "pl.DataFrame | None", "str | None"]


def execute(task: Task) -> Outcome:
    """The worker: runs one (index, spec JSON, seed); never raises, errors come back as text."""
    from rtolab.api import run

    index, spec_json, seed = task
    try:
        result = run(json.loads(spec_json), seed=seed)
    except (_core.SpecError, _core.SimulationError) as e:
        return index, None, None, f"{type(e).__name__}: {e}"
    except Exception:  # noqa: BLE001 - a worker must report, not die
        return index, None, None, traceback.format_exc(limit=3)
    return index, result.flows, result.links, None


def _as_study(study: Study | Mapping[str, Any] | str | os.PathLike[str]) -> Study:
    if isinstance(study, Study):
        return study
    if isinstance(study, Mapping):
        return Study.from_dict(study)
    return Study.load(study)


def sweep(
    study: Study | Mapping[str, Any] | str | os.PathLike[str],
    out: str | os.PathLike[str],
    executor: Executor | None = None,
    progress: bool = False,
) -> pl.DataFrame:
    """Runs every not-yet-finished run of ``study`` into ``out`` and returns the flow rows of
    all finished runs (see ``load``). Failed runs are recorded in ``out/errors`` and do not
    stop the others; running the same sweep again skips every finished run."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from rtolab.executors import LocalExecutor
    from rtolab.store import Store, param_dtypes

    study = _as_study(study)
    store = Store(out)
    store.prepare(study)
    dtypes = param_dtypes(study)
    points = study.points()
    finished = store.finished()
    first_index: dict[str, int] = {}
    for i, p in enumerate(points):
        first_index.setdefault(p.key, i)
    todo = [i for i, p in enumerate(points) if p.key not in finished and first_index[p.key] == i]
    tasks: list[Task] = [(i, json.dumps(points[i].spec), points[i].seed) for i in todo]
    executor = executor or LocalExecutor()
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, disable=not progress, transient=False) as bar:
        task_id = bar.add_task(study.name, total=len(points), completed=len(points) - len(todo), rate="")
        for done, (index, flows, links, error) in enumerate(executor.run_all(execute, tasks), start=1):
            point = points[index]
            if error is None and flows is not None and links is not None:
                store.write(point, flows, links, dtypes)
            else:
                store.write_error(point, error or "unknown error")
            elapsed = bar.tasks[0].elapsed or 0.0
            bar.update(task_id, advance=1, rate=f"{done / elapsed:.1f} runs/s" if elapsed else "")
    return store.load("flows", keys={p.key for p in points})


def load(directory: str | os.PathLike[str], table: str = "flows") -> pl.DataFrame:
    """Reads a finished or partial sweep: one row per flow (or link direction) per run, with
    the run key, grid point, replication, seed, spec hash and every parameter (named by its
    dotted path) as columns."""
    from rtolab.store import Store

    return Store(Path(directory)).load(table)


def errors(directory: str | os.PathLike[str]) -> pl.DataFrame:
    """The runs of a sweep that failed, with their error message."""
    from rtolab.store import Store

    return Store(Path(directory)).errors()
