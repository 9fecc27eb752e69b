#!/usr/bin/env python3
"""BIC and Westwood+ in rtolab (`tcp = { stack = "linux", cc = ... }`, the controllers of
crates/rtolab-sim/src/tcp/cc/bic.rs and westwood.rs) beside ns-3.44's TcpBic and
TcpWestwoodPlus, on two set-ups; writes the section between the ns3-cc markers of
docs/validation.md.

    python validate/ns3/cc_compare.py [--out docs/validation.md]

The machine's kernel offers no bic or westwood module, so ns-3 stands in as the independent
reference (issue 10, section 1). The set-ups are validate/ns3/cc/ramp.toml (loss-free slow
start) and drop.toml (one forced drop, then a long loss-free congestion-avoidance ramp);
ns-3 runs them through ns3_run.py with the kernel's TCP settings. rtolab has no initial
ssthresh (nor has Linux's bic by default: `initial_ssthresh` 0), so congestion avoidance
without any loss cannot be set up; the drop case supplies it after its one loss.
Windows are compared in segments of 1448 bytes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtolab import run

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from doc_section import replace_section  # noqa: E402

CASES = HERE / "cc"
MSS = 1448
BEGIN, END = "<!-- ns3-cc:begin -->", "<!-- ns3-cc:end -->"
CONTROLLERS = {"bic": "TcpBic", "westwood": "TcpWestwoodPlus"}
RAMP_TIMES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.8)
RAMP_TARGETS = (100, 500)
AFTER_DROP = (0.5, 1.0, 2.0, 4.0)
#: ssthresh at or above this many segments is the "infinite" initial value.
INFINITE = 1e6

Series = list[tuple[float, float]]


@dataclass(frozen=True)
class Trajectory:
    """cwnd and ssthresh in segments over time, and the flow's outcome."""

    cwnd: Series
    ssthresh: Series
    completion_s: float | None
    retransmits: int
    timeouts: int


def rtolab_side(case: str, cc: str) -> Trajectory:
    tree: dict[str, Any] = tomllib.loads((CASES / f"{case}.toml").read_text())
    tree["flows"][0]["tcp"]["cc"] = cc
    tree["output"] = {"series": ["cwnd", "ssthresh"]}
    result = run(tree, seed=1)
    s = result.series
    rows = list(zip(s["time_s"], s["metric"], s["value"]))
    flow = result.flows.row(0, named=True)
    end = flow["end_s"]
    return Trajectory(
        cwnd=[(t, v / MSS) for t, m, v in rows if m == "cwnd"],
        ssthresh=[(t, v / MSS) for t, m, v in rows if m == "ssthresh"],
        completion_s=None if end is None else end - flow["start_s"],
        retransmits=int(flow["retransmits"]),
        timeouts=int(flow["timeouts"]),
    )


def ns3_side(cc: str) -> dict[str, Trajectory]:
    paths = [str(CASES / f"{case}.toml") for case in ("ramp", "drop")]
    proc = subprocess.run([sys.executable, str(HERE / "ns3_run.py"), "--series", "--cc", cc, *paths], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"ns3_run.py failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    out = {}
    for case, res in json.loads(proc.stdout.splitlines()[-1]).items():
        f = res["flows"][0]
        out[case] = Trajectory(
            cwnd=[(t, v / MSS) for t, v in f["cwnd"]],
            ssthresh=[(t, v / MSS) for t, v in f["ssthresh"]],
            completion_s=None if f["end_s"] is None else f["end_s"] - f["start_s"],
            retransmits=f["retransmits"],
            timeouts=f["timeouts"],
        )
    return out


def at(series: Series, t: float) -> float | None:
    """The value in force at time t (series recorded on change)."""
    value = None
    for when, v in series:
        if when > t:
            break
        value = v
    return value


def reaching(series: Series, w: float, after: float = 0.0) -> float | None:
    """The first time after `after` when the value is at least w."""
    return next((t for t, v in series if t > after and v >= w), None)


def loss(tr: Trajectory) -> tuple[float, float, float, float]:
    """(time of the first reduction, cwnd just before it, time recovery ended, cwnd then).
    Recovery has ended when cwnd first sits at the last ssthresh set within 1 s of the loss
    (both stacks leave it there: Linux `tcp_end_cwnd_reduction`, or Westwood+'s
    `CA_EVENT_COMPLETE_CWR`; ns-3 `TcpSocketBase::ProcessAck`); during recovery PRR moves
    cwnd about, above it too in ns-3."""
    t = next(t for t, v in tr.ssthresh if v < INFINITE)
    before = [v for when, v in tr.cwnd if when < t]
    last_set = max(when for when, _ in tr.ssthresh if t <= when <= t + 1.0)
    end, cwnd = next((when, v) for when, v in tr.cwnd if when >= last_set and v <= (at(tr.ssthresh, when) or 0) + 0.5)
    return t, before[-1], end, cwnd


def num(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def ramp_rows(cc: str, sides: dict[str, Trajectory]) -> list[str]:
    rows = []
    for engine, tr in sides.items():
        cw = [num(at(tr.cwnd, t), 0) for t in RAMP_TIMES]
        reach = [num(reaching(tr.cwnd, w), 2) for w in RAMP_TARGETS]
        rows.append(f"| {cc} | {engine} | " + " | ".join(cw + reach) + f" | {num(tr.completion_s, 2)} | {tr.retransmits} |")
    return rows


def drop_rows(cc: str, sides: dict[str, Trajectory]) -> list[str]:
    rows = []
    for engine, tr in sides.items():
        t, w, end, after = loss(tr)
        cw = [num(at(tr.cwnd, t + d), 0) for d in AFTER_DROP]
        back = reaching(tr.cwnd, w, end)
        regain = None if back is None else back - t
        rows.append(
            f"| {cc} | {engine} | {t:.3f} | {w:.0f} | {end - t:.3f} | {after:.0f} | " + " | ".join(cw)
            + f" | {num(regain, 2)} | {num(tr.completion_s, 2)} | {tr.retransmits} | {tr.timeouts} |"
        )
    return rows


EXPLAINED = """\
Every difference, from the sources (Linux `net/ipv4/`, ns-3.44 `src/internet/model/`):

- **Slow start** (both cases, both controllers share it). Linux's `tcp_slow_start`
  (tcp_cong.c) adds every segment an ACK covers, and the receiver quick-ACKs the first
  segments (`tcp_in_quickack_mode`), so the window doubles per round trip; rtolab does the
  same (`WindowCore::slow_start_packets`, `quickack.rs`). ns-3's `TcpBic::IncreaseWindow`
  and `TcpNewReno::SlowStart` (which TcpWestwoodPlus inherits) add one segment per ACK
  whatever it covers, and ns-3's receiver ACKs every second segment (`DelAckCount` 2), so
  ns-3 grows by 1.5× per round trip: the ramp reaches 100 and 500 segments later, and in
  the drop case the window at the loss is smaller.
- **BIC's reduction.** Both take ssthresh = 819/1024 · cwnd above `low_window` (ns-3 `Beta`
  0.8) and set W_max = cwnd at a first loss; the numbers differ only through the window at
  the loss. (Fast convergence would differ: Linux W_max = cwnd·(1 + β)/2, ns-3's
  `GetSsThresh` β·cwnd; one loss does not reach it.)
- **BIC's growth.** Linux's `bictcp_update` divides `cnt` by the ACK ratio (`delayed_ack`,
  16 × segments per ACK, `bictcp_acked`) while `tcp_cong_avoid_ai` counts acknowledged
  segments, so with two segments per ACK it grows twice as fast as the per-segment rule
  (32 segments per round trip in the linear region); ns-3's `TcpBic::Update` has no ratio,
  counts segments (`m_cWndCnt += segmentsAcked`) and needs one more than `cnt`, so 16 per
  round trip. Near W_max (from W_max − 7 to W_max + 3) Linux's `smooth_part` is 20 (cnt =
  5·cwnd, halved by the ratio) and ns-3's `SmoothPart` default 5 (cnt = 1.25·cwnd): ns-3
  crosses that plateau in under half the round trips, then climbs half as fast above it.
- **Westwood+'s reduction.** Linux enters recovery with Reno's ssthresh (`tcp_reno_ssthresh`,
  cwnd/2; PRR moves cwnd towards it) and on `CA_EVENT_COMPLETE_CWR` sets cwnd = ssthresh =
  BWE·RTT_min (`tcp_westwood_bw_rttmin`); rtolab's second ssthresh step is that event.
  ns-3's `TcpWestwoodPlus::GetSsThresh` gives BWE·RTT_min at once on entering recovery and
  `ExitRecovery` sets cwnd to it.
- **Westwood+'s bandwidth estimate.** Linux samples bytes acknowledged over windows longer
  than max(last RTT sample, 50 ms) (`westwood_update_window`) and smooths twice with
  (7a + b)/8, the first sample filling both stages (`westwood_filter`). ns-3 counts segments
  over one smoothed RTT from the first ACK of each period (`PktsAcked`, `EstimateBW`) and
  filters with Tustin's bw = 0.9·bw + 0.05·(s + s_prev) from zero, so three round trips into
  the flow its estimate is a few percent of the rate and ssthresh falls to its floor of 2
  segments. RTT_min: Linux the minimum RTT sample (`update_rtt_min`), ns-3 the minimum
  smoothed RTT (`TcpSocketBase::EstimateRtt` sets `m_minRtt` from `m_srtt`). Both estimates
  are far below the path's rate this early (their filters have had three or four samples of
  a window still growing from 10 segments), ns-3's far lower.
- **Westwood+'s growth** is Reno's. Linux's `tcp_reno_cong_avoid` adds a segment per cwnd
  segments acknowledged; ns-3's `TcpNewReno::CongestionAvoidance` adds MSS²/cwnd per ACK,
  half as much per round trip when ACKs cover two segments. With the lower start and the
  slower climb ns-3's flow takes longer to complete.
"""


def section(ramp: list[str], drop: list[str]) -> str:
    ramp_head = (
        "| cc | engine | " + " | ".join(f"cwnd @{t:g} s" for t in RAMP_TIMES) + " | "
        + " | ".join(f"t(cwnd ≥ {w}) s" for w in RAMP_TARGETS) + " | completion s | retransmits |\n"
        + "|---|---|" + "---:|" * (len(RAMP_TIMES) + len(RAMP_TARGETS) + 2) + "\n"
    )
    drop_head = (
        "| cc | engine | loss at s | W at loss | recovery s | cwnd after | "
        + " | ".join(f"cwnd @loss+{d:g} s" for d in AFTER_DROP)
        + " | back to W after s | completion s | retransmits | timeouts |\n"
        + "|---|---|" + "---:|" * (len(AFTER_DROP) + 8) + "\n"
    )
    return (
        f"{BEGIN}\n## BIC and Westwood+ against ns-3.44 (`make validate`: `validate/ns3/cc_compare.py`)\n\n"
        "The kernel here has no bic or westwood module, so rtolab's controllers (`stack = \"linux\"`, "
        "`cc = \"bic\"` / `\"westwood\"`) run beside ns-3.44's `TcpBic` and `TcpWestwoodPlus` (with the kernel's TCP "
        "settings of `validate/ns3/`: MSS 1448, IW 10, SACK, timestamps, PRR, delayed ACK 2 / 40 ms, min RTO 200 ms). "
        "10 Mbps, 50 ms each way, a 2000-packet DropTail queue that never overflows. Windows in segments. "
        "rtolab has no initial ssthresh, so the loss-free case is slow start; the drop case's long loss-free "
        "tail is the congestion-avoidance ramp.\n\n"
        "**Loss-free ramp** (`validate/ns3/cc/ramp.toml`: 2 MB):\n\n" + ramp_head + "\n".join(ramp) + "\n\n"
        "**One forced drop** (`validate/ns3/cc/drop.toml`: 8 MB, the 40th packet sent is lost; W is cwnd "
        "when the loss is detected, recovery how long until cwnd settles at ssthresh, cwnd after its value "
        "then; back to W counts from the loss):\n\n" + drop_head + "\n".join(drop) + "\n\n"
        + EXPLAINED + f"{END}\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("docs/validation.md"))
    args = ap.parse_args()
    ramp: list[str] = []
    drop: list[str] = []
    for cc, ns3_name in CONTROLLERS.items():
        ns3 = ns3_side(cc)
        sides = {c: {"rtolab": rtolab_side(c, cc), f"ns-3 {ns3_name}": ns3[c]} for c in ("ramp", "drop")}
        ramp += ramp_rows(cc, sides["ramp"])
        drop += drop_rows(cc, sides["drop"])
    new = section(ramp, drop)
    replace_section(args.out, BEGIN, END, new)
    print(new)


if __name__ == "__main__":
    main()
