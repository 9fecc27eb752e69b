"""`rtolab bench --peers`: rtolab and ns-2.35 on the same bulk-lte scenario, as whole processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rtolab
from rtolab import _core, bench_peers

needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 is not installed (apt-get install ns2)")


def peers_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("rtolab")
    return subprocess.run([str(exe), "bench", "--peers", *args], capture_output=True, text=True, timeout=600, check=False, env={**os.environ, **(env or {})})


def test_the_scenario_file_is_the_core_benchmark() -> None:
    """The file `rtolab run` times is the scenario `rtolab bench bulk-lte` runs in the core."""
    meta, _ = _core.run_bench("bulk-lte")
    run = rtolab.run(rtolab.builtin("bulk-lte"))
    assert (run.meta["events"], run.meta["data_packets"]) == (meta["events"], meta["data_packets"])


@needs_ns2
def test_the_ns2_script_sends_what_the_scenario_sends() -> None:
    """Same link, queue, TCP and duration: the senders emit the same packets within 1 %
    (20 s of the scenario, so that the check is quick)."""
    ns2 = bench_peers._run_ns2_module().run_bulk_lte(duration_s=20)
    ours = rtolab.run(rtolab.builtin("bulk-lte").replace('duration = "1000s"', 'duration = "20s"'))
    assert ns2["timeouts"] == 0 and ours.flows["timeouts"].sum() == 0
    assert abs(ours.meta["data_packets"] - ns2["packets"]) / ns2["packets"] < 0.01


def test_without_ns2_the_peer_is_skipped_with_the_reason() -> None:
    proc = peers_cli("--repeats", "1", env={"NS2_BIN": "/nonexistent/ns"})
    assert proc.returncode == 0, proc.stderr
    assert "rtolab run (whole process)" in proc.stdout and "4,169,182" in proc.stdout
    assert "ns-2.35 skipped" in proc.stdout and "/nonexistent/ns" in proc.stdout


@pytest.mark.slow
@needs_ns2
def test_peers_time_both_whole_processes_and_show_the_packets() -> None:
    proc = peers_cli("--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    flat = " ".join(proc.stdout.split())
    assert "rtolab run (whole process)" in flat and "ns-2.35 ns bulk_lte.tcl (whole process)" in flat
    assert "as fast as ns-2.35" in flat
    difference = float(flat.split("their data packets differ by ")[1].split(" %")[0])
    assert difference < 1.0
