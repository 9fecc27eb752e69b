"""Writing a study's matplotlib figure to disk, in one or more formats, and releasing it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def save(fig: Figure, out: Path, stem: str, suffixes: Sequence[str] = ("png",), dpi: int = 100) -> list[Path]:
    """Writes ``out/stem.<suffix>`` for each suffix, closes the figure, returns the paths."""
    paths = [out / f"{stem}.{suffix}" for suffix in suffixes]
    for path in paths:
        fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return paths
