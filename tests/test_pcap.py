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


def lossy_capture(seed: int = 3) -> rtolab.Result:
    spec = small_scenario(
        duration="30s",
        links=[{"name": "l", "rate": "2Mbps", "delay": "50ms", "queue": {"kind": "droptail", "limit": "20p"}, "loss": 0.01}],
        output={"pcap": ["l"]},
    )
    return rtolab.run(spec, seed=seed)


def data_segments(pcap: bytes) -> list[tuple[float, int, int]]:
    """(time, TCP sequence number, payload length) of every segment with payload.

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
        payload = total - ihl - doff
        if payload:
            out.append((sec + usec / 1e6, seq, payload))
        at += 16 + caplen
    return out


def test_wire_retransmissions_match_the_flow_table() -> None:
    r = lossy_capture()
    segments = data_segments(r.pcaps["l.forward"])
    seen: set[int] = set()
    repeats = 0
    for _, seq, _ in segments:
        repeats += seq in seen
        seen.add(seq)
    flow = r.flows.row(0, named=True)
    assert flow["retransmits"] > 10  # 1 % loss over ~5000 packets
    assert repeats == flow["retransmits"]
    assert len(segments) == flow["segments_sent"]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (make validate installs it)")
def test_tshark_reads_the_capture_and_agrees_on_retransmissions(tmp_path: Path) -> None:
    r = lossy_capture()
    path = tmp_path / "l.pcap"
    path.write_bytes(r.pcaps["l.forward"])
    proc = subprocess.run(
        ["tshark", "-r", str(path), "-Y", "tcp.analysis.retransmission || tcp.analysis.fast_retransmission", "-T", "fields", "-e", "frame.number"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    flagged = len(proc.stdout.split())
    assert flagged == r.flows["retransmits"][0]
