"""Paper 004's congestion-control comparison over HSDPA, simulated: NewReno, Westwood+, BIC
and CUBIC as Linux 2.6.24 ran them, downlink and uplink, under background load.

The paper measured single flows over a live HSDPA network with a commercial card and Linux
2.6.24: per-flow goodput, RTT, loss (retransmission) ratio and timeouts, as CDFs over many
flows, and the cwnd and RTT of one flow per algorithm. What it leaves open, chosen here
(docs/cc-hsdpa.md, "The study"):

- The network is paper 000's seven cells (rtolab's ``[radio]`` defaults) with a
  proportional-fair scheduler, what operators deploy; other subscribers are web users
  (paper 000's sessions: Pareto files of mean 25 000 B, shape 1.1, uncut as ns-2 draws them;
  think times of mean 1.5 s) with Linux's Reno. Paper 000's own study now reads its sizes as
  3GPP's cut-off law, which carries about twice the load per user; here the background's size
  is a swept unknown (``BACKGROUNDS``), so the uncut law stays.
- Each run measures one flow, as the paper did (a commercial card, one flow at a time): a
  downlink bulk flow, an uplink bulk flow (the user sends over its dedicated 384 kbit/s uplink,
  whose delay has exponential jitter of mean 10 ms delivered in sequence) or one web user's
  transfers, with the algorithm under test, from a user placed at random in the seven cells.
- Two unknowns are swept, each around a main value the figures and findings use: the
  background's size (``BACKGROUNDS``: 20, 60 or 100 web users; the paper's network load is not
  known) for the downlink, and the uplink's buffer (``UPLINK_QUEUES``: 10, 20 or 100 packets,
  0.3, 0.6 or 3.1 s of full-sized packets at 384 kbit/s) for the uplink.
- The sender is Linux 2.6.24 as far as rtolab's ``linux`` stack can be: SACK, timestamps,
  delayed ACKs, 200 ms minimum RTO, F-RTO and undo, RFC 3390's initial window, SACK
  recovery with 2.6.24's rate halving (``recovery = "rate-halving"``); RACK, TLP and PRR
  (later kernels) off. The window grows per ACK, not per segment acknowledged
  (``ack_counting = true``, 2.6.24's ``tcp_abc`` 0) for NewReno, Westwood+ and BIC (2.6.24's
  BIC module); CUBIC is 2.6.24's module 2.1 (``cc = "cubic-2.6.24"``: counted per ACK, no
  HyStart, β = 0.8).
- Runs of 60 s; bulk flows start at ``BULK_START_S`` (after the background has settled) and
  run to the end; web transfers that begin before ``WARM_UP_S`` or do not finish are left
  out. Every timeout counts, as the kernel counts them; the oracle's verdict is reported
  beside.
"""

from __future__ import annotations

from typing import Any

from rtolab.study import Study

#: The algorithms compared, as the ``tcp`` table of every measured flow: Linux 2.6.24's
#: modules (paper 004) with its rate halving and its window growth per ACK. "NewReno" is
#: Linux's ``reno`` module with SACK recovery.
LINUX_2_6_24: dict[str, Any] = {
    "stack": "linux",
    "iw": "rfc3390",
    "rack": False,
    "tlp": False,
    "recovery": "rate-halving",
    "ack_counting": True,
}
ALGORITHMS: dict[str, dict[str, Any]] = {
    "NewReno": {**LINUX_2_6_24, "cc": "reno"},
    "Westwood+": {**LINUX_2_6_24, "cc": "westwood"},
    "BIC": {**LINUX_2_6_24, "cc": "bic"},
    "CUBIC": {**LINUX_2_6_24, "cc": "cubic-2.6.24"},
}
#: The background's TCP: today's Linux with Reno.
BACKGROUND_TCP: dict[str, Any] = {"stack": "linux", "cc": "reno"}

ALGORITHM = "tag.algorithm"
#: The uplink's buffer, which the paper does not give: the figures use ``MAIN_UPLINK_QUEUE``;
#: the others show how the uplink comparison depends on it.
UPLINK_QUEUE = "radio.uplink.queue"
UPLINK_QUEUES = ["10p", "20p", "100p"]
MAIN_UPLINK_QUEUE = "20p"
BULK = 2
WEB_MEASURED = 10
BACKGROUND_USERS = 60
#: The measured traffic of a run, its tag column and values.
TRAFFIC = "tag.traffic"
DOWNLINK_BULK, UPLINK_BULK, DOWNLINK_WEB = "downlink bulk", "uplink bulk", "downlink web"
#: The background's size, its tag column and values (the downlink's swept unknown).
BACKGROUND = "tag.background"
BACKGROUNDS = [20, 60, 100]
DURATION_S = 60.0
BULK_START_S = 5.0
WARM_UP_S = 5.0
UPLINK = {"rate": "384kbps", "delay": "10ms", "jitter": "exp(10ms)", "queue": "20p"}
WEB_SIZE = "pareto(mean=25000B, shape=1.1)"
WEB_THINK = "exp(1.5s)"


def _bulk(name: str, uplink: bool) -> dict[str, Any]:
    return {"name": name, "route": ["hsdpa"], "uplink": uplink, "start": f"{BULK_START_S:g}s", "tcp": ALGORITHMS["NewReno"]}


def base_scenario(duration_s: float = DURATION_S, background_users: int = BACKGROUND_USERS) -> dict[str, Any]:
    """Seven PF cells, the background web users, and ``BULK`` + ``BULK`` bulk flows and
    ``WEB_MEASURED`` web users measured together (NewReno here; ``algorithm_cases`` sets the
    algorithm): the set-up ``validate/cc_hsdpa_kernel.py`` runs against the kernel."""
    return {
        "name": "cc-hsdpa",
        "duration": f"{duration_s:g}s",
        "radio": {"scheduler": "pf", "uplink": UPLINK},
        "flows": [_bulk(f"down{i}", False) for i in range(BULK)] + [_bulk(f"up{i}", True) for i in range(BULK)],
        "generators": [
            {"kind": "web", "name": "measured", "users": WEB_MEASURED, "size": WEB_SIZE, "think": WEB_THINK, "route": ["hsdpa"], "tcp": ALGORITHMS["NewReno"]},
            {"kind": "web", "name": "background", "users": background_users, "size": WEB_SIZE, "think": WEB_THINK, "route": ["hsdpa"], "tcp": BACKGROUND_TCP},
        ],
    }


def algorithm_cases(algorithms: list[str]) -> list[dict[str, Any]]:
    """One case per algorithm: its name as a tag, its ``tcp`` table on every measured flow."""
    return [{ALGORITHM: a, "flows.*.tcp": ALGORITHMS[a], "generators.measured.tcp": ALGORITHMS[a]} for a in algorithms]


def _background(users: int) -> dict[str, Any]:
    return {"kind": "web", "name": "background", "users": users, "size": WEB_SIZE, "think": WEB_THINK, "route": ["hsdpa"], "tcp": BACKGROUND_TCP}


def single_scenario(duration_s: float = DURATION_S) -> dict[str, Any]:
    """Seven PF cells and the background; each case adds its one measured flow or user."""
    return {
        "name": "cc-hsdpa",
        "duration": f"{duration_s:g}s",
        "radio": {"scheduler": "pf", "uplink": UPLINK},
        "flows": [],
        "generators": [_background(BACKGROUND_USERS)],
    }


def single_cases(algorithms: list[str], backgrounds: list[int] = BACKGROUNDS, uplink_queues: list[str] = UPLINK_QUEUES) -> list[dict[str, Any]]:
    """One measured flow per run: a downlink bulk flow per background size, an uplink bulk flow
    per uplink buffer, a web user at the main values; each with every algorithm."""
    out: list[dict[str, Any]] = []
    for a in algorithms:
        tcp = ALGORITHMS[a]
        for n in backgrounds:
            out.append({ALGORITHM: a, TRAFFIC: DOWNLINK_BULK, BACKGROUND: n, UPLINK_QUEUE: MAIN_UPLINK_QUEUE, "flows": [{**_bulk("down0", False), "tcp": tcp}], "generators": [_background(n)]})
        for q in uplink_queues:
            out.append({ALGORITHM: a, TRAFFIC: UPLINK_BULK, BACKGROUND: BACKGROUND_USERS, UPLINK_QUEUE: q, "flows": [{**_bulk("up0", True), "tcp": tcp}]})
        measured = {"kind": "web", "name": "measured", "users": 1, "size": WEB_SIZE, "think": WEB_THINK, "route": ["hsdpa"], "tcp": tcp}
        out.append({ALGORITHM: a, TRAFFIC: DOWNLINK_WEB, BACKGROUND: BACKGROUND_USERS, UPLINK_QUEUE: MAIN_UPLINK_QUEUE, "generators": [_background(BACKGROUND_USERS), measured]})
    return out


def study(quick: bool = False, replications: int | None = None, seed: int = 2008) -> Study:
    """Full: the four algorithms × (3 background sizes for the downlink bulk flow, 3 uplink
    buffers for the uplink bulk flow, 1 web user) × 30 replications of 60 s; quick: × 5."""
    return Study.from_dict({
        "name": "cc-hsdpa",
        "scenario": single_scenario(),
        "cases": single_cases(list(ALGORITHMS)),
        "replications": replications or (5 if quick else 30),
        "seed": seed,
    })


def trace_scenario(algorithm: str, duration_s: float = DURATION_S) -> dict[str, Any]:
    """One downlink bulk flow of ``algorithm`` under the background, its cwnd and smoothed
    RTT recorded (paper 004's "typical congestion window and RTT evolutions")."""
    spec = base_scenario(duration_s)
    spec["flows"] = [{**_bulk("down0", False), "tcp": ALGORITHMS[algorithm]}]
    spec["generators"] = [g for g in spec["generators"] if g["name"] == "background"]
    spec["output"] = {"series": ["cwnd", "srtt"]}
    return spec
