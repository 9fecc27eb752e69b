#!/usr/bin/env python3
"""CoDel, PIE and FQ-CoDel in rtolab (`queue = { kind = "codel" | "pie" | "fq_codel" }`,
crates/rtolab-sim/src/net/queue/{codel,pie,fq_codel}.rs) beside ns-3.44's CoDelQueueDisc,
PieQueueDisc and FqCoDelQueueDisc on the same scenario; writes the section between the
aqm-ns3 markers of docs/aqm.md and a figure of the sojourn times.

    python validate/ns3/aqm_compare.py [--duration 60] [--ns3-cc ns3::TcpLinuxReno] [--out docs/aqm.md] [--figure docs/aqm-sojourn.png | --no-figure]

`make validate` runs it twice: with `TcpLinuxReno` into the aqm-ns3 section with the figure,
and with `TcpNewReno` into the aqm-ns3-newreno section. Without ns-3.44's Python bindings
(`pip install ns3==3.44.post0`) it says so and leaves the page as it is.

The scenario: four long TCP flows (started 0.1 s apart) through a 4 Mbit/s bottleneck with
25 ms one-way delay (50 ms RTT), the AQM on the forward direction with Linux's defaults, ACKs
back through a 1000-packet DropTail queue. Both sides run ns-3's own TCP: rtolab's `ns3`
stack (ns-3.44's defaults: 536-byte segments, NewReno, SACK with RFC 6675 recovery, delayed
ACKs 2 / 200 ms, 1 s minimum RTO, 128 KiB receive buffer), ns-3 with `TcpClassicRecovery`
and otherwise its defaults, so that only the queues can differ. The congestion control on the
ns-3 side is `TcpLinuxReno` by default: the `ns3` stack's Reno grows in congestion avoidance
by one segment per cwnd of acknowledged bytes (RFC 3465 byte counting, `WindowCore::
congestion_avoidance`), as `TcpLinuxReno` does by counting acknowledged segments, whereas
ns-3's `TcpNewReno` adds MSS²/cwnd per ACK, half as much with delayed ACKs (`--ns3-cc
ns3::TcpNewReno` runs that; its numbers are in docs/aqm.md too).

The ns-3 set-up (aqm_probe.h): the queue disc is the root qdisc of the forward device, whose
device queue holds 1 packet (ns-3's traffic control stops the qdisc while the device queue is
full, so one packet waits there behind the one being sent: at 4 Mbit/s and 576-byte packets
1.15 ms of queueing the qdisc does not see; rtolab's queue feeds its transmitter directly).
Parameters as Linux's defaults, stated on both sides:
- CoDel: limit 1000 p, target 5 ms, interval 100 ms, MinBytes 1500 (rtolab `mtu` 1500).
- PIE: target (QueueDelayReference) 15 ms, Tupdate 15 ms, first update 500 ms after start
  (Supdate, Linux's `pie_init`), alpha 0.125, beta 1.25, burst allowance 150 ms, queue delay
  from timestamps (UseDequeueRateEstimator false), derandomisation on, the 2 % step cap on
  (UseCapDropAdjustment); the limit in bytes (1500000 B) so that ns-3's "no drop below two
  packets" counts bytes (2 × MeanPktSize 1500) as Linux's `backlog < 2 * mtu` does.
- FQ-CoDel: limit 10240 p, 1024 flows, quantum 1514 (SetQuantum), drop batch 64, target
  5 ms, interval 100 ms. ns-3 hashes the 5-tuple (perturbation 0); rtolab takes flow id
  modulo 1024; four flows collide in neither unless ns-3's hash puts two in one bucket.

Compared: aggregate goodput over the run (bytes delivered to the receiving applications ·
8 / duration; acceptance within 3 %, written before any run), the queue's drops, and the
sojourn time of each packet the queue sent (mean and percentiles, and the figure). For
explaining the drop counts, how the drops fall in time on each side: during the start (the
first `STARTUP_S` seconds, the flows' slow starts) and after it; in episodes (drops less than
`EPISODE_GAP_S` apart: two CoDel intervals); and how many of the first drops of the run the
two sides share (the k-th drop of each within `SAME_DROP_S`, k = 1, 2, …, until the first
pair that is not): while the TCPs send the same packets, the same queue drops at the same
times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from doc_section import replace_section  # noqa: E402

BEGIN, END = "<!-- aqm-ns3:begin -->", "<!-- aqm-ns3:end -->"
KINDS = ("codel", "pie", "fq_codel")
RATE_BPS = 4_000_000
DELAY_S = 0.025
STARTS = (0.0, 0.1, 0.2, 0.3)
#: Acceptance on goodput, from issue 29 (written before any run).
GOODPUT_TOLERANCE = 0.03
#: The flows' start: four slow starts, the last beginning at 0.3 s, over by then.
STARTUP_S = 5.0
#: Drops closer than this (two CoDel intervals) belong to one episode.
EPISODE_GAP_S = 0.2
#: The k-th drops of the two sides are the same drop when this close (a few packet times at
#: 4 Mbit/s, and ns-3's device queue of one packet).
SAME_DROP_S = 0.01


@dataclass(frozen=True)
class Side:
    """One simulator's outcome for one queue."""

    goodput_bps: float
    per_flow_bytes: list[int]
    drops: int
    drop_detail: str
    sojourn_t: list[float]
    sojourn_s: list[float]
    drop_t: list[float]


def rtolab_side(kind: str, duration: float) -> Side:
    from rtolab import run

    flows = [{"name": f"bulk{i}", "route": ["bottleneck"], "size": "inf", "start": f"{s}s", "tcp": {"stack": "ns3"}} for i, s in enumerate(STARTS)]
    spec: dict[str, Any] = {
        "duration": f"{duration}s",
        "links": [
            {
                "name": "bottleneck",
                "rate": RATE_BPS,
                "delay": f"{DELAY_S}s",
                "queue": {"kind": kind},
                "reverse": {"queue": {"kind": "droptail", "limit": "1000p"}},
            }
        ],
        "flows": flows,
        "output": {"series": ["sojourn"], "events": ["drop"]},
    }
    r = run(spec, seed=1)
    per_flow = [int(b) for b in r.flows.sort("name")["bytes"].to_list()]
    fwd = r.links.row(0, named=True)
    series = r.series.filter(r.series["metric"] == "sojourn")
    drops = r.events.filter((r.events["kind"] == "drop") & (r.events["link"] == f"{fwd['link']}.{fwd['direction']}"))
    detail = f"{fwd['aqm_drops']} by the AQM, {fwd['queue_drops']} at the limit"
    return Side(sum(per_flow) * 8 / duration, per_flow, int(fwd["drops"]), detail, series["time_s"].to_list(), series["value"].to_list(), drops["time_s"].to_list())


def ns3_side(gbl: Any, kind: str, cc: str, duration: float) -> Side:
    starts = gbl.std.vector["double"]()
    for s in STARTS:
        starts.push_back(s)
    o = gbl.rtolab_aqm.RunAqm(kind, cc, float(RATE_BPS), DELAY_S, starts, duration)
    per_flow = [int(b) for b in o.received]
    detail = f"{o.dropsAfterDequeue} after dequeue, {o.dropsBeforeEnqueue} before enqueue"
    return Side(sum(per_flow) * 8 / duration, per_flow, int(o.dropsTotal), detail, list(o.sojournT), list(o.sojournV), list(o.dropT))


def bindings() -> Any | None:
    """ns-3.44's bindings with the probe compiled in, or None when they are not installed."""
    try:
        from ns import ns  # noqa: F401  (loads ns-3's libraries and include paths into cppyy)
        import cppyy
    except ImportError:
        return None
    cppyy.include(str(HERE / "aqm_probe.h"))
    return cppyy.gbl


@dataclass(frozen=True)
class DropShape:
    """How one side's drops fall in time."""

    startup: int
    after: int
    episodes: int
    per_episode: float


def drop_shape(side: Side) -> DropShape:
    times = sorted(side.drop_t)
    episodes = sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] >= EPISODE_GAP_S)
    startup = sum(1 for t in times if t < STARTUP_S)
    return DropShape(startup, len(times) - startup, episodes, len(times) / episodes if episodes else 0.0)


def shared_first_drops(a: Side, b: Side) -> int:
    """How many of the run's first drops the sides share: k-th with k-th, within SAME_DROP_S."""
    n = 0
    for x, y in zip(sorted(a.drop_t), sorted(b.drop_t)):
        if abs(x - y) > SAME_DROP_S:
            break
        n += 1
    return n


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def sojourn_stats(side: Side, after: float) -> tuple[float, float, float]:
    """Mean, median and 95th percentile (ms) of the sojourn times after `after` s."""
    xs = [v * 1e3 for t, v in zip(side.sojourn_t, side.sojourn_s) if t >= after]
    return (statistics.fmean(xs) if xs else float("nan"), percentile(xs, 0.5), percentile(xs, 0.95))


def figure(results: dict[str, tuple[Side, Side]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 1, figsize=(9, 2.6 * len(results)), sharex=True)
    for ax, (kind, (ours, theirs)) in zip(axes, results.items()):
        for side, name, colour in ((theirs, "ns-3.44", "tab:orange"), (ours, "rtolab", "tab:blue")):
            ax.plot(side.sojourn_t, [v * 1e3 for v in side.sojourn_s], ".", ms=1, alpha=0.35, color=colour, label=name)
        ax.set_ylabel(f"{kind}\nsojourn (ms)")
        ax.set_ylim(bottom=0, top=max(60.0, 1.2 * percentile([v * 1e3 for v in theirs.sojourn_s + ours.sojourn_s], 0.99)))
        ax.legend(loc="upper right", markerscale=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Sojourn time of each packet sent: 4 flows, 4 Mbit/s, 50 ms RTT")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def section(results: dict[str, tuple[Side, Side]], duration: float, cc: str, figure_name: str | None) -> str:
    rows = [
        "| queue | goodput rtolab (Mbit/s) | goodput ns-3 (Mbit/s) | difference | within 3 % | drops rtolab | drops ns-3 | sojourn rtolab mean / median / p95 (ms) | sojourn ns-3 mean / median / p95 (ms) |",
        "| --- | ---: | ---: | ---: | --- | --- | --- | --- | --- |",
    ]
    for kind, (ours, theirs) in results.items():
        diff = (ours.goodput_bps - theirs.goodput_bps) / theirs.goodput_bps
        ok = "yes" if abs(diff) <= GOODPUT_TOLERANCE else "**no**"
        so, st = sojourn_stats(ours, 5.0), sojourn_stats(theirs, 5.0)
        rows.append(
            f"| {kind} | {ours.goodput_bps / 1e6:.4f} | {theirs.goodput_bps / 1e6:.4f} | {100 * diff:+.2f} % | {ok} "
            f"| {ours.drops} ({ours.drop_detail}) | {theirs.drops} ({theirs.drop_detail}) "
            f"| {so[0]:.2f} / {so[1]:.2f} / {so[2]:.2f} | {st[0]:.2f} / {st[1]:.2f} / {st[2]:.2f} |"
        )
    flows = ["| queue | per-flow bytes rtolab | per-flow bytes ns-3 |", "| --- | --- | --- |"]
    for kind, (ours, theirs) in results.items():
        flows.append(f"| {kind} | {', '.join(map(str, ours.per_flow_bytes))} | {', '.join(map(str, theirs.per_flow_bytes))} |")
    shapes = [
        f"| queue | drops in the first {STARTUP_S:g} s rtolab / ns-3 | after | episodes | drops per episode | first drops shared (within {SAME_DROP_S * 1e3:g} ms) |",
        "| --- | --- | --- | --- | --- | ---: |",
    ]
    for kind, (ours, theirs) in results.items():
        o, t = drop_shape(ours), drop_shape(theirs)
        shapes.append(
            f"| {kind} | {o.startup} / {t.startup} | {o.after} / {t.after} | {o.episodes} / {t.episodes} "
            f"| {o.per_episode:.2f} / {t.per_episode:.2f} | {shared_first_drops(ours, theirs)} |"
        )
    figure_note = f" Figure: `{figure_name}`." if figure_name else ""
    return "\n".join(
        [
            BEGIN,
            f"Generated by `validate/ns3/aqm_compare.py --duration {duration:g} --ns3-cc {cc}` (4 flows, 4 Mbit/s, 50 ms RTT,",
            f"{duration:g} s; sojourn statistics from 5 s on).{figure_note}",
            "",
            *rows,
            "",
            *flows,
            "",
            f"How the drops fall (rtolab / ns-3; an episode: drops less than {EPISODE_GAP_S * 1e3:g} ms apart):",
            "",
            *shapes,
            END,
            "",
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--ns3-cc", default="ns3::TcpLinuxReno")
    ap.add_argument("--begin", default=BEGIN, help="the section's begin marker (its end marker is the same with 'end')")
    ap.add_argument("--out", type=Path, default=HERE.parent.parent / "docs" / "aqm.md")
    ap.add_argument("--figure", type=Path, default=HERE.parent.parent / "docs" / "aqm-sojourn.png")
    ap.add_argument("--no-figure", action="store_true", help="write no figure (the section names none)")
    args = ap.parse_args()
    gbl = bindings()
    if gbl is None:
        print("aqm_compare: ns-3.44's Python bindings are not installed (pip install ns3==3.44.post0); skipped, docs unchanged")
        return
    results: dict[str, tuple[Side, Side]] = {}
    for kind in KINDS:
        results[kind] = (rtolab_side(kind, args.duration), ns3_side(gbl, kind, args.ns3_cc, args.duration))
        ours, theirs = results[kind]
        print(f"{kind}: goodput rtolab {ours.goodput_bps / 1e6:.4f} ns-3 {theirs.goodput_bps / 1e6:.4f} Mbit/s; drops {ours.drops} ({ours.drop_detail}) / {theirs.drops} ({theirs.drop_detail})", flush=True)
    if not args.no_figure:
        figure(results, args.figure)
    begin, end = args.begin, args.begin.replace(":begin", ":end")
    text = section(results, args.duration, args.ns3_cc, None if args.no_figure else args.figure.name).replace(BEGIN, begin).replace(END, end)
    replace_section(args.out, begin, end, text)


if __name__ == "__main__":
    main()
