"""Paper 000's reproduction: sweeps the HSDPA minRTO study into ``out/sweep`` (and its
ablation with uncut Pareto file sizes, up to 200 users, into ``out/sweep-uncut-to-200``), runs the paper's high load at
minRTO 0.2 s again recording every RTT sample (Sec. 5's CDFs; a sweep's store keeps no
series), then writes ``runs.csv`` (the measures of every run), ``summary.csv`` (each with its
90 % interval), ``rtt_cdf.csv`` and Figures 2–4, goodput and the RTT CDF under ``out``."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from rtolab.api import run
from rtolab.executors import run_all
from rtolab.findings import Measured, with_ablations
from rtolab.reproduce import Context, Outcome
from rtolab.study import Study
from rtolab.studies import minrto_hsdpa, minrto_hsdpa_analysis, minrto_hsdpa_findings
from rtolab.studies.minrto_hsdpa_findings import REGISTRY

__all__ = ["REGISTRY", "reproduce"]


def reproduce(ctx: Context) -> Outcome:
    study = minrto_hsdpa.study(quick=ctx.quick, replications=ctx.replications)
    flows = ctx.sweep(study)
    runs = minrto_hsdpa_analysis.per_run(flows)
    runs.write_csv(ctx.out / "runs.csv")
    table = minrto_hsdpa_analysis.summary(runs)
    table.write_csv(ctx.out / "summary.csv")
    high = minrto_hsdpa_findings.high_load(study.grid[minrto_hsdpa.USERS])
    samples = sampled_rtts(ctx, study, high)
    measured = minrto_hsdpa_findings.measure(table, minrto_hsdpa_analysis.rtt_tail(samples))
    uncut_study = minrto_hsdpa.study(quick=ctx.quick, replications=ctx.replications, uncut=True)
    uncut = ctx.sweep(uncut_study, "sweep-uncut-to-200")
    uncut_table = minrto_hsdpa_analysis.summary(minrto_hsdpa_analysis.per_run(uncut))
    uncut_tail = minrto_hsdpa_analysis.rtt_tail(sampled_rtts(ctx, uncut_study, high))
    measured = with_ablations(measured, {minrto_hsdpa_findings.UNCUT: minrto_hsdpa_findings.measure(uncut_table, uncut_tail)})
    cdf = minrto_hsdpa_analysis.rtt_cdf(samples)
    cdf.write_csv(ctx.out / "rtt_cdf.csv")
    return Outcome(table, measured, minrto_hsdpa_analysis.figures(table, cdf, ctx.out))


def sampled_rtts(ctx: Context, study: Study, users: int, min_rto: str = "0.2s") -> pl.DataFrame:
    """Every RTT sample of the measured transfers (SACK, ``users``, ``min_rto``) per scheduler,
    over the study's own replications and seeds (columns SCHEDULER, run, rtt_s): the sweep's
    runs made again with the ``rtt`` series on, which records and changes nothing else, on the
    reproduction's executor; in the points' order whatever order they finish in."""
    points = [
        point for point in study.points()
        if point.params[minrto_hsdpa.USERS] == users and point.params[minrto_hsdpa.MIN_RTO] == min_rto and point.params[minrto_hsdpa.STACK] == "ns2-sack1"
    ]
    ctx.count(len(points))
    tasks = [(i, {**p.spec, "output": {**p.spec.get("output", {}), "series": ["rtt"]}}, p.seed) for i, p in enumerate(points)]
    parts = []
    for i, rtts in sorted(run_all(ctx.executor, _rtt_task, tasks), key=lambda r: r[0]):
        point = points[i]
        parts.append(pl.DataFrame({minrto_hsdpa.SCHEDULER: point.params[minrto_hsdpa.SCHEDULER], "run": point.key, "rtt_s": rtts}))
    return pl.concat(parts) if parts else pl.DataFrame(schema={minrto_hsdpa.SCHEDULER: pl.String, "run": pl.String, "rtt_s": pl.Float64})


def _rtt_task(task: tuple[int, dict[str, Any], int]) -> tuple[int, np.ndarray]:
    """Worker: one run (index, spec, seed) with the ``rtt`` series on; the RTT samples of its
    measured transfers."""
    index, spec, seed = task
    result = run(spec, seed=seed)
    return index, minrto_hsdpa_analysis.rtt_samples(result.series, result.flows).to_numpy()
