"""The sentences of ``docs/spikes-today.md`` that read the tables: "What it finds" and the
comparison with paper 003's model. Each sentence takes its numbers from the tables and its
words from comparing them (an interval above, below or across 0; a model above or below the
measurement), so a new sweep cannot leave a sentence that its numbers contradict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtolab.studies.spikes_today_analysis import KEYS, LEVEL, Tables

LEVEL_TEXT = f"{100 * LEVEL:.0f} %"


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def points(x: float) -> str:
    """A difference of two fractions in percentage points, signed."""
    return f"{100 * x:+.1f}"


def span(values: list[float]) -> str:
    """``a–b %`` of fractions, or one value when all show the same."""
    lo, hi = pct(min(values)), pct(max(values))
    return lo if lo == hi else f"{lo.removesuffix(' %')}–{hi}"


def name(r: Mapping[str, Any]) -> str:
    return f"{r['cc']} / {r['trace']} / {r['queue']}"


def names(rows: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(name(r) for r in rows)


def compared(r: Mapping[str, Any], subject: str, than: str) -> str:
    """A paired difference of the loss in words: "``subject`` lost x points more (less) than
    ``than``", its interval and n, and whether the interval excludes 0."""
    more = "more" if r["mean"] >= 0 else "less"
    settled = r["ci_low"] > 0 or r["ci_high"] < 0
    return (
        f"{subject} lost {abs(100 * r['mean']):.1f} points {more} than {than} ({LEVEL_TEXT} interval of the difference "
        f"[{points(r['ci_low'])}, {points(r['ci_high'])}], {r['n']} replications with the same spikes)"
        + ("" if settled else "; the interval contains 0, so the sweep does not tell them apart")
    )


def _excess(rows: list[dict[str, Any]]) -> str:
    above = [r for r in rows if r["excess_ci_low"] > 0]
    below = [r for r in rows if r["excess_ci_high"] < 0]
    across = [r for r in rows if r not in above and r not in below]
    parts = [f"Its interval lies above 0 for {names(above)}." if above else "", f"It contains 0 for {names(across)}." if across else "", f"It lies below 0 for {names(below)}." if below else ""]
    text = (
        f"The spikes held the link {span([r['held_share_mean'] for r in rows])} of the run. The loss beyond that share "
        f"(per replication: loss − time held) is {points(min(r['excess_mean'] for r in rows))} to {points(max(r['excess_mean'] for r in rows))} points. "
        + " ".join(p for p in parts if p)
    )
    if below:
        text += " Below 0, the spikes took less than their share: without spikes the link was busy only " + "; ".join(
            f"{pct(r['off_busy_share'])} of the run ({name(r)})" for r in below
        ) + "."
    return text


def findings(t: Tables) -> list[str]:
    """The sentences of "What it finds", each from the tables' numbers."""
    good = t.good.join(t.timer, on=KEYS, how="left", maintain_order="left")
    rows = list(good.iter_rows(named=True))
    lo, hi = min(rows, key=lambda r: r["loss_mean"]), max(rows, key=lambda r: r["loss_mean"])
    out = [f"Spikes cost every combination goodput: from {pct(lo['loss_mean'])} ({name(lo)}) to {pct(hi['loss_mean'])} ({name(hi)}).", _excess(rows)]
    out += [f"Over {r['trace']} behind {r['queue']}, {compared(r, 'BBR', 'CUBIC')}." for r in t.cc.iter_rows(named=True)]
    for r in t.queues.iter_rows(named=True):
        out.append(f"Over {r['trace']}, {compared(r, r['cc'] + ' behind ' + r['queue'], 'behind ' + r['reference'])}.")
    for (trace, cc), part in good.group_by(["trace", "cc"], maintain_order=True):
        first, *others = part.iter_rows(named=True)
        for other in others:
            out.append(
                f"Without spikes, {cc} over {trace} behind {other['queue']} reached {pct(other['off_mean'] / first['off_mean'])} of the goodput it had "
                f"behind {first['queue']} ({other['off_mean'] * 1e-6:.2f} against {first['off_mean'] * 1e-6:.2f} Mbit/s)."
            )
    to_lo, to_hi = min(rows, key=lambda r: r["timeouts_mean"]), max(rows, key=lambda r: r["timeouts_mean"])
    out.append(
        f"The timer fired {to_lo['timeouts_mean']:.2f} ({name(to_lo)}) to {to_hi['timeouts_mean']:.2f} ({name(to_hi)}) times per spike on average; "
        f"{span([r['spurious_share'] for r in rows])} of the expiries in runs with spikes were spurious by the oracle."
    )
    out.append(
        f"The sender's own verdicts (the linux profile's Eifel, F-RTO and DSACK detectors) against the oracle: precision {span([r['precision'] for r in rows])}, "
        f"recall {span([r['recall'] for r in rows])}."
    )
    congested = [r for r in rows if r["off_timeouts_per_run"] > 0]
    out.append(
        "Without spikes no run timed out."
        if not congested
        else "Without spikes, timeouts came only in " + "; ".join(f"{name(r)}: {r['off_timeouts_per_run']:.2f} per run, with {r['off_drops_per_run']:.0f} drops per run" for r in congested) + "."
    )
    return out


def model_paragraph(t: Tables) -> str:
    """Paper 003's model beside the measurement, in words."""
    rows = list(t.model.join(t.good.select(*KEYS, "excess_mean"), on=KEYS, how="left", maintain_order="left").iter_rows(named=True))
    under = [r for r in rows if r["model_loss"] < r["measured_loss"]]
    over = len(rows) - len(under)
    gaps = [abs(r["model_loss"] - r["measured_loss"]) for r in rows]
    closest = min(rows, key=lambda r: abs(r["model_loss"] - r["measured_loss"]))
    model_excess = [r["model_loss"] - r["expected_held_share"] for r in rows]
    return (
        "Paper 003's lossless model (Sec. 2.2, Eq. 1–4, with random spike lengths as in Sec. 3.2) has the link silent for each spike and "
        "TCP restart after it in slow start from one packet, doubling its rate every R until Cmax, which takes L = R/ln 2 · ln Cmax "
        "(Eq. 3); it knows no timer, no undo and no queue. Fed each combination's baseline (Cmax, R) and the study's spike laws "
        f'(spike-free intervals, `interval_kind = "spike_free"`), its loss is above the measured one in {over} of {len(rows)} combinations'
        + (f" and below it in {names(under)}" if under else "")
        + f"; the two differ by {100 * min(gaps):.1f}–{100 * max(gaps):.1f} points (closest: {name(closest)}, "
        f"{pct(closest['model_loss'])} against {pct(closest['measured_loss'])}). The model's loss beyond the time held, the price of its slow start, is {points(min(model_excess))} to "
        f"{points(max(model_excess))} points; the measured one is {points(min(r['excess_mean'] for r in rows))} to "
        f"{points(max(r['excess_mean'] for r in rows))}. A spurious timeout need not cost that slow start on today's Linux: F-RTO "
        "(RFC 5682) and Eifel (RFC 3522) detect it and the sender undoes the reduction (`tcp_process_loss`, `tcp_try_undo_loss` in "
        "`net/ipv4/tcp_input.c`); the detection table above gives how often the profile's detectors were right."
    )
