"""Paper 004's measures from a congestion-control-over-HSDPA sweep: per measured flow its
goodput, mean RTT, retransmission ratio and timeouts (all, and those the spurious-timeout
oracle found genuine); their distributions per algorithm
(the paper's CDFs); per-run means with 90 % intervals over replications; and the paper's
findings checked one by one."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rtolab import stats
from rtolab.studies.cc_hsdpa import ALGORITHM, ALGORITHMS, BACKGROUND, BACKGROUND_USERS, DOWNLINK_BULK, DOWNLINK_WEB, MAIN_UPLINK_QUEUE, UPLINK_BULK, UPLINK_QUEUE, WARM_UP_S

#: The measured traffic, by how a flow's row identifies it.
TRAFFIC_CLASSES = [DOWNLINK_BULK, UPLINK_BULK, DOWNLINK_WEB]
#: Per-flow measures (paper 004: goodput, RTT, packet loss ratio, timeouts), with labels.
MEASURES = {
    "goodput_bps": "goodput [bit/s]",
    "throughput_bps": "throughput, retransmissions included [bit/s]",
    "mean_rtt_s": "mean RTT [s]",
    "retransmit_ratio": "retransmitted / sent segments",
    "timeouts": "timeouts per flow",
    "genuine_timeouts": "timeouts not spurious, per flow",
}
KEYS = [ALGORITHM, UPLINK_QUEUE, BACKGROUND, "traffic"]
LEVEL = 0.9
#: A full segment of the ``linux`` stack's senders (1500 B packets less 52 B of headers with
#: timestamps): cwnd in bytes over this is cwnd in segments.
SEGMENT_BYTES = 1448
#: BIC's ``low_window`` (``tcp_bic.c``; crates/rtolab-sim/src/tcp/cc/bic.rs): at or below it
#: congestion avoidance is Reno's, one segment per RTT, BIC's TCP-friendly linear probing.
BIC_LOW_WINDOW = 14
#: The flows table's counts of congestion-avoidance ACKs and of those in the algorithm's
#: linear, Reno-friendly regime (BIC at or below ``low_window``, CUBIC with Reno's estimate
#: pacing its window), summed per run.
CA_COUNTS = ["ca_acks", "linear_acks"]


def per_flow(flows: pl.DataFrame) -> pl.DataFrame:
    """The measured flows with their traffic class and measures: the bulk flows (whole, from
    their start after the warm-up to the end of the run) and the measured web transfers that
    began after the warm-up and finished. The retransmission ratio stands for the paper's
    packet loss ratio (what a sender sees of its losses). The congestion-avoidance counts
    (``CA_COUNTS``) come along, null for runs stored before the flows table had them."""
    traffic = (
        pl.when(pl.col("kind") == "flow")
        .then(pl.when(pl.col("name").str.starts_with("up")).then(pl.lit(UPLINK_BULK)).otherwise(pl.lit(DOWNLINK_BULK)))
        .when((pl.col("generator") == "measured") & (pl.col("start_s") >= WARM_UP_S) & pl.col("end_s").is_not_null())
        .then(pl.lit(DOWNLINK_WEB))
    )
    if BACKGROUND not in flows.columns:
        flows = flows.with_columns(pl.lit(BACKGROUND_USERS).alias(BACKGROUND))
    absent = [pl.lit(None, pl.UInt64).alias(c) for c in CA_COUNTS if c not in flows.columns]
    if absent:
        flows = flows.with_columns(absent)
    return (
        flows.with_columns(traffic=traffic)
        .filter(pl.col("traffic").is_not_null())
        .with_columns(
            retransmit_ratio=pl.col("retransmits") / pl.col("segments_sent"),
            timeouts=pl.col("timeouts").cast(pl.Float64),
            genuine_timeouts=(pl.col("timeouts") - pl.col("spurious_timeouts")).cast(pl.Float64),
        )
        .select("run", "replication", *KEYS, "name", *MEASURES, "spurious_timeouts", "undos", *CA_COUNTS)
    )


def per_run(measured: pl.DataFrame) -> pl.DataFrame:
    """One row per run and traffic class: the mean of each measure over its flows and the sum
    of each congestion-avoidance count (null when a flow lacks it), with the run's replication
    (the runs of one replication share their seed, at every algorithm, so two algorithms' runs
    pair by it)."""
    sums = (pl.when(pl.col(c).null_count() == 0).then(pl.col(c).sum()).alias(c) for c in CA_COUNTS)
    # Sorted by run within each point: the summary's reductions then see the runs in one
    # order whatever order the sweep finished them in (bit-identical tables).
    return (
        measured.sort("run", "name")
        .group_by(["run", "replication", *KEYS], maintain_order=True)
        .agg(pl.len().alias("flows"), *(pl.col(m).mean() for m in MEASURES), *sums)
        .sort(*KEYS, "run")
    )


def summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Each measure per algorithm, uplink buffer and traffic: the mean over replications of
    the per-run means, with its 90 % Student-t interval."""
    parts = [stats.summarize(runs, m, KEYS, level=LEVEL).with_columns(pl.lit(m).alias("measure")) for m in MEASURES]
    return pl.concat(parts).select("measure", *KEYS, "n", "mean", "ci_low", "ci_high").sort("measure", *KEYS)


def cdfs(measured: pl.DataFrame, uplink_queue: str = MAIN_UPLINK_QUEUE) -> pl.DataFrame:
    """The empirical CDF of every measure per traffic class and algorithm, over flows (the
    paper's figures), at one uplink buffer: columns measure, traffic, algorithm, x, p."""
    chosen = measured.filter((pl.col(UPLINK_QUEUE) == uplink_queue) & (pl.col(BACKGROUND) == BACKGROUND_USERS))
    parts = [stats.ecdf_by(chosen.drop_nulls(m), m, ["traffic", ALGORITHM]).with_columns(pl.lit(m).alias("measure")) for m in MEASURES]
    return pl.concat(parts).select("measure", "traffic", ALGORITHM, "x", "p")


def traces(series: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """cwnd (segments of 1448 B) and smoothed RTT over time of the traced flow of each
    algorithm (``series``: algorithm → that run's series table)."""
    parts = []
    for algorithm, s in series.items():
        one = s.filter(pl.col("entity") == "down0").select("time_s", pl.col("metric").cast(pl.String), "value")
        parts.append(one.with_columns(pl.lit(algorithm).alias(ALGORITHM)))
    return pl.concat(parts).with_columns(pl.when(pl.col("metric") == "cwnd").then(pl.col("value") / SEGMENT_BYTES).otherwise(pl.col("value")).alias("value"))


def figures(cdf: pl.DataFrame, trace: pl.DataFrame, out: Path) -> list[Path]:
    """One figure of CDFs per traffic class (a panel per measure, a line per algorithm) and
    the cwnd and RTT traces (a panel per algorithm)."""
    from matplotlib.figure import Figure

    from rtolab.studies.figures import save

    paths: list[Path] = []
    for traffic in TRAFFIC_CLASSES:
        fig = Figure(figsize=(14, 3.6))
        axes = fig.subplots(1, len(MEASURES))
        for ax, (measure, label) in zip(axes, MEASURES.items()):
            for algorithm in ALGORITHMS:
                part = cdf.filter((pl.col("measure") == measure) & (pl.col("traffic") == traffic) & (pl.col(ALGORITHM) == algorithm))
                if part.height:
                    ax.step(part["x"].to_numpy(), part["p"].to_numpy(), where="post", label=algorithm)
            ax.set_xlabel(label)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel(f"CDF ({traffic})")
        axes[-1].legend(fontsize=8)
        fig.tight_layout()
        paths += save(fig, out, "cdf_" + traffic.replace(" ", "_"))
    fig = Figure(figsize=(12, 7))
    axes = fig.subplots(2, 2, sharex=True)
    for ax, algorithm in zip(axes.flat, ALGORITHMS):
        part = trace.filter(pl.col(ALGORITHM) == algorithm)
        cwnd, srtt = part.filter(pl.col("metric") == "cwnd"), part.filter(pl.col("metric") == "srtt")
        ax.step(cwnd["time_s"].to_numpy(), cwnd["value"].to_numpy(), where="post", color="C0")
        ax.set_ylabel("cwnd [segments]", color="C0")
        right = ax.twinx()
        right.plot(srtt["time_s"].to_numpy(), srtt["value"].to_numpy(), color="C3", lw=0.8)
        right.set_ylabel("smoothed RTT [s]", color="C3")
        ax.set_title(algorithm)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("time [s]")
    fig.tight_layout()
    paths += save(fig, out, "cwnd_rtt")
    return paths
