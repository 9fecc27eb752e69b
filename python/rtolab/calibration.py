"""Calibration: each paper at its own operating point, chosen before any finding is graded.

A paper fixes some absolute levels in its own words (paper 000: "about 50 % of the transfers
had a goodput of less than 10 kbit/s" just above 150 users; Fig. 4's axis up to 7 Mbit/s).
Those statements are :class:`Target` s, registered with their tolerance before any search:
they are not findings, they are never graded as findings and they do not count in the
agreement share. What the paper leaves open (a file-size law, a buffer, a timer of the
simulator it used, how a radio block is filled) are the :class:`Axis` es of an admissible
search, each :class:`Reading` with its source: the paper's words, the defaults of the
simulator the paper ran, or the practice of the field. No scale factor and no free knob is a
reading, and no reading may contradict the text.

``search`` measures every combination of readings against the targets only, and ``choose``
picks one by ``RULE``, written here before any search ran. The pick is frozen in the study as
its default (its module's ``CALIBRATED``); the reading it replaced stays as an ablation. Only
then are findings graded, and no finding ever feeds the search.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab.findings import Band, number

#: Where the search table each study froze its reading from is kept (``NAME.csv``), beside the
#: studies: ``rtolab calibrate NAME`` writes a new one into its ``--out``; freezing a pick is
#: copying that table here and setting the study's ``CALIBRATED`` to its chosen row, which a
#: test checks (``choose`` of this table is ``CALIBRATED``).
FROZEN_DIR = Path(__file__).parent / "studies" / "calibration"

#: How a candidate is picked, fixed before any search.
RULE = (
    "the candidate with the smallest calibration error (the sum over the targets of how far the achieved value lies "
    "outside the target's band, in the target's scale; 0 inside it); among equal errors, the one that departs from "
    "the earlier reading on the fewest axes; among those, the first in the search table's order (axes in the "
    "registry's order, each axis's readings in their listed order)"
)


@dataclass(frozen=True)
class Target:
    """A paper's statement of an operating point or an absolute level, with its tolerance
    (``band``, written before any search) and the scale a miss is counted in (``scale``: a miss
    of one scale costs 1). Not a finding: ``rtolab.findings.grade`` refuses it."""

    paper: str
    key: str
    where: str
    statement: str
    paper_value: str
    metric: str
    band: Band
    scale: float

    def error(self, value: float) -> float:
        """How far ``value`` lies outside the band, in scales (0 inside; NaN counts as inf)."""
        if math.isnan(value):
            return math.inf
        if value in self.band:
            return 0.0
        edge = self.band.low if value < self.band.low else self.band.high
        return abs(value - edge) / self.scale


@dataclass(frozen=True)
class Reading:
    """One admissible reading of what a paper leaves open: its name, its source (why it is
    admissible) and the scenario settings it makes (dotted paths, as a study's grid writes
    them)."""

    name: str
    source: str
    settings: Mapping[str, Any]


@dataclass(frozen=True)
class Axis:
    """One detail the paper leaves open and its admissible readings; the first reading is the
    study's reading before calibration."""

    name: str
    readings: tuple[Reading, ...]


Candidate = tuple[Reading, ...]


def candidates(axes: Sequence[Axis]) -> list[Candidate]:
    """Every combination of one reading per axis, in the search table's order."""
    return list(itertools.product(*(a.readings for a in axes)))


def earlier(axes: Sequence[Axis]) -> Candidate:
    """The study's reading before calibration: each axis's first reading."""
    return tuple(a.readings[0] for a in axes)


def departures(axes: Sequence[Axis], candidate: Candidate) -> int:
    """On how many axes ``candidate`` leaves the earlier reading."""
    return sum(r is not a.readings[0] for a, r in zip(axes, candidate))


def settings(candidate: Candidate) -> dict[str, Any]:
    """The scenario settings of a candidate (its readings' settings together)."""
    out: dict[str, Any] = {}
    for r in candidate:
        out.update(r.settings)
    return out


def label(axes: Sequence[Axis], candidate: Candidate) -> str:
    """The departures of ``candidate`` from the earlier readings, or "the earlier reading"."""
    changed = [f"{a.name}: {r.name}" for a, r in zip(axes, candidate) if r is not a.readings[0]]
    return "; ".join(changed) or "the earlier reading"


def search(axes: Sequence[Axis], targets: Sequence[Target], evaluate: Callable[[Sequence[Candidate]], Sequence[Mapping[str, float]]]) -> pl.DataFrame:
    """The search table: one row per candidate (``candidates`` order) with its readings, the
    value it achieves for each target (``evaluate`` measures all candidates at once, so that
    their runs share the executor), each target's error, the total and the departures."""
    cands = candidates(axes)
    achieved = evaluate(cands)
    rows = []
    for i, (cand, values) in enumerate(zip(cands, achieved)):
        row: dict[str, Any] = {"candidate": i, "readings": label(axes, cand), "departures": departures(axes, cand)}
        row.update({a.name: r.name for a, r in zip(axes, cand)})
        total = 0.0
        for t in targets:
            v = values.get(t.key, math.nan)
            row[t.key] = v
            row[f"{t.key} error"] = t.error(v)
            total += t.error(v)
        row["error"] = total
        rows.append(row)
    return pl.DataFrame(rows)


def choose(table: pl.DataFrame) -> int:
    """The row ``RULE`` picks from a search table (its ``candidate`` number)."""
    best = min(table.iter_rows(named=True), key=lambda r: (r["error"], r["departures"], r["candidate"]))
    return int(best["candidate"])


def frozen(axes: Sequence[Axis], chosen: Mapping[str, str]) -> Candidate:
    """The candidate a study froze (axis name → reading name), checked against the axes."""
    out = []
    for a in axes:
        names = {r.name: r for r in a.readings}
        if chosen.get(a.name) not in names:
            raise ValueError(f"calibration: axis {a.name!r} has no reading {chosen.get(a.name)!r}; its readings: {sorted(names)}")
        out.append(names[chosen[a.name]])
    return tuple(out)


TARGET_SCHEMA = {"paper": pl.String, "key": pl.String, "where": pl.String, "statement": pl.String, "paper_value": pl.String, "metric": pl.String, "tolerance": pl.String, "value": pl.Float64, "within": pl.Boolean, "reading": pl.String}


def target_table(targets: Iterable[Target], values: Mapping[str, float], reading: str) -> pl.DataFrame:
    """One row per target: the statement, its tolerance, the value achieved at the frozen
    reading (``reading`` names it) and whether it lies within the tolerance."""
    rows = [
        {
            "paper": t.paper, "key": t.key, "where": t.where, "statement": t.statement, "paper_value": t.paper_value, "metric": t.metric,
            "tolerance": t.band.text(), "value": values.get(t.key, math.nan), "within": values.get(t.key, math.nan) in t.band, "reading": reading,
        }
        for t in targets
    ]
    return pl.DataFrame(rows, schema=TARGET_SCHEMA)


def markdown(axes: Sequence[Axis], targets: Sequence[Target], table: pl.DataFrame, chosen: int) -> str:
    """The search as a page section: the rule, the axes with their sources, the targets, and
    every candidate with its values and error (the chosen one marked)."""
    lines = [f"Rule (fixed before the search): {RULE}.", "", "| axis | readings (first: the earlier one) |", "| --- | --- |"]
    for a in axes:
        lines.append(f"| {a.name} | " + "<br>".join(f"**{r.name}**: {r.source}" for r in a.readings) + " |")
    lines += ["", "| target | statement | tolerance | scale |", "| --- | --- | --- | --- |"]
    lines += [f"| {t.key} | {t.where}: {t.statement} | {t.band.text()} | {number(t.scale)} |" for t in targets]
    header = ["#", "readings", *[t.key for t in targets], "error"]
    lines += ["", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for row in table.sort("error", "departures", "candidate").iter_rows(named=True):
        mark = " **(chosen)**" if row["candidate"] == chosen else ""
        cells = [str(row["candidate"]), row["readings"] + mark, *[number(row[t.key]) for t in targets], number(row["error"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def alternatives(axes: Sequence[Axis], chosen: Candidate) -> list[tuple[str, Candidate]]:
    """The readings a study runs beside its frozen one as ablations: each other reading of
    each axis with the rest as frozen (labelled "axis: reading"), and the reading before
    calibration when it is not among them (labelled "the reading before calibration")."""
    out = []
    for i, a in enumerate(axes):
        for r in a.readings:
            if r is not chosen[i]:
                out.append((f"{a.name}: {r.name}", (*chosen[:i], r, *chosen[i + 1:])))
    before = earlier(axes)
    if before != chosen and all(c != before for _, c in out):
        out.append(("the reading before calibration", before))
    return out


def frozen_table(name: str) -> pl.DataFrame | None:
    """The search table study ``name`` froze its reading from, or None before any search."""
    path = FROZEN_DIR / f"{name}.csv"
    return pl.read_csv(path) if path.exists() else None


def reading_of(axes: Sequence[Axis], table: pl.DataFrame, candidate: int) -> dict[str, str]:
    """Axis → reading of row ``candidate`` of a search table."""
    row = table.filter(pl.col("candidate") == candidate).row(0, named=True)
    return {a.name: str(row[a.name]) for a in axes}
