"""Reads an rtolab scenario (TOML) into the set-up ns-3 runs, or says why ns-3 cannot run it.

Standard library plus rtolab's unit parser; no ns-3 import. The mapping, field by field:

- one `[[links]]` entry → one duplex ns-3 point-to-point link with its `rate`, one-way
  `delay` and, in both directions, a DropTail device queue of `queue.limit` (packets "Np" or
  bytes); ns-3's device queue, like rtolab's, holds the packets waiting behind the one being
  serialised. `drop_packets` → the n-th packets of the forward direction are lost after the
  link (`probe.h` `DropNth`).
- `[[flows]]` (`size`, `start`) and `[[generators]]` of kind "burst" (`flows` flows of
  `total / flows` bytes each, named `NAME.i`, all starting at `start`) → bulk senders.
- `tcp`: `cc` (default "cubic", the kernel's default) through `CC`; `sack`, `timestamps`
  (default on, as in Linux); `iw` (default 10 segments, Linux's initcwnd); `mss` (default
  1448: a 1500 B MTU less 40 B of headers and 12 B of timestamps, what Linux sends);
  `min_rto` (default 200 ms, Linux's TCP_RTO_MIN). All flows must agree on all of these but
  `cc`, as ns-3's receiving sockets take their options from global defaults.

Everything else is refused with the reason (`CannotRun`): spikes (ns-3.44's point-to-point
link cannot hold packets and release them later), random loss, RED, reverse overrides,
multi-link routes, web users, jittered bursts, and any TCP field without an ns-3 counterpart.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtolab import _core

#: rtolab `cc` → ns-3 congestion control. Reno maps to TcpLinuxReno, ns-3's port of Linux's
#: tcp_reno_cong_avoid: slow start grows by the segments an ACK covers (tcp_slow_start) and
#: congestion avoidance counts acked segments against cwnd (snd_cwnd_cnt). ns-3's TcpNewReno
#: instead grows by one segment per ACK in slow start and by MSS²/cwnd per ACK in congestion
#: avoidance, i.e. half as fast as Linux once the receiver delays its ACKs.
CC = {
    "reno": "ns3::TcpLinuxReno",
    "newreno": "ns3::TcpLinuxReno",
    "cubic": "ns3::TcpCubic",
    "bic": "ns3::TcpBic",
    "westwood": "ns3::TcpWestwoodPlus",
}

SPIKES = (
    "ns-3 cannot run this set-up: a spike holds every packet and releases it later, and "
    "ns-3.44's point-to-point link cannot pause (its transmitter keeps serving the queue and "
    "the channel delay is fixed per transmission)"
)

TCP_FIELDS = {"stack", "cc", "sack", "timestamps", "iw", "mss", "min_rto"}
#: TCP fields for which ns-3.44 has no mechanism at all.
MISSING_IN_NS3 = {
    "detect": "ns-3.44 has no spurious-timeout detection (F-RTO, Eifel, DSACK)",
    "response": "ns-3.44 has no response to a spurious timeout (no undo)",
    "rack": "ns-3.44 has no RACK",
    "tlp": "ns-3.44 has no tail loss probe",
}
LINK_FIELDS = {"name", "rate", "delay", "queue", "drop_packets"}


class CannotRun(Exception):
    """The scenario uses something ns-3 cannot express; the message says what."""


@dataclass(frozen=True)
class Link:
    rate_bps: float
    delay_s: float
    queue_limit: str
    drop_packets: tuple[int, ...]


@dataclass(frozen=True)
class Tcp:
    sack: bool
    timestamps: bool
    iw: int
    mss: int
    min_rto_s: float


@dataclass(frozen=True)
class Flow:
    name: str
    size: int
    start_s: float
    cc: str


@dataclass(frozen=True)
class Setup:
    name: str
    link: Link
    tcp: Tcp
    flows: tuple[Flow, ...]


def seconds(value: Any) -> float:
    """A duration as rtolab reads it ("70ms", "1.5s" or a number of seconds)."""
    return _core.parse_quantity("duration", str(value))


def nbytes(value: Any) -> int:
    """A byte count as rtolab reads it ("180kB" is 180 000 bytes)."""
    return int(_core.parse_quantity("size", str(value)))


def queue_limit(text: str) -> str:
    """ns-3 `QueueSize` text for an rtolab limit: "50p" → "50p", "64kB" → "64000B"."""
    if text.endswith("p"):
        return f"{int(text[:-1])}p"
    return f"{nbytes(text)}B"


def iw_segments(iw: Any, mss: int) -> int:
    """Segments of an rtolab `iw`: a number, or the RFC 3390 / RFC 6928 byte rule in whole
    segments (as rtolab's `InitialWindow::bytes`)."""
    if isinstance(iw, int):
        return max(iw, 1)
    bound = {"rfc3390": min(4 * mss, max(2 * mss, 4380)), "rfc6928": min(10 * mss, max(2 * mss, 14600))}[iw]
    return max(bound // mss, 1)


def read_link(table: dict[str, Any]) -> Link:
    if "spikes" in table:
        raise CannotRun(SPIKES)
    extra = sorted(set(table) - LINK_FIELDS)
    if extra:
        raise CannotRun(f"links.{extra[0]}: not mapped to ns-3")
    queue = table.get("queue", {"kind": "droptail", "limit": "50p"})
    if queue.get("kind") != "droptail":
        raise CannotRun(f"links.queue.kind = {queue.get('kind')!r}: only droptail is mapped to ns-3")
    return Link(
        rate_bps=_core.parse_quantity("rate", str(table["rate"])),
        delay_s=seconds(table["delay"]),
        queue_limit=queue_limit(str(queue["limit"])),
        drop_packets=tuple(int(n) for n in table.get("drop_packets", [])),
    )


def read_tcp(table: dict[str, Any]) -> tuple[Tcp, str]:
    extra = sorted(set(table) - TCP_FIELDS)
    if extra:
        raise CannotRun(f"tcp.{extra[0]}: {MISSING_IN_NS3.get(extra[0], 'not mapped to ns-3')}")
    if table.get("stack", "linux") != "linux":
        raise CannotRun(f"tcp.stack = {table['stack']!r}: the ns-3 set-up follows the kernel's (linux) defaults")
    mss = int(table.get("mss", 1448))
    tcp = Tcp(
        sack=bool(table.get("sack", True)),
        timestamps=bool(table.get("timestamps", True)),
        iw=iw_segments(table.get("iw", 10), mss),
        mss=mss,
        min_rto_s=seconds(table.get("min_rto", "200ms")),
    )
    cc = str(table.get("cc", "cubic"))
    if cc not in CC:
        raise CannotRun(f"tcp.cc = {cc!r}: not mapped to ns-3 (its TcpBbr needs ns-3's pacing, which ns3_run.py does not set up)")
    return tcp, CC[cc]


def read_flows(tree: dict[str, Any]) -> list[tuple[Flow, Tcp]]:
    out: list[tuple[Flow, Tcp]] = []
    for f in tree.get("flows", []):
        if str(f.get("size", "inf")) == "inf":
            raise CannotRun(f"flows {f['name']!r}: only flows of a given size are mapped to ns-3")
        tcp, cc = read_tcp(f.get("tcp", {}))
        start = seconds(f["start"]) if "start" in f else 0.0
        out.append((Flow(f["name"], nbytes(f["size"]), start, cc), tcp))
    for i, g in enumerate(tree.get("generators", [])):
        if g.get("kind") != "burst" or "jitter" in g:
            raise CannotRun(f"generators[{i}]: only bursts without jitter are mapped to ns-3")
        tcp, cc = read_tcp(g.get("tcp", {}))
        name = g.get("name", f"burst{i}")
        each = nbytes(g["total"]) // int(g["flows"])
        start = seconds(g["start"]) if "start" in g else 0.0
        out.extend((Flow(f"{name}.{k}", each, start, cc), tcp) for k in range(int(g["flows"])))
    return out


def from_tree(tree: dict[str, Any], name: str) -> Setup:
    """The set-up of a parsed scenario; raises `CannotRun`."""
    links = tree.get("links", [])
    if len(links) != 1:
        raise CannotRun("only one link is mapped to ns-3")
    link = read_link(links[0])
    flows = read_flows(tree)
    if any(len(f.get("route", [])) != 1 for f in [*tree.get("flows", []), *tree.get("generators", [])]):
        raise CannotRun("only single-link routes are mapped to ns-3")
    tcps = {tcp for _, tcp in flows}
    if len(tcps) != 1:
        raise CannotRun("flows differ in TCP settings other than cc; ns-3's receivers share one set")
    return Setup(name=name, link=link, tcp=tcps.pop(), flows=tuple(f for f, _ in flows))


def load(path: Path) -> Setup:
    """The set-up of a scenario file; raises `CannotRun`."""
    return from_tree(tomllib.loads(path.read_text()), path.stem)
