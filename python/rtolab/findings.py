"""Paper findings as data, graded by code.

A :class:`Finding` is one statement of a paper with the number that tests it and the band of
values that counts as agreeing with it, both written here before any run. A study's analysis
turns its tables into a :class:`Measured` value per finding; :func:`grade` puts the two
together. The verdict is a function of the value and the bands alone (:func:`verdict`), so a
finding can never be reported as agreeing while its number is outside its tolerance, and a
written table can be graded again from its own columns (:func:`regrade`).

A finding that does not agree carries its reason in the ``reason`` column: every ablation
measured in the same reproduction (the setting, the value with it and the verdict that value
earns) and the detail the paper leaves out. It counts as explained only when an ablation
earns a better verdict or a missing detail is named; otherwise the reason ends with
``UNEXPLAINED`` and the scorecard counts the row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import polars as pl

Verdict = Literal["agree", "partly", "disagree", "not measured"]
VERDICTS: tuple[Verdict, ...] = ("agree", "partly", "disagree", "not measured")


@dataclass(frozen=True)
class Band:
    """The closed interval [low, high] of a finding's test value; either end may be infinite.
    An open edge ("more than 1") is the neighbouring float inside the band (``above``,
    ``below``, ``between``), which the closed test treats exactly as open and ``text`` prints
    as open."""

    low: float = -math.inf
    high: float = math.inf

    def __contains__(self, value: float) -> bool:
        return not math.isnan(value) and self.low <= value <= self.high

    def text(self) -> str:
        low, low_open = _edge(self.low, -math.inf)
        high, high_open = _edge(self.high, math.inf)
        if math.isinf(self.low) and math.isinf(self.high):
            return "any"
        if math.isinf(self.low):
            return f"{'<' if high_open else '≤'} {high:g}"
        if math.isinf(self.high):
            return f"{'>' if low_open else '≥'} {low:g}"
        return f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def _edge(bound: float, outward: float) -> tuple[float, bool]:
    """A band's edge as written: an open edge at x is stored as the float next to x inside
    the band (``above``, ``below``), which the closed test then treats exactly as open."""
    if math.isinf(bound):
        return bound, False
    written = math.nextafter(bound, outward)
    return (written, True) if float(f"{written:.12g}") == written else (bound, False)


def at_least(low: float) -> Band:
    return Band(low=low)


def at_most(high: float) -> Band:
    return Band(high=high)


def above(low: float) -> Band:
    """Values strictly greater than ``low`` (a claim of "more", where equal is not more)."""
    return Band(low=math.nextafter(low, math.inf))


def below(high: float) -> Band:
    """Values strictly less than ``high``."""
    return Band(high=math.nextafter(high, -math.inf))


def between(low: float, high: float, open_high: bool = False) -> Band:
    """[low, high], or [low, high) with ``open_high``."""
    return Band(low, math.nextafter(high, -math.inf) if open_high else high)


def within(target: float, relative: float) -> Band:
    """``target`` ± ``relative``·|target|."""
    return Band(target - relative * abs(target), target + relative * abs(target))


#: The test value of a qualitative finding written as a count of the cases in which it holds
#: divided by the cases examined: 1 when it holds in all, as the paper states it.
ALL = Band(1.0, 1.0)

#: A claimed order or equality tested case by case on the replications' 90 % intervals
#: (``order_credit``, ``equality_credit``) and valued as the mean credit of its cases: it
#: agrees when every case bears it out (1), and holds partly from a mean of 0.5 (every case
#: not distinguished, or as many borne out as contradicted).
CREDIT_AGREE = ALL
CREDIT_PARTLY = Band(0.5, 1.0)
#: A claimed equality over many cases, each case 1 when its 90 % interval holds the
#: reference: an exact equality still misses in one case of ten at 90 %, so it agrees from 0.8
#: of its cases and holds partly from 0.6.
EQUAL_AGREE = Band(0.8, 1.0)
EQUAL_PARTLY = Band(0.6, 1.0)


def order_credit(low: float, high: float, sign: int = 1, reference: float = 0.0) -> float:
    """One case of a claimed order, read on the 90 % interval [``low``, ``high``] of the
    quantity (a difference or a ratio paired by replication): with ``sign`` +1 the claim is
    that it exceeds ``reference``, with −1 that it falls short. 1 when the interval lies
    wholly on the claimed side, 0.5 when it holds the reference ("not distinguished": the
    order is neither shown nor contradicted), 0 when it lies wholly on the other side; NaN
    for an interval the run could not give."""
    if math.isnan(low) or math.isnan(high):
        return math.nan
    lo, hi = (low - reference, high - reference) if sign > 0 else (reference - high, reference - low)
    if lo > 0:
        return 1.0
    if hi < 0:
        return 0.0
    return 0.5


def equality_credit(low: float, high: float, reference: float = 0.0) -> float:
    """One case of a claimed equality ("no difference"): 1 when the interval holds
    ``reference`` (not distinguished, as the claim says), 0 when it does not; NaN for an
    interval the run could not give."""
    if math.isnan(low) or math.isnan(high):
        return math.nan
    return 1.0 if low <= reference <= high else 0.0


#: A case's 90 % interval: (mean, low, high).
Interval = tuple[float, float, float]


def case_credits(intervals: Iterable[tuple[str, Interval]], credit: Callable[[float, float], float], fmt: Callable[[float], str]) -> tuple[float, str]:
    """A finding read case by case: the mean of ``credit(low, high)`` over the named cases'
    intervals (``order_credit``, ``equality_credit``), and each case's mean and interval in
    words (``fmt`` writes a number)."""
    listed = list(intervals)
    value = mean_credit(credit(lo, hi) for _, (_, lo, hi) in listed)
    return value, "; ".join(f"{name} {fmt(m)} [{fmt(lo)}, {fmt(hi)}]" for name, (m, lo, hi) in listed) or "no case in this run"


def mean_credit(credits: Iterable[float]) -> float:
    """The mean of the cases' credits (NaN for none, or when a case could not be read)."""
    c = list(credits)
    return math.nan if not c or any(math.isnan(x) for x in c) else sum(c) / len(c)


@dataclass(frozen=True)
class Finding:
    """One finding of a paper, fixed before the run.

    ``metric`` says what the test value is (its unit, where in the grid it is taken);
    ``agree`` is the tolerance, chosen from what the paper's figure or words can resolve;
    ``partly`` an optional wider band for a finding that holds in part (e.g. for one scheduler
    of two, or in direction but not in size)."""

    paper: str
    key: str
    where: str
    statement: str
    paper_value: str
    metric: str
    agree: Band
    partly: Band | None = None
    basis: str = ""

    @property
    def tolerance(self) -> str:
        text = f"agree {self.agree.text()}"
        if self.partly is not None:
            text += f"; partly {self.partly.text()}"
        if self.basis:
            text += f" ({self.basis})"
        return text


@dataclass(frozen=True)
class Ablation:
    """The same finding's test value under one changed setting, measured in the same
    reproduction: what flips it, or how far a reading moves it."""

    setting: str
    value: float


@dataclass(frozen=True)
class Measured:
    """rtolab's answer to one finding: the test value, its numbers in words, and, for a value
    that may not agree, the ablations and the paper's missing detail that explain it."""

    value: float
    detail: str
    ablations: tuple[Ablation, ...] = ()
    missing_detail: str = ""


def with_ablations(main: Mapping[str, Measured], alternatives: Mapping[str, Mapping[str, Measured]]) -> dict[str, Measured]:
    """``main`` with, for each finding, its value in every alternative run (a setting → that
    run's measurements) added as a measured ablation; an alternative that did not cover the
    finding (NaN) adds nothing."""
    out = {}
    for key, m in main.items():
        extra = tuple(Ablation(setting, alt[key].value) for setting, alt in alternatives.items() if key in alt and not math.isnan(alt[key].value))
        out[key] = Measured(m.value, m.detail, (*m.ablations, *extra), m.missing_detail)
    return out


def with_missing_detail(measured: Mapping[str, Measured], detail: str) -> dict[str, Measured]:
    """``measured`` with ``detail`` named as the paper's missing detail of every finding that
    names none (a reproduction whose operating point the calibration could not reach says so
    on each of its rows; it shows only on rows that do not agree)."""
    return {k: m if m.missing_detail else Measured(m.value, m.detail, m.ablations, detail) for k, m in measured.items()}


def verdict(value: float, agree: Band, partly: Band | None) -> Verdict:
    """``agree`` inside the agree band, ``partly`` inside the partly band, ``disagree``
    otherwise; ``not measured`` for NaN (a point the run did not cover)."""
    if math.isnan(value):
        return "not measured"
    if value in agree:
        return "agree"
    if partly is not None and value in partly:
        return "partly"
    return "disagree"


def number(value: float) -> str:
    """A value as the tables print it: four significant digits, scientific when tiny or huge."""
    if math.isnan(value):
        return "–"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.3g}"
    return f"{value:.4g}"


#: Ends the reason of a row that does not agree when no ablation earns it a better verdict
#: and no missing detail of the paper is named: the scorecard counts these as unexplained.
UNEXPLAINED = "no measured reason yet"
#: The reason of a finding whose points the run did not produce (a quick run's smaller grid,
#: or runs that failed).
NOT_IN_RUN = "the points it needs are not in this run"
_RANK = {"agree": 3, "partly": 2, "disagree": 1, "not measured": 0}


def _reason(f: Finding, m: Measured, own: Verdict) -> str:
    """Each ablation with the verdict its value earns, then the paper's missing detail; a row
    is explained by an ablation that earns a better verdict than its own, or by a missing
    detail, and is marked ``UNEXPLAINED`` otherwise."""
    if own == "agree":
        return ""
    verdicts = [verdict(a.value, f.agree, f.partly) for a in m.ablations]
    parts = [f"with {a.setting}: {number(a.value)} ({v})" for a, v in zip(m.ablations, verdicts)]
    if m.missing_detail:
        parts.append(m.missing_detail)
    if own == "not measured" and not parts:
        return NOT_IN_RUN
    explained = bool(m.missing_detail) or any(_RANK[v] > _RANK[own] for v in verdicts)
    if not explained:
        parts.append(UNEXPLAINED + (": no ablation changes the verdict" if parts else ""))
    return "; ".join(parts)


def share(cases: Iterable[bool]) -> float:
    """The share of ``cases`` that hold (the test value of a qualitative finding), NaN for
    none."""
    c = list(cases)
    return sum(c) / len(c) if c else math.nan


SCHEMA = {
    "paper": pl.String,
    "key": pl.String,
    "where": pl.String,
    "statement": pl.String,
    "paper_value": pl.String,
    "metric": pl.String,
    "tolerance": pl.String,
    "agree_low": pl.Float64,
    "agree_high": pl.Float64,
    "partly_low": pl.Float64,
    "partly_high": pl.Float64,
    "value": pl.Float64,
    "verdict": pl.String,
    "rtolab": pl.String,
    "reason": pl.String,
}


def grade(registry: Iterable[Finding], measured: Mapping[str, Measured]) -> pl.DataFrame:
    """One row per finding of ``registry`` (in its order) with its verdict; a finding without
    a measurement is ``not measured`` (e.g. a point a quick run leaves out)."""
    rows = []
    for f in registry:
        if not isinstance(f, Finding):
            raise TypeError(
                f"{getattr(f, 'key', f)!r} is a {type(f).__name__}, not a Finding: a calibration target fixes the operating point "
                "before any finding is graded, and is never graded as one (rtolab.calibration)"
            )
        m = measured.get(f.key, Measured(math.nan, "not in this run"))
        v = verdict(m.value, f.agree, f.partly)
        rows.append({
            "paper": f.paper,
            "key": f.key,
            "where": f.where,
            "statement": f.statement,
            "paper_value": f.paper_value,
            "metric": f.metric,
            "tolerance": f.tolerance,
            "agree_low": f.agree.low,
            "agree_high": f.agree.high,
            "partly_low": f.partly.low if f.partly else math.nan,
            "partly_high": f.partly.high if f.partly else math.nan,
            "value": m.value,
            "verdict": v,
            "rtolab": m.detail,
            "reason": _reason(f, m, v),
        })
    unknown = set(measured) - {f.key for f in registry}
    if unknown:
        raise ValueError(f"measurements for findings not in the registry: {sorted(unknown)}")
    return pl.DataFrame(rows, schema=SCHEMA)


ABLATION_SCHEMA = {"paper": pl.String, "key": pl.String, "setting": pl.String, "value": pl.Float64, "verdict": pl.String}


def ablation_table(registry: Iterable[Finding], measured: Mapping[str, Measured]) -> pl.DataFrame:
    """One row per (finding, ablation) measured, agreeing findings included: the setting, the
    finding's test value under it and the verdict that value earns against the finding's own
    bands. What ``scorecard.readings`` weighs each setting by, paper by paper."""
    rows = []
    for f in registry:
        m = measured.get(f.key)
        for a in m.ablations if m is not None else ():
            rows.append({"paper": f.paper, "key": f.key, "setting": a.setting, "value": a.value, "verdict": verdict(a.value, f.agree, f.partly)})
    return pl.DataFrame(rows, schema=ABLATION_SCHEMA)


def regrade(table: pl.DataFrame) -> pl.Series:
    """The verdicts a graded table's own numbers earn (to check a written table)."""
    out = []
    for row in table.iter_rows(named=True):
        partly = None if math.isnan(row["partly_low"]) else Band(row["partly_low"], row["partly_high"])
        out.append(verdict(row["value"], Band(row["agree_low"], row["agree_high"]), partly))
    return pl.Series("verdict", out, dtype=pl.String)


def read(path: str) -> pl.DataFrame:
    """A graded table written with ``write_csv`` (empty cells are NaN bands, not nulls)."""
    table = pl.read_csv(path, schema=SCHEMA)
    floats = [c for c, t in SCHEMA.items() if t == pl.Float64]
    return table.with_columns(pl.col(floats).fill_null(math.nan), pl.col("reason").fill_null(""), pl.col("rtolab").fill_null(""))
