"""The IW10 / initial-RTO study of paper 002 (slides: "IW10 and initial RTO 1 s vs 3 s over
slow wireless links").

Set-up (slides 3 and backup "RED config"): sender side 11 ms, bottleneck EDGE 160 kbps /
250 ms, HSPA 2 Mbps / 70 ms or LTE 50 Mbps / 15 ms (one-way); FIFO buffers of BDP, 2·BDP and
50 packets (EDGE only), and the RED and REDok configurations; a burst of 1, 2, 6 or 18
simultaneous flows sharing 180 kB against a later burst of the same; ns-2 TCP SACK; IW 3 vs 10;
initial RTO 3 s vs 1 s; 100 replications.

What the slides leave open, chosen here and exposed as parameters (see docs/iw10-irto.md):

- ``offset``: the later burst starts 2 s (EDGE), 0.3 s (HSPA) or 0.05 s (LTE) after the
  first, roughly a quarter of the first burst's transfer time at full link rate, so the two
  bursts overlap through the first one's slow start.
- ``jitter``: what differs between replications is when each flow starts, uniform in
  [0, 100 ms] (EDGE), [0, 30 ms] (HSPA), [0, 10 ms] (LTE) after its burst's start — the
  spread of connection set-up a real client shows; it is drawn per flow from the run's seed.
- TCP as ns-2.35's ``Agent/TCP/Sack1`` with ``TCPSink/Sack1`` (``stack = "ns2-sack1"``, the
  slides' "ns2 TCP SACK"): no timestamps, no delayed ACKs, ns-2's timer (0.2 s floor, 10 ms
  ticks) with the initial RTO under study, and after a SYN timeout a window of 1 and
  ssthresh 2, as ns-2's agent falls back; MSS 1460 (1500 B packets).
- ``window``: ns-2's default ``window_`` of 20 packets (``WINDOW``), which the slides do not
  override. It is what the slides' EDGE 1+1 delay figures show: a lone flow whose window
  never fills a 50-packet FIFO makes IW10 "slightly more aggressive", and with a BDP FIFO
  IW10's median delay is lower but its highest delays higher ("except for the highest
  end"). A window no flow reaches (``OPEN_WINDOW``) is run as an ablation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtolab.model.parse import seconds
from rtolab.study import Study


@dataclass(frozen=True)
class Bottleneck:
    name: str
    rate: str
    delay: str
    bdp_packets: int  # slides, p. 3: rate · 2 · one-way delay / 1500 B
    offset: str
    jitter_max: str  # each flow starts uniform(0, jitter_max) after its burst
    red: dict[str, float]  # wq, maxp, thmin, thmax, buffer (packets)
    redok: dict[str, float]


BOTTLENECKS = {
    "EDGE": Bottleneck("EDGE", "160kbps", "250ms", 7, "2s", "100ms",
                       dict(wq=0.002, maxp=0.1, thmin=3, thmax=9, buffer=14),
                       dict(wq=0.2, maxp=0.65, thmin=3, thmax=40, buffer=50)),
    "HSPA": Bottleneck("HSPA", "2Mbps", "70ms", 24, "300ms", "30ms",
                       dict(wq=0.002, maxp=0.1, thmin=5, thmax=20, buffer=48),
                       dict(wq=0.02, maxp=0.65, thmin=3, thmax=50, buffer=100)),
    "LTE": Bottleneck("LTE", "50Mbps", "15ms", 125, "50ms", "10ms",
                      dict(wq=0.002, maxp=0.1, thmin=5, thmax=20, buffer=250),
                      dict(wq=0.001, maxp=0.1, thmin=5, thmax=125, buffer=400)),
}

FLOW_COUNTS = [1, 2, 6, 18]
#: The window in packets: ns-2's ``Agent/TCP`` default ``window_`` (tcp/tcp-defaults.tcl: 20),
#: which the slides do not change. It holds a lone LTE flow to a sixth of the 125-packet BDP.
WINDOW = 20
#: The ablation's window: above every buffer plus BDP of the set-up (LTE REDok: 400 + 125
#: packets), so that no flow is window-limited.
OPEN_WINDOW = 1000
TOTAL = "180kB"


def red_queue(cfg: dict[str, float]) -> dict[str, Any]:
    """The slides' ns-2 RED settings (backup slide): byte mode, queue in bytes, not gentle,
    no wait, mean packet size 1500 B, linterm = 1/maxp."""
    return {
        "kind": "red",
        "limit": f"{int(cfg['buffer'])}p",
        "q_weight": cfg["wq"],
        "thresh": cfg["thmin"],
        "maxthresh": cfg["thmax"],
        "linterm": 1.0 / cfg["maxp"],
        "mean_pktsize": 1500,
        "bytes": True,
        "queue_in_bytes": True,
        "gentle": False,
        "wait": False,
    }


def ns2_droptail(packets: int) -> dict[str, Any]:
    """The slides' FIFO of ``packets`` as ns-2 sets it (``$ns queue-limit``): ns-2.35's
    ``DropTail::enque`` drops an arrival when ``length() + 1 >= qlim_``, and ``Queue::recv``
    has already taken the packet being sent off the queue, so ``packets`` counts the one in
    transmission. rtolab's ``"Np"`` counts the waiting packets alone: the same buffer is
    ``packets − 1`` (checked against ns-2.35, docs/iw10-ns2.md, difference 1)."""
    return {"kind": "droptail", "limit": f"{packets - 1}p"}


def buffers(b: Bottleneck) -> dict[str, dict[str, Any]]:
    out = {
        "BDP": ns2_droptail(b.bdp_packets),
        "2BDP": ns2_droptail(2 * b.bdp_packets),
    }
    if b.name == "EDGE":
        out["50p"] = ns2_droptail(50)
    out["RED"] = red_queue(b.red)
    out["REDok"] = red_queue(b.redok)
    return out


def base_scenario() -> dict[str, Any]:
    tcp = {"stack": "ns2-sack1", "mss": 1460, "max_window": WINDOW}
    burst = {"kind": "burst", "flows": 1, "total": TOTAL, "route": ["sender", "bottleneck"], "tcp": tcp}
    return {
        "name": "iw10-irto",
        "links": [
            {"name": "sender", "rate": "1Gbps", "delay": "11ms", "queue": {"kind": "droptail", "limit": "1000p"}},
            {"name": "bottleneck", "rate": "2Mbps", "delay": "70ms"},
        ],
        "generators": [
            {**burst, "name": "first", "start": "0s"},
            {**burst, "name": "later", "start": "1s"},
        ],
        "limits": {"max_time": "2000s"},
    }


def scaled(duration: str, factor: float) -> str:
    """A duration with its unit, times ``factor``, written in milliseconds."""
    return f"{seconds(duration) * 1000 * factor:g}ms"


@dataclass(frozen=True)
class Reading:
    """What the slides leave open and the elapsed-time findings depend on, relative to the
    chosen values: when the flows start, as multiples of the bottleneck's later-burst offset
    (``Bottleneck.offset``) and of the spread of each flow's start within its burst
    (``Bottleneck.jitter_max``); and the window in packets (``window``; None: ``WINDOW``)."""

    offset_scale: float = 1.0
    jitter_scale: float = 1.0
    window: int | None = None

    def settings(self, b: Bottleneck) -> dict[str, Any]:
        """The grid settings of the later burst's start, the flows' start jitter and the
        window (the bottleneck's own strings at scale 1 and no window setting at the chosen
        one, so the main study's points keep their keys)."""
        offset = b.offset if self.offset_scale == 1.0 else scaled(b.offset, self.offset_scale)
        jitter = b.jitter_max if self.jitter_scale == 1.0 else scaled(b.jitter_max, self.jitter_scale)
        out: dict[str, Any] = {"generators.later.start": offset, "generators.*.jitter": f"uniform(0s, {jitter})"}
        if self.window is not None:
            out["generators.*.tcp.max_window"] = self.window
        return out

    @property
    def slug(self) -> str:
        """A name for the variation's study (empty for the chosen reading)."""
        parts = [f"offset-{self.offset_scale:g}x"] if self.offset_scale != 1.0 else []
        parts += [f"jitter-{self.jitter_scale:g}x"] if self.jitter_scale != 1.0 else []
        parts += [f"window-{self.window}"] if self.window is not None else []
        return "-".join(parts)


def cases(links: list[str] | None = None, buffer_names: list[str] | None = None, reading: Reading = Reading()) -> list[dict[str, Any]]:
    """One case per (bottleneck, buffer), the unstated details as ``reading`` says."""
    out = []
    for name, b in BOTTLENECKS.items():
        if links and name not in links:
            continue
        for buf, queue in buffers(b).items():
            if buffer_names and buf not in buffer_names:
                continue
            out.append({
                "tag.link": name,
                "tag.buffer": buf,
                "links.bottleneck.rate": b.rate,
                "links.bottleneck.delay": b.delay,
                "links.bottleneck.queue": queue,
                **reading.settings(b),
            })
    return out


def study(quick: bool = False, replications: int | None = None, seed: int = 2010, reading: Reading = Reading()) -> Study:
    """The full study (208 grid points × 100 replications) or, with ``quick``, EDGE and HSPA
    with 2·BDP, REDok (and EDGE's 50 p), 1+1 and 6+6 flows, 10 replications; the flows
    starting and the window as ``reading`` says."""
    if quick:
        c = cases(["EDGE", "HSPA"], ["2BDP", "50p", "REDok"], reading)
        counts = [1, 6]
    else:
        c = cases(reading=reading)
        counts = FLOW_COUNTS
    grid = {
        "generators.*.flows": counts,
        "generators.*.tcp.iw": [3, 10],
        "generators.*.tcp.initial_rto": ["3s", "1s"],
    }
    reps = replications or (10 if quick else 100)
    name = "-".join(filter(None, ["iw10-irto", reading.slug]))
    return Study.from_dict({"name": name, "scenario": base_scenario(), "cases": c, "grid": grid, "replications": reps, "seed": seed})
