"""The figures of ``rtolab report``: per-flow distributions (box plots and CDFs) and TCP
events per flow, one entry per grid point and group.

Axis rule: a distribution whose positive values span more than ``LOG_SPAN`` (the ratio of
its 99th to its 1st percentile) is drawn on a log axis, where a linear one would squeeze
most boxes into a line; any other starts at 0. Figures are sized for a page: at most
``MAX_HEIGHT_IN`` inches tall whatever the number of groups.
"""

from __future__ import annotations

import io

import numpy as np
import polars as pl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter

from rtolab.report_data import EVENTS, Flows, label, measured

LOG_SPAN = 100.0
MAX_HEIGHT_IN = 11.0
#: CDFs drawn in one figure; more would be unreadable (the box plot shows every group).
MAX_CDF_LINES = 12
DPI = 100


def _png(fig: Figure) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def wants_log(values: np.ndarray) -> bool:
    """Whether ``values`` need a log axis: all positive and spread over more than
    ``LOG_SPAN`` between their 1st and 99th percentiles."""
    if values.size < 2 or np.any(values <= 0):
        return False
    lo, hi = np.percentile(values, [1, 99])
    return bool(hi / lo > LOG_SPAN)


def _value_axis(ax: Axes, values: np.ndarray) -> None:
    """The x axis of a distribution: log by ``wants_log``, else from 0; ticks in engineering
    notation (200k, 1.5M), never with an offset label (which would overlap the title)."""
    if wants_log(values):
        ax.set_xscale("log")
    else:
        ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))


def _groups(flows: Flows, metric: str) -> list[tuple[str, np.ndarray]]:
    out = []
    for keys, part in measured(flows, metric).group_by(flows.keys, maintain_order=True):
        out.append((label(dict(zip(flows.keys, keys)), flows), part[metric].cast(pl.Float64).to_numpy()))
    return out


def _height(rows: float) -> float:
    return min(MAX_HEIGHT_IN, 1.6 + 0.32 * rows)


def boxes(flows: Flows, metric: str, title: str, unit: str) -> bytes | None:
    """Horizontal box plots of the flows' ``metric`` (median, quartiles, whiskers at the 5th
    and 95th percentiles, ▲ mean), one per grid point and group; None when no flow has one."""
    groups = _groups(flows, metric)
    if not groups:
        return None
    fig = Figure(figsize=(8.0, _height(len(groups))))
    ax = fig.subplots()
    ax.boxplot([v for _, v in groups], orientation="horizontal", whis=(5, 95), showmeans=True, showfliers=False)
    ax.set_yticks(range(1, len(groups) + 1), [name for name, _ in groups], fontsize=8)
    ax.invert_yaxis()
    _value_axis(ax, np.concatenate([v for _, v in groups]))
    ax.set_xlabel(f"{title} ({unit})")
    ax.set_title(f"{title} per flow: median, quartiles, 5–95 %, ▲ mean", fontsize=10)
    return _png(fig)


def cdf(flows: Flows, metric: str, title: str, unit: str) -> bytes | None:
    """Empirical CDFs of the flows' ``metric``, one line per grid point and group (the first
    ``MAX_CDF_LINES``); None when no flow has one."""
    groups = _groups(flows, metric)[:MAX_CDF_LINES]
    if not groups:
        return None
    fig = Figure(figsize=(8.0, 4.5))
    ax = fig.subplots()
    for name, values in groups:
        x = np.sort(values)
        ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", label=name)
    _value_axis(ax, np.concatenate([v for _, v in groups]))
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"{title} ({unit})")
    ax.set_ylabel("share of flows")
    ax.set_title(f"{title}: CDF over flows", fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    return _png(fig)


#: The events drawn: the timeouts and what became of them (retransmissions, counted in
#: hundreds, would flatten them; the table has them).
DRAWN_EVENTS = {c: n for c, n in EVENTS.items() if c != "retransmits"}


def events(table: pl.DataFrame, flows: Flows, drawn: dict[str, str] = DRAWN_EVENTS, title: str = "timeouts and what became of them") -> bytes | None:
    """Mean counts per flow of ``drawn`` (TCP's: timeouts, spurious by the oracle, detected
    by the sender, undone), bars with their intervals over replications, one row of bars per
    grid point and group; None without flows."""
    if table.is_empty():
        return None
    names = [label(r, flows) for r in table.iter_rows(named=True)]
    fig = Figure(figsize=(8.0, _height(len(names) * 1.5)))
    ax = fig.subplots()
    width = 0.8 / len(drawn)
    y = np.arange(len(names))
    for i, (column, name) in enumerate(drawn.items()):
        mean = table[column].fill_null(0).to_numpy()
        half = table[f"{column} ±"].fill_null(0).fill_nan(0).to_numpy()
        ax.barh(y + i * width - 0.4 + width / 2, mean, width, xerr=half, label=name, capsize=2)
    ax.set_yticks(y, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    ax.set_xlabel("per flow (mean over replications, interval over replications)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    return _png(fig)
