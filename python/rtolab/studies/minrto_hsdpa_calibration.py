"""Paper 000's operating point: its targets, the admissible readings of what it leaves open,
and the reading frozen from the search (``rtolab.calibration``; ``rtolab calibrate
minrto-hsdpa`` runs the search and writes docs/calibration.md's section).

Targets, from the paper's own words (Sec. 3.1 and Fig. 4), taken as the issue that set them
fixed them before any search: at 175 users, the first load of the study above the paper's
150, "about 50 %" of transfers below 10 kbit/s for both schedulers; at 150 users, a system
throughput within Fig. 4's axis (1 to 7·10^6 bit/s, up to 7.5 Mbit/s). Each is measured from
the study's own base scenario with seeds 1 and 2 at minRTO 0.2 s with TCP SACK, the mean of
the two runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtolab import calibration
from rtolab.calibration import Axis, Candidate, Reading, Target, candidates, frozen, settings
from rtolab.findings import Band
from rtolab.study import set_path
from rtolab.studies.minrto_hsdpa import DURATION_S, FILE_SIZES_UNCUT, PAPER_MAX_USERS, base_scenario

#: The load just above the paper's largest (the study's grid has 200 and 300 beyond it; the
#: issue's statement of the target names 175).
ABOVE_USERS = 175
SEEDS = (1, 2)
MIN_RTO = "0.2s"
SCHEDULERS = ("rr", "max-sir")
NAMES = {"rr": "RR", "max-sir": "SIR"}

_LOW = (
    "We initially used a range of up to 500 users, but we settled on 150 users as a maximum. Above this point about "
    "50% of the transfers had a goodput of less than 10 kbit/s, regardless of scheduler and minRTO."
)
_FIG4 = "Figure 4 presents the throughput for the whole system; its y axis runs from 1e+06 to 7e+06 bit/s over 0–150 users."

TARGETS: list[Target] = [
    *(
        Target(
            "000", f"000-load-below-10k-{s}", "Sec. 3.1", _LOW, "about 50 %",
            f"share of transfers begun after the 10 s warm-up with goodput < 10 kbit/s (an unfinished one at its goodput so far), "
            f"{NAMES[s]}, {ABOVE_USERS} users, minRTO 0.2 s, SACK, mean of seeds 1–2",
            Band(0.25, 0.75), 0.25,
        )
        for s in SCHEDULERS
    ),
    *(
        Target(
            "000", f"000-fig4-throughput-{s}", "Fig. 4", _FIG4, "1–7 Mbit/s",
            f"system throughput (transport-layer data with retransmissions per second), {NAMES[s]}, {PAPER_MAX_USERS} users, "
            "minRTO 0.2 s, SACK, mean of seeds 1–2",
            Band(1e6, 7.5e6), 1e6,
        )
        for s in SCHEDULERS
    ),
]

AXES: list[Axis] = [
    Axis("file sizes", (
        Reading("3GPP cut-off Pareto", "TR 25.848 Annex A / TR 25.892: shape 1.1, mean 25 kB, cut off at 2 MB (the paper's two numbers pick it out)", {}),
        Reading("ns-2 uncut Pareto", "ns-2.27's RandomVariable/Pareto with avg_ 25000, shape_ 1.1, the generator of the simulator the paper ran", {"generators.web.size": FILE_SIZES_UNCUT}),
    )),
    Axis("run length", (
        Reading("60 s", "rtolab's earlier choice; the paper gives no run length", {}),
        Reading("300 s", "runs long enough for more of the heavy tail to be drawn (the paper gives no run length)", {"duration": "300s"}),
    )),
    Axis("base-station buffer", (
        Reading("100 p per user", "rtolab's earlier choice; the paper gives no buffer", {}),
        Reading("50 p shared per cell", "ns-2's default queue (`Queue set limit_ 50`, tcl/lib/ns-default.tcl), one drop-tail queue per cell", {"radio.cell_buffer": "50p"}),
    )),
    Axis("first RTO", (
        Reading("3 s", "ns-2.35's rtxcur_init_ 3.0 (changed on 2006/01/21)", {}),
        Reading("6 s", "ns-2.27's rtxcur_init_ 6.0, the simulator the paper ran (Sec. 3.1)", {"generators.web.tcp.initial_rto": "6s"}),
    )),
    Axis("segment size", (
        Reading("1000 B", "ns-2's Agent/TCP packetSize_ 1000, the one-way Sack1 agent rtolab's ns2-sack1 stack models", {}),
        Reading("536 B", "ns-2's Agent/TCP/FullTcp segsize_ 536 (tcl/lib/ns-default.tcl): 'connection establishment takes place for every flow' (Sec. 3.1) is what ns-2's two-way agent does", {"generators.web.tcp.mss": 536}),
    )),
    Axis("code multiplexing", (
        Reading("while blocks are not filled", "rtolab's earlier reading of 'up to three users in the same time slot'", {}),
        Reading("whenever backlogged, 1/k codes and power", "up to three users whenever that many are backlogged; each gets 1/k of the codes and the power (3GPP TS 25.308, TS 25.214 CQI tables)", {"radio.multiplex": "backlogged"}),
        Reading("whenever backlogged, 1/k power", "as before, each with a whole Table-1 block at its 1/k-power SIR (Table 1's sizes read as per-user blocks)", {"radio.multiplex": "backlogged", "radio.multiplex_split": "power"}),
    )),
    Axis("packets per block", (
        Reading("concatenated", "rtolab's earlier reading: a block carries the next packets' bytes after the head packet's", {}),
        Reading("one packet per block", "one IP packet, or the fragment of one, per radio block: the paper never says packets share a block", {"radio.concatenation": False}),
    )),
]

#: The reading the search picked by ``rtolab.calibration.RULE`` (docs/calibration.md), frozen
#: as the study's default: axis → reading.
CALIBRATED: dict[str, str] = {
    "file sizes": "ns-2 uncut Pareto",
    "run length": "300 s",
    "base-station buffer": "50 p shared per cell",
    "first RTO": "6 s",
    "segment size": "536 B",
    "code multiplexing": "while blocks are not filled",
    "packets per block": "one packet per block",
}


def calibrated() -> Candidate:
    """The frozen reading, the study's default."""
    return frozen(AXES, CALIBRATED)


def earlier() -> Candidate:
    """The study's reading before calibration."""
    return calibration.earlier(AXES)


def scenario(candidate: Candidate) -> dict[str, Any]:
    """The study's base scenario under ``candidate``'s readings."""
    chosen = settings(candidate)
    spec = base_scenario(float(str(chosen["duration"]).removesuffix("s")) if "duration" in chosen else DURATION_S)
    for path, value in chosen.items():
        if path != "duration":
            set_path(spec, path, value)
    return spec


def duration_s(spec: Mapping[str, Any]) -> float:
    return float(str(spec["duration"]).removesuffix("s"))


def runs(candidate: Candidate) -> list[tuple[str, int, int, dict[str, Any]]]:
    """The target runs of one candidate: (scheduler, users, seed, spec) at each target load."""
    out = []
    for sched in SCHEDULERS:
        for users in (PAPER_MAX_USERS, ABOVE_USERS):
            spec = scenario(candidate)
            set_path(spec, "radio.scheduler", sched)
            set_path(spec, "generators.web.users", users)
            set_path(spec, "generators.web.tcp.min_rto", MIN_RTO)
            set_path(spec, "generators.web.tcp.stack", "ns2-sack1")
            out += [(sched, users, seed, spec) for seed in SEEDS]
    return out


def _measure(task: tuple[int, dict[str, Any], int]) -> tuple[int, float, float]:
    """Worker: one run's (index, share below 10 kbit/s, system throughput)."""
    from rtolab.api import run
    from rtolab.studies.minrto_hsdpa_analysis import operating_point

    index, spec, seed = task
    low, throughput = operating_point(run(spec, seed=seed).flows, duration_s(spec))
    return index, low, throughput


def evaluate(cands: Sequence[Candidate], executor: Any = None) -> list[dict[str, float]]:
    """Each candidate's value for every target (``rtolab.calibration.search``'s evaluate): its
    target runs on ``executor`` (local workers on every core by default)."""
    from rtolab.executors import LocalExecutor, run_all

    plan = [(c, sched, users, seed, spec) for c, cand in enumerate(cands) for sched, users, seed, spec in runs(cand)]
    tasks = [(i, spec, seed) for i, (_, _, _, seed, spec) in enumerate(plan)]
    results: dict[int, tuple[float, float]] = {}
    pool = executor or LocalExecutor()
    try:
        for index, low, throughput in run_all(pool, _measure, tasks):
            results[index] = (low, throughput)
    finally:
        if executor is None:
            pool.shutdown()
    values: list[dict[str, list[float]]] = [{} for _ in cands]
    for i, (c, sched, users, _, _) in enumerate(plan):
        low, throughput = results[i]
        if users == ABOVE_USERS:
            values[c].setdefault(f"000-load-below-10k-{sched}", []).append(low)
        else:
            values[c].setdefault(f"000-fig4-throughput-{sched}", []).append(throughput)
    return [{k: sum(v) / len(v) for k, v in d.items()} for d in values]


def search_size() -> int:
    return len(candidates(AXES)) * len(SCHEDULERS) * 2 * len(SEEDS)
