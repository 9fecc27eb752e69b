"""Paper 000's measures from a minRTO-over-HSDPA sweep: per run, the share of transfers with
a spurious timeout (Figure 2), Jain's fairness of per-transfer goodput (Eq. 1, Figure 3),
system throughput (Figure 4) and goodput; the mean RTT of the packets (Sec. 5); their 90 %
intervals over replications; and the distribution of the RTT samples per scheduler (Sec. 5's
CDFs), from runs that record every sample."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from rtolab import stats
from rtolab.studies.minrto_hsdpa import DURATION_S, MIN_RTO, SCHEDULER, STACK, USERS, WARM_UP_S

KEYS = [SCHEDULER, STACK, USERS, "min_rto_s"]
METRICS = ["spurious_share", "fairness", "throughput_bps", "goodput_bps", "packet_rtt_s", "timeouts_per_flow", "low_goodput_share", "censored_share"]
LEVEL = 0.9
#: Paper 000, Sec. 3.1: "about 50% of the transfers had a goodput of less than 10 kbit/s".
LOW_GOODPUT_BPS = 10_000


def _with_min_rto(flows: pl.DataFrame) -> pl.DataFrame:
    return flows.with_columns(pl.col(MIN_RTO).str.strip_suffix("s").cast(pl.Float64).alias("min_rto_s"))


def measured(flows: pl.DataFrame) -> pl.DataFrame:
    """The transfers the per-flow measures cover: every transfer begun after the warm-up.

    A transfer still running when the run ends is a censored observation: its goodput is
    what it had reached, the bytes delivered over the time since its start (the flows
    table's ``goodput_bps`` of an unfinished flow), and its timeouts are those it had. Leaving
    such transfers out would drop the longest ones, the most exposed to spurious timeouts.
    ``finished`` says which are whole."""
    return _with_min_rto(flows).filter(pl.col("start_s") >= WARM_UP_S).with_columns(finished=pl.col("end_s").is_not_null())


def system_throughput(duration_s: float) -> pl.Expr:
    """Paper 000, Sec. 3.2's system throughput of a run's flows: "the total amount of
    transport layer data transferred during a given time period. This data includes transport
    layer retransmissions", per second of the run (a transfer's throughput over its time in the
    run; one still running at the end counts to the end)."""
    elapsed = pl.col("end_s").fill_null(duration_s) - pl.col("start_s")
    return (pl.col("throughput_bps").fill_null(0.0) * elapsed).sum() / duration_s


#: The share of measured transfers whose goodput is below ``LOW_GOODPUT_BPS`` (Sec. 3.1).
LOW_GOODPUT_SHARE = (pl.col("goodput_bps") < LOW_GOODPUT_BPS).mean()


def operating_point(flows: pl.DataFrame, duration_s: float) -> tuple[float, float]:
    """One run's (share of measured transfers below 10 kbit/s, system throughput in bit/s):
    what paper 000's operating-point statements are about (``per_run``'s measures)."""
    low = flows.filter(pl.col("start_s") >= WARM_UP_S).select(LOW_GOODPUT_SHARE).item()
    return float(low), float(flows.select(system_throughput(duration_s)).item())


def per_run(flows: pl.DataFrame, duration_s: float = DURATION_S) -> pl.DataFrame:
    """One row per run. System throughput (paper 000, Sec. 3.2; ``system_throughput``):
    transport-layer data sent, retransmissions included, per second of the run (of
    ``duration_s``); system goodput: the bytes delivered once. Both over every transfer of the
    run, whole; the per-flow measures over ``measured`` transfers. ``replication`` pairs runs
    across grid points: runs of one replication share their seed (``rtolab.study``).

    ``packet_rtt_s`` is Sec. 5's "average round trip time of packets in the system": the mean
    over every RTT sample of the measured transfers (Σ mean_rtt_s · rtt_samples / Σ
    rtt_samples), so a transfer weighs by its samples; the mean of per-transfer means would
    weigh a 5 kB transfer as much as a 2 MB one."""
    flows = flows.sort("run", "flow")
    system = _with_min_rto(flows).group_by(["run", "replication", *KEYS], maintain_order=True).agg(
        throughput_bps=system_throughput(duration_s),
        goodput_bps=(pl.col("bytes") * 8).sum() / duration_s,
    )
    per_flow = measured(flows).group_by("run", maintain_order=True).agg(
        flows=pl.len(),
        censored_share=(~pl.col("finished")).mean(),
        spurious_share=(pl.col("spurious_timeouts") > 0).mean(),
        timeouts_per_flow=pl.col("timeouts").mean(),
        fairness=stats.jain_index(pl.col("goodput_bps")),
        packet_rtt_s=(pl.col("mean_rtt_s").fill_null(0.0) * pl.col("rtt_samples")).sum() / pl.col("rtt_samples").sum(),
        low_goodput_share=LOW_GOODPUT_SHARE,
    )
    # Sorted by run within each point: the summary's reductions then see the runs in one
    # order whatever order the sweep finished them in (bit-identical tables).
    return system.join(per_flow, on="run", how="left").sort(*KEYS, "run")


def summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Every measure per grid point: mean and 90 % Student-t interval over replications."""
    parts = [stats.summarize(runs, m, KEYS, level=LEVEL).with_columns(pl.lit(m).alias("measure")) for m in METRICS]
    return pl.concat(parts).select("measure", *KEYS, "n", "mean", "ci_low", "ci_high").sort("measure", *KEYS)


def rtt_samples(series: pl.DataFrame, flows: pl.DataFrame) -> pl.Series:
    """The RTT samples (the ``rtt`` series) of one run's measured transfers: those begun after
    the warm-up. A series' entity index is its flow's row in the run's flows table."""
    kept = flows.with_row_index("e").filter(pl.col("start_s") >= WARM_UP_S)["e"].cast(pl.Int64)
    rtt = series.filter(pl.col("metric") == "rtt")
    return rtt.filter(pl.col("entity").to_physical().cast(pl.Int64).is_in(kept.implode()))["value"]


def rtt_cdf(samples: pl.DataFrame, points: int = 400) -> pl.DataFrame:
    """Per scheduler (column ``SCHEDULER``), the CDF of the RTT samples (column ``rtt_s``) at
    ``points`` log-spaced values from the shortest to the longest sample of any scheduler:
    columns SCHEDULER, x, p (the share of samples ≤ x). The last point is each scheduler's
    own longest sample, so the tail's end is exact."""
    if samples.is_empty():
        return pl.DataFrame(schema={SCHEDULER: pl.String, "x": pl.Float64, "p": pl.Float64})
    lo, hi = float(samples["rtt_s"].min()), float(samples["rtt_s"].max())  # type: ignore[arg-type]
    grid = np.geomspace(lo, hi, points)
    parts = []
    for (sched,), group in samples.group_by([SCHEDULER], maintain_order=True):
        v = np.sort(group["rtt_s"].to_numpy())
        x = np.append(grid[grid < v[-1]], v[-1])
        p = np.searchsorted(v, x, side="right") / len(v)
        parts.append(pl.DataFrame({SCHEDULER: [sched] * len(x), "x": x, "p": p}))
    return pl.concat(parts) if parts else pl.DataFrame()


def rtt_tail(samples: pl.DataFrame) -> dict[str, float]:
    """Paper 000, Sec. 5: "in general the RTT for SIR scheduling is shorter, but there are
    several occurrences of really long RTTs compared to RR", read on the two CDFs of RTT
    samples. ``beyond``: how many of max-SIR's samples are longer than round robin's longest
    one (where RR's CDF has reached 1 and SIR's has not); also each scheduler's median, 99th
    and 99.9th percentile and longest sample (keys ``{scheduler}.p50`` …, ``.max``)."""
    out: dict[str, float] = {}
    by = {str(k): g["rtt_s"] for (k,), g in samples.group_by([SCHEDULER], maintain_order=True)}
    for sched, v in by.items():
        for name, q in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999)):
            out[f"{sched}.{name}"] = float(v.quantile(q, interpolation="linear"))  # type: ignore[arg-type]
        out[f"{sched}.max"] = float(v.max())  # type: ignore[arg-type]
    if "rr" in by and "max-sir" in by:
        out["beyond"] = float((by["max-sir"] > out["rr.max"]).sum())
    return out


def figures(s: pl.DataFrame, cdf: pl.DataFrame, out: Path) -> list[Path]:
    """Figures 2–4 (and goodput) per scheduler, SACK, one line per minRTO with 90 %
    intervals; and the CDF of RTT samples per scheduler, whole and its tail."""
    from matplotlib.figure import Figure

    from rtolab.studies.figures import save

    paths: list[Path] = []
    labels = {"spurious_share": ("fig2_spurious", "share of flows with ≥ 1 spurious timeout"), "fairness": ("fig3_fairness", "Jain's fairness of goodput"), "throughput_bps": ("fig4_throughput", "system throughput [bit/s]"), "goodput_bps": ("goodput", "system goodput [bit/s]")}
    for measure, (stem, ylabel) in labels.items():
        fig = Figure(figsize=(10, 4))
        axes = fig.subplots(1, 2, sharey=True)
        for ax, sched in zip(axes, ("max-sir", "rr")):
            part = s.filter((pl.col("measure") == measure) & (pl.col(SCHEDULER) == sched) & (pl.col(STACK) == "ns2-sack1"))
            for rto in sorted(part["min_rto_s"].unique().to_list()):
                line = part.filter(pl.col("min_rto_s") == rto).sort(USERS)
                x, m = line[USERS].to_numpy(), line["mean"].to_numpy()
                err = [m - line["ci_low"].fill_null(float("nan")).to_numpy(), line["ci_high"].fill_null(float("nan")).to_numpy() - m]
                ax.errorbar(x, m, yerr=err, marker="o", ms=3, capsize=2, label=f"{rto:g} s")
            ax.set_title(f"{'SIR' if sched == 'max-sir' else 'RR'} scheduling")
            ax.set_xlabel("number of users")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel(ylabel)
        axes[1].legend(title="minRTO", fontsize=7)
        fig.tight_layout()
        paths += save(fig, out, stem)
    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2)
    for sched in ("max-sir", "rr"):
        part = cdf.filter(pl.col(SCHEDULER) == sched)
        label = "SIR" if sched == "max-sir" else "RR"
        x, p = part["x"].to_numpy(), part["p"].to_numpy()
        axes[0].step(x, p, where="post", label=label)
        # The longest sample leaves no share longer: a log axis cannot show its 0.
        axes[1].step(x[:-1], 1.0 - p[:-1], where="post", label=label)
    axes[0].set_ylabel("CDF")
    axes[1].set_ylabel("share of samples longer (1 − CDF)")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("RTT sample [s]")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    paths += save(fig, out, "rtt_cdf")
    return paths
