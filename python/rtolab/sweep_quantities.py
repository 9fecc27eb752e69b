"""Sweep parameters written with units (``"1Mbps"``, ``"50ms"``, ``"64kB"``) as numbers too:
beside the column of the text the user wrote, a column in SI units named after the unit
(``links.radio.rate_bps``, ``links.core.delay_s``, ``flows.f.size_bytes``), so that a sweep's
tables can be plotted and fitted without parsing units.

A parameter gets one when every value it takes is a text that the core's parser reads as
exactly one kind of quantity (rate, duration or byte count) and not as a bare number; the
parsing is the simulator's own (``_core.parse_quantity``), so the number is the one the run
used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rtolab import _core

#: kind → (column suffix, unit).
KINDS: dict[str, tuple[str, str]] = {"rate": ("bps", "bit/s"), "duration": ("s", "s"), "size": ("bytes", "bytes")}


def _reading(kind: str, text: str) -> float | None:
    try:
        return _core.parse_quantity(kind, text)
    except ValueError:
        return None


def _is_bare_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def quantity_columns(values: Mapping[str, Iterable[Any]]) -> dict[str, tuple[str, str]]:
    """For each parameter (name → the values it takes) written with units throughout: its SI
    column's name → (the parameter, the kind of quantity)."""
    out: dict[str, tuple[str, str]] = {}
    for name, raw in values.items():
        texts = list(raw)
        if not texts or not all(isinstance(v, str) and not _is_bare_number(v) for v in texts):
            continue
        kinds = [k for k in KINDS if all(_reading(k, v) is not None for v in texts)]
        if len(kinds) == 1:
            out[f"{name}_{KINDS[kinds[0]][0]}"] = (name, kinds[0])
    return out


def si_value(params: Mapping[str, Any], source: str, kind: str) -> float | None:
    """The SI value of parameter ``source`` of a run, read as ``kind``."""
    value = params.get(source)
    return _reading(kind, value) if isinstance(value, str) else None
