#!/usr/bin/env python3
"""Runs rtolab scenarios in ns-3.44 (Python bindings: `pip install ns3==3.44.post0`) and prints
per-flow results as one JSON object.

    python validate/ns3/ns3_run.py validate/kernel/*.toml            # {case: {...}} per file
    python validate/ns3/ns3_run.py --series cwnd CASE.toml           # with cwnd/ssthresh series
    python validate/ns3/ns3_run.py --cc bic CASE.toml                # override every flow's cc
    python validate/ns3/ns3_run.py --selftest                        # ends "N passed, N failed"

`scenario.py` turns each TOML into the set-up (or the reason ns-3 cannot run it); `probe.h`
builds it in ns-3 and counts. Per flow: `start_s`, `end_s` (last byte delivered),
`retransmits` (data segments sent again: TcpSocketBase's "Retransmission" trace),
`timeouts` (RTO expiries: ReTxTimeout's CongestionStateSet(CA_LOSS); SYN timeouts are not
counted, as in rtolab), `mean_rto_s` (the RTO after each ACK that advances SND.UNA, as rtolab
averages it after each RTT sample). Spurious timeouts need an oracle ns-3 does not have:
`null`. ns-3.44 has no spurious-timeout detection or undo, so those counts are 0.

Importing the bindings takes about 15 s; each case then runs in well under a second. The
bindings print two "Failed to materialize symbols" lines on import; they are harmless.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scenario import CC, CannotRun, Setup, from_tree, load  # noqa: E402

LIMIT_S = 600.0


def bindings() -> Any:
    """cppyy's global namespace with ns-3 and `probe.h` loaded."""
    from ns import ns  # noqa: F401  (loads ns-3's libraries and include paths into cppyy)
    import cppyy

    cppyy.include(str(HERE / "probe.h"))
    return cppyy.gbl


def run_setup(gbl: Any, setup: Setup, series: bool) -> list[dict[str, Any]]:
    """Runs one set-up; one dict per flow."""
    p = gbl.rtolab_ns3
    link = p.LinkSetup()
    link.rateBps = setup.link.rate_bps
    link.delayS = setup.link.delay_s
    link.queueLimit = setup.link.queue_limit
    for n in setup.link.drop_packets:
        link.dropNth.push_back(n)
    tcp = p.TcpSetup()
    tcp.mss, tcp.iw, tcp.sack = setup.tcp.mss, setup.tcp.iw, setup.tcp.sack
    tcp.timestamps, tcp.minRtoS = setup.tcp.timestamps, setup.tcp.min_rto_s
    flows = gbl.std.vector[p.FlowSetup]()
    for f in setup.flows:
        fs = p.FlowSetup()
        fs.size, fs.startS, fs.cc = f.size, f.start_s, f.cc
        flows.push_back(fs)
    outs = p.Run(link, tcp, flows, LIMIT_S)
    rows = []
    for f, o in zip(setup.flows, outs):
        row: dict[str, Any] = {
            "name": f.name,
            "cc": f.cc,
            "start_s": o.startS,
            "end_s": o.endS if o.endS >= 0 else None,
            "retransmits": int(o.retransmits),
            "timeouts": int(o.timeouts),
            "mean_rto_s": o.rtoSumS / o.rtoSamples if o.rtoSamples else None,
        }
        if series:
            row["cwnd"] = [[t, v] for t, v in zip(o.cwndT, o.cwndV)]
            row["ssthresh"] = [[t, v] for t, v in zip(o.ssthreshT, o.ssthreshV)]
        rows.append(row)
    return rows


def metrics(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """The columns of validate/kernel_compare.py: the slowest flow's completion, sums of
    counts, the mean over flows of the mean RTO."""
    ends = [r["end_s"] for r in rows]
    rtos = [r["mean_rto_s"] for r in rows if r["mean_rto_s"] is not None]
    return {
        "completion_s": None if None in ends else max(r["end_s"] - r["start_s"] for r in rows),
        "retransmits": float(sum(r["retransmits"] for r in rows)),
        "timeouts": float(sum(r["timeouts"] for r in rows)),
        "spurious_timeouts": None,
        "spurious_detected": 0.0,
        "undos": 0.0,
        "mean_rto_s": sum(rtos) / len(rtos) if rtos else None,
    }


def run_cases(paths: list[Path], series: bool = False, cc: str | None = None) -> dict[str, Any]:
    """{case stem: {"flows": [...], "metrics": {...}} or {"why": reason}}."""
    out: dict[str, Any] = {}
    gbl = None
    for path in paths:
        try:
            setup = load(path)
        except CannotRun as e:
            out[path.stem] = {"why": str(e)}
            continue
        if cc is not None:
            setup = replace(setup, flows=tuple(replace(f, cc=CC[cc]) for f in setup.flows))
        gbl = gbl or bindings()
        rows = run_setup(gbl, setup, series)
        out[path.stem] = {"flows": rows, "metrics": metrics(rows)}
    return out


def selftest() -> int:
    """Checks that pin the mapping: ten segments (the IW) take the handshake plus one round
    trip; dropping the 3rd packet loses the first data segment (the 2nd is the pure ACK that
    ends the handshake), which one fast retransmit repairs; the lost SYN of `lost-syn` costs Linux's 1 s
    SYN timeout; spikes are refused."""
    link = {"name": "l", "rate": "10Mbps", "delay": "50ms", "queue": {"kind": "droptail", "limit": "100p"}}
    flow = {"name": "f", "route": ["l"], "size": 14480, "tcp": {"cc": "reno"}}
    gbl = bindings()
    clean = run_setup(gbl, from_tree({"links": [link], "flows": [flow]}, "iw"), False)[0]
    lossy = run_setup(gbl, from_tree({"links": [{**link, "drop_packets": [3]}], "flows": [flow]}, "drop"), False)[0]
    res = run_cases(sorted((HERE.parent / "kernel").glob("*.toml")))
    syn = res["lost-syn"]["metrics"]
    checks = [
        ("IW in one round trip", clean["retransmits"] == 0 and 0.15 < clean["end_s"] < 0.18),
        ("3rd packet is the first data segment", lossy["retransmits"] == 1 and lossy["timeouts"] == 0),
        ("lost SYN adds 1 s", syn["completion_s"] is not None and syn["completion_s"] > 1.0 and syn["timeouts"] == 0),
        ("spikes refused", all("why" in v for k, v in res.items() if k.startswith("spike"))),
    ]
    failed = [name for name, ok in checks if not ok]
    for name in failed:
        print(f"FAILED: {name}")
    print(f"ns3 selftest: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", type=Path)
    ap.add_argument("--series", action="store_true", help="include cwnd and ssthresh series")
    ap.add_argument("--cc", choices=sorted(CC), help="run every flow with this congestion control")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        sys.exit(selftest())
    print(json.dumps(run_cases(args.cases, args.series, args.cc)))


if __name__ == "__main__":
    main()
