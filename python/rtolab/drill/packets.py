"""IPv4 / TCP packets as bytes, for playing a script against the kernel through a TUN device.

A packet read from or written to the device starts with a ``struct virtio_net_hdr``
(``include/uapi/linux/virtio_net.h``, 10 bytes), as the device is opened with
``IFF_VNET_HDR`` like packetdrill's (``netdev.c``: ``create_device``) so that the kernel may
hand it TSO super-packets as it would a typical Ethernet device. Headers: IPv4 (RFC 791 3.1),
TCP (RFC 9293 3.1) and its options (RFC 9293 3.2; SACK, RFC 2018; window scale and
timestamps, RFC 7323); checksums by RFC 1071 over the pseudo-header (RFC 9293 3.1).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

from rtolab.drill.wire import Segment

VNET_HEADER = b"\x00" * 10
IPPROTO_TCP = 6
#: TCP option kinds (IANA "TCP Option Kind Numbers") by packetdrill's names.
OPTION_KINDS = {"eol": 0, "nop": 1, "mss": 2, "wscale": 3, "sackOK": 4, "sack": 5, "TS": 8}
OPTION_NAMES = {v: k for k, v in OPTION_KINDS.items()}


@dataclass(frozen=True)
class Endpoints:
    """The addresses and ports of a packet, as the kernel sees them from its side."""

    local_ip: str
    local_port: int
    remote_ip: str
    remote_port: int


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of
    16-bit words."""
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return int(~total & 0xFFFF)


def encode_options(options: list[tuple[str, list[int]]]) -> bytes:
    """TCP options in the order given; the script's own padding (nop, eol) is kept, and the
    result is padded with EOL to a 32-bit boundary."""
    out = bytearray()
    for kind, values in options:
        code = OPTION_KINDS[kind]
        if kind in ("eol", "nop"):
            out.append(code)
        elif kind == "mss":
            out += struct.pack("!BBH", code, 4, values[0])
        elif kind == "wscale":
            out += struct.pack("!BBB", code, 3, values[0])
        elif kind == "sackOK":
            out += struct.pack("!BB", code, 2)
        elif kind == "TS":
            out += struct.pack("!BBII", code, 10, values[0] & 0xFFFFFFFF, values[1] & 0xFFFFFFFF)
        elif kind == "sack":
            out += struct.pack("!BB", code, 2 + 4 * len(values))
            out += b"".join(struct.pack("!I", v & 0xFFFFFFFF) for v in values)
    out += b"\x00" * (-len(out) % 4)
    return bytes(out)


def decode_options(data: bytes) -> list[tuple[str, list[int]]]:
    """TCP options as packetdrill names them; an unknown kind is named by its number."""
    options: list[tuple[str, list[int]]] = []
    i = 0
    while i < len(data):
        code = data[i]
        if code in (0, 1):
            options.append((OPTION_NAMES[code], []))
            i += 1
            if code == 0:
                break
            continue
        if i + 1 >= len(data) or data[i + 1] < 2:
            break
        length = data[i + 1]
        body = data[i + 2 : i + length]
        name = OPTION_NAMES.get(code, f"kind{code}")
        if name == "mss":
            values = [struct.unpack("!H", body)[0]]
        elif name == "wscale":
            values = [body[0]]
        elif name in ("TS", "sack"):
            values = list(struct.unpack(f"!{len(body) // 4}I", body))
        else:
            values = []
        options.append((name, values))
        i += length
    return options


def encode(seg: Segment, ends: Endpoints, ip_id: int = 0) -> bytes:
    """The bytes to write to the device for a segment the remote side sends to the kernel
    (sequence numbers already live), behind a virtio-net header that asks for no offload."""
    opts = encode_options(seg["options"])
    header_words = (20 + len(opts)) // 4
    tcp = struct.pack(
        "!HHIIBBHHH",
        ends.remote_port, ends.local_port, seg["seq"] & 0xFFFFFFFF, seg["ack"] & 0xFFFFFFFF,
        header_words << 4, seg["flags"], seg["win"], 0, 0,
    ) + opts + b"\x00" * seg["len"]
    src, dst = socket.inet_aton(ends.remote_ip), socket.inet_aton(ends.local_ip)
    pseudo = src + dst + struct.pack("!BBH", 0, IPPROTO_TCP, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ip_id & 0xFFFF, 0x4000, 64, IPPROTO_TCP, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return VNET_HEADER + ip + tcp


def decode(packet: bytes) -> tuple[Endpoints, Segment] | None:
    """An IP packet the kernel sent: its endpoints and segment with live sequence numbers;
    None for anything but IPv4 TCP."""
    if len(packet) < 40 or packet[0] >> 4 != 4 or packet[9] != IPPROTO_TCP:
        return None
    ihl = (packet[0] & 0x0F) * 4
    total = struct.unpack("!H", packet[2:4])[0] or len(packet)
    src, dst = socket.inet_ntoa(packet[12:16]), socket.inet_ntoa(packet[16:20])
    tcp = packet[ihl:total]
    sport, dport, seq, ack, offset, flags, win = struct.unpack("!HHIIBBH", tcp[:16])
    header = (offset >> 4) * 4
    seg = Segment(flags=flags, seq=seq, ack=ack, win=win, len=len(tcp) - header, options=decode_options(tcp[20:header]))
    return Endpoints(local_ip=src, local_port=sport, remote_ip=dst, remote_port=dport), seg
