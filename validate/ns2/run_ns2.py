#!/usr/bin/env python3
"""Run the ns-2.35 cross-check scripts and parse their one-line JSON results.

Standard library only; does not import rtolab.  Needs the `ns` binary of ns-2.35
(Debian/Ubuntu: `apt-get install -y ns2`), or its path in the environment variable NS2_BIN.

    run_ns2.py spikes rate_bps=40000 loss=0.02 spike_lo_s=5 spike_hi_s=10 \
        mean_period_s=30 seed=1 duration_s=2000 agent=sack1
    run_ns2.py case three_drops [key=value ...]
    run_ns2.py bulk_lte [duration_s=1000 ...]
    run_ns2.py --selftest

From Python:  run_spikes(rate_bps=40000, loss=0.02, ...), run_case("lost_syn") and
run_bulk_lte() return dicts (the scripts' JSON).  One ns process at a time; each call blocks until it is done.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPIKES_TCL = HERE / "spikes.tcl"
CASES_TCL = HERE / "cases.tcl"
BULK_LTE_TCL = HERE / "bulk_lte.tcl"
CASES = ("baseline", "held_spike", "lost_syn", "three_drops", "lost_rexmit")


class Ns2Error(RuntimeError):
    pass


def ns_binary() -> str:
    """The `ns` executable: $NS2_BIN if set, else `ns` on the PATH."""
    name = os.environ.get("NS2_BIN") or "ns"
    path = shutil.which(name)
    if not path:
        raise Ns2Error(f"ns-2 not found ({name!r} is not an executable): apt-get install -y ns2 (or set NS2_BIN)")
    return path


def run_script(script: Path, args: dict[str, object], timeout_s: float = 600.0) -> dict:
    """Run `ns script key=value ...` and return the JSON object it prints last."""
    argv = [ns_binary(), str(script)] + [f"{k}={v}" for k, v in args.items()]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, cwd=HERE)
    if proc.returncode != 0:
        raise Ns2Error(
            f"{' '.join(argv)} exited {proc.returncode}\n{proc.stderr.strip()}\n{proc.stdout.strip()}"
        )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise Ns2Error(f"{' '.join(argv)} printed no JSON\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[-1])


def run_spikes(**params: object) -> dict:
    """Paper 003's set-up; keys as in spikes.tcl (rate_bps, loss, spike_lo_s, spike_hi_s,
    mean_period_s, seed, duration_s, agent, window, ...)."""
    return run_script(SPIKES_TCL, params)


def run_case(case: str, **params: object) -> dict:
    """One scripted single-flow case of cases.tcl."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}")
    return run_script(CASES_TCL, {"case": case, **params})


def run_bulk_lte(**params: object) -> dict:
    """rtolab's `bulk-lte` benchmark scenario; keys as in bulk_lte.tcl (duration_s, flows,
    rate_bps, delay_s, qlimit, mss)."""
    return run_script(BULK_LTE_TCL, params)


def _kv(items: list[str]) -> dict[str, str]:
    out = {}
    for it in items:
        k, sep, v = it.partition("=")
        if not sep:
            raise SystemExit(f"bad argument {it!r}: expected key=value")
        out[k] = v
    return out


def selftest() -> int:
    checks: list[tuple[str, bool]] = []

    def check(name: str, ok: bool) -> None:
        checks.append((name, ok))
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")

    point = dict(rate_bps=40000, loss=0.02, spike_lo_s=5, spike_hi_s=10, mean_period_s=30,
                 seed=1, duration_s=2000, agent="sack1")
    print("spikes:", " ".join(f"{k}={v}" for k, v in point.items()))
    r = run_spikes(**point)
    print("  ", json.dumps(r))
    check("spikes: window 3 at 40 kbps", r["window"] == 3)
    check("spikes: goodput below the unspiked payload rate",
          0 < r["goodput_bps"] < 40000 * 536 / 576)
    check("spikes: measured loss rate near 2 %",
          0.01 < r["loss_drops"] / max(r["packets"], 1) < 0.03)
    check("spikes: timeouts <= retransmits <= packets",
          0 < r["timeouts"] <= r["retransmits"] <= r["packets"])
    again = run_spikes(**point)
    check("spikes: same seed, same result", again == r)
    other = run_spikes(**{**point, "seed": 2})
    check("spikes: another seed, another result", other != r)

    expect_drops = {
        "baseline": [],
        "held_spike": [],
        "lost_syn": [0],
        "three_drops": [29, 31, 33],
        "lost_rexmit": [29, 29],
    }
    for case in CASES:
        c = run_case(case)
        print(f"case {case}:")
        print("  ", json.dumps(c))
        check(f"{case}: completed", c["completed"] is True)
        check(f"{case}: dropped seqnos {expect_drops[case]}", c["drop_seqnos"] == expect_drops[case])
        if case == "baseline":
            check("baseline: no retransmission", c["retransmits"] == 0 and c["timeouts"] == 0)
        if case == "held_spike":
            check("held_spike: spurious timeouts during the 3 s hold", c["timeouts"] >= 1)
            check("held_spike: timeouts inside [5, 8] s",
                  all(5.0 <= t <= 8.0 for t in c["timeout_times_s"]))
        if case == "lost_syn":
            check("lost_syn: one timeout at the 3 s initial RTO",
                  c["timeouts"] == 1 and c["timeout_times_s"] == [3])
        if case == "three_drops":
            check("three_drops: one SACK recovery, no timeout",
                  c["fast_recoveries"] == 1 and c["timeouts"] == 0 and c["retransmits"] == 3)
        if case == "lost_rexmit":
            check("lost_rexmit: the lost retransmission needs an RTO",
                  c["timeouts"] == 1 and c["retransmits"] == 2)

    failed = sum(1 for _, ok in checks if not ok)
    print(f"ns2 selftest: {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "--selftest":
        return selftest()
    if argv[0] == "spikes":
        print(json.dumps(run_spikes(**_kv(argv[1:]))))
        return 0
    if argv[0] == "bulk_lte":
        print(json.dumps(run_bulk_lte(**_kv(argv[1:]))))
        return 0
    if argv[0] == "case" and len(argv) >= 2:
        print(json.dumps(run_case(argv[1], **_kv(argv[2:]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
