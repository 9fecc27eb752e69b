"""Sweeps kept in memory: every run of a study on an executor, its flows table returned as
``sweep`` would load it from a store, with nothing written.

For a study that is cheap to run and only read once, such as a reproduction's ablation of a
grid it also stores: a stored run costs its worker about three times the simulation in
encoding two Parquet files, and an ablation is worth its runs only while its analysis reads
them. Nothing is resumed: an interrupted call runs everything again. Runs go to the workers
in batches (``BATCH``), which a short run's share of a pool call's inter-process cost
makes worth it (365 to 444 runs/s on paper 002's grid, 2 workers); a batch whose worker dies
three times reports each of its runs lost, where a stored sweep finds the one run to blame.
"""

from __future__ import annotations

import json
from concurrent.futures import Executor
from dataclasses import dataclass

import polars as pl

from rtolab.executors import run_all
from rtolab.store import RunColumns, param_dtypes, param_quantities, run_columns
from rtolab.study import Study
from rtolab.sweep import MAIN_GUARD, RUN_ATTEMPTS, _refuse_in_a_worker_importing_the_script, run_reporting, spec_errors

#: A run for a worker: its index among the study's points, spec (JSON), seed and run columns.
Task = tuple[int, str, int, RunColumns]
#: A worker's answer: the run's index and its flows with the run columns, or why it failed.
Outcome = tuple[int, "pl.DataFrame | None", "str | None"]
#: Runs per call to a worker.
BATCH = 16
#: ``store.Store._scan``'s order of a flows table.
FLOWS_ORDER = ["point", "replication", "flow"]


@dataclass(frozen=True)
class Swept:
    """A study's flows table (every run that finished, in ``FLOWS_ORDER``) and the runs that
    failed, each as (run key, error)."""

    flows: pl.DataFrame
    failed: list[tuple[str, str]]


def execute(task: Task) -> Outcome:
    """The worker: runs one (index, spec JSON, seed) and puts its run columns in front of its
    flows (``sweep.run_reporting``: errors come back as text)."""
    index, spec_json, seed, columns = task
    return run_reporting(index, spec_json, seed, lambda result: columns.attach(result.flows))


def execute_batch(tasks: list[Task]) -> list[Outcome]:
    """The worker: ``execute`` for each of a batch of runs. A pool's call costs a few
    milliseconds of inter-process traffic, more than a short run: batches amortise it."""
    return [execute(task) for task in tasks]


def sweep_in_memory(study: Study, executor: Executor) -> Swept:
    """Every run of ``study`` on ``executor``: the flows table ``sweep`` would return for a
    store holding the same runs (the same columns, types, rows and order), with no store.
    The table is the same on any executor (runs are put in order, not in the order they
    finish)."""
    _refuse_in_a_worker_importing_the_script()
    points = study.points()
    invalid = spec_errors(points)
    dtypes, quantities = param_dtypes(study), param_quantities(study)
    tasks: list[Task] = [(i, json.dumps(p.spec), p.seed, run_columns(p, dtypes, quantities)) for i, p in enumerate(points) if p.point not in invalid]
    failed = [(p.key, f"SpecError: {invalid[p.point]}") for p in points if p.point in invalid]

    def lost(batch: list[Task], attempts: int) -> list[Outcome]:
        why = (f"WorkerLost: the worker process running this run's batch of {len(batch)} died {attempts} times "
               f"(killed, out of memory, or a script that sweeps at its top level: {MAIN_GUARD}); every run of the batch is reported lost")
        return [(task[0], None, why) for task in batch]

    batches = [tasks[i : i + BATCH] for i in range(0, len(tasks), BATCH)]
    frames: list[tuple[int, pl.DataFrame]] = []
    for outcomes in run_all(executor, execute_batch, batches, lost, RUN_ATTEMPTS):
        for index, flows, error in outcomes:
            if flows is None:
                failed.append((points[index].key, error or "unknown error"))
            else:
                frames.append((index, flows))
    frames.sort(key=lambda f: f[0])
    table = pl.concat([f for _, f in frames]).sort(FLOWS_ORDER, maintain_order=True) if frames else pl.DataFrame()
    return Swept(table, failed)
