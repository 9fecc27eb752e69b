"""`rtolab emulate`: the kernel's TCP over rtolab's links. These run real namespaces and
TUN devices, so they need root and /dev/net/tun; elsewhere they skip and say why."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rtolab import SpecError, _core
from rtolab.emulate import emulate
from rtolab.output_dir import _alive

from conftest import rtolab_cli


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "emulation needs root"
    if not Path("/dev/net/tun").exists():
        return "emulation needs /dev/net/tun"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def link(**kw: Any) -> dict[str, Any]:
    return {"name": "l", "rate": "10Mbps", "delay": "20ms", "queue": {"kind": "droptail", "limit": "1000p"}, **kw}


def scenario(size: str = "100kB", **link_kw: Any) -> dict[str, Any]:
    return {"name": "emu", "links": [link(**link_kw)], "flows": [{"name": "f", "route": ["l"], "size": size, "tcp": {"iw": 100}}]}


def namespaces() -> list[str]:
    """Every emulator namespace on this machine (`rtolab-emu-<pid>-<role>`)."""
    return sorted(p.name for p in Path("/run/netns").glob("rtolab-emu-*")) if Path("/run/netns").exists() else []


def ours() -> list[str]:
    """The emulator namespaces no other live process owns: this process's and those a dead one
    left. Another pytest-xdist worker's emulation, running meanwhile, is not ours."""
    return [n for n in namespaces() if int(n.split("-")[2]) == os.getpid() or not _alive(int(n.split("-")[2]))]


def test_a_megabyte_arrives_whole_and_cleans_up() -> None:
    """The functional part, whatever the host's load: every byte arrives, the emulator
    reports its accuracy, and nothing it created is left behind."""
    r = emulate(scenario("1MB"))
    f = r.flows.row(0, named=True)
    assert f["bytes"] == 1_000_000
    assert f["end_s"] > f["start_s"] + 691 * 1500 * 8 / 10e6  # no faster than the link
    assert any(a["direction"] == "l.forward" for a in r.meta["emulator"]["accuracy"])
    assert ours() == []


@pytest.mark.slow
def test_a_megabyte_arrives_whole_at_the_link_rate() -> None:
    """Real-time accuracy (slow: it needs a quiet host, so it runs in `make test-all`, not
    beside other builds). 1 MB in 691 packets of 1448 B payload (1500 B on the wire) at 10 Mbps: 829 ms of
    serialisation, plus the handshake (40 ms) and the last packet's trip (20 ms) and its ACK
    (20 ms); IW 100 keeps slow start out of it. Tolerance 2 % (the issue's)."""
    r = emulate(scenario("1MB"))
    f = r.flows.row(0, named=True)
    assert f["bytes"] == 1_000_000
    ideal = 691 * 1500 * 8 / 10e6 + 0.040 + 0.040
    took = f["end_s"] - f["start_s"]
    assert abs(took - ideal) / ideal < 0.02, (took, ideal)
    emu = r.meta["emulator"]
    forward = next(a for a in emu["accuracy"] if a["direction"] == "l.forward")
    assert abs(forward["rate_error_pct"]) < 0.1  # the target at <= 10 Mbps
    assert emu["added_latency_median_us"] < 1000
    assert ours() == []


@pytest.mark.slow
def test_a_two_second_spike_delays_delivery_by_two_seconds() -> None:
    """A 2 s spike from t = 0 holds the first SYN (and the one retransmitted at 1 s) until
    t = 2 s; the handshake and transfer then run as without the spike: the spiked flow ends
    at 2 s plus the plain flow's duration (from its own connect), ± 5 ms. Durations, not end
    times, are compared, because how soon the application connects after the clock starts
    varies with the machine's load (by up to 10 ms on a busy 2-core machine)."""
    plain_run = emulate(scenario())
    spiked_run = emulate(scenario(spikes={"at": ["0s"], "length": "2s", "direction": "forward"}))
    plain, spiked = plain_run.flows.row(0, named=True), spiked_run.flows.row(0, named=True)
    assert spiked["bytes"] == plain["bytes"] == 100_000
    expected_end = 2.0 + plain["end_s"] - plain["start_s"]
    late = [r.meta["emulator"]["late_packets"] for r in (plain_run, spiked_run)]
    assert abs(spiked["end_s"] - expected_end) < 0.005, (plain, spiked, late)
    # The first SYN arrived (after the spike), so every SYN timeout during the hold is spurious.
    assert spiked["syn_timeouts"] >= 1
    assert spiked["spurious_syn_timeouts"] == spiked["syn_timeouts"]


def test_a_spike_holds_the_handshake() -> None:
    """The functional part of the spike case, whatever the host's load: nothing crosses
    before the 2 s spike ends, and the SYN timeouts during the hold are spurious."""
    r = emulate(scenario(spikes={"at": ["0s"], "length": "2s", "direction": "forward"}))
    f = r.flows.row(0, named=True)
    assert f["bytes"] == 100_000
    assert f["end_s"] >= 2.0
    assert f["syn_timeouts"] >= 1 and f["spurious_syn_timeouts"] == f["syn_timeouts"]


def test_fields_the_kernel_cannot_honour_exit_2(tmp_path: Path) -> None:
    spec = scenario()
    spec["flows"][0]["tcp"] = {"stack": "ns2-sack1"}
    with pytest.raises(SpecError, match=r"flows\[0\]\.tcp\.stack"):
        emulate(spec)
    with pytest.raises(SpecError, match=r"output\.events: the event log is the simulator's"):
        emulate({**scenario(), "output": {"events": ["timeout"]}})
    absent = next(cc for cc in ("bic", "westwood") if cc not in Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split())
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = "10ms"\n'
        f'[[flows]]\nname = "f"\nroute = ["l"]\nsize = "10kB"\ntcp = {{ cc = "{absent}" }}\n'
    )
    r = rtolab_cli("emulate", str(path))
    assert r.returncode == 2, r.stderr
    assert "flows[0].tcp.cc" in r.stderr and absent in r.stderr
    assert "Traceback" not in r.stderr


def test_a_mobile_user_downloads_and_uploads_through_the_radio_network() -> None:
    """The HSDPA model in real time: one cell, a kernel download and upload at a mobile
    user arrive whole; the upload is held to the dedicated uplink's 384 kbit/s (payload share
    1448/1500), the download crosses the shared channel, whose cell reports the blocks it
    sent; the uplinks stay out of the links table."""
    spec = {
        "name": "emu-radio",
        "radio": {"cells": 1, "shadowing_db": 0},
        "flows": [
            {"name": "down", "route": ["hsdpa"], "size": "300kB", "tcp": {"cc": "reno"}},
            {"name": "up", "route": ["hsdpa"], "uplink": True, "size": "100kB", "tcp": {"cc": "reno"}},
        ],
    }
    r = emulate(spec)
    flows = {f["name"]: f for f in r.flows.iter_rows(named=True)}
    assert flows["down"]["bytes"] == 300_000 and flows["up"]["bytes"] == 100_000
    assert flows["up"]["goodput_bps"] <= 384e3 * 1448 / 1500
    assert r.cells.height == 1 and r.cells["blocks_sent"][0] > 200  # 300 kB in blocks of at most 1800 B
    assert set(r.links["link"].to_list()) == {"hsdpa.wired"}
    assert ours() == []


def _start_long_run(tmp_path: Path, command: str = "emulate") -> subprocess.Popen[str]:
    """`rtolab emulate` (or `compare`, whose kernel side is the same) of a 60 s bulk flow,
    returned once its namespaces exist."""
    path = tmp_path / "long.toml"
    path.write_text('duration = "60s"\n[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = "50ms"\n[[flows]]\nname = "f"\nroute = ["l"]\n')
    exe = Path(sys.executable).with_name("rtolab")
    proc = subprocess.Popen([str(exe), command, str(path), "--out", str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not any(f"-{proc.pid}-" in n for n in namespaces()):
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise AssertionError(f"the emulator never created its namespaces: {proc.communicate()[1]}")
        time.sleep(0.05)
    time.sleep(0.5)
    return proc


def test_a_killed_run_is_cleaned_up_by_the_next(tmp_path: Path) -> None:
    proc = _start_long_run(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    left = [n for n in ours() if f"-{proc.pid}-" in n]
    assert len(left) == 2  # kill -9 leaves both namespaces behind ...
    r = emulate(scenario("10kB"))
    assert sorted(r.meta["emulator"]["stale_namespaces_removed"]) == left  # ... the next run removes them
    assert ours() == []
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    assert "rtolab0" not in links  # no device ever appears in the host's namespace


def test_emulate_writes_the_same_tables_as_run(tmp_path: Path) -> None:
    spec = scenario("200kB")
    spec["output"] = {"series": ["cwnd", "srtt", "queue", "delay"], "pcap": ["l"]}
    path = tmp_path / "s.toml"
    path.write_text(_toml(spec))
    r = rtolab_cli("emulate", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    simulated = rtolab_cli("run", str(path), "--out", str(tmp_path / "sim"))
    assert simulated.returncode == 0, simulated.stderr
    import polars as pl

    for table in ("flows", "links", "series"):
        a = pl.read_parquet(tmp_path / "out" / f"{table}.parquet")
        b = pl.read_parquet(tmp_path / "sim" / f"{table}.parquet")
        assert a.columns == b.columns, table
    series = pl.read_parquet(tmp_path / "out" / "series.parquet")
    assert set(series["metric"].cast(str).unique()) == {"cwnd", "srtt", "queue", "delay"}
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["emulator"]["kernel"] == os.uname().release
    assert (tmp_path / "out" / "pcap" / "l.pcap").stat().st_size > 24


def _toml(spec: dict[str, Any]) -> str:
    """Minimal TOML for the flat test scenario."""

    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    lines = [f"name = {value(spec['name'])}"]
    for table in ("links", "flows"):
        for item in spec[table]:
            lines.append(f"[[{table}]]")
            lines += [f"{k} = {value(v)}" for k, v in item.items()]
    if "output" in spec:
        lines.append("[output]")
        lines += [f"{k} = {value(v)}" for k, v in spec["output"].items()]
    return "\n".join(lines) + "\n"


def test_unavailable_machine_is_explained() -> None:
    assert issubclass(_core.EmulatorUnavailable, RuntimeError)


def test_emulate_and_compare_print_csv_and_json(tmp_path: Path) -> None:
    """--format on the emulator's commands: emulate's JSON has the meta and the flows, its
    account on stderr; compare's CSV is its side-by-side summary, one row per flow."""
    import polars as pl

    path = tmp_path / "s.toml"
    path.write_text(_toml(scenario("50kB")))
    r = rtolab_cli("emulate", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["flows"][0]["bytes"] == 50_000 and "emulator" in doc["meta"] and "kernel" in r.stderr
    c = rtolab_cli("compare", str(path), "--format", "csv", "--out", str(tmp_path / "cmp"))
    assert c.returncode == 0, c.stderr
    summary = pl.read_csv(c.stdout.encode())
    assert summary.height == 1 and {"name", "retransmits", "retransmits_kernel"} <= set(summary.columns)
