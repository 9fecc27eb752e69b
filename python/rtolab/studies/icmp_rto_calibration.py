"""Paper 001's absolute levels: its average RTOs at 11 % bad time (Sec. V-B: "With our scheme,
for a bad period of 11%, we obtain an average RTO of 9.90 seconds compared to 15 without our
scheme"), and the link characterisation's goodput (Sec. II, Fig. 2: "With three attempts, our
performance metric was found to be about 85% even for 50% bad period"); and the readings of
what the paper leaves open that move them (``rtolab.calibration``):

- whether a session is one TCP connection or each packet call a new one ("We simulate a
  single user running a single session", Sec. IV; "data transfer on a single TCP session",
  Sec. I-A; the web generator's ``connection``);
- over what the "average RTO value at the source" (Sec. IV) is taken: the time packet calls
  are in progress, the whole run (reading times included: the timer a persistent connection
  holds between calls), the timer's expiries, or the RTT samples;
- the timer's ceiling: ns-1's back-off up to 64 times with no cap on the timer, or a timer
  capped at 64 s (``icmp_rto.TIMERS``).

Tolerance ±25 % on each RTO ("15" and "9.90" come from a figure's reading), and 80–90 % for
"about 85 %". Measured on web traffic at 11.1 % bad (bad periods of mean 1 s) with the scheme
off and the study's main reading of it, 10 replications of 40 000 s, and on the ARQ
characterisation (window 3, 3 attempts, 50 % bad), 10 replications of 40 000 s.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from rtolab import calibration
from rtolab.calibration import Axis, Candidate, Reading, Target, frozen, settings
from rtolab.findings import Band, within
from rtolab.study import derive_seed, set_path
from rtolab.studies import icmp_rto

BAD_MEAN_11 = 1.0
BAD_MEAN_50 = 8.0
REPLICATIONS = 10
DURATION_S = 40_000.0
SEED = 2001
#: The settings that are not the scenario's: how the average RTO is read.
AVERAGE = "measure.average"

TARGETS: list[Target] = [
    Target("001", "001-rto-off", "Sec. V-B, Fig. 5", "for a bad period of 11%, we obtain an average RTO of 9.90 seconds compared to 15 without our scheme",
           "15 s", "average RTO without the scheme, web traffic, 11.1 % bad", within(15.0, 0.25), 15.0 * 0.25),
    Target("001", "001-rto-on", "Sec. V-B, Fig. 5", "for a bad period of 11%, we obtain an average RTO of 9.90 seconds compared to 15 without our scheme",
           "9.90 s", "average RTO with the scheme (its main reading), web traffic, 11.1 % bad", within(9.9, 0.25), 9.9 * 0.25),
    Target("001", "001-goodput-85", "Sec. II, Fig. 2", "With three attempts, our performance metric was found to be about 85% even for 50% bad period",
           "≈ 85 %", "goodput ratio (bytes delivered / payload sent) of unmodified TCP, web traffic, ARQ window 3, 3 attempts, 50 % bad",
           Band(0.80, 0.90), 0.05),
]

AXES: list[Axis] = [
    Axis("connection", (
        Reading("per packet call", "rtolab's earlier reading: each packet call a new connection (Wald's identity carries a call's ratios to a session)", {}),
        Reading("per session", "one connection carries the session's packet calls and its timer across the reading times: 'a single user running a single session' (Sec. IV), 'a single TCP session' (Sec. I-A)",
                {"generators.web.connection": "per-session"}),
    )),
    Axis("average over", (
        Reading("calls in progress", "rtolab's earlier reading: the timer's value (backed off as armed) averaged over the time packet calls are in progress", {AVERAGE: "active"}),
        Reading("the whole run", "the timer's value averaged over the whole run, reading times included (a persistent connection's timer between calls; none with a connection per call)", {AVERAGE: "run"}),
        Reading("expiries", "the timer's value when it expires, averaged over the timeouts", {AVERAGE: "expiry"}),
        Reading("RTT samples", "the RTO computed after each RTT sample, never backed off", {AVERAGE: "sample"}),
    )),
    Axis("timer ceiling", (
        Reading("ns-1: back-off ≤ 64×, no cap", "ns-1's rtt_backoff doubles t_backoff_ while below 64 and has no maxrto_ (icmp_rto.TIMERS)", {}),
        Reading("64 s cap", "a timer capped at 64 s (BSD's TCPTV_REXMTMAX; RFC 6298 (2.5)'s 'at least 60 seconds')",
                {"generators.web.tcp.max_rto": "64s", "generators.web.tcp.max_backoff": None}),
    )),
]

#: The reading the search picked by ``rtolab.calibration.RULE``, frozen as the study's default.
CALIBRATED: dict[str, str] = {a.name: a.readings[0].name for a in AXES}


def calibrated() -> Candidate:
    """The frozen reading, the study's default."""
    return frozen(AXES, CALIBRATED)


def earlier() -> Candidate:
    """The study's reading before calibration."""
    return calibration.earlier(AXES)


def scenario_settings(candidate: Candidate) -> dict[str, Any]:
    """The scenario settings of ``candidate`` (without how the average is read)."""
    return {k: v for k, v in settings(candidate).items() if not k.startswith("measure.")}


def _spec(base: dict[str, Any], chosen: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(base)
    for path, value in {**chosen, **extra}.items():
        set_path(spec, path, value)
    return spec


def runs(candidate: Candidate) -> list[tuple[str, dict[str, Any], int]]:
    """The target runs of one candidate: (what, spec, seed), what being "off", "on" (web at
    11.1 % bad, with the ``rto`` series) or "arq" (window 3, 3 attempts, 50 % bad)."""
    chosen = scenario_settings(candidate)
    web = icmp_rto.web_scenario(DURATION_S)
    out = []
    for what, scheme in (("off", icmp_rto.OFF), ("on", icmp_rto.MAIN_SCHEME)):
        extra = {"links.wireless.loss": icmp_rto.channel(BAD_MEAN_11), **{f"generators.web.tcp.{k}": v for k, v in icmp_rto.SCHEMES[scheme].items()}, "output": {"series": ["rto"]}}
        out += [(what, _spec(web, chosen, extra), derive_seed(SEED, r)) for r in range(REPLICATIONS)]
    arq = {"links.wireless.loss": icmp_rto.channel(BAD_MEAN_50), icmp_rto.WINDOW: "3p", icmp_rto.ATTEMPTS: 3}
    out += [("arq", _spec(web, chosen, arq), derive_seed(SEED, r)) for r in range(REPLICATIONS)]
    return out


def averages(flows: pl.DataFrame, series: pl.DataFrame, run_end_s: float) -> dict[str, float]:
    """One run's average RTO under each reading of ``AVERAGE``: over the time packet calls
    are in progress (∫ RTO dt over each call's span / Σ spans, ``time_weighted_rto``), over the
    whole run from the first call's start (NaN when no connection outlives its call), over the
    timer's expiries (Σ idle before a timeout / timeouts) and over the RTT samples (the mean of
    the calls' ``mean_rto_s``)."""
    from rtolab.studies.icmp_rto_analysis import time_weighted_rto

    spans = time_weighted_rto(flows, series, run_end_s)
    steps = series.filter(pl.col("metric") == "rto").sort("time_s")
    persistent = flows["connection"].n_unique() < flows.height if "connection" in flows.columns else False
    if persistent and steps.height:
        t = steps["time_s"].to_list() + [run_end_s]
        v = steps["value"].to_list()
        whole = sum(v[i] * (t[i + 1] - t[i]) for i in range(len(v))) / (run_end_s - t[0])
    else:
        whole = math.nan
    timeouts = float(flows["timeouts"].sum())
    return {
        "active": float(spans["rto_integral_s"].sum()) / float(spans["active_s"].sum()),
        "run": whole,
        "expiry": float(flows["timeout_idle_s"].sum()) / timeouts if timeouts else math.nan,
        "sample": float(flows["mean_rto_s"].mean()),  # type: ignore[arg-type]
    }


def _measure(task: tuple[int, str, dict[str, Any], int]) -> tuple[int, str, dict[str, float]]:
    """Worker: one target run's averages (web) or goodput ratio (ARQ)."""
    from rtolab.api import run

    index, what, spec, seed = task
    r = run(spec, seed=seed)
    if what == "arq":
        f = r.flows
        elapsed = f["end_s"].fill_null(DURATION_S) - f["start_s"]
        sent = float((f["throughput_bps"].fill_null(0.0) * elapsed / 8).sum())
        return index, what, {"goodput_ratio": float(f["bytes"].sum()) / sent}
    return index, what, averages(r.flows, r.series, float(r.meta["sim_time_s"]))


def evaluate(cands: Sequence[Candidate], executor: Any = None) -> list[dict[str, float]]:
    """Each candidate's value for every target; candidates that differ only in how the
    average is read share their runs."""
    from rtolab.executors import LocalExecutor, run_all

    keys = [repr(sorted(scenario_settings(c).items())) for c in cands]
    distinct = list(dict.fromkeys(keys))
    plan = [(k, what, spec, seed) for k in distinct for what, spec, seed in runs(cands[keys.index(k)])]
    pool = executor or LocalExecutor()
    try:
        results = {i: (what, values) for i, what, values in run_all(pool, _measure, [(i, what, spec, seed) for i, (_, what, spec, seed) in enumerate(plan)])}
    finally:
        if executor is None:
            pool.shutdown()
    by_key: dict[str, dict[str, list[dict[str, float]]]] = {}
    for i, (k, what, _, _) in enumerate(plan):
        by_key.setdefault(k, {}).setdefault(what, []).append(results[i][1])
    out = []
    for cand, k in zip(cands, keys):
        reading = str(settings(cand)[AVERAGE])
        got = by_key[k]

        def mean(what: str, field: str) -> float:
            values = [d[field] for d in got[what]]
            return math.nan if any(math.isnan(x) for x in values) else sum(values) / len(values)

        out.append({"001-rto-off": mean("off", reading), "001-rto-on": mean("on", reading), "001-goodput-85": mean("arq", "goodput_ratio")})
    return out


def search_size() -> int:
    from rtolab.calibration import candidates

    settings_sets = {repr(sorted(scenario_settings(c).items())) for c in candidates(AXES)}
    return len(settings_sets) * 3 * REPLICATIONS
