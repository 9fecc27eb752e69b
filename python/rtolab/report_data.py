"""The numbers behind ``rtolab report``: a sweep's flows grouped by grid point and by what the
user chose (generator, flow, kind or all), and their summaries with replications as samples.

Invariant: every interval is a Student-t interval over *replications*. Within one run the
flows of a group share the network and the seed, so they are not independent samples; each
run contributes one value per group (the mean over its flows), and the interval is taken over
those values. The pooled per-flow values are kept apart, for box plots and CDFs.
"""

from __future__ import annotations

import dataclasses

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab import stats
from rtolab.report_groups import GROUPINGS, GroupBy
from rtolab.store import Store

#: The per-flow metrics with a distribution worth drawing: column, title, unit.
DISTRIBUTIONS = {
    "goodput_bps": ("goodput", "bit/s"),
    "completion_s": ("completion time of finished transfers", "s"),
    # Datagram flows only (null for TCP, so a TCP-only sweep has no such section).
    "delay_mean_s": ("mean one-way delay of datagram flows", "s"),
    "delay_p99_s": ("99th-percentile one-way delay of datagram flows", "s"),
    "datagram_loss": ("datagrams lost or late, share of those whose fate is known", "share"),
    "mos": ("MOS of calls (E-model)", "MOS"),
}
#: The TCP events a report counts per flow: column, label.
EVENTS = {
    "timeouts": "timeouts",
    "spurious_timeouts": "spurious (oracle)",
    "spurious_detected": "detected spurious",
    "undos": "undone",
    "retransmits": "retransmitted segments",
}
#: The QUIC events a report counts per flow (RFC 9002's PTOs, the server's and the client's,
#: and loss declarations, each with the oracle's verdict): column, label.
QUIC_EVENTS = {
    "ptos": "server's PTOs",
    "spurious_ptos": "spurious server PTOs (oracle)",
    "client_ptos": "client's PTOs",
    "spurious_client_ptos": "spurious client PTOs (oracle)",
    "declared_lost": "packets declared lost",
    "spurious_declared_lost": "spurious losses (oracle)",
    "congestion_events": "congestion events",
}
GROUP = "group"


@dataclass(frozen=True)
class Flows:
    """A sweep's flows ready to report: one row per flow with its grid point's parameters
    (``parameters``), its group (``group``) and ``completion_s`` (null for unbounded or
    unfinished flows)."""

    study: str
    parameters: list[str]
    table: pl.DataFrame
    warm_up_s: float
    left_out: int

    @property
    def keys(self) -> list[str]:
        """The columns a summary row is keyed by: the grid point, then the group."""
        return [*self.parameters, GROUP]


def _study(directory: Path) -> tuple[str, list[str]]:
    study = json.loads((directory / "study.json").read_text())
    names = list(dict.fromkeys(k for c in study.get("cases", []) for k in c))
    return str(study.get("name", directory.name)), names + [k for k in study.get("grid", {}) if k not in names]


def _group(by: GroupBy) -> pl.Expr:
    if by == "generator":
        return pl.coalesce(pl.col("generator"), pl.col("name"))
    if by == "flow":
        return pl.col("name")
    if by == "kind":
        return pl.col("kind")
    return pl.lit("all flows")


def load(directory: Path, by: GroupBy = "generator", warm_up_s: float = 0.0) -> Flows:
    """The sweep's flows, those that start before ``warm_up_s`` left out."""
    if by not in GROUPINGS:
        raise ValueError(f"group by {by!r}: expected one of {', '.join(GROUPINGS)}")
    if not warm_up_s >= 0:
        raise ValueError(f"warm-up {warm_up_s!r} s: expected a time of at least 0 s")
    name, params = _study(directory)
    flows = Store(directory).load("flows")
    if flows.is_empty():
        return Flows(name, params, flows, warm_up_s, 0)
    kept = flows.filter(pl.col("start_s") >= warm_up_s)
    finished = pl.col("size").is_not_null() & pl.col("end_s").is_not_null()
    # The flows table's own column where present (runs stored before it lack it).
    computed = pl.when(finished).then(pl.col("end_s") - pl.col("start_s")).otherwise(None)
    completion = pl.coalesce(pl.col("completion_s"), computed) if "completion_s" in kept.columns else computed
    table = kept.with_columns(
        _group(by).alias(GROUP),
        completion.alias("completion_s"),
        (pl.col("size").is_not_null() & pl.col("end_s").is_null()).alias("unfinished"),
        _datagram_loss(kept),
    )
    return Flows(name, params, table, warm_up_s, flows.height - kept.height)


def _datagram_loss(flows: pl.DataFrame) -> pl.Expr:
    """A datagram flow's share of its datagrams lost to the receiver: dropped by the network
    or late past a call's playout, among those whose fate is known at the end (received or
    dropped), as the MOS counts them (null for TCP, and for runs stored before datagram flows
    existed)."""
    if "datagrams_sent" not in flows.columns:
        return pl.lit(None, dtype=pl.Float64).alias("datagram_loss")
    known = (pl.col("datagrams_received") + pl.col("datagrams_lost")).cast(pl.Float64)
    return pl.when(known > 0).then((pl.col("datagrams_lost") + pl.col("datagrams_late")).cast(pl.Float64) / known).otherwise(None).alias("datagram_loss")


def measured(flows: Flows, metric: str) -> pl.DataFrame:
    """The flows that have a value of ``metric`` (neither null nor NaN)."""
    return flows.table.filter(pl.col(metric).is_not_null() & pl.col(metric).is_not_nan())


def per_replication(flows: Flows, metric: str) -> pl.DataFrame:
    """One value per (grid point, group, run): the mean of ``metric`` over the run's flows of
    the group that have a value."""
    return measured(flows, metric).group_by([*flows.keys, "run"], maintain_order=True).agg(pl.col(metric).cast(pl.Float64).mean().alias(metric))


def summary(flows: Flows, metric: str, level: float = 0.9) -> pl.DataFrame:
    """Per (grid point, group): the replications that measured ``metric``, their mean and its
    Student-t interval at ``level``, and the flows' median and count."""
    runs = stats.summarize(per_replication(flows, metric), metric, flows.keys, level)
    pooled = measured(flows, metric).group_by(flows.keys, maintain_order=True).agg(
        pl.len().alias("flows"), pl.col(metric).cast(pl.Float64).median().alias("flow median")
    )
    return runs.select(*flows.keys, pl.col("n").alias("replications"), "mean", "ci_low", "ci_high").join(
        pooled, on=flows.keys, how="left", maintain_order="left"
    )


def events(flows: Flows, level: float = 0.9, transport: str = "tcp", counted: dict[str, str] = EVENTS) -> pl.DataFrame:
    """Per (grid point, group): each event's mean count per flow of ``transport`` over
    replications (``counted``: TCP's by default, ``QUIC_EVENTS`` for QUIC), with the
    interval's half-width at ``level``, and the flows still unfinished at the end."""
    if "transport" in flows.table.columns:
        flows = dataclasses.replace(flows, table=flows.table.filter(pl.col("transport") == transport))
    elif transport != "tcp":
        flows = dataclasses.replace(flows, table=flows.table.clear())
    out = flows.table.group_by(flows.keys, maintain_order=True).agg(pl.len().alias("flows"), pl.col("unfinished").sum().alias("unfinished"))
    for column in counted:
        s = summary(flows, column, level).select(*flows.keys, pl.col("mean").alias(column), ((pl.col("ci_high") - pl.col("ci_low")) / 2).alias(f"{column} ±"))
        out = out.join(s, on=flows.keys, how="left", maintain_order="left")
    return out


def label(row: dict[str, object], flows: Flows) -> str:
    """A grid point and group as one short line: ``rate=1Mbps, web1``."""
    parts = [f"{p.rsplit('.', 1)[-1]}={row[p]}" for p in flows.parameters]
    return ", ".join([*parts, str(row[GROUP])])
