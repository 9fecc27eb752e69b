"""Per-generator summaries of a run's flows table, so that a run with thousands of generated
flows reads as a few lines.

Every flow belongs to exactly one group: its generator, or — for flows written one by one in
the scenario — the group named ``[[flows]]``. Goodput statistics cover the flows that started
(goodput is null for a flow the run ended before it began; an unfinished flow's goodput runs to
the end of the run); quantiles interpolate linearly between order statistics, as
``rtolab.stats`` does.
"""

from __future__ import annotations

import polars as pl

#: The group of the flows that no generator created.
SCENARIO_FLOWS = "[[flows]]"


def by_generator(flows: pl.DataFrame) -> pl.DataFrame:
    """One row per generator in order of first appearance: generator, kind, flows, finished
    (flows that completed), goodput_median_bps, goodput_p90_bps, timeouts, spurious_timeouts
    (the last two summed over the group's flows)."""
    goodput = pl.col("goodput_bps").drop_nulls()
    return (
        flows.with_columns(pl.col("generator").fill_null(SCENARIO_FLOWS))
        .group_by("generator", maintain_order=True)
        .agg(
            pl.col("kind").first(),
            pl.len().alias("flows"),
            pl.col("end_s").is_not_null().sum().alias("finished"),
            goodput.median().alias("goodput_median_bps"),
            goodput.quantile(0.9, interpolation="linear").alias("goodput_p90_bps"),
            pl.col("timeouts").sum(),
            pl.col("spurious_timeouts").sum(),
        )
    )
