"""Paper 003's reproduction: sweeps the validation study into ``out/sweep``, compares it with
the model (``comparison.csv``: every point with its relative error), draws Figures 6–8, and
computes the model-only sensitivity study (``sensitivity.csv``: Figure 9's losses and Sec. 4.2's
1–10 %, with the congestion-avoidance slope 1/R² and as printed, 1/R); then the ablations'
sweeps (the paper's timer, spikes that hold the wire, the window ⌈Cmax·R⌉), each compared with
the model into ``comparison-*.csv`` and graded beside every finding it covers."""

from __future__ import annotations

import polars as pl

from rtolab.findings import with_ablations
from rtolab.reproduce import Context, Outcome
from rtolab.studies import spikes, spikes_analysis, spikes_findings
from rtolab.studies.spikes_findings import REGISTRY

__all__ = ["REGISTRY", "reproduce"]

#: Mean spike intervals E(T) of the model-only sensitivity study (Figure 9), seconds.
SENSITIVITY_MEANS = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.5, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0]
#: The losses of the model with congestion losses in the sensitivity study: Figure 9's 2 % and
#: Sec. 4.2's range "1–10 %" (``spikes_findings``' fig9-order-loss), each with the main slope
#: and the slope as printed.
SENSITIVITY_LOSSES = [0.01, 0.02, 0.05, 0.10]


def reproduce(ctx: Context) -> Outcome:
    table = spikes_analysis.compare(ctx.sweep(spikes.study(quick=ctx.quick, replications=ctx.replications)))
    table.write_csv(ctx.out / "comparison.csv")
    timer_table = spikes_analysis.compare(ctx.sweep(spikes.timer_study(quick=ctx.quick, replications=ctx.replications), "sweep-paper-timer"))
    timer_table.write_csv(ctx.out / "comparison-paper-timer.csv")
    figures = spikes_analysis.validation_figures(table, ctx.out)
    sensitivity = pl.concat(
        [spikes_analysis.sensitivity(SENSITIVITY_MEANS, loss) for loss in (0.0, *SENSITIVITY_LOSSES)]
        + [spikes_analysis.sensitivity(SENSITIVITY_MEANS, loss, spikes_analysis.CA_AS_PRINTED) for loss in SENSITIVITY_LOSSES]
    )
    sensitivity.write_csv(ctx.out / "sensitivity.csv")
    figures += spikes_analysis.sensitivity_figure(sensitivity, ctx.out)
    hold_table = spikes_analysis.compare(ctx.sweep(spikes.hold_study(quick=ctx.quick, replications=ctx.replications), "sweep-hold-all"))
    hold_table.write_csv(ctx.out / "comparison-hold-all.csv")
    window_table = spikes_analysis.compare(ctx.sweep(spikes.window_study(quick=ctx.quick, replications=ctx.replications), "sweep-window-ceil"))
    window_table.write_csv(ctx.out / "comparison-window-ceil.csv")
    no_sensitivity = sensitivity.clear()
    alternatives = {
        # The hold study holds Figure 6's points only: only the findings read on Figure 6 alone
        # compare (accuracy-5pct also reads Figure 7's).
        "spikes that also hold the packets on the wire (hold = \"all\")": {
            k: m for k, m in spikes_findings.measure(hold_table, no_sensitivity).items() if k.startswith("fig6-")
        },
        # The window study holds the 100 kbps points only: only the 100 kbps findings compare.
        "the window ⌈Cmax·R⌉ = 6 packets at 100 kbps instead of the nearest, 5": {
            k: m for k, m in spikes_findings.measure(window_table, no_sensitivity).items() if k.startswith(("fig6-100-", "fig8-100-", "accuracy-5pct"))
        },
        # The timer study holds the 40 kbps points of Figures 6 and 8 and the 100 kbps points of
        # Figure 8: only the findings read on those compare.
        "the paper's simulator's timer (minrto_ 1 s)": {
            k: m for k, m in spikes_findings.measure(timer_table, no_sensitivity).items() if k.startswith(("fig6-40-", "fig8-40-", "fig8-100-"))
        },
    }
    return Outcome(table, with_ablations(spikes_findings.measure(table, sensitivity), alternatives), figures)
