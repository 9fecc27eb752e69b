"""The voice-over-HSDPA study's figures (matplotlib ``Figure`` objects, never pyplot), written
as ``voice-hsdpa-<name>.png`` into the directory given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from rtolab.studies.figures import save
from rtolab.studies.voice_hsdpa_analysis import MOS_SATISFIED, Tables
from rtolab.studies.voice_hsdpa_tails import GRID_S

PREFIX = "voice-hsdpa-"
NAMES = {"rr": "round robin", "max-sir": "max-SIR"}
UDP_STYLE = {"none": ("tab:blue", "-"), "cbr": ("tab:red", "--"), "on-off": ("tab:orange", ":")}
UDP_LABEL = {"none": "no UDP", "cbr": "3 × 1 Mbit/s CBR", "on-off": "3 × 1 Mbit/s on/off"}


def _by_voice(t: Tables, measure: str, stem: str, ylabel: str, out: Path) -> list[Path]:
    """One panel per (scheduler, minRTO): ``measure`` against the calls, one line per UDP
    level, with the 90 % interval over replications."""
    s = t.summary.filter(pl.col("measure") == measure)
    scheds = s["scheduler"].unique(maintain_order=True).to_list()
    rtos = sorted(s["min_rto_s"].unique().to_list())
    fig = Figure(figsize=(3.4 * len(rtos), 3.0 * len(scheds)))
    axes = fig.subplots(len(scheds), len(rtos), sharex=True, sharey=True, squeeze=False)
    for i, sched in enumerate(sorted(scheds, key=lambda x: x != "rr")):
        for j, rto in enumerate(rtos):
            ax = axes[i][j]
            for udp, (color, style) in UDP_STYLE.items():
                line = s.filter((pl.col("scheduler") == sched) & (pl.col("min_rto_s") == rto) & (pl.col("udp") == udp)).sort("calls")
                if line.is_empty():
                    continue
                x, m = line["calls"].to_numpy(), line["mean"].to_numpy()
                err = [m - line["ci_low"].fill_null(np.nan).to_numpy(), line["ci_high"].fill_null(np.nan).to_numpy() - m]
                ax.errorbar(x, m, yerr=err, color=color, linestyle=style, marker="o", ms=3, capsize=2, label=UDP_LABEL[udp])
            ax.set_title(f"{NAMES.get(sched, sched)}, minRTO {rto:g} s", fontsize=9)
            ax.grid(alpha=0.3)
            if i == len(scheds) - 1:
                ax.set_xlabel("voice calls (7 cells)")
            if j == 0:
                ax.set_ylabel(ylabel)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out, PREFIX + stem)


def mos_figure(t: Tables, rto: float, out: Path) -> list[Path]:
    """The CDF of the calls' MOS (every call of every replication) at minRTO ``rto``, one
    panel per scheduler, one line per (calls, UDP level)."""
    calls = t.calls.filter(pl.col("min_rto_s") == rto)
    scheds = sorted(calls["scheduler"].unique().to_list(), key=lambda x: x != "rr")
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, max(1, len(scheds)), sharey=True, squeeze=False)[0]
    for ax, sched in zip(axes, scheds):
        for n, width in zip(sorted(calls["calls"].unique().to_list()), (1.0, 2.2)):
            for udp, (color, style) in UDP_STYLE.items():
                mos = np.sort(calls.filter((pl.col("scheduler") == sched) & (pl.col("calls") == n) & (pl.col("udp") == udp))["mos"].drop_nulls().to_numpy())
                if mos.size:
                    ax.step(mos, np.arange(1, mos.size + 1) / mos.size, where="post", color=color, linestyle=style, linewidth=width, label=f"{n} calls, {UDP_LABEL[udp]}")
        ax.axvline(MOS_SATISFIED, color="grey", linewidth=0.8)
        ax.set_title(f"{NAMES.get(sched, sched)}, minRTO {rto:g} s")
        ax.set_xlabel("MOS (E-model) of a call")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of calls ≤ MOS")
    axes[-1].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return save(fig, out, PREFIX + "mos")


def delay_figure(t: Tables, rto: float, out: Path) -> list[Path]:
    """The share of the web transfers' data packets delayed more than x (one-way), from the
    delay-series pass, one panel per scheduler, one line per (calls, UDP level)."""
    tails = t.tails.filter(pl.col("packets") > 0)
    scheds = sorted(tails["scheduler"].unique().to_list(), key=lambda x: x != "rr")
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, max(1, len(scheds)), sharey=True, squeeze=False)[0]
    widths = {0: 0.8, 35: 1.4, 140: 2.2}
    for ax, sched in zip(axes, scheds):
        for row in tails.filter(pl.col("scheduler") == sched).sort("calls").iter_rows(named=True):
            color, style = UDP_STYLE.get(row["udp"], ("black", "-"))
            y = np.array(row["ccdf"], dtype=float)
            keep = y > 0
            ax.step(np.array(GRID_S)[keep], y[keep], where="post", color=color, linestyle=style, linewidth=widths.get(row["calls"], 1.0), label=f"{row['calls']} calls, {UDP_LABEL.get(row['udp'], row['udp'])}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{NAMES.get(sched, sched)}, minRTO {rto:g} s, one replication")
        ax.set_xlabel("one-way delay of a web data packet [s]")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of packets delayed more")
    axes[-1].legend(fontsize=6)
    fig.tight_layout()
    return save(fig, out, PREFIX + "delay")


def course_figure(t: Tables, rto: float, out: Path) -> list[Path]:
    """Web transfers begun per second over the run (mean over replications), without voice
    and with the most, one panel per scheduler, one line per UDP level."""
    c = t.course.filter(pl.col("min_rto_s") == rto)
    scheds = sorted(c["scheduler"].unique().to_list(), key=lambda x: x != "rr")
    loads = sorted(c["calls"].unique().to_list())
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, max(1, len(scheds)), sharey=True, squeeze=False)[0]
    for ax, sched in zip(axes, scheds):
        for n, width in zip((loads[0], loads[-1]), (1.0, 2.2)):
            for udp, (color, style) in UDP_STYLE.items():
                line = c.filter((pl.col("scheduler") == sched) & (pl.col("calls") == n) & (pl.col("udp") == udp)).sort("bin_s")
                if not line.is_empty():
                    ax.plot(line["bin_s"].to_numpy(), line["per_s"].to_numpy(), color=color, linestyle=style, linewidth=width, label=f"{n} calls, {UDP_LABEL[udp]}")
        ax.set_title(f"{NAMES.get(sched, sched)}, minRTO {rto:g} s")
        ax.set_xlabel("time in the run [s]")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].set_ylabel("web transfers begun per second")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out, PREFIX + "transfers")


def draw(t: Tables, rto: float, out: Path) -> list[Path]:
    """Every figure of the page into ``out``; ``rto`` is the minRTO of the MOS, delay and
    transfer-rate figures."""
    out.mkdir(parents=True, exist_ok=True)
    return (
        _by_voice(t, "spurious_per_transfer", "spurious", "spurious timeouts per transfer", out)
        + _by_voice(t, "timeouts_per_transfer", "timeouts", "timeouts per transfer", out)
        + mos_figure(t, rto, out)
        + delay_figure(t, rto, out)
        + course_figure(t, rto, out)
    )
