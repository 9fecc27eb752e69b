"""Shared fixtures: small scenarios as dicts, and a runner for the real `rtolab` command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "studies" / "quickstart.toml"


def small_scenario(**overrides: Any) -> dict[str, Any]:
    """A 2 Mb/s, 50 ms link with one bulk flow for 20 s."""
    spec: dict[str, Any] = {
        "name": "small",
        "duration": "20s",
        "links": [{"name": "l", "rate": "2Mbps", "delay": "50ms", "queue": {"kind": "droptail", "limit": "20p"}}],
        "flows": [{"name": "f", "route": ["l"]}],
    }
    spec.update(overrides)
    return spec


def rtolab_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the installed command line as a user would."""
    exe = Path(sys.executable).with_name("rtolab")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=cwd, timeout=300, check=False)


#: Checks that run the real-time emulator or the kernel (root, namespaces, SCHED_FIFO): under
#: `make test`'s two pytest-xdist workers they share one, so that two real-time runs never
#: compete for the two cores and bend each other's timing.
#: Whole files, and (in `OUTPUT_DIR`) the checks of the emulating commands.
REAL_TIME = {"test_emulate.py", "test_emulate_udp.py", "test_emulate_quic.py", "test_drill_kernel.py", "test_drill_play.py", "test_faults.py"}
OUTPUT_DIR = "test_output_dir.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        emulating = item.path.name == OUTPUT_DIR and any(word in item.nodeid for word in ("emulate", "compare"))
        if item.path.name in REAL_TIME or emulating:
            item.add_marker(pytest.mark.xdist_group("real-time"))


@pytest.fixture
def quickstart() -> Path:
    return QUICKSTART


def assert_graded(path: Path, registry: list[Any]) -> None:
    """``path`` (a reproduction's findings.csv) has one row per finding of ``registry``, in
    order, and every verdict is the one its own numbers earn."""
    from rtolab.findings import read, regrade

    table = read(str(path))
    assert table["key"].to_list() == [f.key for f in registry]
    assert (table["verdict"] == regrade(table)).all()
