"""Spikes, then and now (issue 44 §7): TCP against QUIC under paper 003's delay spikes, and
spurious timers in paper 000's HSDPA cells. Not graded against a paper: no findings
registry, no scorecard::

    python -m rtolab.studies.quic_spikes OUT [--quick] [--docs docs] [--workers 2]

runs three parts into ``OUT`` (resumable: each run's summary is kept in ``OUT/<part>.json``
by run key, and a second call reuses every finished run), writes the tables as CSV into
``OUT`` and, with ``--docs``, the page ``DOCS/quic-spikes.md`` and its figures
``DOCS/figures/quic-spikes/``.

Parts (every run is one of a ``rtolab.study.Study``'s points, with its seed):

- ``paper003``: paper 003's validation link (Sec. 4.1): 100 kbit/s, 100 ms one way, a
  transmitter that stops during a spike (ns-2's Delayer, ``hold = "queue"``), spike lengths
  uniform on [1, 5] s (its Fig. 7), spike-free intervals uniform on [10, 30] s (E = 20 s in
  ``spikes.interval_text``), congestion loss 0 or 2 % on data, the window capped at the
  bandwidth-delay product. Two departures, both forced by QUIC: every packet is 1228 B on the
  wire (QUIC's 1200-byte minimum datagram, RFC 9000 §14, plus UDP and IPv4; TCP's MSS is set
  to 1176 B so that its segments with timestamps are the same size) instead of 576 B, and the
  rate is 100 kbit/s only (at 40 kbit/s a 1228 B packet takes 246 ms and the window would be
  one packet). QUIC's window is capped through flow control (``receive_window`` of the
  same three packets' payload), TCP's by ``max_window``.
- ``today``: ``studies/quic-spikes-today.toml``: spikes-today's LTE-like links.
- ``hsdpa``: paper 000's seven cells at its reproduction's frozen reading (round robin), web
  users over TCP (``ns2-sack1``, minRTO 0.2 s, the study's stack) or QUIC (NewReno, CUBIC):
  the share of transfers with a spurious RTO against the share with a spurious PTO.

The five transports of the spike parts (``TRANSPORTS``): the linux profile's CUBIC with its
detectors (F-RTO, Eifel, DSACK), without F-RTO (``sysctl tcp_frto=0``: Eifel and DSACK stay),
with no detection (every timeout believed: the TCP of paper 003's lossless model), and QUIC
with NewReno and with CUBIC.
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

#: The repository's ``studies/`` directory (the part ``today``'s TOML study).
STUDIES = Path(__file__).resolve().parents[3] / "studies"
TODAY_TOML = STUDIES / "quic-spikes-today.toml"

#: The linux profile's detectors without SACK-enhanced F-RTO: what ``sysctl tcp_frto=0``
#: leaves (crates/rtolab-sim/src/tcp/settings.rs, ``detect``).
NO_FRTO = ["eifel", "dsack"]

#: Transport labels, in the order every table and figure uses.
TRANSPORTS = ["tcp", "tcp-no-frto", "tcp-no-detect", "quic-newreno", "quic-cubic"]
TCP_LABELS = TRANSPORTS[:3]
QUIC_LABELS = TRANSPORTS[3:]


def transport_label(flow: dict[str, Any]) -> str:
    """The label of a flow table (or a web generator's): ``tcp`` with the linux profile's
    detectors, ``tcp-no-frto`` without F-RTO, ``tcp-no-detect`` with none, ``quic-<cc>``;
    an ns-2 stack keeps its name (``tcp-ns2-sack1``)."""
    if "quic" in flow:
        return f"quic-{flow['quic'].get('cc', 'cubic')}"
    tcp = flow.get("tcp", {})
    if str(tcp.get("stack", "")).startswith("ns2"):
        return f"tcp-{tcp['stack']}"
    detect = tcp.get("detect")
    if detect is None:
        return "tcp"
    if detect == "none":
        return "tcp-no-detect"
    if sorted(detect) == sorted(NO_FRTO):
        return "tcp-no-frto"
    return "tcp-" + "+".join(detect)


# --- part paper003 -------------------------------------------------------------------------

RATE_BPS = 100_000
ONE_WAY_S = 0.1
#: Bytes on the wire of every packet: a 1200-byte QUIC datagram with UDP and IPv4 headers.
WIRE_BYTES = 1228
#: TCP's MSS for segments of ``WIRE_BYTES``: 20 B IPv4, 20 B TCP, 12 B timestamps option.
TCP_MSS = WIRE_BYTES - 52
#: Stream bytes a 1200-byte QUIC datagram carries at most: 1200 less a short header of
#: 1 + 8 (connection ID) + up to 4 (packet number), the 16-byte AEAD tag and a STREAM frame
#: header of up to 25 (RFC 9000 §17.3, §19.8; RFC 9001 §5.3).
QUIC_PAYLOAD = 1200 - 13 - 16 - 25
LOSSES = [0.0, 0.02]
SPIKE_LENGTH = "uniform(1s, 5s)"
#: Paper 003's spike-free interval at E = 20 s (``spikes.interval_text(20)``).
SPIKE_INTERVAL = "uniform(10s, 30s)"


def paper_rtt_s() -> float:
    """R: two propagation delays plus one packet's transmission time (paper 003, Sec. 4.1)."""
    return 2 * ONE_WAY_S + WIRE_BYTES * 8 / RATE_BPS


def paper_window() -> int:
    """Cmax·R in packets, rounded to the nearest (``spikes.window_nearest``'s reading): 3."""
    return int(RATE_BPS / (8 * WIRE_BYTES) * paper_rtt_s() + 0.5)


def paper_flows() -> list[dict[str, Any]]:
    """The five flow tables of part paper003, each capped at ``paper_window`` packets."""
    w = paper_window()
    tcp = {"stack": "linux", "cc": "cubic", "mss": TCP_MSS, "max_window": w}
    quic = {"initial_mtu": 1200, "receive_window": f"{w * QUIC_PAYLOAD}B", "stream_receive_window": f"{w * QUIC_PAYLOAD}B"}
    base = {"name": "bulk", "route": ["radio"], "size": "inf"}
    return [
        {**base, "tcp": dict(tcp)},
        {**base, "tcp": {**tcp, "detect": list(NO_FRTO)}},
        {**base, "tcp": {**tcp, "detect": "none"}},
        {**base, "quic": {"cc": "newreno", **quic}},
        {**base, "quic": {"cc": "cubic", **quic}},
    ]


def paper_study(quick: bool = False, replications: int | None = None, duration_s: float | None = None) -> Study:
    """5 transports × 2 losses × spikes off/on, ``replications`` (10; quick 2) of 4000 s
    (quick 600 s) runs: about 170 spikes per run."""
    length = duration_s if duration_s is not None else (600.0 if quick else 4000.0)
    link = {
        "name": "radio",
        "rate": RATE_BPS,
        "delay": f"{ONE_WAY_S * 1000:g}ms",
        "queue": {"kind": "droptail", "limit": "1000p"},
        "loss": 0.0,
        "reverse": {"loss": 0.0},
    }
    return Study.from_dict({
        "name": "quic-spikes-paper003",
        "scenario": {"name": "quic-spikes-paper003", "duration": f"{length:g}s", "links": [link], "flows": paper_flows()[:1]},
        "cases": [
            {"tag.spikes": "off"},
            {"tag.spikes": "on", "links.radio.spikes": {"interval": SPIKE_INTERVAL, "length": SPIKE_LENGTH, "hold": "queue"}},
        ],
        "grid": {"links.radio.loss": LOSSES, "flows.bulk": paper_flows()},
        "replications": replications or (2 if quick else 10),
        "seed": 2003,
    })


# --- part today ----------------------------------------------------------------------------


def today_study(quick: bool = False, replications: int | None = None, duration_s: float | None = None) -> Study:
    """``studies/quic-spikes-today.toml``; quick: the slower trace only, 2 replications of
    120 s."""
    s = Study.load(TODAY_TOML)
    length = duration_s if duration_s is not None else (120.0 if quick else None)
    base = copy.deepcopy(s.base)
    if length is not None:
        base["duration"] = f"{length:g}s"
    grid = dict(s.grid)
    if quick:
        grid["links.radio.trace"] = [t for t in grid["links.radio.trace"] if "slow" in str(t)]
    return Study(s.name, base, grid, s.cases, replications or (2 if quick else s.replications), s.seed)


# --- part hsdpa ----------------------------------------------------------------------------

WEB = "generators.web"
HSDPA_USERS = [50, 100]
#: The TCP web users' minimum RTO (paper 000's question: a 200 ms floor).
MIN_RTO = "0.2s"
SCHEDULER = "rr"
WARM_UP_S = 10.0


def hsdpa_study(quick: bool = False, replications: int | None = None, duration_s: float | None = None) -> Study:
    """Paper 000's cells at the frozen reading with round robin: web users over ns2-sack1
    at minRTO 0.2 s, QUIC NewReno or QUIC CUBIC; 50 and 100 users; 3 replications of the
    reading's 300 s (quick: 100 users, 2 replications of 60 s). QUIC keeps quinn-proto's
    defaults (1200-byte datagrams, initial RTT 333 ms, peer max_ack_delay 25 ms)."""
    from rtolab.studies import minrto_hsdpa_calibration as calibration

    spec = calibration.scenario(calibration.calibrated())
    set_path(spec, "radio.scheduler", SCHEDULER)
    set_path(spec, "generators.web.tcp.min_rto", MIN_RTO)
    set_path(spec, "generators.web.tcp.stack", "ns2-sack1")
    if quick or duration_s is not None:
        spec["duration"] = f"{duration_s if duration_s is not None else 60.0:g}s"
    web = next(g for g in spec["generators"] if g.get("name") == "web")
    rest = {k: v for k, v in web.items() if k != "tcp"}
    tables = [copy.deepcopy(web)] + [{**copy.deepcopy(rest), "quic": {"cc": cc}} for cc in ("newreno", "cubic")]
    # One grid path holds the whole generator, its load included: a later grid path into a
    # table that a grid value put in place would write into the grid's own value, which
    # every point holding it shares (``rtolab.study.set_path`` does not copy it).
    return Study.from_dict({
        "name": "quic-spikes-hsdpa",
        "scenario": spec,
        "grid": {WEB: [{**copy.deepcopy(t), "users": u} for u in ([100] if quick else HSDPA_USERS) for t in tables]},
        "replications": replications or (2 if quick else 3),
        "seed": 2005,
    })


PARTS = ("paper003", "today", "hsdpa")


def studies(quick: bool = False, replications: int | None = None) -> dict[str, Study]:
    """The three parts' studies, by part name."""
    return {"paper003": paper_study(quick, replications), "today": today_study(quick, replications), "hsdpa": hsdpa_study(quick, replications)}


def _timing(out: Path, made: dict[str, int], seconds: dict[str, float]) -> dict[str, Any]:
    """This call's costs per part, or, for a part it reused whole, those of the call that
    made it (``OUT/timing.json``), so that a page written from stored runs still says what
    they cost."""
    path = out / "timing.json"
    old: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    new = dict(old)
    for part, n in made.items():
        if n or part not in old:
            new[part] = {"runs_made": n, "seconds": seconds[part], "date": time.strftime("%Y-%m-%d")}
    path.write_text(json.dumps(new, indent=1) + "\n")
    return new


def run(out: Path, quick: bool = False, workers: int = 2, docs: Path | None = None, replications: int | None = None) -> int:
    """The whole study into ``out``; the page and figures into ``docs`` when given."""
    from rtolab.executors import LocalExecutor
    from rtolab.studies import quic_spikes_analysis as analysis
    from rtolab.studies import quic_spikes_doc as doc
    from rtolab.studies import quic_spikes_runs as runs

    chosen = studies(quick, replications)
    out.mkdir(parents=True, exist_ok=True)
    made: dict[str, int] = {}
    seconds: dict[str, float] = {}
    rows: dict[str, list[dict[str, Any]]] = {}
    pool = LocalExecutor(workers)
    try:
        for part, s in chosen.items():
            t0 = time.monotonic()
            rows[part], made[part] = runs.run_part(part, s, out / f"{part}.json", pool, progress=sys.stderr.isatty())
            seconds[part] = time.monotonic() - t0
    finally:
        pool.shutdown()
    timing = _timing(out, made, seconds)
    tables = analysis.tabulate(rows, chosen)
    written = analysis.write_csv(tables, out)
    total = sum(len(s.points()) for s in chosen.values())
    print(f"quic-spikes: {total} runs ({sum(made.values())} made in {sum(seconds.values()):.0f} s), {len(written)} tables in {out}")
    if docs is not None:
        page = doc.write(docs, chosen, tables, timing, workers, quick)
        print(f"wrote {page}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtolab.studies.quic_spikes", description="TCP against QUIC under delay spikes and in HSDPA cells (issue 44 §7).")
    parser.add_argument("out", type=Path, help="where the runs' summaries (OUT/<part>.json) and the tables go")
    parser.add_argument("--quick", action="store_true", help="2 replications of short runs, one trace, one load")
    parser.add_argument("--docs", type=Path, default=None, help="write DOCS/quic-spikes.md and DOCS/figures/quic-spikes/")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    parser.add_argument("--replications", type=int, default=None, help="replications per grid point (default: each part's own)")
    args = parser.parse_args(argv)
    from rtolab import _core

    try:
        return run(args.out, args.quick, args.workers, args.docs, args.replications)
    except _core.SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
