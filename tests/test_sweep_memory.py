"""A sweep kept in memory returns the flows table a stored sweep of the same study loads:
the same columns, types, rows and order, on one worker or two; failed runs are reported."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

import rtolab
from rtolab.executors import LocalExecutor
from rtolab.reproduce import IN_MEMORY_ERRORS, Context
from rtolab.study import Study
from rtolab.sweep_memory import sweep_in_memory
from test_sweep import study_dict


def test_in_memory_table_is_the_stored_sweeps(tmp_path: Path) -> None:
    # Parameters with units (their SI columns) and tags in the run key.
    study = Study.from_dict(study_dict(cases=[{"tag.kind": "a"}, {"tag.kind": "b", "flows.f.tcp.iw": 10}]))
    stored = rtolab.sweep(study, tmp_path / "s", executor=LocalExecutor(1))
    for workers in (1, 2):
        with LocalExecutor(workers) as executor:
            swept = sweep_in_memory(study, executor)
        assert swept.failed == []
        assert_frame_equal(swept.flows, stored)


def test_a_run_that_cannot_start_is_reported_not_raised() -> None:
    study = Study.from_dict(study_dict(grid={"links.l.rate": ["1Mbps", "-5Mbps"]}))
    swept = sweep_in_memory(study, LocalExecutor(1))
    keys = {p.key for p in study.points() if p.params["links.l.rate"] == "-5Mbps"}
    assert {k for k, _ in swept.failed} == keys
    assert all(message.startswith("SpecError: ") for _, message in swept.failed)
    assert swept.flows["links.l.rate"].unique().to_list() == ["1Mbps"]


def test_a_reproduction_counts_and_lists_the_runs_that_failed_in_memory(tmp_path: Path) -> None:
    study = Study.from_dict(study_dict(grid={"links.l.rate": ["1Mbps", "-5Mbps"]}))
    ctx = Context(tmp_path, quick=False, executor=LocalExecutor(1), replications=None, progress=False)
    flows = ctx.sweep_in_memory(study)
    bad = {p.key for p in study.points() if p.params["links.l.rate"] == "-5Mbps"}
    assert (ctx.runs, ctx.made, ctx.failed) == (4, 4, 2) and flows.height == 2
    listed = pl.read_csv(tmp_path / IN_MEMORY_ERRORS)
    assert set(listed["run"]) == bad and set(listed["study"]) == {"t"}
    ctx.sweep_in_memory(study)
    assert pl.read_csv(tmp_path / IN_MEMORY_ERRORS).height == 4, "a second call adds its failures to the list"
