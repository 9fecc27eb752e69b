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
METRICS = ["spurious_share", "fairness", "throughput_bps", "goodput_bps", "mean_rtt_s", "timeouts_per_flow"]
LEVEL = 0.9


def _with_min_rto(flows: pl.DataFrame) -> pl.DataFrame:
    return flows.with_columns(pl.col(MIN_RTO).str.strip_suffix("s").cast(pl.Float64).alias("min_rto_s"))


def measured(flows: pl.DataFrame) -> pl.DataFrame:
    """The transfers the per-flow measures cover: begun after the warm-up, finished."""
    return _with_min_rto(flows).filter((pl.col("start_s") >= WARM_UP_S) & pl.col("end_s").is_not_null())


def per_run(flows: pl.DataFrame) -> pl.DataFrame:
    """One row per run. System throughput (paper 000, Sec. 3.2): transport-layer data sent,
    retransmissions included, per second of the run; system goodput: the bytes delivered
    once. Both over every transfer of the run, whole; the per-flow measures over
    ``measured`` transfers."""
    all_flows = _with_min_rto(flows).with_columns(
        elapsed=pl.col("end_s").fill_null(DURATION_S) - pl.col("start_s"),
    )
    system = all_flows.group_by(["run", *KEYS]).agg(
        throughput_bps=(pl.col("throughput_bps").fill_null(0.0) * pl.col("elapsed")).sum() / DURATION_S,
        goodput_bps=(pl.col("bytes") * 8).sum() / DURATION_S,
    )
    per_flow = measured(flows).group_by("run").agg(
        flows=pl.len(),
        spurious_share=(pl.col("spurious_timeouts") > 0).mean(),
        timeouts_per_flow=pl.col("timeouts").mean(),
        fairness=stats.jain_index(pl.col("goodput_bps")),
        mean_rtt_s=pl.col("mean_rtt_s").mean(),
        low_goodput_share=(pl.col("goodput_bps") < 10_000).mean(),
    )
    return system.join(per_flow, on="run", how="left").sort(KEYS)


def summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Every measure per grid point: mean and 90 % Student-t interval over replications."""
    parts = [stats.summarize(runs, m, KEYS, level=LEVEL).with_columns(pl.lit(m).alias("measure")) for m in [*METRICS, "low_goodput_share"]]
    return pl.concat(parts).select("measure", *KEYS, "n", "mean", "ci_low", "ci_high").sort("measure", *KEYS)


def rtt_cdf(flows: pl.DataFrame, users: int, min_rto_s: float) -> pl.DataFrame:
    """The CDF of per-transfer mean RTT per scheduler (SACK) at one load and minRTO."""
    chosen = measured(flows).filter((pl.col(USERS) == users) & (pl.col("min_rto_s") == min_rto_s) & (pl.col(STACK) == "ns2-sack1"))
    return stats.ecdf_by(chosen.drop_nulls("mean_rtt_s"), "mean_rtt_s", [SCHEDULER])


def _point(s: pl.DataFrame, measure: str, **where: object) -> float:
    cond = pl.col("measure") == measure
    for k, v in where.items():
        cond = cond & (pl.col({"scheduler": SCHEDULER, "stack": STACK, "users": USERS}.get(k, k)) == v)
    return stats.mean_or_nan(s.filter(cond)["mean"])


def findings(s: pl.DataFrame) -> pl.DataFrame:
    """Paper 000's findings (Sec. 4–6), each with what rtolab measures (SACK unless said)."""
    users = sorted(s[USERS].unique().to_list())
    lo, hi = users[0], users[-1]
    paper_hi = max(u for u in users if u <= 150)
    rtos = sorted(s["min_rto_s"].unique().to_list())
    short, long_ = rtos[0], [r for r in rtos if r >= 0.4]
    sack = {"stack": "ns2-sack1"}
    rows = []

    def add(finding: str, rtolab: str, holds: bool) -> None:
        rows.append({"finding": finding, "rtolab": rtolab, "holds": holds})

    for sched in ("rr", "max-sir"):
        a = _point(s, "spurious_share", scheduler=sched, users=lo, min_rto_s=short, **sack)
        b = _point(s, "spurious_share", scheduler=sched, users=hi, min_rto_s=short, **sack)
        add(f"spurious timeouts grow with load ({sched}, minRTO {short:g} s)", f"{a:.3f} at {lo} users, {b:.3f} at {hi}", b > a)
    rr_s = _point(s, "spurious_share", scheduler="rr", users=hi, min_rto_s=short, **sack)
    sir_s = _point(s, "spurious_share", scheduler="max-sir", users=hi, min_rto_s=short, **sack)
    add(f"SIR gives fewer spurious timeouts than RR at short minRTO ({short:g} s, {hi} users)", f"SIR {sir_s:.3f}, RR {rr_s:.3f}", sir_s < rr_s)
    rr_l = max(_point(s, "spurious_share", scheduler="rr", users=hi, min_rto_s=r, **sack) for r in long_)
    sir_l = max(_point(s, "spurious_share", scheduler="max-sir", users=hi, min_rto_s=r, **sack) for r in long_)
    add(f"RR gives fewer than SIR at long minRTO (≥ 0.4 s, {hi} users)", f"SIR {sir_l:.4f}, RR {rr_l:.4f}", rr_l < sir_l)
    above_values = s.filter((pl.col("measure") == "spurious_share") & (pl.col("min_rto_s") > 0.5))["mean"].drop_nulls().to_numpy().astype(float)
    above = float(above_values.max()) if above_values.size else 0.0
    add("almost no spurious timeouts above minRTO 0.5 s (share < 1 %)", f"largest share {above:.4f}", above < 0.01)
    for sched in ("max-sir", "rr"):
        for u in (paper_hi, hi):
            t = s.filter((pl.col("measure") == "throughput_bps") & (pl.col(SCHEDULER) == sched) & (pl.col(USERS) == u) & (pl.col(STACK) == "ns2-sack1"))["mean"]
            x = t.drop_nulls().to_numpy().astype(float)
            spread = float((x.max() - x.min()) / x.mean()) if x.size else float("nan")
            add(f"minRTO does not change system throughput ({sched}, {u} users; spread < 5 %)", f"spread {spread:.3f} over minRTO", spread < 0.05)
    f_short = _point(s, "fairness", scheduler="rr", users=hi, min_rto_s=short, **sack)
    f_long = _point(s, "fairness", scheduler="rr", users=hi, min_rto_s=rtos[-1], **sack)
    add(f"RR at high load: a longer minRTO gives fairer goodput ({hi} users)", f"{f_short:.3f} at {short:g} s, {f_long:.3f} at {rtos[-1]:g} s", f_long > f_short)
    for sched in ("rr", "max-sir"):
        f75 = _point(s, "fairness", scheduler=sched, users=min(users, key=lambda u: abs(u - 75)), **sack)
        fhi = _point(s, "fairness", scheduler=sched, users=hi, **sack)
        add(f"fairness falls as load grows above ~75 users ({sched})", f"{f75:.3f} near 75 users, {fhi:.3f} at {hi}", fhi < f75)
    if "ns2-newreno" in s[STACK].unique().to_list():
        a = stats.mean_or_nan(s.filter((pl.col("measure") == "spurious_share") & (pl.col(STACK) == "ns2-sack1"))["mean"])
        b = stats.mean_or_nan(s.filter((pl.col("measure") == "spurious_share") & (pl.col(STACK) == "ns2-newreno"))["mean"])
        add("SACK and NewReno behave alike (mean spurious share over the grid)", f"SACK {a:.4f}, NewReno {b:.4f}", abs(a - b) < 0.01)
    return pl.DataFrame(rows)


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
