"""Paper 002's reproduction: sweeps the study under its frozen calibrated reading
(``iw10_calibration``) into ``out/sweep``, runs it again under each other reading of each axis
and under the reading before calibration (``rtolab.calibration.alternatives``) for the
findings' ablations (in memory: each read once, which a store would cost three times their
simulation to encode), then writes figures, ``summary.csv`` (elapsed time of the longest flow
per burst, RTOs, fairness), ``bursts.parquet``, ``fairness_between.parquet``,
``delays.parquet`` (one-way delays per packet, with IRTO 3 s and 1 s and each run's
replication) and the calibration targets' values under ``out``."""

from __future__ import annotations

from rtolab import calibration
from rtolab.findings import with_ablations
from rtolab.reproduce import Context, Outcome
from rtolab.studies import iw10_analysis as analysis
from rtolab.studies import iw10_calibration, iw10_findings, iw10_irto
from rtolab.studies.iw10_findings import REGISTRY

__all__ = ["REGISTRY", "reproduce"]


def reproduce(ctx: Context) -> Outcome:
    reading = iw10_calibration.study_reading(iw10_calibration.calibrated())
    study = iw10_irto.study(quick=ctx.quick, replications=ctx.replications, reading=reading)
    flows = ctx.sweep(study)
    bursts = analysis.per_burst(flows)
    between = analysis.between_bursts(flows)
    table = analysis.summary(bursts)
    table.write_csv(ctx.out / "summary.csv")
    bursts.write_parquet(ctx.out / "bursts.parquet")
    between.write_parquet(ctx.out / "fairness_between.parquet")
    figures = analysis.elapsed_figures(bursts, ctx.out)
    figures.append(analysis.rto_figure(bursts, ctx.out))
    figures.append(analysis.fairness_figure(bursts, between, ctx.out))
    # The delay figures' maxima are over the slides' 100 replications, as the grid's are.
    delay_replications = 3 if ctx.quick else study.replications
    delays = analysis.one_way_delays(ctx.executor, replications=delay_replications, seed=study.seed, reading=reading)
    delays.write_parquet(ctx.out / "delays.parquet")
    figures += analysis.delay_figure(delays, ctx.out)
    alternatives = {}
    for label, candidate in calibration.alternatives(iw10_calibration.AXES, iw10_calibration.calibrated()):
        alt_reading = iw10_calibration.study_reading(candidate)
        alt = iw10_irto.study(quick=ctx.quick, replications=ctx.replications, reading=alt_reading)
        alt_flows = ctx.sweep_in_memory(alt)
        alt_delays = analysis.one_way_delays(ctx.executor, replications=delay_replications, seed=study.seed, reading=alt_reading)
        alt_bursts = analysis.per_burst(alt_flows)
        alternatives[label] = iw10_findings.measure(analysis.summary(alt_bursts), analysis.between_bursts(alt_flows), alt_delays, alt_bursts)
    # The targets over the slides' 100 replications, as the search measured them, quick or not.
    ctx.count(len(iw10_calibration.MAXIMA) * iw10_calibration.REPLICATIONS)
    reached = iw10_calibration.evaluate([iw10_calibration.calibrated()], ctx.executor)[0]
    targets = calibration.target_table(iw10_calibration.TARGETS, reached, calibration.label(iw10_calibration.AXES, iw10_calibration.calibrated()))
    return Outcome(table, with_ablations(iw10_findings.measure(table, between, delays, bursts), alternatives), figures, targets)
