"""Writing a study's matplotlib figure to disk, in one or more formats.

Studies draw on standalone ``matplotlib.figure.Figure`` objects (never pyplot), so a figure is
freed with its last reference and the user's backend is left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure


def save(fig: Figure, out: Path, stem: str, suffixes: Sequence[str] = ("png",), dpi: int = 100) -> list[Path]:
    """Writes ``out/stem.<suffix>`` for each suffix and returns the paths."""
    paths = [out / f"{stem}.{suffix}" for suffix in suffixes]
    for path in paths:
        fig.savefig(path, dpi=dpi)
    return paths
