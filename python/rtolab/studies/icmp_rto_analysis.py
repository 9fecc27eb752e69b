"""Paper 001's measures from the ICMP-RTO sweeps (``studies.icmp_rto``): throughput, average
RTO and session completion time relative to the perfect channel (web and FTP, scheme off, on,
and on without back-off for the timeouts it brings forward), how the sender judged the ICMP
messages (the case shares), and the ARQ characterisation's goodput ratio.

Definitions (the paper names its measures without formulas; these are the readings):

- A *session* is one TCP connection, a packet call (Sec. I-A: "initiation and termination of
  data transfer on a single TCP session"); its completion time is ``end_s − start_s``.
- Web runs are compared call by call: in each replication every grid point draws the same
  packet calls (common random numbers), so only the first K calls that finished in *every*
  point of that replication count (K = the smallest number finished). Per run, throughput =
  Σ bytes·8 / Σ completion times over those calls; the completion ratio divides a run's mean
  completion time by that of the same replication at 0 % bad with the scheme off. By Wald's
  identity a 3GPP session of a geometric number of calls has the same ratio in expectation.
- FTP throughput is the bulk flow's delivered bytes·8 / run time.
- Average RTO, two readings: ``rto_time_s``, the retransmission timer's value (backed-off, as
  the sender arms it) averaged over the time transfers are in progress, from a second pass of
  the same runs with the ``rto`` series on; and ``rto_sample_s``, rtolab's ``mean_rto_s``
  (the RTO after each RTT sample, never backed off).
- Goodput ratio (Fig. 2, after the paper's [11]): bytes delivered / TCP payload bytes sent,
  retransmissions included.

Intervals are Student-t at 90 % over replications (``stats.summarize``).
"""

from __future__ import annotations

import copy
from concurrent.futures import Executor
from typing import Any

import polars as pl

from rtolab import stats
from rtolab.executors import run_all
from rtolab.studies.icmp_rto import ATTEMPTS, BAD_FRACTION, BAD_MEAN, OFF, SCHEME, TIMER, TRAFFIC, VARIANT, WINDOW
from rtolab.study import Study

LEVEL = 0.9
KEYS = [TRAFFIC, BAD_MEAN, BAD_FRACTION, TIMER, SCHEME]


def calls(flows: pl.DataFrame) -> pl.DataFrame:
    """Finished packet calls of a web sweep with their index in the user's sequence, their
    completion time and bytes; only the first K of each replication (see the module doc)."""
    done = flows.filter(pl.col("end_s").is_not_null()).with_columns(
        call=pl.col("name").str.split(".").list.last().cast(pl.Int64),
        completion_s=pl.col("end_s") - pl.col("start_s"),
    )
    finished = done.group_by(["replication", "point"]).agg(pl.len().alias("finished"))
    k = finished.group_by("replication").agg(pl.col("finished").min().alias("k"))
    return done.join(k, on="replication").filter(pl.col("call") < pl.col("k")).drop("k")


def web_runs(flows: pl.DataFrame, rto: pl.DataFrame) -> pl.DataFrame:
    """One row per web run: throughput, mean completion time and its ratio to the perfect
    channel (same replication and timer), timeouts and idle time per call, and three average
    RTOs: over time, over RTT samples, and the wait before each timeout over the expiries."""
    c = calls(flows).join(rto, on=["run", "name"], how="left")
    runs = c.group_by(["run", "replication", *KEYS], maintain_order=True).agg(
        pl.len().alias("calls"),
        (pl.col("bytes").sum() * 8 / pl.col("completion_s").sum()).alias("throughput_bps"),
        pl.col("completion_s").mean().alias("completion_s"),
        pl.col("timeouts").mean().alias("timeouts_per_call"),
        pl.col("timeout_idle_s").mean().alias("idle_s"),
        (pl.col("timeout_idle_s").sum() / pl.col("timeouts").sum()).alias("rto_expiry_s"),
        (pl.col("rto_integral_s").sum() / pl.col("active_s").sum()).alias("rto_time_s"),
        pl.col("mean_rto_s").mean().alias("rto_sample_s"),
    )
    perfect = runs.filter((pl.col(BAD_MEAN) == 0) & (pl.col(SCHEME) == OFF)).select("replication", TIMER, pl.col("completion_s").alias("perfect_s"))
    return runs.join(perfect, on=["replication", TIMER], how="left").with_columns(completion_ratio=pl.col("completion_s") / pl.col("perfect_s")).sort([*KEYS, "replication"])


def ftp_runs(flows: pl.DataFrame, rto: pl.DataFrame) -> pl.DataFrame:
    """One row per FTP run: throughput (delivered), timeouts, both average RTOs."""
    f = flows.join(rto, on=["run", "name"], how="left")
    return f.select(
        "run", "replication", *KEYS,
        pl.col("goodput_bps").alias("throughput_bps"),
        pl.col("timeouts").cast(pl.Float64).alias("timeouts"),
        pl.col("timeout_idle_s").alias("idle_s"),
        (pl.col("rto_integral_s") / pl.col("active_s")).alias("rto_time_s"),
        pl.col("mean_rto_s").alias("rto_sample_s"),
    ).sort([*KEYS, "replication"])


def arq_runs(flows: pl.DataFrame, duration_s: float) -> pl.DataFrame:
    """One row per run of the ARQ sweep: goodput ratio = bytes delivered / payload sent
    (a flow's payload sent is its ``throughput_bps`` times its elapsed time)."""
    elapsed = pl.col("end_s").fill_null(duration_s) - pl.col("start_s")
    sent = (pl.col("throughput_bps").fill_null(0.0) * elapsed / 8).alias("sent")
    f = flows.with_columns(sent, pl.col(WINDOW).str.strip_suffix("p").cast(pl.Int64).alias("window"), pl.col(ATTEMPTS).alias("attempts"))
    return f.group_by(["run", "replication", BAD_MEAN, BAD_FRACTION, "window", "attempts"], maintain_order=True).agg(
        (pl.col("bytes").sum() / pl.col("sent").sum()).alias("goodput_ratio"),
        pl.col("timeouts").sum().alias("timeouts"),
    )


def summary(runs: pl.DataFrame, metrics: list[str], by: list[str]) -> pl.DataFrame:
    """Long table: per metric and group, n, mean and the 90 % Student-t interval."""
    parts = [stats.summarize(runs, m, by, LEVEL).select(*by, pl.lit(m).alias("metric"), "n", "mean", "ci_low", "ci_high") for m in metrics]
    return pl.concat(parts).sort(["metric", *by])


#: ``idle_s``: the time a sender sat waiting for its timer before its timeouts (the flows
#: table's ``timeout_idle_s``), per packet call (web) or per run (FTP): paper 001's source
#: idle time.
#: ``rto_expiry_s``: the timer's value when it expired, averaged over the expiries (the wait
#: from the last transmission to each timeout).
WEB_METRICS = ["throughput_bps", "completion_s", "completion_ratio", "timeouts_per_call", "idle_s", "rto_time_s", "rto_sample_s", "rto_expiry_s"]
FTP_METRICS = ["throughput_bps", "timeouts", "idle_s", "rto_time_s", "rto_sample_s"]


def time_weighted_rto(flows: pl.DataFrame, series: pl.DataFrame, run_end_s: float) -> pl.DataFrame:
    """Per flow: ∫ RTO dt over [start, end] (end = ``end_s`` or the run's end) and the length
    of that span. The ``rto`` series holds the timer's value (back-off included) from the
    flow's start, one row per change; each value holds until the next."""
    spans = flows.select("name", "start_s", pl.col("end_s").fill_null(run_end_s).alias("stop_s"))
    steps = (
        series.filter(pl.col("metric") == "rto")
        .select(pl.col("entity").cast(pl.String).alias("name"), "time_s", "value")
        .join(spans, on="name")
        .sort(["name", "time_s"])
        .with_columns(next_s=pl.col("time_s").shift(-1).over("name"))
        .with_columns(until=pl.min_horizontal(pl.col("next_s").fill_null(pl.col("stop_s")), pl.col("stop_s")))
        .with_columns(dt=(pl.col("until") - pl.max_horizontal("time_s", "start_s")).clip(lower_bound=0.0))
    )
    integral = steps.group_by("name").agg((pl.col("value") * pl.col("dt")).sum().alias("rto_integral_s"))
    return spans.join(integral, on="name", how="left").select(
        "name", pl.col("rto_integral_s").fill_null(0.0), (pl.col("stop_s") - pl.col("start_s")).alias("active_s")
    )


def _rto_task(item: tuple[int, dict[str, Any], int]) -> tuple[int, pl.DataFrame]:
    """Worker: one run with the ``rto`` series on; its per-flow time-weighted RTO."""
    from rtolab.api import run

    index, spec, seed = item
    r = run(spec, seed=seed)
    return index, time_weighted_rto(r.flows, r.series, float(r.meta["sim_time_s"]))


def rto_pass(study: Study, executor: Executor) -> pl.DataFrame:
    """Runs every run of ``study`` again (same spec, same seed, so the same run) with the
    ``rto`` series on and returns run key, flow name, ∫ RTO dt and the active span."""
    points = study.points()
    tasks = []
    for i, p in enumerate(points):
        spec = copy.deepcopy(p.spec)
        spec["output"] = {"series": ["rto"]}
        tasks.append((i, spec, p.seed))
    parts = [df.with_columns(run=pl.lit(points[i].key)) for i, df in run_all(executor, _rto_task, tasks)]
    return pl.concat(parts) if parts else pl.DataFrame(schema={"name": pl.String, "rto_integral_s": pl.Float64, "active_s": pl.Float64, "run": pl.String})


def comparison(runs: pl.DataFrame, metrics: list[str]) -> pl.DataFrame:
    """The results table: per traffic, bad fraction, measure and sender with the scheme, the
    mean with the scheme off and with it (``value``), and their ratio paired by replication
    (each replication runs every sender on the same channel and traffic draws) with its 90 %
    interval. A replication in which the sender without the scheme has 0 (no idle time, say)
    leaves the ratio undefined and out of the interval (``n`` counts the others).

    ``step_mean``, ``step_ci_low``, ``step_ci_high``: the change of the sender's ``value``
    from the previous bad fraction of the grid (same traffic, timer and sender), paired by
    replication (a replication's runs share their seed at every bad fraction), with its 90 %
    interval; null at the first bad fraction."""
    keys = [TRAFFIC, BAD_MEAN, BAD_FRACTION, TIMER]
    sender = [TRAFFIC, TIMER, SCHEME]
    parts = []
    for m in metrics:
        off = runs.filter(pl.col(SCHEME) == OFF).select(*keys, "replication", pl.col(m).alias("off"))
        on = runs.filter(pl.col(SCHEME) != OFF).select(*keys, SCHEME, "replication", pl.col(m).alias("value"))
        both = on.join(off, on=[*keys, "replication"]).with_columns(ratio=pl.when(pl.col("off") != 0).then(pl.col("value") / pl.col("off")))
        ratio = stats.summarize(both, "ratio", [*keys, SCHEME], LEVEL).select(
            *keys, SCHEME, "n", pl.col("mean").alias("over_off"), pl.col("ci_low").alias("ratio_ci_low"), pl.col("ci_high").alias("ratio_ci_high")
        )
        means = both.group_by([*keys, SCHEME], maintain_order=True).agg(pl.col("off").mean(), pl.col("value").mean())
        parts.append(means.join(ratio, on=[*keys, SCHEME]).join(_steps(on, sender), on=[*sender, BAD_MEAN], how="left")
                     .select(*keys, SCHEME, pl.lit(m).alias("metric"), "off", "value", "over_off", "ratio_ci_low", "ratio_ci_high", "n", "step_mean", "step_ci_low", "step_ci_high"))
    return pl.concat(parts).sort([TRAFFIC, "metric", BAD_MEAN, TIMER, SCHEME])


def _steps(on: pl.DataFrame, sender: list[str]) -> pl.DataFrame:
    """Per sender and bad fraction (after the first of the grid): the change of ``value`` from
    the previous bad fraction, paired by replication, mean and 90 % interval."""
    grid = sorted(float(b) for b in on[BAD_MEAN].unique().to_list())
    previous = pl.DataFrame({BAD_MEAN: grid[1:], "previous": grid[:-1]}, schema={BAD_MEAN: on.schema[BAD_MEAN], "previous": on.schema[BAD_MEAN]})
    now = on.join(previous, on=BAD_MEAN)
    before = on.select(*sender, "replication", pl.col(BAD_MEAN).alias("previous"), pl.col("value").alias("before"))
    paired = now.join(before, on=[*sender, "replication", "previous"]).with_columns(step=pl.col("value") - pl.col("before"))
    return stats.summarize(paired, "step", [*sender, BAD_MEAN], LEVEL).select(
        *sender, BAD_MEAN, pl.col("mean").alias("step_mean"), pl.col("ci_low").alias("step_ci_low"), pl.col("ci_high").alias("step_ci_high")
    )


#: The sender's count columns of the flows table for paper 001's scheme.
CASE_COUNTS = ["icmp_drop", "icmp_defer", "icmp_early_timeouts", "icmp_shrinks", "icmp_extensions", "timeouts"]


def case_shares(flows: pl.DataFrame) -> pl.DataFrame:
    """Per traffic, bad fraction and sender with the scheme: the ICMP messages that reached
    the sender (summed over every flow of every run) and how they were judged. ``case1`` and
    ``case2`` are the shares of DROPs that timed out at once or shrank the timer; ``other``
    the rest (case 3, too early to act on; case 4, a DROP in PT; case 7, a DROP in the
    intermediate state or ET; a DROP with no timer running). ``extended`` is the share of
    DEFERs whose timer went on to expire into ET (case 6). ``timeouts`` is per run."""
    keys = [TRAFFIC, BAD_MEAN, BAD_FRACTION, TIMER, SCHEME]
    on = flows.filter(pl.col(SCHEME) != OFF)
    per_run = on.group_by(["run", *keys]).agg(*(pl.col(c).sum() for c in CASE_COUNTS))
    total = per_run.group_by(keys).agg(pl.len().alias("runs"), *(pl.col(c).sum() for c in CASE_COUNTS))
    drop = pl.col("icmp_drop")
    return total.select(
        *keys, "runs",
        (drop / pl.col("runs")).alias("drops_per_run"),
        (pl.col("icmp_defer") / pl.col("runs")).alias("defers_per_run"),
        (pl.col("icmp_early_timeouts") / drop).alias("case1"),
        (pl.col("icmp_shrinks") / drop).alias("case2"),
        (1 - (pl.col("icmp_early_timeouts") + pl.col("icmp_shrinks")) / drop).alias("other"),
        (pl.col("icmp_extensions") / pl.col("icmp_defer")).alias("extended"),
        (pl.col("timeouts") / pl.col("runs")).alias("timeouts_per_run"),
    ).sort(keys)


def ablation(flows: pl.DataFrame) -> pl.DataFrame:
    """Per variant of the scheme and bad fraction: throughput and mean completion time over
    the common packet calls, and each as a ratio to the variant "off" of the same
    replication (mean and 90 % interval)."""
    keys = [VARIANT, BAD_MEAN, BAD_FRACTION]
    runs = calls(flows).group_by(["replication", *keys], maintain_order=True).agg(
        (pl.col("bytes").sum() * 8 / pl.col("completion_s").sum()).alias("throughput_bps"),
        pl.col("completion_s").mean().alias("completion_s"),
    )
    parts = []
    for m in ("throughput_bps", "completion_s"):
        off = runs.filter(pl.col(VARIANT) == "off").select(BAD_MEAN, "replication", pl.col(m).alias("off"))
        paired = runs.join(off, on=[BAD_MEAN, "replication"]).with_columns(ratio=pl.col(m) / pl.col("off"))
        ratio = stats.summarize(paired, "ratio", keys, LEVEL).select(*keys, pl.col("mean").alias("over_off"), pl.col("ci_low").alias("ratio_ci_low"), pl.col("ci_high").alias("ratio_ci_high"))
        means = paired.group_by(keys, maintain_order=True).agg(pl.col(m).mean().alias("mean"), pl.len().alias("n"))
        parts.append(means.join(ratio, on=keys).select(pl.lit(m).alias("metric"), *keys, "mean", "over_off", "ratio_ci_low", "ratio_ci_high", "n"))
    return pl.concat(parts)
