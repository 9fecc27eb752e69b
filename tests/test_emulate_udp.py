"""`rtolab emulate` of UDP flows: real UDP sockets in the two namespaces, driven by the
simulator's own source and sink, across rtolab's links. These run real namespaces and TUN
devices, so they need root and /dev/net/tun; elsewhere they skip and say why.

The acceptance line: the emulation of a CBR flow is within 2 % of the simulation on delay
and loss. The tolerances below were fixed before the first run."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

import rtolab
from rtolab import SpecError
from rtolab.emulate import emulate

from conftest import rtolab_cli
from test_emulate import _missing

#: Relative tolerance of the acceptance line (mean one-way delay, loss ratio).
TOLERANCE = 0.02


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def cbr(rate: str, link_rate: str, delay: str, duration: str | None, queue: dict[str, str] | None = None, **flow: Any) -> dict[str, Any]:
    """One link and one UDP flow of 1200-byte payloads at `rate`."""
    link: dict[str, Any] = {"name": "l", "rate": link_rate, "delay": delay}
    if queue:
        link["queue"] = queue
    spec: dict[str, Any] = {
        "name": "emu-udp",
        "links": [link],
        "flows": [{"name": "u", "route": ["l"], "udp": {"rate": rate, "size": "1200B"}, **flow}],
    }
    if duration:
        spec["duration"] = duration
    return spec


def both(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The UDP flow's row, simulated and emulated."""
    simulated = rtolab.run(spec).flows.row(0, named=True)
    emulated = emulate(spec).flows.row(0, named=True)
    return simulated, emulated


def relative(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def loss_ratio(row: dict[str, Any]) -> float:
    """Lost among the datagrams whose fate is known at the end."""
    lost, received = int(row["datagrams_lost"]), int(row["datagrams_received"])
    return lost / (lost + received)


@pytest.mark.slow  # 10-20 s of real time each
def test_cbr_below_capacity_loses_nothing_and_waits_as_simulated() -> None:
    """1 Mbit/s of 1200-byte payloads on a 10 Mbit/s, 40 ms link for 10 s: no loss either
    way, and the mean one-way delay (40 ms + 0.98 ms of serialisation in the simulator)
    within 2 % of the simulator's. The same source sends the same datagrams."""
    sim, emu = both(cbr("1Mbps", "10Mbps", "40ms", "10s"))
    assert emu["transport"] == sim["transport"] == "udp"
    assert emu["datagrams_sent"] == sim["datagrams_sent"] == 1042  # 10 s / 9.6 ms
    assert sim["datagrams_lost"] == 0 and emu["datagrams_lost"] == 0
    assert emu["datagrams_received"] > 1000 and sim["datagrams_received"] > 1000
    assert relative(emu["delay_mean_s"], sim["delay_mean_s"]) < TOLERANCE, (emu["delay_mean_s"], sim["delay_mean_s"])


@pytest.mark.slow  # 10-20 s of real time each
def test_cbr_above_capacity_loses_and_waits_as_simulated() -> None:
    """4 Mbit/s into a 2 Mbit/s, 20 ms link behind a 50-packet drop-tail queue for 20 s: the
    loss ratio (lost among lost and received) and the mean one-way delay within 2 %
    (relative) of the simulator's."""
    sim, emu = both(cbr("4Mbps", "2Mbps", "20ms", "20s", queue={"kind": "droptail", "limit": "50p"}))
    assert emu["datagrams_sent"] == sim["datagrams_sent"]
    assert relative(loss_ratio(emu), loss_ratio(sim)) < TOLERANCE, (loss_ratio(emu), loss_ratio(sim))
    assert relative(emu["delay_mean_s"], sim["delay_mean_s"]) < TOLERANCE, (emu["delay_mean_s"], sim["delay_mean_s"])


def udp_packets(pcap: bytes) -> list[tuple[int, int, int]]:
    """(source port, destination port, length on the wire) of every UDP packet of a classic
    pcap of raw IPv4 (LINKTYPE_RAW)."""
    out, at = [], 24
    while at < len(pcap):
        _, _, caplen, origlen = struct.unpack("<IIII", pcap[at : at + 16])
        ip = pcap[at + 16 : at + 16 + caplen]
        if ip[9] == 17:
            ihl = (ip[0] & 0x0F) * 4
            sport, dport = struct.unpack(">HH", ip[ihl : ihl + 4])
            out.append((sport, dport, origlen))
        at += 16 + caplen
    return out


def test_a_bounded_flow_beside_tcp_ends_with_its_last_datagram_and_is_recorded() -> None:
    """120 kB (100 datagrams) beside a TCP flow, without `duration`: the run ends when both
    are done; the UDP flow ends when its last datagram arrives; its `delay` series has one
    value per datagram, the pcap holds its 100 datagrams of 1228 bytes to port 5004, the links
    table counts them, and the flows table has the simulator's columns."""
    spec = cbr("1Mbps", "10Mbps", "40ms", None, size="120kB")
    spec["flows"].append({"name": "t", "route": ["l"], "size": "100kB"})
    spec["output"] = {"series": ["delay"], "pcap": ["l"]}
    emulated = emulate(spec)
    simulated = rtolab.run(spec)
    assert emulated.flows.columns == simulated.flows.columns
    u = emulated.flows.row(0, named=True)
    assert (u["datagrams_sent"], u["datagrams_received"], u["datagrams_lost"], u["bytes"]) == (100, 100, 0, 120_000)
    assert u["end_s"] == pytest.approx(99 * 0.0096 + 0.040 + 1228 * 8 / 10e6, abs=0.005)
    assert emulated.flows.row(1, named=True)["bytes"] == 100_000
    assert emulated.meta["emulator"]["congestion_control"].keys() == {"t"}
    delays = emulated.series.filter((emulated.series["entity"] == "u") & (emulated.series["metric"] == "delay"))
    assert delays.height == 100
    assert delays["value"].mean() == pytest.approx(u["delay_mean_s"], rel=1e-9)
    datagrams = [p for p in udp_packets(emulated.pcaps["l"]) if p[1] == 5004]
    assert len(datagrams) == 100 and {p[2] for p in datagrams} == {1228}
    forward = emulated.links.filter(emulated.links["direction"] == "forward").row(0, named=True)
    assert forward["packets_sent"] >= 100


def test_a_payload_too_small_for_the_stamp_is_refused_by_field(tmp_path: Path) -> None:
    """The sink learns each datagram's send time from a 12-byte stamp in its payload; a
    smaller payload is refused before the run, naming the field (exit 2 on the command line)."""
    spec = cbr("64kbps", "1Mbps", "10ms", "1s")
    spec["flows"][0]["udp"]["size"] = "8B"
    with pytest.raises(SpecError, match=r"flows\[0\]\.udp\.size: .*at least 12 B"):
        emulate(spec)
    path = tmp_path / "small.toml"
    path.write_text(
        'duration = "1s"\n[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = "10ms"\n'
        '[[flows]]\nname = "u"\nroute = ["l"]\nudp = { rate = "64kbps", size = "11B" }\n'
    )
    r = rtolab_cli("emulate", str(path))
    assert r.returncode == 2, r.stderr
    assert "flows[0].udp.size" in r.stderr and "at least 12 B" in r.stderr
    assert "Traceback" not in r.stderr
