"""Captures: the pcap a run writes is well-formed, and the retransmissions on the wire agree
with `flows.retransmits` — read back by a minimal reader here and, in `make validate`, by
tshark's own TCP analysis."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import rtolab
from conftest import small_scenario


def lossy_capture(seed: int = 3, tcp: dict[str, object] | None = None) -> rtolab.Result:
    """One flow over a lossy link with delay spikes (spurious timeouts), both directions of
    the link captured in one file."""
    spec = small_scenario(
        duration="30s",
        links=[
            {
                "name": "l", "rate": "2Mbps", "delay": "50ms", "queue": {"kind": "droptail", "limit": "20p"}, "loss": 0.01,
                "spikes": {"at": ["8s", "20s"], "length": "1.5s"},
            }
        ],
        flows=[{"name": "f", "route": ["l"], "tcp": tcp or {"stack": "linux", "mss": 1200}}],
        output={"pcap": ["l"]},
    )
    return rtolab.run(spec, seed=seed)


def packets(pcap: bytes) -> list[tuple[float, str, int, int, bytes]]:
    """(time, source address, TCP sequence number, payload length, TCP options) of every TCP
    packet.

    Classic pcap: 24-byte global header (magic a1b2c3d4, LINKTYPE_RAW = 101), then per packet
    a 16-byte record header and the captured bytes (IPv4 + TCP headers)."""
    magic, _, _, _, _, snaplen, linktype = struct.unpack("<IHHiIII", pcap[:24])
    assert magic == 0xA1B2C3D4 and linktype == 101 and snaplen == 65535
    out, at = [], 24
    while at < len(pcap):
        sec, usec, caplen, _origlen = struct.unpack("<IIII", pcap[at : at + 16])
        ip = pcap[at + 16 : at + 16 + caplen]
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        seq = struct.unpack(">I", ip[ihl + 4 : ihl + 8])[0]
        doff = (ip[ihl + 12] >> 4) * 4
        source = ".".join(str(b) for b in ip[12:16])
        out.append((sec + usec / 1e6, source, seq, total - ihl - doff, bytes(ip[ihl + 20 : ihl + doff])))
        at += 16 + caplen
    return out


def data_segments(pcap: bytes) -> list[tuple[float, int, int]]:
    """(time, sequence number, payload length) of the data sender's segments with payload
    (the sender's addresses are 10.1.x.y)."""
    return [(t, seq, n) for t, src, seq, n, _ in packets(pcap) if n and src.startswith("10.1.")]


def test_wire_retransmissions_match_the_flow_table() -> None:
    r = lossy_capture()
    assert list(r.pcaps) == ["l"]
    segments = data_segments(r.pcaps["l"])
    seen: set[int] = set()
    repeats = 0
    for _, seq, _ in segments:
        repeats += seq in seen
        seen.add(seq)
    flow = r.flows.row(0, named=True)
    assert flow["retransmits"] > 10  # 1 % loss over ~5000 packets
    assert repeats == flow["retransmits"]
    assert len(segments) == flow["segments_sent"]
    acks = [p for p in packets(r.pcaps["l"]) if p[1].startswith("10.2.")]
    assert len(acks) > len(segments) / 3  # the ACKs are in the same file


def syn_options(options: bytes) -> dict[int, bytes]:
    """TCP option kind → its bytes (NOPs and the end skipped)."""
    out, i = {}, 0
    while i < len(options) and options[i] != 0:
        if options[i] == 1:
            i += 1
            continue
        kind, length = options[i], options[i + 1]
        out[kind] = options[i + 2 : i + length]
        i += length
    return out


def test_the_handshake_carries_the_flows_own_options() -> None:
    """MSS (kind 2) is the flow's, SACK-permitted (4) only with SACK, the window scale (3)
    fits the receiver's window, timestamps (8) with timestamps; on the SYN and the SYN-ACK."""
    for tcp, mss, sack in [({"stack": "linux", "mss": 1200}, 1200, True), ({"stack": "rfc", "mss": 536, "sack": False, "timestamps": False}, 536, False)]:
        syns = [p for p in packets(lossy_capture(tcp=tcp).pcaps["l"]) if p[2] in (1_000_000, 5_000_000) and p[3] == 0][:2]
        assert [p[1][:5] for p in syns] == ["10.1.", "10.2."]
        for p in syns:
            options = syn_options(p[4])
            assert struct.unpack(">H", options[2])[0] == mss
            assert (4 in options) == sack
            assert 3 in options and 0 < options[3][0] <= 14


def _tshark(path: Path, fields: list[str], display: str = "") -> list[list[str]]:
    cmd = ["tshark", "-r", str(path), "-T", "fields", *[a for f in fields for a in ("-e", f)]]
    if display:
        cmd += ["-Y", display]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)
    return [line.split("\t") for line in proc.stdout.splitlines()]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make validate installs it)")
def test_tshark_reads_both_directions_and_agrees_on_retransmissions(tmp_path: Path) -> None:
    """tshark's own analysis of the two-way capture: every segment sent again is flagged a
    retransmission (plain, fast or spurious) or out-of-order, and exactly those; the SYN
    shows the configured MSS, SACK-permitted and window scale."""
    r = lossy_capture()
    path = tmp_path / "l.pcap"
    path.write_bytes(r.pcaps["l"])
    again = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order"
    flagged = _tshark(path, ["frame.number"], f"ip.src == 10.1.0.0/16 && tcp.len > 0 && ({again})")
    flow = r.flows.row(0, named=True)
    assert flow["spurious_timeouts"] > 0 and flow["retransmits"] > 10
    assert len(flagged) == flow["retransmits"]
    syn = _tshark(path, ["tcp.options.mss_val", "tcp.options.sack_perm", "tcp.options.wscale.shift"], "tcp.flags.syn == 1 && tcp.flags.ack == 0")
    mss, sack_perm, shift = syn[0]
    assert mss == "1200" and sack_perm != "" and 0 < int(shift) <= 14


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make validate installs it)")
def test_tshark_decodes_udp_datagrams(tmp_path: Path) -> None:
    """A UDP flow's capture: tshark decodes every packet as IPv4/UDP to port 5004, with the
    payload length the flow sends (1200 B); one per datagram."""
    r = rtolab.run(
        {
            "duration": "1s",
            "links": [{"name": "l", "rate": "10Mbps", "delay": "10ms"}],
            "flows": [{"name": "u", "route": ["l"], "size": "12kB", "udp": {"rate": "1Mbps", "size": "1200B"}}],
            "output": {"pcap": ["l"]},
        }
    )
    path = tmp_path / "l.pcap"
    path.write_bytes(r.pcaps["l"])
    rows = _tshark(path, ["udp.dstport", "udp.length", "ip.len"], "udp")
    assert rows == [["5004", "1208", "1228"]] * 10
