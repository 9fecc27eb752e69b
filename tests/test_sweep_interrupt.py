"""Ctrl-C during a sweep, as a terminal sends it (SIGINT to the whole process group): the
sweep exits 130 at once, the runs in flight stop with their workers, every finished run is
kept, the sweep says how many it kept and lost and how to resume, and the next invocation runs
only the rest."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import rtolab

RUNS = 12


def test_ctrl_c_stops_a_sweep_at_once_and_keeps_what_finished(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    # each run simulates an hour of a lossy bulk transfer: about a second of work
    study.write_text(
        f'name = "interrupt"\nreplications = {RUNS}\nseed = 5\n[scenario]\nduration = "3600s"\n'
        '[[scenario.links]]\nname = "l"\nrate = "2Mbps"\ndelay = "50ms"\nloss = 0.01\n'
        '[[scenario.flows]]\nname = "f"\nroute = ["l"]\n'
    )
    out = tmp_path / "sw"
    exe = Path(sys.executable).with_name("rtolab")
    proc = subprocess.Popen(
        [str(exe), "sweep", str(study), "--out", str(out), "--workers", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "flows").glob("*.parquet")):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert time.monotonic() - sent < 2.0, "the runs in flight must not be waited for"
    assert "Traceback" not in stderr
    said = re.search(r"stopped: (\d+) of 12 runs kept in .*sw/ \((\d+) made now\); (\d+) in flight lost, (\d+) not started\. To resume: rtolab sweep (\S+) --out (\S+)", stderr)
    assert said is not None, stderr
    kept_said, made, lost, left = (int(g) for g in said.groups()[:4])
    assert kept_said == made and 1 <= lost <= 2 and kept_said + lost + left == RUNS, said.group(0)  # two workers
    assert (said.group(5), said.group(6)) == (str(study), str(out))
    time.sleep(0.2)
    workers = subprocess.run(["pgrep", "-g", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True).stdout.split()
    assert workers == [], "the workers must stop with the sweep"
    kept = len(list((out / "flows").glob("*.parquet")))
    assert 1 <= kept < RUNS, "the interrupt must land mid-sweep"
    assert kept == kept_said
    assert rtolab.load(out).height == kept
    assert not list(out.rglob(".*.tmp-*"))
    flows = rtolab.sweep(study, out, executor=rtolab.LocalExecutor(2))
    assert flows.height == RUNS and flows["replication"].n_unique() == RUNS
