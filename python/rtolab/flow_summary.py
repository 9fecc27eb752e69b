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


def _transfers_by_generator(flows: pl.DataFrame, finished: pl.Expr, summed: list[str]) -> pl.DataFrame:
    """One row per generator in order of first appearance: generator, kind, flows, finished
    (the flows ``finished`` holds for), goodput_median_bps, goodput_p90_bps, then each column
    of ``summed`` summed over the group's flows."""
    goodput = pl.col("goodput_bps").drop_nulls()
    return (
        flows.with_columns(pl.col("generator").fill_null(SCENARIO_FLOWS))
        .group_by("generator", maintain_order=True)
        .agg(
            pl.col("kind").first(),
            pl.len().alias("flows"),
            finished.sum().alias("finished"),
            goodput.median().alias("goodput_median_bps"),
            goodput.quantile(0.9, interpolation="linear").alias("goodput_p90_bps"),
            *(pl.col(c).sum() for c in summed),
        )
    )


def by_generator(flows: pl.DataFrame) -> pl.DataFrame:
    """TCP flows per generator (``_transfers_by_generator``): finished are the flows whose
    last byte was acknowledged; timeouts and spurious_timeouts summed."""
    return _transfers_by_generator(flows, pl.col("end_s").is_not_null(), ["timeouts", "spurious_timeouts"])


def quic_by_generator(flows: pl.DataFrame) -> pl.DataFrame:
    """QUIC flows per generator (``_transfers_by_generator``): finished are the transfers that
    completed (a failed connection ends without completing); ptos, spurious_ptos (the
    server's), client_ptos and declared_lost summed."""
    return _transfers_by_generator(flows, pl.col("completion_s").is_not_null(), ["ptos", "spurious_ptos", "client_ptos", "declared_lost"])


def datagrams_by_generator(flows: pl.DataFrame) -> pl.DataFrame:
    """One row per generator of datagram flows (UDP flows, calls), in order of first
    appearance: generator, kind, flows, datagrams_sent (summed), lost_share and late_share
    (among the datagrams whose fate is known at the end: received or dropped, as the MOS
    counts them), delay_mean_median_s (the median of the flows' mean one-way
    delays), delay_p99_max_s (the largest of their 99th percentiles), mos_mean and mos_min
    (null for flows that are not calls)."""
    known = pl.col("datagrams_received").sum() + pl.col("datagrams_lost").sum()
    return (
        flows.with_columns(pl.col("generator").fill_null(SCENARIO_FLOWS))
        .group_by("generator", maintain_order=True)
        .agg(
            pl.col("kind").first(),
            pl.len().alias("flows"),
            pl.col("datagrams_sent").sum(),
            (pl.col("datagrams_lost").sum() / known).alias("lost_share"),
            (pl.col("datagrams_late").sum() / known).alias("late_share"),
            pl.col("delay_mean_s").median().alias("delay_mean_median_s"),
            pl.col("delay_p99_s").max().alias("delay_p99_max_s"),
            pl.col("mos").mean().alias("mos_mean"),
            pl.col("mos").min().alias("mos_min"),
        )
    )
