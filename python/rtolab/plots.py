"""Figures of one run: per-flow time series (cwnd, RTO, SRTT), queue lengths, goodput.

Drawn on standalone ``matplotlib.figure.Figure`` objects: no pyplot, no global figure
registry, and the user's backend is left as it was.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

from rtolab.result import Result


def _series(result: Result, metric: str) -> pl.DataFrame:
    return result.series.filter(pl.col("metric") == metric)


def flow_timeline(result: Result, flow: str, path: Path) -> Path:
    """cwnd (segments of the flow's bytes), SRTT and RTO of one flow over time."""
    fig = Figure(figsize=(9, 6))
    top, bottom = fig.subplots(2, 1, sharex=True)
    mine = result.series.filter(pl.col("entity") == flow)
    cwnd = mine.filter(pl.col("metric") == "cwnd")
    top.step(cwnd["time_s"], cwnd["value"] / 1000.0, where="post", label="cwnd")
    top.set_ylabel("cwnd (kB)")
    top.legend(loc="upper right")
    for metric in ("srtt", "rto"):
        s = mine.filter(pl.col("metric") == metric)
        bottom.step(s["time_s"], s["value"], where="post", label=metric)
    bottom.set_ylabel("seconds")
    bottom.set_xlabel("time (s)")
    bottom.legend(loc="upper right")
    fig.suptitle(f"{result.meta.get('scenario', '')}: flow {flow}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def queues(result: Result, path: Path) -> Path:
    """Queue length of every link direction that recorded one."""
    fig = Figure(figsize=(9, 3.5))
    ax = fig.subplots()
    q = _series(result, "queue")
    for (entity,), part in q.group_by("entity", maintain_order=True):
        ax.step(part["time_s"], part["value"], where="post", label=str(entity))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    if q.height:
        ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def goodput(result: Result, path: Path) -> Path:
    """Goodput of the run's flows, one row per standalone flow or generator (a box over a
    generator's flows: median, quartiles, 5–95 %), with its timeouts (spurious ones by the
    oracle) beside it; as tall as the rows, whatever the number of flows."""
    flows = result.flows.filter(pl.col("goodput_bps").is_not_null()).with_columns(pl.coalesce(pl.col("generator"), pl.col("name")).alias("group"))
    groups = flows.group_by("group", maintain_order=True).agg(
        pl.col("goodput_bps"), pl.len().alias("n"), pl.col("timeouts").sum(), pl.col("spurious_timeouts").sum()
    )
    fig = Figure(figsize=(9, min(11.0, 1.6 + 0.45 * max(groups.height, 1))))
    ax = fig.subplots()
    if groups.height:
        ax.boxplot([[v / 1e3 for v in g] for g in groups["goodput_bps"]], orientation="horizontal", whis=(5, 95), showfliers=False)
        labels = [f"{name} ({n} flow{'s' if n != 1 else ''})" for name, n in zip(groups["group"], groups["n"])]
        ax.set_yticks(range(1, groups.height + 1), labels, fontsize=8)
        for i, (t, s) in enumerate(zip(groups["timeouts"], groups["spurious_timeouts"]), start=1):
            if t:
                ax.annotate(f" {t} RTO ({s} spurious)", (1.0, i), xycoords=("axes fraction", "data"), va="center", fontsize=7)
    ax.set_xlim(left=0)
    ax.set_xlabel("goodput (kbit/s)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
