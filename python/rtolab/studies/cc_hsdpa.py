"""Paper 004's congestion-control comparison over HSDPA, simulated: NewReno, Westwood+, BIC
and CUBIC as Linux 2.6.24 ran them, downlink and uplink, under background load.

The paper measured single flows over a live HSDPA network with a commercial card and Linux
2.6.24: per-flow goodput, RTT, loss (retransmission) ratio and timeouts, as CDFs over many
flows, and the cwnd and RTT of one flow per algorithm. What it leaves open, chosen here
(docs/cc-hsdpa.md, "The study"):

- The network is paper 000's seven cells (rtolab's ``[radio]`` defaults) with a
  proportional-fair scheduler, what operators deploy; other subscribers are web users
  (paper 000's sessions: Pareto files of mean 25 000 B, shape 1.1; think times of mean
  1.5 s) with Linux's Reno.
- Each run measures one algorithm: ``BULK`` downlink bulk flows, ``BULK`` uplink bulk flows
  (the user sends over its dedicated 384 kbit/s uplink, whose delay has exponential jitter of
  mean 10 ms delivered in sequence) and ``WEB_MEASURED`` web users, all with that algorithm,
  each from a user placed at random in the seven cells.
- The uplink's buffer is 10, 20 or 100 packets (0.3, 0.6 or 3.1 s of full-sized packets at
  384 kbit/s); the figures use 20.
- The sender is Linux 2.6.24 as far as rtolab's ``linux`` stack can be: SACK, timestamps,
  delayed ACKs, 200 ms minimum RTO, F-RTO and undo, RFC 3390's initial window, SACK
  recovery; RACK, TLP and PRR (later kernels) off. CUBIC is 2.6.24's: no HyStart, β = 0.8.
- Runs of 60 s; bulk flows start at ``BULK_START_S`` (after the background has settled) and
  run to the end; web transfers that begin before ``WARM_UP_S`` or do not finish are left
  out.
"""

from __future__ import annotations

from typing import Any

from rtolab.study import Study

#: The algorithms compared, as the ``tcp`` table of every measured flow: Linux 2.6.24's
#: modules (paper 004). "NewReno" is Linux's ``reno`` module with SACK recovery.
LINUX_2_6_24: dict[str, Any] = {
    "stack": "linux",
    "iw": "rfc3390",
    "rack": False,
    "tlp": False,
    "recovery": "prr",
}
ALGORITHMS: dict[str, dict[str, Any]] = {
    "NewReno": {**LINUX_2_6_24, "cc": "reno"},
    "Westwood+": {**LINUX_2_6_24, "cc": "westwood"},
    "BIC": {**LINUX_2_6_24, "cc": "bic"},
    "CUBIC": {**LINUX_2_6_24, "cc": "cubic", "hystart": False, "cubic_beta": 0.8},
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
DURATION_S = 60.0
BULK_START_S = 5.0
WARM_UP_S = 5.0
UPLINK = {"rate": "384kbps", "delay": "10ms", "jitter": "exp(10ms)", "queue": "20p"}
WEB_SIZE = "pareto(mean=25000B, shape=1.1)"
WEB_THINK = "exp(1.5s)"


def _bulk(name: str, uplink: bool) -> dict[str, Any]:
    return {"name": name, "route": ["hsdpa"], "uplink": uplink, "start": f"{BULK_START_S:g}s", "tcp": ALGORITHMS["NewReno"]}


def base_scenario(duration_s: float = DURATION_S, background_users: int = BACKGROUND_USERS) -> dict[str, Any]:
    """Seven PF cells, the background web users, and the measured flows (NewReno here; each
    case sets its algorithm)."""
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


def study(quick: bool = False, replications: int | None = None, seed: int = 2008) -> Study:
    """Full: the four algorithms × 3 uplink buffers × 30 replications of 60 s (per algorithm
    and buffer 60 downlink and 60 uplink bulk flows and some 3 000 measured web transfers);
    quick: × 5 replications."""
    return Study.from_dict({
        "name": "cc-hsdpa",
        "scenario": base_scenario(),
        "cases": algorithm_cases(list(ALGORITHMS)),
        "grid": {UPLINK_QUEUE: UPLINK_QUEUES},
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
