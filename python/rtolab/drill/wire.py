"""Segments as the simulated socket exchanges them (``rtolab._core.DrillSocket``): dicts of
``flags`` (TCP header bits), ``seq``, ``ack``, ``win``, ``len`` and ``options`` as
``(kind, values)`` pairs named as packetdrill names them; and how a script's packet becomes
one, and one is written back in packetdrill's notation for a failure message
(``packet_to_string.c``'s layout: ``flags start:end(len) ack A win W <options>``)."""

from __future__ import annotations

from typing import Any, TypedDict

from rtolab.drill.script import Packet, TcpOption

#: Header bits by packetdrill's flag letters (RFC 9293 3.1; ECE, CWR: RFC 3168).
FLAG_BITS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, ".": 0x10, "U": 0x20, "E": 0x40, "W": 0x80}
#: The order packetdrill writes them in.
FLAG_ORDER = "SFRPU.EW"
#: Option kinds the simulated socket reads and writes.
SOCKET_OPTIONS = {"mss", "wscale", "sackOK", "nop", "eol", "TS", "sack"}


class Segment(TypedDict):
    flags: int
    seq: int
    ack: int
    win: int
    len: int
    options: list[tuple[str, list[int]]]


def flag_bits(flags: str) -> int:
    """The header bits of packetdrill's flag letters (``-`` is none)."""
    return 0 if flags == "-" else sum(FLAG_BITS[c] for c in flags)


def flag_letters(bits: int) -> str:
    letters = "".join(c for c in FLAG_ORDER if bits & FLAG_BITS[c])
    return letters or "-"


def unsupported_options(options: tuple[TcpOption, ...] | None) -> list[str]:
    """Options of a packet the simulated socket does not model (fast open, MD5, AccECN)."""
    return sorted({o.kind for o in options or () if o.kind not in SOCKET_OPTIONS})


def inbound(packet: Packet, ack: int, ecr: int | None) -> Segment:
    """The segment a script's inbound packet injects, its ack already relative to the
    socket's ISN and its TS ecr already mapped to the socket's clock (``ecr``)."""
    options: list[tuple[str, list[int]]] = []
    for o in packet.options or ():
        if o.kind == "TS" and ecr is not None:
            options.append(("TS", [o.values[0], ecr]))
        else:
            options.append((o.kind, list(o.values)))
    return Segment(flags=flag_bits(packet.flags), seq=packet.seq_start, ack=ack, win=packet.win or 0, len=packet.length, options=options)


def describe(seg: Any, seq_base: int = 0, ack_base: int = 0) -> str:
    """A live segment in packetdrill's notation, its numbers shifted by the bases."""
    start = int(seg["seq"]) + seq_base
    parts = [flag_letters(int(seg["flags"])), f"{start}:{start + int(seg['len'])}({seg['len']})"]
    if int(seg["flags"]) & FLAG_BITS["."]:
        parts.append(f"ack {int(seg['ack']) + ack_base}")
    parts.append(f"win {seg['win']}")
    if seg["options"]:
        parts.append("<" + ",".join(_option_text(k, v) for k, v in seg["options"]) + ">")
    return " ".join(parts)


def describe_script(p: Packet) -> str:
    """A script packet as written (normalised spacing)."""
    parts = [p.flags, f"{p.seq_start}:{p.seq_end}({p.length})"]
    if p.ack is not None:
        parts.append(f"ack {p.ack}")
    if p.win is not None:
        parts.append(f"win {p.win}")
    if p.options is None:
        parts.append("<...>")
    elif p.options:
        parts.append("<" + ",".join(_option_text(o.kind, list(o.values)) for o in p.options) + ">")
    return " ".join(parts)


def _option_text(kind: str, values: list[int]) -> str:
    if kind == "TS":
        return f"TS val {values[0]} ecr {values[1]}"
    if kind == "sack":
        return "sack " + " ".join(f"{a}:{b}" for a, b in zip(values[::2], values[1::2]))
    return " ".join([kind, *map(str, values)])
