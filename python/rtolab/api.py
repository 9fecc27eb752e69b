"""Running scenarios."""

from __future__ import annotations

import hashlib
import subprocess
from importlib import metadata
from pathlib import Path
from collections.abc import Callable
from typing import Any

from rtolab import _core
from rtolab.result import Result
from rtolab.spec import SpecLike, to_text


def _git_hash() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def run(spec: SpecLike, seed: int | None = None, progress: Callable[[float, int, float | None], object] | None = None) -> Result:
    """Runs one scenario and returns its tables.

    ``spec`` is a mapping, a path to a TOML file, or TOML text. ``seed`` overrides the
    scenario's seed (default 1). Same spec and seed give bit-identical tables.
    ``progress(simulated_seconds, events, stop_seconds)`` is called about every 50 ms while the
    run goes on (``stop_seconds`` is None when the scenario has no ``duration``).
    Ctrl-C stops the run within a few milliseconds and raises ``KeyboardInterrupt``.
    Raises ``SpecError`` for a spec that cannot run and ``SimulationError`` for a failed run.
    """
    if seed is not None and not 0 <= seed < 2**64:
        raise _core.SpecError(f"seed: got {seed}, expected an integer in [0, 2^64)")
    text, fmt = to_text(spec)
    raw = _core.run(text, fmt, seed, progress)
    meta: dict[str, Any] = {
        "spec_hash": hashlib.sha256(f"{fmt}\n{text}".encode()).hexdigest(),
        "rtolab_version": metadata.version("rtolab"),
        "core_version": _core.__version__,
        "git_hash": _git_hash(),
    }
    return Result.from_core(raw, meta)
