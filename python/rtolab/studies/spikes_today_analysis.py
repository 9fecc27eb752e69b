"""The tables of ``studies/spikes-today.toml`` (issue 29 §4): paper 003's question, goodput
lost to delay spikes and how often the retransmission timer fires spuriously, asked of
trace-driven LTE-like links, CUBIC and BBR, and the bottleneck's queue.

Each run is one bulk flow over one link; its row in ``runs`` holds the flow's counters and the
forward direction's spikes. A grid point without spikes is the baseline of the same point with
them: replication r of both shares its seed (``rtolab.study``), so the loss is computed per
replication, 1 − G_on / G_off, and its interval is over replications (Student-t at ``LEVEL``,
90 % as in the papers). Per-spike rates are per run (a run's timeouts over its spikes), then
averaged over replications in the same way.

``model`` puts paper 003's lossless renewal-reward model (Sec. 2.2, Eq. 1–4, with random
spike lengths, Sec. 3.2) beside the measured loss: Cmax is the baseline's goodput, R its mean
smoothed RTT, the spike-length and spike-free interval laws the study's own
(``interval_kind = "spike_free"``, ns-2's Delayer, as the simulator draws them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import stats
from rtolab.model import spikes
from rtolab.model.parse import duration_distribution, seconds

TRACE, CC, QUEUE, SPIKES = "links.radio.trace", "flows.bulk.tcp.cc", "links.radio.queue", "tag.spikes"
SPIKE_LAW = "links.radio.spikes"
PARAMETERS = (TRACE, CC, QUEUE, SPIKES)
KEYS = ["trace", "cc", "queue"]
PAIR = [*KEYS, "replication"]
LEVEL = 0.9
#: The segment size the model counts in: the linux profile's MSS with timestamps.
MSS_BYTES = 1448


class AnalysisError(ValueError):
    """A sweep this analysis cannot read, with what is wrong and what to do."""


@dataclass(frozen=True)
class SpikeLaw:
    """The spikes of the "on" runs as the study wrote them: the spike-free interval and the
    spike length, spec text (``"exp(20s)"``, ``"uniform(1s, 5s)"``)."""

    interval: str
    length: str

    @property
    def held_share(self) -> float:
        """E[SD] / (E[SD] + E[I]): the long-run share of time a spike holds the link."""
        sd = duration_distribution(self.length).mean()
        return sd / (sd + duration_distribution(self.interval).mean())


def trace_label(path: str) -> str:
    """A trace's file name without directory or ``.trace``."""
    return Path(path).name.removesuffix(".trace")


def queue_label(table: str) -> str:
    """A queue table (its JSON, as a sweep stores a table parameter) as ``kind limit``."""
    q = json.loads(table)
    return " ".join(str(q[k]) for k in ("kind", "limit") if k in q)


def _relabel(flows: pl.DataFrame, column: str, label: Callable[[str], str]) -> pl.Expr:
    """``column`` with each value replaced by its ``label``."""
    return pl.col(column).replace_strict({v: label(v) for v in flows[column].unique().to_list()}, return_dtype=pl.String)


def runs(flows: pl.DataFrame, links: pl.DataFrame) -> pl.DataFrame:
    """One row per run: trace, cc, queue, spikes ("on"/"off"), replication, the flow's
    goodput, timeouts (all, spurious by the oracle, detected by the sender and of those the
    oracle's too), undos, mean RTT and RTO, and the forward direction's spike count, time
    held, drops and utilisation (the share of the run its transmitter was busy)."""
    missing = [c for c in PARAMETERS if c not in flows.columns]
    if missing:
        raise AnalysisError(f"the sweep has no parameter {missing[0]!r}: it is not a sweep of studies/spikes-today.toml (grid over {', '.join(PARAMETERS)})")
    forward = links.filter((pl.col("direction") == "forward") & (pl.col("link") == "radio")).select(
        "run", pl.col("spikes").alias("spike_count"), "spike_time_s", "drops", "utilisation"
    )
    table = flows.filter(pl.col("name") == "bulk").select(
        _relabel(flows, TRACE, trace_label).alias("trace"),
        pl.col(CC).alias("cc"),
        _relabel(flows, QUEUE, queue_label).alias("queue"),
        pl.col(SPIKES).alias("spikes"),
        "replication",
        "run",
        "goodput_bps",
        "timeouts",
        "spurious_timeouts",
        "spurious_detected",
        "spurious_detected_correct",
        "undos",
        "mean_rtt_s",
        "mean_rto_s",
    )
    joined = table.join(forward, on="run", how="left")
    if joined["spike_count"].null_count():
        raise AnalysisError("the sweep's links table lacks the forward direction of link 'radio' for some runs: run the sweep again to complete it")
    return joined.drop("run").sort([*PAIR, "spikes"])


def pairs(table: pl.DataFrame) -> pl.DataFrame:
    """Each run with spikes beside its baseline (same trace, cc, queue and replication):
    ``on_bps``, ``off_bps``, ``loss`` = 1 − on/off and the time the spikes held the link,
    ``spike_time_s``. Raises ``AnalysisError`` naming a run that has no partner (a sweep with
    failed or missing runs)."""
    on = table.filter(pl.col("spikes") == "on").select(*PAIR, pl.col("goodput_bps").alias("on_bps"), "spike_time_s")
    off = table.filter(pl.col("spikes") == "off").select(*PAIR, pl.col("goodput_bps").alias("off_bps"))
    if on.is_empty() or off.is_empty():
        raise AnalysisError(f"the sweep has no runs with spikes {'on' if on.is_empty() else 'off'}: both cases of studies/spikes-today.toml are needed")
    joined = on.join(off, on=PAIR, how="full", coalesce=True)
    lone = joined.filter(pl.col("on_bps").is_null() | pl.col("off_bps").is_null())
    if not lone.is_empty():
        row = lone.row(0, named=True)
        gone = "without" if row["off_bps"] is None else "with"
        raise AnalysisError(
            f"no run {gone} spikes for trace {row['trace']}, cc {row['cc']}, queue {row['queue']}, replication {row['replication']} "
            f"({lone.height} such runs): run the sweep again to complete it (rtolab check finds damaged runs)"
        )
    return joined.with_columns((1 - pl.col("on_bps") / pl.col("off_bps")).alias("loss")).sort(PAIR)


def _summary(frame: pl.DataFrame, value: str, prefix: str) -> pl.DataFrame:
    """n, mean and the interval of ``value`` per (trace, cc, queue), as ``prefix``_…"""
    s = stats.summarize(frame, value, by=KEYS, level=LEVEL)
    return s.select(*KEYS, pl.col("n").alias(f"{prefix}_n"), *(pl.col(c).alias(f"{prefix}_{c}") for c in ("mean", "ci_low", "ci_high")))


def _joined(parts: list[pl.DataFrame]) -> pl.DataFrame:
    out = parts[0]
    for part in parts[1:]:
        out = out.join(part, on=KEYS, how="left", maintain_order="left")
    return out.sort(KEYS)


def goodput(table: pl.DataFrame) -> pl.DataFrame:
    """Per (trace, cc, queue): goodput without spikes (``off_…``) and with them (``on_…``),
    bit/s, and the loss 1 − on/off (``loss_…``, a fraction), each with n, mean and its
    interval over the paired replications."""
    p = pairs(table)
    return _joined([_summary(p, "off_bps", "off"), _summary(p, "on_bps", "on"), _summary(p, "loss", "loss")])


def excess(paired: pl.DataFrame, duration_s: float) -> pl.DataFrame:
    """Per (trace, cc, queue): the goodput lost beyond the time the spikes held the link,
    loss − spike time / run length per replication (``excess_…``: n, mean, interval), in
    fractions of the baseline's goodput. A link that lost exactly its held time's share
    of the baseline's goodput, and nothing after, has 0."""
    frame = paired.with_columns((pl.col("loss") - pl.col("spike_time_s") / duration_s).alias("excess"))
    return _summary(frame, "excess", "excess")


def difference(paired: pl.DataFrame, axis: str, a: str, b: str) -> pl.DataFrame:
    """Per group of the other keys: the loss with ``axis`` = ``a`` minus the loss with ``b``,
    paired by replication (the same spikes), as n, mean, ci_low, ci_high; no row for a group
    that lacks either value."""
    others = [k for k in KEYS if k != axis]
    side = {v: paired.filter(pl.col(axis) == v).select(*others, "replication", pl.col("loss").alias(v)) for v in (a, b)}
    both = side[a].join(side[b], on=[*others, "replication"], how="inner").with_columns((pl.col(a) - pl.col(b)).alias("difference"))
    return stats.summarize(both, "difference", by=others, level=LEVEL).select(*others, "n", "mean", "ci_low", "ci_high")


def timer(table: pl.DataFrame, duration_s: float) -> pl.DataFrame:
    """Per (trace, cc, queue), over the runs with spikes: spikes per run, the share of the run
    they held the link, timeouts, spurious timeouts (the oracle's) and the sender's detected
    ones per spike, with intervals, the share of timeouts that were spurious, and the
    precision and recall of the sender's verdicts against the oracle (``stats.detector_scores``
    over the runs' counts); undos per run with and without spikes, and timeouts, drops and the
    link's busy share per run without them."""
    on = table.filter((pl.col("spikes") == "on") & (pl.col("spike_count") > 0)).with_columns(
        (pl.col("timeouts") / pl.col("spike_count")).alias("timeouts_per_spike"),
        (pl.col("spurious_timeouts") / pl.col("spike_count")).alias("spurious_per_spike"),
        (pl.col("spurious_detected") / pl.col("spike_count")).alias("detected_per_spike"),
        (pl.col("spike_time_s") / duration_s).alias("held_share"),
    )
    if on.is_empty():
        raise AnalysisError("no run with spikes saw a spike: the runs are shorter than the spike-free intervals")
    counts = on.group_by(KEYS).agg(
        pl.col("spike_count").mean().alias("spikes_per_run"),
        (pl.col("spurious_timeouts").sum() / pl.col("timeouts").sum()).alias("spurious_share"),
        pl.col("undos").mean().alias("on_undos_per_run"),
        pl.col("drops").mean().alias("on_drops_per_run"),
    )
    off = table.filter(pl.col("spikes") == "off").group_by(KEYS).agg(
        pl.col("timeouts").mean().alias("off_timeouts_per_run"),
        pl.col("undos").mean().alias("off_undos_per_run"),
        pl.col("drops").mean().alias("off_drops_per_run"),
        pl.col("utilisation").mean().alias("off_busy_share"),
    )
    scores = stats.detector_scores(on, KEYS).select(*KEYS, "precision", "recall")
    per_spike = [_summary(on, c, c.removesuffix("_per_spike")) for c in ("timeouts_per_spike", "spurious_per_spike", "detected_per_spike", "held_share")]
    return _joined([*per_spike, counts, scores, off])


def model(table: pl.DataFrame, good: pl.DataFrame, law: SpikeLaw) -> pl.DataFrame:
    """Per (trace, cc, queue): paper 003's lossless model's loss, 1 − G_model / Cmax, with
    Cmax the baseline's mean goodput and R its mean smoothed RTT, beside the measured loss and
    the long-run share of time the spikes hold the link (``law.held_share``); ``ramp_s`` is the model's
    L, the slow start from one packet back to Cmax after each spike."""
    rtt = table.filter(pl.col("spikes") == "off").group_by(KEYS).agg(pl.col("mean_rtt_s").mean().alias("rtt_s"))
    base = good.select(*KEYS, pl.col("off_mean").alias("cmax_bps"), pl.col("loss_mean").alias("measured_loss")).join(rtt, on=KEYS, how="left")
    rows: list[dict[str, Any]] = []
    for row in base.iter_rows(named=True):
        m = spikes(row["cmax_bps"], MSS_BYTES, row["rtt_s"], law.length, law.interval, interval_kind="spike_free")
        rows.append({**row, "expected_held_share": law.held_share, "model_loss": 1 - m.goodput_bps / row["cmax_bps"], "ramp_s": m.ramp_s})
    return pl.DataFrame(rows).sort(KEYS)


def spike_law(flows: pl.DataFrame) -> SpikeLaw:
    """The one spike table of the runs with spikes (a sweep stores it as JSON text)."""
    written = flows.filter(pl.col(SPIKES) == "on")[SPIKE_LAW].unique().to_list() if SPIKE_LAW in flows.columns else []
    if len(written) != 1 or written[0] is None:
        raise AnalysisError(f"expected one spike table ({SPIKE_LAW}) across the runs with spikes, found {len(written)}")
    table = json.loads(written[0])
    if "interval" not in table:
        raise AnalysisError(f"{SPIKE_LAW} = {written[0]}: the model needs random spikes (an interval), not fixed times")
    return SpikeLaw(table["interval"], table["length"])


def duration(base: dict[str, Any]) -> float:
    """The run length of the study's scenario, in seconds."""
    value = base.get("duration")
    if value is None:
        raise AnalysisError("the study's scenario has no duration: the flows are unbounded, so the runs need one")
    return float(value) if isinstance(value, (int, float)) else seconds(str(value))


@dataclass(frozen=True)
class Tables:
    """The study's tables: goodput (with the loss beyond the time held, ``excess_…``), timer,
    model, and the paired differences of the loss between the ccs (``cc``: BBR − CUBIC, by
    trace and queue) and between each queue and the first (``queues``: by trace and cc, with
    the queue compared and its ``reference``)."""

    good: pl.DataFrame
    timer: pl.DataFrame
    model: pl.DataFrame
    cc: pl.DataFrame
    queues: pl.DataFrame


def tabulate(table: pl.DataFrame, duration_s: float, law: SpikeLaw) -> Tables:
    """Every table of the study from ``runs``' table."""
    paired = pairs(table)
    good = goodput(table).join(excess(paired, duration_s), on=KEYS, how="left", maintain_order="left")
    queues = good["queue"].unique(maintain_order=True).to_list()
    by_queue = [difference(paired, "queue", q, queues[0]).with_columns(queue=pl.lit(q), reference=pl.lit(queues[0])) for q in queues[1:]]
    return Tables(
        good,
        timer(table, duration_s),
        model(table, good, law),
        difference(paired, "cc", "bbr", "cubic"),
        pl.concat(by_queue) if by_queue else pl.DataFrame(schema={k: pl.String for k in (*KEYS, "reference")}),
    )
