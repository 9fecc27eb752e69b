"""The minimum-RTO study of paper 000 over HSDPA's shared channel (Sec. 3–4): web users in
seven cells, round-robin and max-SIR scheduling, TCP SACK and NewReno, minRTO from 0 to 1 s.

Set-up (Sec. 3.1, Table 1; rtolab's ``[radio]`` defaults): seven hexagonal cells of 500 m
radius with wrap-around, path loss exponent 3.5, log-normal shadowing σ = 8 dB, 10 %
self-interference, 40 % of the own cell's simultaneous transmissions, other cells dampened
by distance; 2 ms TTI, Table 1's link adaptation, block error rates 50 % below −3.5 dB and
10 % above, damaged blocks sent again at once, up to three users code-multiplexed; traffic
sources 25 ms / 5 Gbps away. Each user downloads a file (Pareto, mean 25 000 B, shape 1.1,
from the paper's reference [14]) over a new connection, then waits an exponential time (mean 1.5 s) from the arrival of the
last byte, and starts the next file from a new position in a new direction.

What the paper leaves open is read by calibration (``minrto_hsdpa_calibration``, docs/
calibration.md): the readings of each open detail were searched against the paper's own
operating-point statements only, and the pick frozen as this study's default. Frozen
(``CALIBRATED``): ns-2's uncut Pareto file sizes, runs of 300 s, a 50-packet drop-tail buffer
shared by each cell's users (ns-2's default queue), ns-2.27's first RTO of 6 s, FullTcp's
536 B segments, one IP packet per radio block, users multiplexed while the chosen cannot fill
their blocks. The study before calibration (3GPP's cut-off Pareto, 60 s, 100 packets per user,
3 s, 1000 B, concatenated blocks) runs beside as an ablation of every finding. No admissible
reading reaches the paper's "about 50 %" of transfers below 10 kbit/s above 150 users (at most
8 % over the 192 candidates); the frozen one keeps Fig. 4's range.

Fixed by no calibration:

- TCP as ns-2.35's ``Agent/TCP/Sack1`` and ``Agent/TCP/Newreno`` with their sinks (the
  ``ns2-sack1`` and ``ns2-newreno`` stacks: window 20, no delayed ACKs, ns-2's timer on a
  10 ms clock), the paper's simulator (it ran ns-2.27), with a SYN handshake per file
  ("connection establishment takes place for every flow"); ``min_rto`` is ns-2's ``minrto_``.
- Users walk at 3 km/h; shadowing decorrelates over 50 m (Gudmundson); each user's ACKs cross
  a dedicated 384 kbit/s uplink with 10 ms delay.
- Transfers that begin in the first 10 s (warm-up) are left out of the per-flow measures;
  those still running at the end count at their goodput so far (censored observations,
  ``minrto_hsdpa_analysis.measured``).
- Loads: the paper's 20–150 users.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rtolab.study import Study

if TYPE_CHECKING:
    from rtolab.calibration import Candidate

USERS = "generators.web.users"
SCHEDULER = "radio.scheduler"
STACK = "generators.web.tcp.stack"
MIN_RTO = "generators.web.tcp.min_rto"
SIZE = "generators.web.size"
#: 3GPP's "Pareto with cut-off" (k = 4.5 kB, α = 1.1, m = 2 MB; mean 25 kB), k solved from the mean.
FILE_SIZES = "pareto(mean=25000B, shape=1.1, max=2MB)"
#: ns-2's ``RandomVariable/Pareto`` with ``avg_ 25000``, ``shape_ 1.1``: no cut-off.
FILE_SIZES_UNCUT = "pareto(mean=25000B, shape=1.1)"

#: The paper's largest load (Sec. 3.1: "we settled on 150 users as a maximum").
PAPER_MAX_USERS = 150
USERS_FULL = [20, 50, 75, 100, 125, 150]
USERS_QUICK = [20, 75, 150]
MIN_RTOS_FULL = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0]
MIN_RTOS_QUICK = [0.0, 0.2, 0.5, 1.0]
SCHEDULERS = ["rr", "max-sir"]
STACKS_FULL = ["ns2-sack1", "ns2-newreno"]
STACKS_QUICK = ["ns2-sack1"]
DURATION_S = 60.0
WARM_UP_S = 10.0


def base_scenario(duration_s: float = DURATION_S) -> dict[str, Any]:
    """Paper 000's system with the radio network's defaults and one web generator."""
    return {
        "name": "minrto-hsdpa",
        "duration": f"{duration_s:g}s",
        "radio": {},
        "generators": [
            {
                "kind": "web",
                "name": "web",
                "users": 20,
                "size": FILE_SIZES,
                "think": "exp(1.5s)",
                "route": ["hsdpa"],
                "tcp": {"stack": "ns2-sack1", "min_rto": "0.2s"},
            }
        ],
    }


def study(quick: bool = False, replications: int | None = None, seed: int = 2005, reading: Candidate | None = None) -> Study:
    """Full: 8 loads × 2 schedulers × 2 TCPs × 7 minRTOs × 10 replications; quick: 4 loads ×
    2 schedulers × SACK × 4 minRTOs × 3 replications; each run of the base scenario under
    ``reading`` (``minrto_hsdpa_calibration``: default, the frozen calibrated reading; its
    axes' first readings are the study before calibration, run as an ablation)."""
    from rtolab.studies import minrto_hsdpa_calibration as calibration

    chosen = reading if reading is not None else calibration.calibrated()
    earlier = chosen == calibration.earlier()
    return Study.from_dict({
        "name": "minrto-hsdpa-earlier-reading" if earlier and reading is not None else "minrto-hsdpa",
        "scenario": calibration.scenario(chosen),
        "grid": {
            SCHEDULER: SCHEDULERS,
            STACK: STACKS_QUICK if quick else STACKS_FULL,
            USERS: USERS_QUICK if quick else USERS_FULL,
            MIN_RTO: [f"{m:g}s" for m in (MIN_RTOS_QUICK if quick else MIN_RTOS_FULL)],
        },
        "replications": replications or (3 if quick else 10),
        "seed": seed,
    })


def duration_s(study: Study) -> float:
    """The run length of ``study``'s base scenario, in seconds."""
    return float(str(study.base["duration"]).removesuffix("s"))
