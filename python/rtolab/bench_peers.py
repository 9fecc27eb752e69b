"""``rtolab bench --peers``: ``rtolab run`` of the 1000 s ``bulk-lte`` scenario beside ns-2.35
running the same scenario, both timed as whole processes, as a user at the shell sees them
(interpreter start, imports, parsing, simulation, printing).

rtolab runs the shipped scenario file ``scenarios/bulk-lte.toml``; ns-2.35 runs
``validate/ns2/bulk_lte.tcl`` through ``validate/ns2/run_ns2.py``, whose header explains how
each setting of the file maps to ns-2. Both report the data packets their senders emitted, so
a reader sees that they did the same work. The ns-2 side needs the ``ns`` binary and a source
checkout (``validate/`` is not part of the installed package); without them it is skipped
with the reason.
"""

from __future__ import annotations

import importlib.util
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

SCENARIO = "bulk-lte"
NS2_DIR = Path(__file__).resolve().parents[2] / "validate" / "ns2"

T = TypeVar("T")


@dataclass(frozen=True)
class PeerTiming:
    """Wall times of repeated runs of one simulator on the scenario, and the data packets
    (SYN, data and retransmissions) its senders emitted in one run."""

    name: str
    walls_s: tuple[float, ...]
    data_packets: int

    @property
    def wall_s(self) -> float:
        return statistics.median(self.walls_s)

    @property
    def packets_per_s(self) -> float:
        return self.data_packets / self.wall_s if self.wall_s else float("inf")


def _timed(call: Callable[[], T]) -> tuple[float, T]:
    """(wall seconds, value) of ``call()``."""
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def _rtolab_command() -> list[str]:
    """The installed ``rtolab`` command: the script beside this interpreter (a virtualenv's),
    else the one on the PATH, else ``python -m rtolab``."""
    beside = Path(sys.executable).with_name("rtolab")
    found = str(beside) if beside.exists() else shutil.which("rtolab")
    return [found] if found else [sys.executable, "-m", "rtolab"]


def rtolab_whole_process(repeats: int) -> PeerTiming:
    """``rtolab run`` of the scenario file in a fresh process, ``repeats`` times; the packets
    come from one more run of the same file in this process (the run is deterministic)."""
    from rtolab.api import run

    with resources.as_file(resources.files("rtolab.scenarios").joinpath(f"{SCENARIO}.toml")) as path:
        command = [*_rtolab_command(), "run", str(path)]
        walls = tuple(_timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL))[0] for _ in range(repeats))
        packets = int(run(path).meta["data_packets"])
    return PeerTiming("rtolab run (whole process)", walls, packets)


def rtolab_in_process(repeats: int) -> PeerTiming:
    """``rtolab.run`` of the scenario inside this process: the simulation and its tables
    without the process's start-up."""
    from rtolab.api import run
    from rtolab.spec import builtin

    text = builtin(SCENARIO)
    runs = [_timed(lambda: run(text)) for _ in range(repeats)]
    packets = int(runs[0][1].meta["data_packets"])
    return PeerTiming("rtolab.run (in process)", tuple(wall for wall, _ in runs), packets)


def _run_ns2_module() -> ModuleType:
    """``validate/ns2/run_ns2.py``, loaded from the source checkout."""
    path = NS2_DIR / "run_ns2.py"
    spec = importlib.util.spec_from_file_location("run_ns2", path)
    if spec is None or spec.loader is None or not path.exists():
        raise FileNotFoundError(f"{path} not found: the ns-2 side needs rtolab's source checkout")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ns2_missing() -> str | None:
    """Why ns-2.35 cannot run the peer side here, or None when it can."""
    try:
        _run_ns2_module().ns_binary()
    except (FileNotFoundError, RuntimeError) as e:
        return str(e)
    return None


def ns2_whole_process(repeats: int) -> PeerTiming:
    """``ns bulk_lte.tcl`` in a fresh process, ``repeats`` times."""
    run_ns2 = _run_ns2_module()
    runs: list[tuple[float, dict[str, Any]]] = [_timed(run_ns2.run_bulk_lte) for _ in range(repeats)]
    packets = int(runs[0][1]["packets"])
    return PeerTiming("ns-2.35 ns bulk_lte.tcl (whole process)", tuple(wall for wall, _ in runs), packets)
