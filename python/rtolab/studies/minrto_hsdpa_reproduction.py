"""Paper 000's reproduction: sweeps the HSDPA minRTO study into ``out/sweep``, then writes
``runs.csv`` (the measures of every run), ``summary.csv`` (each with its 90 % interval),
``rtt_cdf.csv`` and Figures 2–4, goodput and the RTT CDF under ``out``."""

from __future__ import annotations

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
    tail = minrto_hsdpa_analysis.rtt_tail(flows, users=high, min_rto_s=0.2)
    measured = minrto_hsdpa_findings.measure(table, tail)
    cdf = minrto_hsdpa_analysis.rtt_cdf(flows, users=high, min_rto_s=0.2)
    cdf.write_csv(ctx.out / "rtt_cdf.csv")
    return Outcome(table, measured, minrto_hsdpa_analysis.figures(table, cdf, ctx.out))
