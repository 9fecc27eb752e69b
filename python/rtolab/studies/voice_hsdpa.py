"""TCP beside traffic that does not adapt to congestion on HSDPA's shared channel: the study
paper 000 asks for at its end (Sec. 5–6: "a single, or a few high-rate UDP flows can cause
sudden service interruptions manifesting themselves as delay spikes"; "further studies may
investigate ... the effects of applications not adapting to congestion"). Not graded against
a paper: no findings registry, no scorecard::

    python -m rtolab.studies.voice_hsdpa OUT [--quick] [--docs docs] [--workers 2]

sweeps into ``OUT/sweep`` (resumable: a second call reuses every finished run), runs the
delay-series pass (``voice_hsdpa_tails``), writes its tables as CSV into ``OUT`` and, with
``--docs``, the page ``DOCS/voice-hsdpa.md`` and its figures ``DOCS/figures/voice-hsdpa-*.png``.

Set-up: paper 000's seven cells exactly as its reproduction builds them at the frozen
calibrated reading (``minrto_hsdpa_calibration.scenario(calibrated())``: ns-2's uncut Pareto
files, a 50-packet drop-tail buffer shared by each cell's users, a 6 s first RTO, 536 B
segments, one IP packet per radio block, ns-2's Sack1 agent), with 100 web users, and three
factors beside the paper's scheduler and minRTO:

- voice: 0, 35 or 140 AMR 12.2 calls (0, 5 or 20 per cell on average), each a mobile user
  listening to a downlink call for the whole run;
- UDP: none, or three downlink flows of 1 Mbit/s of 1200 B datagrams, each to a mobile user
  of its own, either constant ("cbr") or switched on and off with exponential periods of mean
  1 s ("on-off": the "sudden" bursts of the paper's words).

Without voice and UDP a run is bit for bit paper 000's reproduction's run at 100 users with
the same seed (the same base seed, 2005, is used): a voice generator with no users and an
empty flow list change nothing.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rtolab.study import Study, set_path
from rtolab.studies import minrto_hsdpa

SCHEDULER = minrto_hsdpa.SCHEDULER
MIN_RTO = minrto_hsdpa.MIN_RTO
WEB_USERS = minrto_hsdpa.USERS
VOICE = "generators.voice.users"
UDP = "tag.udp"
FLOWS = "flows"

#: The web load: paper 000's boundary between moderate and high load (Sec. 3.1: 50–100
#: users moderate, above 100 high). Its reproduction has spurious timeouts there in 0.6 % (RR)
#: and 2 % (max-SIR) of transfers at minRTO 0–0.2 s and none at 1 s with RR, the cells are
#: busy in about 70 % of their TTIs (room for more traffic), and a 300 s run costs 0.5 s.
LOAD_USERS = 100
SCHEDULERS = minrto_hsdpa.SCHEDULERS
MIN_RTOS = ["0s", "0.2s", "1s"]
CELLS = 7
#: Calls: 0, 5 and 20 per cell on average.
VOICE_CALLS = [0, 5 * CELLS, 20 * CELLS]
#: 3GPP's speech codec (AMR 12.2 kbit/s, 20 ms frames): 73 B per packet on the wire.
CODEC = "amr-12.2"
UDP_FLOWS = 3
#: About what one cell carries at this load (5.7 Mbit/s over seven cells in the reproduction,
#: 0.8 Mbit/s per cell), more than a cell-edge user can receive alone (Table 1's 360 B blocks
#: every 2 ms are 1.44 Mbit/s, half of them damaged below -3.5 dB, and one 1228 B datagram
#: fills four of them), less than a user near its base station gets (1800 B blocks).
UDP_RATE = "1Mbps"
UDP_SIZE = "1200B"
ON_OFF = ("exp(1s)", "exp(1s)")
UDP_LEVELS = ["none", "cbr", "on-off"]
#: Paper 000's reproduction's base seed, so that the runs without voice and UDP are its runs.
SEED = 2005
REPLICATIONS = 10
QUICK_REPLICATIONS = 2
QUICK_DURATION_S = 60.0
#: Transfers begun before this are left out of the per-transfer measures (paper 000's warm-up).
WARM_UP_S = minrto_hsdpa.WARM_UP_S
#: The minRTO of the delay-series pass (``voice_hsdpa_tails``) and of the page's MOS table.
TAIL_MIN_RTO = "0.2s"


def udp_flows(level: str) -> list[dict[str, Any]]:
    """The UDP flows of one level of the UDP factor: none, or ``UDP_FLOWS`` downlink flows."""
    if level == "none":
        return []
    udp: dict[str, Any] = {"rate": UDP_RATE, "size": UDP_SIZE}
    if level == "on-off":
        udp["on"], udp["off"] = ON_OFF
    return [{"name": f"udp{i}", "route": ["hsdpa"], "udp": dict(udp)} for i in range(UDP_FLOWS)]


def base_scenario(duration_s: float | None = None) -> dict[str, Any]:
    """Paper 000's scenario at the frozen calibrated reading (its reproduction's own builder),
    at ``LOAD_USERS`` web users, with a voice generator of no calls and no flows; the run
    length is the reading's (300 s) unless ``duration_s`` is given."""
    from rtolab.studies import minrto_hsdpa_calibration as calibration

    spec = calibration.scenario(calibration.calibrated())
    set_path(spec, WEB_USERS, LOAD_USERS)
    if duration_s is not None:
        spec["duration"] = f"{duration_s:g}s"
    spec["generators"].append({"kind": "voip", "name": "voice", "users": 0, "codec": CODEC, "route": ["hsdpa"]})
    spec["flows"] = []
    return spec


def study(quick: bool = False, replications: int | None = None, duration_s: float | None = None) -> Study:
    """3 UDP levels (cases) × 2 schedulers × 3 minRTOs × 3 voice loads, ``REPLICATIONS``
    replications of the reading's 300 s runs; quick: the same grid, 2 replications of 60 s."""
    length = duration_s if duration_s is not None else (QUICK_DURATION_S if quick else None)
    return Study.from_dict({
        "name": "voice-hsdpa",
        "scenario": base_scenario(length),
        "cases": [{UDP: level, FLOWS: udp_flows(level)} for level in UDP_LEVELS],
        "grid": {SCHEDULER: SCHEDULERS, MIN_RTO: MIN_RTOS, VOICE: VOICE_CALLS},
        "replications": replications or (QUICK_REPLICATIONS if quick else REPLICATIONS),
        "seed": SEED,
    })


def duration_s(s: Study) -> float:
    """The run length of ``s``'s scenario, in seconds."""
    return float(str(s.base["duration"]).removesuffix("s"))


def same_as_paper_000(s: Study, sweep_dir: Path) -> bool:
    """Whether the study's first run without voice and UDP (round robin, replication 0) gives
    the very flows table of paper 000's reproduction's scenario at ``LOAD_USERS`` users with
    the same scheduler, minRTO, run length and seed (one run of that scenario, compared with
    the stored run)."""
    from rtolab.api import run as run_one
    from rtolab.store import Store
    from rtolab.studies import minrto_hsdpa_calibration as calibration

    p = next(p for p in s.points() if p.replication == 0 and p.params[UDP] == "none" and p.params[VOICE] == 0)
    spec = calibration.scenario(calibration.calibrated())
    for path in (WEB_USERS, SCHEDULER, MIN_RTO):
        set_path(spec, path, _get(p.spec, path))
    spec["duration"] = s.base["duration"]
    theirs = run_one(spec, seed=p.seed).flows
    ours = Store(sweep_dir).load("flows", s, [p]).select(theirs.columns)
    return bool(ours.height == theirs.height and ours.equals(theirs))


def _get(spec: dict[str, Any], path: str) -> Any:
    """The value at a dotted path of ``spec`` (list elements by name)."""
    node: Any = spec
    for part in path.split("."):
        node = next(x for x in node if x.get("name") == part) if isinstance(node, list) else node[part]
    return node


def _timing(out: Path, runs_made: int, sweep_s: float, tails_made: int, tails_s: float) -> dict[str, Any]:
    """This call's costs, or, for the parts it reused, those of the call that made them
    (``OUT/timing.json``), so that a page written from stored runs still says what they cost."""
    path = out / "timing.json"
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    new = dict(old)
    if runs_made or "sweep_s" not in old:
        new.update(runs_made=runs_made, sweep_s=sweep_s, sweep_date=time.strftime("%Y-%m-%d"))
    if tails_made or "tails_s" not in old:
        new.update(tails_made=tails_made, tails_s=tails_s)
    path.write_text(json.dumps(new, indent=1) + "\n")
    return new


def run(out: Path, quick: bool = False, workers: int = 2, docs: Path | None = None, replications: int | None = None, duration: float | None = None) -> int:
    """The whole study into ``out``; the page and figures into ``docs`` when given."""
    from rtolab.executors import LocalExecutor
    from rtolab.studies import voice_hsdpa_analysis as analysis
    from rtolab.studies import voice_hsdpa_doc as doc
    from rtolab.studies import voice_hsdpa_tails as tails
    from rtolab.sweep import sweep

    s = study(quick, replications, duration)
    out.mkdir(parents=True, exist_ok=True)
    todo: list[int] = []
    pool = LocalExecutor(workers)
    try:
        t0 = time.monotonic()
        sweep(s, out / "sweep", executor=pool, progress=sys.stderr.isatty(), load=False, on_todo=lambda keys: todo.append(len(keys)))
        sweep_s = time.monotonic() - t0
        t1 = time.monotonic()
        tail, tails_made = tails.tails(s, out / "tails.json", pool)
        tails_s = time.monotonic() - t1
    finally:
        pool.shutdown()
    timing = _timing(out, todo[0] if todo else 0, sweep_s, tails_made, tails_s)
    timing["same_as_paper_000"] = same_as_paper_000(s, out / "sweep")
    tables = analysis.tabulate(out / "sweep", s, duration_s(s), tail)
    written = analysis.write_csv(tables, out)
    print(f"{s.name}: {len(s.points())} runs ({timing['runs_made']} made in {timing['sweep_s']:.0f} s), {len(written)} tables in {out}")
    if docs is not None:
        page = doc.write(docs, s, tables, timing, workers, quick)
        print(f"wrote {page}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtolab.studies.voice_hsdpa", description="TCP beside voice and high-rate UDP over paper 000's HSDPA cells.")
    parser.add_argument("out", type=Path, help="where the sweep (OUT/sweep) and the tables go")
    parser.add_argument("--quick", action="store_true", help=f"2 replications of {QUICK_DURATION_S:g} s runs")
    parser.add_argument("--docs", type=Path, default=None, help="write DOCS/voice-hsdpa.md and DOCS/figures/voice-hsdpa-*.png")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    parser.add_argument("--replications", type=int, default=None, help="replications per grid point (default 10, quick 2)")
    parser.add_argument("--duration", type=float, default=None, help="run length in seconds (default 300, quick 60)")
    args = parser.parse_args(argv)
    from rtolab import _core
    from rtolab.store import StoreDamaged
    from rtolab.sweep import SweepFailed

    try:
        return run(args.out, args.quick, args.workers, args.docs, args.replications, args.duration)
    except (SweepFailed, StoreDamaged, _core.SpecError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def tail_specs(s: Study) -> list[tuple[dict[str, Any], dict[str, Any], int]]:
    """The runs of the delay-series pass: for each (UDP, scheduler, voice) the study's run at
    ``TAIL_MIN_RTO`` of replication 0 (same spec and seed), recording every packet's one-way
    delay: (its parameters, its spec, its seed)."""
    out = []
    for p in s.points():
        if p.replication == 0 and p.params[MIN_RTO] == TAIL_MIN_RTO:
            spec = copy.deepcopy(p.spec)
            spec["output"] = {"series": ["delay"]}
            out.append(({k: v for k, v in p.params.items() if k != FLOWS}, spec, p.seed))
    return out


if __name__ == "__main__":
    sys.exit(main())
