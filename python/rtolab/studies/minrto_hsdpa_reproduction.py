"""Paper 000's reproduction: sweeps the HSDPA minRTO study into ``out/sweep`` (and its
ablation with uncut Pareto file sizes into ``out/sweep-uncut``), then writes
``runs.csv`` (the measures of every run), ``summary.csv`` (each with its 90 % interval),
``rtt_cdf.csv`` and Figures 2–4, goodput and the RTT CDF under ``out``."""

from __future__ import annotations

import polars as pl

from rtolab.findings import Measured, with_ablations
from rtolab.reproduce import Context, Outcome
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
    measured = _measure(flows, table, high)
    uncut = ctx.sweep(minrto_hsdpa.study(quick=ctx.quick, replications=ctx.replications, uncut=True), "sweep-uncut")
    uncut_table = minrto_hsdpa_analysis.summary(minrto_hsdpa_analysis.per_run(uncut))
    measured = with_ablations(measured, {minrto_hsdpa_findings.UNCUT: _measure(uncut, uncut_table, high)})
    cdf = minrto_hsdpa_analysis.rtt_cdf(flows, users=high, min_rto_s=0.2)
    cdf.write_csv(ctx.out / "rtt_cdf.csv")
    return Outcome(table, measured, minrto_hsdpa_analysis.figures(table, cdf, ctx.out))


def _measure(flows: pl.DataFrame, table: pl.DataFrame, high: int) -> dict[str, Measured]:
    tail = minrto_hsdpa_analysis.rtt_tail(flows, users=high, min_rto_s=0.2)
    return minrto_hsdpa_findings.measure(table, tail)
