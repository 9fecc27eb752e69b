"""QUIC flows through the Python package and the command line: the same seed gives the same
files in two processes (tables and captures, byte for byte), `rtolab run` prints QUIC's own
table, bad QUIC tables exit 2 naming the field, and a sweep of QUIC flows reports its PTOs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from conftest import rtolab_cli
from rtolab import report_data
from rtolab.executors import LocalExecutor
from rtolab.study import Study
from rtolab.sweep import sweep

#: A QUIC transfer across a 3 s delay spike beside a TCP flow, with every QUIC record on.
SCENARIO = """
name = "quic-over-a-spike"
duration = "8s"
[[links]]
name = "l"
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "100p" }
spikes = { at = ["2s"], length = "3s" }
[[flows]]
name = "quic"
route = ["l"]
quic = { cc = "cubic" }
[[flows]]
name = "tcp"
route = ["l"]
size = "500kB"
tcp = { stack = "linux" }
[output]
events = ["pto", "lost", "drop", "spike"]
series = ["cwnd", "srtt", "rttvar"]
pcap = ["l"]
"""


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("quic") / "quic.toml"
    path.write_text(SCENARIO)
    return path


def test_the_same_seed_gives_the_same_files_in_two_processes(scenario: Path, tmp_path: Path) -> None:
    for name in ("a", "b"):
        proc = rtolab_cli("run", str(scenario), "--seed", "11", "--out", str(tmp_path / name), "--format", "csv")
        assert proc.returncode == 0, proc.stderr
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file() and p.name != "meta.json")
    assert {"flows.parquet", "events.parquet", "series.parquet"} <= {p.name for p in files}
    assert any(p.suffix == ".pcap" for p in files)
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    flows = pl.read_parquet(tmp_path / "a" / "flows.parquet")
    quic = flows.filter(pl.col("transport") == "quic").row(0, named=True)
    assert quic["ptos"] >= 1 and quic["spurious_ptos"] >= 1, quic
    events = pl.read_parquet(tmp_path / "a" / "events.parquet")
    assert events.filter(pl.col("kind") == "pto").height == quic["ptos"] + quic["client_ptos"]


def test_run_prints_quic_flows_in_a_table_of_their_own(scenario: Path) -> None:
    proc = rtolab_cli("run", str(scenario))
    assert proc.returncode == 0, proc.stderr
    assert "QUIC flows of quic-over-a-spike" in proc.stdout and "spurious_ptos" in proc.stdout
    tcp_table = proc.stdout.split("QUIC flows of")[0]
    assert "│ tcp " in tcp_table and "│ quic " not in tcp_table


@pytest.mark.parametrize(
    ("flow", "path", "words"),
    [
        ('tcp = {}\nquic = {}', "flows[0].quic", "exactly one"),
        ('quic = { cc = "bbr" }', "flows[0].quic.cc", "cannot be repeated"),
        ('quic = { cc = "reno" }', "flows[0].quic.cc", "newreno"),
        ('quic = { initial_rtt = "-3ms" }', "flows[0].quic.initial_rtt", ""),
    ],
)
def test_bad_quic_tables_exit_2_naming_the_field(tmp_path: Path, flow: str, path: str, words: str) -> None:
    file = tmp_path / "bad.toml"
    file.write_text(f'[[links]]\nname = "l"\nrate = "1Mbps"\ndelay = "1ms"\n[[flows]]\nname = "f"\nroute = ["l"]\nsize = "10kB"\n{flow}\n')
    proc = rtolab_cli("run", str(file))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert path in proc.stderr and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "QuicSpec" not in proc.stderr


def test_a_sweep_of_quic_flows_reports_ptos(tmp_path: Path) -> None:
    scenario = {
        "name": "quic-report",
        "duration": "6s",
        "links": [{"name": "l", "rate": "5Mbps", "delay": "20ms", "spikes": {"at": ["300ms"], "length": "2s"}}],
        "generators": [{"kind": "burst", "flows": 2, "total": "400kB", "route": ["l"], "quic": {"cc": "newreno"}}],
    }
    out = tmp_path / "sweep"
    sweep(Study.from_dict({"name": "quic-report", "scenario": scenario, "grid": {"links.l.rate": ["2Mbps", "5Mbps"]}, "replications": 2, "seed": 3}), out, executor=LocalExecutor(1))
    table = report_data.events(report_data.load(out), transport="quic", counted=report_data.QUIC_EVENTS)
    assert table.height == 2 and (table["ptos"] > 0).all(), table
    proc = rtolab_cli("report", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "report" / "quic-events.csv").exists() and (out / "report" / "quic-events.png").exists()
