"""Paper 000's measures from a minRTO-over-HSDPA sweep: per run, the share of transfers with
a spurious timeout (Figure 2), Jain's fairness of per-transfer goodput (Eq. 1, Figure 3),
system throughput (Figure 4) and goodput; their 90 % intervals over replications; the RTT
distribution per scheduler; and the paper's findings checked one by one."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from rtolab import stats
from rtolab.studies.minrto_hsdpa import DURATION_S, MIN_RTO, SCHEDULER, STACK, USERS, WARM_UP_S

KEYS = [SCHEDULER, STACK, USERS, "min_rto_s"]
METRICS = ["spurious_share", "fairness", "throughput_bps", "goodput_bps", "mean_rtt_s", "timeouts_per_flow", "low_goodput_share", "censored_share"]
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


def per_run(flows: pl.DataFrame) -> pl.DataFrame:
    """One row per run. System throughput (paper 000, Sec. 3.2): transport-layer data sent,
    retransmissions included, per second of the run; system goodput: the bytes delivered
    once. Both over every transfer of the run, whole; the per-flow measures over
    ``measured`` transfers."""
    flows = flows.sort("run", "flow")
    all_flows = _with_min_rto(flows).with_columns(
        elapsed=pl.col("end_s").fill_null(DURATION_S) - pl.col("start_s"),
    )
    system = all_flows.group_by(["run", *KEYS], maintain_order=True).agg(
        throughput_bps=(pl.col("throughput_bps").fill_null(0.0) * pl.col("elapsed")).sum() / DURATION_S,
        goodput_bps=(pl.col("bytes") * 8).sum() / DURATION_S,
    )
    per_flow = measured(flows).group_by("run", maintain_order=True).agg(
        flows=pl.len(),
        censored_share=(~pl.col("finished")).mean(),
        spurious_share=(pl.col("spurious_timeouts") > 0).mean(),
        timeouts_per_flow=pl.col("timeouts").mean(),
        fairness=stats.jain_index(pl.col("goodput_bps")),
        mean_rtt_s=pl.col("mean_rtt_s").mean(),
        low_goodput_share=(pl.col("goodput_bps") < LOW_GOODPUT_BPS).mean(),
    )
    # Sorted by run within each point: the summary's reductions then see the runs in one
    # order whatever order the sweep finished them in (bit-identical tables).
    return system.join(per_flow, on="run", how="left").sort(*KEYS, "run")


def summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Every measure per grid point: mean and 90 % Student-t interval over replications."""
    parts = [stats.summarize(runs, m, KEYS, level=LEVEL).with_columns(pl.lit(m).alias("measure")) for m in METRICS]
    return pl.concat(parts).select("measure", *KEYS, "n", "mean", "ci_low", "ci_high").sort("measure", *KEYS)


def rtt_cdf(flows: pl.DataFrame, users: int, min_rto_s: float) -> pl.DataFrame:
    """The CDF of per-transfer mean RTT per scheduler (SACK) at one load and minRTO."""
    chosen = measured(flows).filter((pl.col(USERS) == users) & (pl.col("min_rto_s") == min_rto_s) & (pl.col(STACK) == "ns2-sack1"))
    return stats.ecdf_by(chosen.drop_nulls("mean_rtt_s"), "mean_rtt_s", [SCHEDULER])


def rtt_tail(flows: pl.DataFrame, users: int, min_rto_s: float, quantile: float = 0.99) -> dict[str, float]:
    """Per scheduler, the ``quantile`` of per-transfer mean RTT (SACK) at one load and minRTO:
    paper 000's "several occurrences of really long RTTs" (Sec. 5)."""
    chosen = measured(flows).filter((pl.col(USERS) == users) & (pl.col("min_rto_s") == min_rto_s) & (pl.col(STACK) == "ns2-sack1"))
    tails = chosen.drop_nulls("mean_rtt_s").group_by(SCHEDULER).agg(pl.col("mean_rtt_s").quantile(quantile, interpolation="linear"))
    return {str(k): float(v) for k, v in tails.iter_rows()}


def figures(s: pl.DataFrame, cdf: pl.DataFrame, out: Path) -> list[Path]:
    """Figures 2–4 (and goodput) per scheduler, SACK, one line per minRTO with 90 %
    intervals; and the RTT CDF per scheduler."""
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
    fig = Figure(figsize=(5, 4))
    ax = fig.subplots()
    for sched in ("max-sir", "rr"):
        part = cdf.filter(pl.col(SCHEDULER) == sched)
        ax.step(part["x"].to_numpy(), part["p"].to_numpy(), where="post", label="SIR" if sched == "max-sir" else "RR")
    ax.set_xscale("log")
    ax.set_xlabel("mean RTT of a transfer [s]")
    ax.set_ylabel("CDF")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    paths += save(fig, out, "rtt_cdf")
    return paths
