"""Datagram traffic from Python and the CLI: UDP flows and voice calls reach the flows table
with their columns, print in a table of their own, sweep by their fields, and bad tables exit 2
naming the field. The numbers themselves are checked against closed forms in the Rust tests
(crates/rtolab-sim/tests/scenarios/{datagram_flows,voice_calls}.rs)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import rtolab
from conftest import rtolab_cli
from rtolab.executors import LocalExecutor

SCENARIO = """
name = "udp-and-calls"
duration = "10s"
[[links]]
name = "l"
rate = "10Mbps"
delay = "40ms"
[[flows]]
name = "cbr"
route = ["l"]
udp = { rate = "1Mbps", size = "1200B" }
[[generators]]
kind = "voip"
name = "call"
users = 2
codec = "amr-12.2"
route = ["l"]
"""


def write(tmp_path: Path, text: str = SCENARIO) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


def test_udp_flows_and_calls_have_their_columns(tmp_path: Path) -> None:
    """The CBR flow: 1 Mbit/s of 1200 B is one datagram per 9.6 ms, so 1042 in 10 s (the first at
    0), none lost, each 40 ms + 1228·8/10⁷ s late, plus at most one call packet's serialisation
    (73·8/10⁷ s) when one is ahead of it on the link; the calls are kind "voip", scored, and
    every datagram column of the TCP-free run is set."""
    flows = rtolab.run(str(write(tmp_path))).flows
    cbr = flows.filter(pl.col("name") == "cbr").row(0, named=True)
    assert (cbr["transport"], cbr["datagrams_sent"], cbr["datagrams_lost"]) == ("udp", 1042, 0)
    path = 0.040 + 1228 * 8 / 1e7
    assert path - 1e-9 <= cbr["delay_mean_s"] <= path + 73 * 8 / 1e7
    assert cbr["mos"] is None and cbr["timeouts"] == 0
    calls = flows.filter(pl.col("kind") == "voip")
    assert calls["name"].to_list() == ["call.u0", "call.u1"]
    assert calls["mos"].min() > 4.0
    assert flows.select(pl.col("delay_p99_s").is_null().sum()).item() == 0


def test_run_prints_datagram_flows_apart(tmp_path: Path) -> None:
    proc = rtolab_cli("run", str(write(tmp_path)), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "datagram flows of udp-and-calls" in proc.stdout and "mos_mean" in proc.stdout


def test_a_flow_with_tcp_and_udp_exits_2_naming_it(tmp_path: Path) -> None:
    bad = SCENARIO.replace('udp = { rate = "1Mbps", size = "1200B" }', 'udp = { rate = "1Mbps", size = "1200B" }\ntcp = { cc = "cubic" }')
    proc = rtolab_cli("run", str(write(tmp_path, bad)), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "flows[0].udp" in proc.stderr and "exactly one" in proc.stderr and "Traceback" not in proc.stderr


def test_a_udp_rate_sweeps_like_any_field(tmp_path: Path) -> None:
    """A grid over the UDP rate: 4 Mbit/s of payload on 10 Mbit/s loses nothing, 12 Mbit/s
    loses some."""
    study = {"name": "udp-rate", "base": str(write(tmp_path)), "grid": {"flows.cbr.udp.rate": ["4Mbps", "12Mbps"]}, "replications": 1}
    flows = rtolab.sweep(study, tmp_path / "out", executor=LocalExecutor(1))
    cbr = flows.filter(pl.col("name") == "cbr").sort("point")
    assert cbr["datagrams_lost"].to_list()[0] == 0 and cbr["datagrams_lost"].to_list()[1] > 0


def test_report_shows_delay_loss_and_mos_of_datagram_flows(tmp_path: Path) -> None:
    """`rtolab report` of a sweep with a UDP flow and calls has sections for their delays, loss
    and MOS, and counts TCP events over TCP flows only (none here: no events section)."""
    study = {"name": "calls", "base": str(write(tmp_path)), "grid": {"generators.call.codec": ["g711", "amr-12.2"]}, "replications": 2}
    rtolab.sweep(study, tmp_path / "out", executor=LocalExecutor(1))
    proc = rtolab_cli("report", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    written = {p.name for p in (tmp_path / "out").rglob("*") if p.is_file()}
    for stem in ("delay_mean_s", "delay_p99_s", "datagram_loss", "mos"):
        assert any(stem in name for name in written), (stem, sorted(written))
    assert not any(name.startswith("events") for name in written), sorted(written)


def test_compare_sets_the_stack_on_tcp_flows_only() -> None:
    """`rtolab compare` names the stack on every TCP flow and generator, never on a UDP flow or
    a kind without a TCP table (calls), which would make the scenario invalid."""
    from rtolab.emulate import _with_stack

    tree = _with_stack(SCENARIO + '[[flows]]\nname = "t"\nroute = ["l"]\nsize = "10kB"\n', "linux")
    assert "tcp" not in tree["flows"][0] and tree["flows"][1]["tcp"] == {"stack": "linux"}
    assert "tcp" not in tree["generators"][0]
    rtolab.validate(tree)
