"""Paper 000's reproduction: measures the calibration targets at the frozen reading
(``minrto_hsdpa_calibration``: the study's own base scenario, seeds 1–2, minRTO 0.2 s),
sweeps the HSDPA minRTO study into ``out/sweep`` (and, when calibration moved the reading, the
study before calibration into ``out/sweep-earlier-reading``, an ablation of every finding),
runs the paper's high load at minRTO 0.2 s again recording every RTT sample (Sec. 5's CDFs; a
sweep's store keeps no series), then writes ``runs.csv`` (the measures of every run),
``summary.csv`` (each with its 90 % interval), ``targets.csv``, ``rtt_cdf.csv`` and Figures
2–4, goodput and the RTT CDF under ``out``."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from rtolab import calibration
from rtolab.api import run
from rtolab.executors import run_all
from rtolab.findings import Measured, with_ablations, with_missing_detail
from rtolab.reproduce import Context, Outcome
from rtolab.study import Study
from rtolab.studies import minrto_hsdpa, minrto_hsdpa_analysis, minrto_hsdpa_calibration, minrto_hsdpa_findings
from rtolab.studies.minrto_hsdpa_findings import REGISTRY

__all__ = ["REGISTRY", "reproduce"]

#: The ablation every finding carries when calibration moved the reading.
EARLIER = "the reading before calibration ({})"


def reproduce(ctx: Context) -> Outcome:
    cal = minrto_hsdpa_calibration
    ctx.count(len(cal.runs(cal.calibrated())))
    reached = cal.evaluate([cal.calibrated()], ctx.executor)[0]
    targets = calibration.target_table(cal.TARGETS, reached, calibration.label(cal.AXES, cal.calibrated()))
    study = minrto_hsdpa.study(quick=ctx.quick, replications=ctx.replications)
    measured, table, cdf = _measure(ctx, study, "sweep", write=True)
    if cal.calibrated() != cal.earlier():
        earlier = minrto_hsdpa.study(quick=ctx.quick, replications=ctx.replications, reading=cal.earlier())
        alternative, _, _ = _measure(ctx, earlier, "sweep-earlier-reading", write=False)
        setting = EARLIER.format(", ".join(r.name for r in cal.earlier()))
        measured = with_ablations(measured, {setting: alternative})
    if not targets["within"].all():
        below = ", ".join(f"{cal.NAMES[s]} {100 * reached[f'000-load-below-10k-{s}']:.1f} %" for s in cal.SCHEDULERS)
        measured = with_missing_detail(measured, (
            f"the paper's operating point is not reached: at {cal.ABOVE_USERS} users {below} of transfers are below 10 kbit/s against 'about 50 %', "
            "and no admissible reading of what the paper leaves open comes near it (docs/calibration.md)"
        ))
    return Outcome(table, measured, minrto_hsdpa_analysis.figures(table, cdf, ctx.out), targets)


def _measure(ctx: Context, study: Study, directory: str, write: bool) -> tuple[dict[str, Measured], pl.DataFrame, pl.DataFrame]:
    """Sweeps ``study`` into ``out/directory`` and measures every finding on it; with
    ``write``, its tables go to ``out``. Returns the measurements, the summary and the RTT CDF."""
    # Millions of flows (300 s of 150 users, 1680 runs): measured a few runs at a time.
    ctx.sweep(study, directory, load=False)
    duration = minrto_hsdpa.duration_s(study)
    runs = pl.concat([minrto_hsdpa_analysis.per_run(batch, duration) for batch in ctx.batches(study, directory)]).sort(*minrto_hsdpa_analysis.KEYS, "run")
    table = minrto_hsdpa_analysis.summary(runs)
    high = minrto_hsdpa_findings.high_load(study.grid[minrto_hsdpa.USERS])
    samples = sampled_rtts(ctx, study, high)
    cdf = minrto_hsdpa_analysis.rtt_cdf(samples)
    if write:
        runs.write_csv(ctx.out / "runs.csv")
        table.write_csv(ctx.out / "summary.csv")
        cdf.write_csv(ctx.out / "rtt_cdf.csv")
    return minrto_hsdpa_findings.measure(runs, samples), table, cdf


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
