"""Statistics over sweep tables, by group: Student-t confidence intervals of the mean, median,
quartiles, min–max, Jain's fairness index, empirical CDFs, and the precision and recall of a
spurious-timeout detector against the simulator's oracle.

Quartiles use linear interpolation between order statistics (numpy's default, type 7).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from numpy.typing import ArrayLike
from scipy import stats as sps


def _t_quantile(level: float, dof: ArrayLike) -> np.ndarray:
    """t_{(1+level)/2, dof}: the upper end of the standard Student-t interval at ``level``.
    The half-width scales it by s / sqrt(n) outside scipy, so that s = 0 (identical
    replications) gives a zero-width interval rather than scipy's NaN for a zero scale."""
    return np.asarray(sps.t.interval(level, dof)[1], dtype=float)


def t_interval(values: ArrayLike, level: float = 0.9) -> tuple[float, float, float]:
    """(mean, lower, upper) of the two-sided Student-t interval at ``level``:
    mean ± t_{(1+level)/2, n-1} · s / sqrt(n). With one value the bounds are NaN."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return (float("nan"),) * 3
    mean = float(x.mean())
    if n == 1:
        return mean, float("nan"), float("nan")
    half = float(_t_quantile(level, n - 1) * x.std(ddof=1) / np.sqrt(n))
    return mean, mean - half, mean + half


def summarize(df: pl.DataFrame, value: str, by: Sequence[str] = (), level: float = 0.9) -> pl.DataFrame:
    """Per group of ``by``: n, mean, std, ci_low, ci_high (Student-t at ``level``), min, q1,
    median, q3, max of column ``value`` (nulls ignored)."""
    col = pl.col(value).drop_nulls()
    aggs = [
        col.count().alias("n"),
        col.mean().alias("mean"),
        col.std(ddof=1).alias("std"),
        col.min().alias("min"),
        col.quantile(0.25, interpolation="linear").alias("q1"),
        col.median().alias("median"),
        col.quantile(0.75, interpolation="linear").alias("q3"),
        col.max().alias("max"),
    ]
    grouped = df.group_by(list(by), maintain_order=True).agg(aggs) if by else df.select(aggs)
    n = grouped["n"].to_numpy().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(n > 1, _t_quantile(level, np.maximum(n - 1, 1)), np.nan)
        half = t * grouped["std"].fill_null(np.nan).to_numpy() / np.sqrt(n)
    mean = grouped["mean"].fill_null(np.nan).to_numpy()
    return grouped.with_columns(ci_low=pl.Series(mean - half), ci_high=pl.Series(mean + half)).select(
        *by, "n", "mean", "std", "ci_low", "ci_high", "min", "q1", "median", "q3", "max"
    )


def mean_or_nan(values: pl.Series) -> float:
    """The mean of a column's values that are not null, NaN when there are none (a summary
    cell a grid did not fill)."""
    x = values.drop_nulls().to_numpy().astype(float)
    return float(x.mean()) if x.size else float("nan")


def _present(x: pl.Expr) -> pl.Expr:
    """The values of ``x`` as floats, without nulls and NaNs."""
    return x.cast(pl.Float64).fill_nan(None).drop_nulls()


def jain_index(x: pl.Expr) -> pl.Expr:
    """Jain's fairness index of the values of ``x`` (paper 000, Eq. 1): (Σx)² / (n · Σx²)
    over the values that are neither null nor NaN. 1 when all are equal, 1/n when one takes
    everything, NaN for no values or all zeros. rtolab's one definition: ``jain``,
    ``jain_by`` and the studies' fairness columns are this expression."""
    v = _present(x)
    return v.sum() ** 2 / (v.count() * (v * v).sum())


def jain(values: ArrayLike) -> float:
    """Jain's index (``jain_index``) of a sequence of values."""
    frame = pl.DataFrame({"x": np.asarray(values, dtype=float).ravel()})
    return float(frame.select(jain_index(pl.col("x"))).item())


def jain_by(df: pl.DataFrame, value: str, by: Sequence[str]) -> pl.DataFrame:
    """Jain's index (``jain_index``) of ``value`` within each group of ``by`` (column
    ``jain``), with the number of values it covers (``n``)."""
    return df.group_by(list(by), maintain_order=True).agg(jain_index(pl.col(value)).alias("jain"), _present(pl.col(value)).count().alias("n"))


def ecdf(values: ArrayLike) -> pl.DataFrame:
    """The empirical CDF (``scipy.stats.ecdf``): its steps, one row per distinct value ``x``
    with ``p`` = the share of values ≤ x. NaNs are left out."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return pl.DataFrame({"x": [], "p": []}, schema={"x": pl.Float64, "p": pl.Float64})
    cdf = sps.ecdf(x).cdf
    return pl.DataFrame({"x": cdf.quantiles, "p": cdf.probabilities})


def ecdf_by(df: pl.DataFrame, value: str, by: Sequence[str]) -> pl.DataFrame:
    """Empirical CDFs of ``value`` per group (columns: by…, x, p)."""
    parts = []
    for keys, group in df.group_by(list(by), maintain_order=True):
        e = ecdf(group[value].to_numpy())
        parts.append(e.with_columns(*(pl.lit(k).alias(name) for name, k in zip(by, keys))).select(*by, "x", "p"))
    return pl.concat(parts) if parts else pl.DataFrame()


def detector_scores(flows: pl.DataFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Precision and recall of the sender's spurious-timeout detection against the oracle,
    per group of ``by``, from the ``flows`` table.

    A true positive is a timeout both the sender's detectors and the oracle call spurious
    (``spurious_detected_correct``). precision = TP / detected (``spurious_detected``),
    recall = TP / spurious (``spurious_timeouts``); NaN where the denominator is 0. Also
    returns the counts: timeouts, spurious, detected, true_positives."""
    aggs = [
        pl.col("timeouts").sum().alias("timeouts"),
        pl.col("spurious_timeouts").sum().alias("spurious"),
        pl.col("spurious_detected").sum().alias("detected"),
        pl.col("spurious_detected_correct").sum().alias("true_positives"),
    ]
    grouped = flows.group_by(list(by), maintain_order=True).agg(aggs) if by else flows.select(aggs)
    tp = pl.col("true_positives").cast(pl.Float64)
    return grouped.with_columns(
        precision=pl.when(pl.col("detected") > 0).then(tp / pl.col("detected")).otherwise(float("nan")),
        recall=pl.when(pl.col("spurious") > 0).then(tp / pl.col("spurious")).otherwise(float("nan")),
    )
