"""Paper 004's reproduction: sweeps the congestion-control study into ``out/sweep``, traces
one downlink flow per algorithm, and writes ``flows.parquet`` (every measured flow),
``runs.csv`` (per-run means, and the sums of the congestion-avoidance ACK counts that
uplink-linear reads), ``summary.csv`` (per-run means with 90 % intervals), ``cdf.csv``,
``traces.parquet`` and the CDF and cwnd/RTT figures under ``out``."""

from __future__ import annotations

from rtolab.reproduce import Context, Outcome
from rtolab.studies import cc_hsdpa, cc_hsdpa_analysis, cc_hsdpa_findings
from rtolab.studies.cc_hsdpa_findings import REGISTRY

__all__ = ["REGISTRY", "reproduce"]


def reproduce(ctx: Context) -> Outcome:
    from rtolab.api import run

    study = cc_hsdpa.study(quick=ctx.quick, replications=ctx.replications)
    measured = cc_hsdpa_analysis.per_flow(ctx.sweep(study))
    measured.write_parquet(ctx.out / "flows.parquet")
    runs = cc_hsdpa_analysis.per_run(measured)
    runs.write_csv(ctx.out / "runs.csv")
    table = cc_hsdpa_analysis.summary(runs)
    table.write_csv(ctx.out / "summary.csv")
    cdf = cc_hsdpa_analysis.cdfs(measured)
    cdf.write_csv(ctx.out / "cdf.csv")
    trace = cc_hsdpa_analysis.traces({a: run(cc_hsdpa.trace_scenario(a), seed=study.seed).series for a in cc_hsdpa.ALGORITHMS})
    ctx.count(len(cc_hsdpa.ALGORITHMS))
    trace.write_parquet(ctx.out / "traces.parquet")
    return Outcome(table, cc_hsdpa_findings.measure(runs), cc_hsdpa_analysis.figures(cdf, trace, ctx.out))
