"""``docs/spikes-today.md``, written from the tables of ``spikes_today_analysis``: the set-up
as the sweep ran it, the tables, the figures, what the numbers show and the comparison with
paper 003's model. Every number on the page comes from the tables; the sentences that compare
two numbers choose their words from the numbers (``_order``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab.studies.spikes_today_analysis import KEYS, LEVEL, MSS_BYTES, SpikeLaw

COMMANDS = """```sh
rtolab sweep studies/spikes-today.toml --out out/spikes-today --workers 2
python -m rtolab.studies.spikes_today out/spikes-today --docs docs
```"""


@dataclass(frozen=True)
class Setup:
    """What the page says of the sweep: from its stored study and its tables."""

    traces: list[str]
    ccs: list[str]
    queues: list[str]
    reverse: str
    delay: str
    law: SpikeLaw
    duration_s: float
    replications: int
    seed: int
    runs: int


@dataclass(frozen=True)
class Tables:
    """The analysis's tables: goodput (with the loss beyond the time held, ``excess_…``),
    timer, model, and the paired differences of the loss between the ccs (``cc``: BBR −
    CUBIC, by trace and queue) and between each queue and the first (``queues``, by trace,
    cc and the queue compared)."""

    good: pl.DataFrame
    timer: pl.DataFrame
    model: pl.DataFrame
    cc: pl.DataFrame
    queues: pl.DataFrame


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def points(x: float) -> str:
    """A difference of two fractions in percentage points, signed."""
    return f"{100 * x:+.1f}"


def span(values: list[float]) -> str:
    """``a–b`` in per cent, or one value when all are equal to the digit shown."""
    lo, hi = pct(min(values)), pct(max(values))
    return lo if lo == hi else f"{lo.removesuffix(' %')}–{hi}"


LEVEL_TEXT = f"{100 * LEVEL:.0f} %"


def _pm(rows: Mapping[str, Any], prefix: str, scale: float = 1.0, digits: int = 2) -> str:
    """``mean ± half-width`` of ``prefix``_mean / _ci_high (a Student-t interval is symmetric);
    the mean alone when there is no interval (one replication)."""
    mean, high = rows[f"{prefix}_mean"] * scale, rows[f"{prefix}_ci_high"]
    if high is None or math.isnan(high):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {high * scale - mean:.{digits}f}"


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def goodput_table(good: pl.DataFrame, timer: pl.DataFrame) -> str:
    held = timer.select(*KEYS, "held_share_mean", "held_share_ci_high")
    rows = good.join(held, on=KEYS, how="left", maintain_order="left")
    return _table(
        ["trace", "cc", "queue", "goodput without spikes (Mbit/s)", "with spikes (Mbit/s)", "goodput lost (%)", "time held by spikes (%)", "lost beyond the time held (points)"],
        (
            [r["trace"], r["cc"], r["queue"], _pm(r, "off", 1e-6), _pm(r, "on", 1e-6), _pm(r, "loss", 100, 1), _pm(r, "held_share", 100, 1), _pm(r, "excess", 100, 1)]
            for r in rows.iter_rows(named=True)
        ),
    )


def timer_table(timer: pl.DataFrame) -> str:
    return _table(
        ["trace", "cc", "queue", "spikes per run", "timeouts per spike", "spurious per spike", "detected per spike", "spurious share of timeouts", "undos per run, with / without spikes", "timeouts per run without spikes"],
        (
            [
                r["trace"], r["cc"], r["queue"], f"{r['spikes_per_run']:.1f}", _pm(r, "timeouts"), _pm(r, "spurious"), _pm(r, "detected"),
                pct(r["spurious_share"]), f"{r['on_undos_per_run']:.1f} / {r['off_undos_per_run']:.1f}", f"{r['off_timeouts_per_run']:.2f}",
            ]
            for r in timer.iter_rows(named=True)
        ),
    )


def model_table(model: pl.DataFrame, timer: pl.DataFrame) -> str:
    rows = model.join(timer.select(*KEYS, "held_share_mean"), on=KEYS, how="left", maintain_order="left")
    return _table(
        ["trace", "cc", "queue", "Cmax: goodput without spikes (Mbit/s)", "R: mean RTT without spikes (ms)", "model's ramp L (s)", "time held, measured / expected (%)", "loss measured (%)", "loss, model (%)"],
        (
            [
                r["trace"], r["cc"], r["queue"], f"{r['cmax_bps'] * 1e-6:.2f}", f"{r['rtt_s'] * 1e3:.0f}", f"{r['ramp_s']:.2f}",
                f"{100 * r['held_share_mean']:.1f} / {100 * r['expected_held_share']:.1f}", f"{100 * r['measured_loss']:.1f}", f"{100 * r['model_loss']:.1f}",
            ]
            for r in rows.iter_rows(named=True)
        ),
    )


def _name(r: Mapping[str, Any]) -> str:
    return f"{r['cc']} / {r['trace']} / {r['queue']}"


def _compared(r: Mapping[str, Any], more: str, less: str) -> str:
    """A paired difference's row in words: which side lost more, by how much, and the
    interval; or that the interval contains 0."""
    where = f"{points(r['mean'])} points, {LEVEL_TEXT} interval [{points(r['ci_low'])}, {points(r['ci_high'])}], {r['n']} replications"
    if r["ci_low"] > 0:
        return f"{more} lost more ({where})"
    if r["ci_high"] < 0:
        return f"{less} lost more ({where})"
    return f"neither lost more: the difference's interval contains 0 ({where})"


def findings(t: Tables) -> list[str]:
    """The sentences of "What it finds", each from the tables' numbers."""
    good = t.good.join(t.timer, on=KEYS, how="left", maintain_order="left")
    rows = list(good.iter_rows(named=True))
    out = []
    lo, hi = min(rows, key=lambda r: r["loss_mean"]), max(rows, key=lambda r: r["loss_mean"])
    out.append(f"Spikes cost every combination goodput: from {pct(lo['loss_mean'])} ({_name(lo)}) to {pct(hi['loss_mean'])} ({_name(hi)}).")
    above = [_name(r) for r in rows if r["excess_ci_low"] > 0]
    within = [_name(r) for r in rows if r["excess_ci_low"] <= 0 <= r["excess_ci_high"]]
    out.append(
        f"The time the spikes held the link ({span([r['held_share_mean'] for r in rows])} of the run) is "
        f"{span([r['held_share_mean'] / r['loss_mean'] for r in rows])} of that loss; the loss beyond it is "
        f"{points(min(r['excess_mean'] for r in rows))} to {points(max(r['excess_mean'] for r in rows))} points. "
        + (f"That excess's interval lies above 0 for {'; '.join(above)}. " if above else "")
        + (f"It contains 0 for {'; '.join(within)}." if within else "")
    )
    for r in t.cc.iter_rows(named=True):
        out.append(f"Over {r['trace']} ({r['queue']}), with the same spikes, {_compared(r, 'BBR', 'CUBIC')}.")
    for r in t.queues.iter_rows(named=True):
        out.append(f"Over {r['trace']}, {r['cc']} behind {r['queue']} against {r['reference']}: {_compared(r, r['queue'], r['reference'])}.")
    to_lo, to_hi = min(rows, key=lambda r: r["timeouts_mean"]), max(rows, key=lambda r: r["timeouts_mean"])
    out.append(
        f"The timer fired {to_lo['timeouts_mean']:.2f} ({_name(to_lo)}) to {to_hi['timeouts_mean']:.2f} ({_name(to_hi)}) times per spike on average, "
        f"and at least {pct(min(r['spurious_share'] for r in rows))} of the expiries in runs with spikes were spurious by the oracle."
    )
    ratio = [r["detected_mean"] / r["spurious_mean"] for r in rows if r["spurious_mean"] > 0]
    if ratio:
        out.append(f"The sender itself (the linux profile's Eifel, F-RTO and DSACK detectors) declared {span(ratio)} as many timeouts spurious as the oracle found.")
    congested = [r for r in rows if r["off_timeouts_per_run"] > 0]
    out.append(
        "Without spikes no run timed out."
        if not congested
        else "Without spikes, timeouts came only in " + "; ".join(f"{_name(r)}: {r['off_timeouts_per_run']:.2f} per run, with {r['off_drops_per_run']:.0f} drops per run" for r in congested) + "."
    )
    return out


def model_paragraph(t: Tables) -> str:
    rows = list(t.model.join(t.good.select(*KEYS, "excess_mean"), on=KEYS, how="left", maintain_order="left").iter_rows(named=True))
    gaps = [r["model_loss"] - r["measured_loss"] for r in rows]
    above = sum(g > 0 for g in gaps)
    n = len(rows)
    where = (
        f"above the measured one in all {n} combinations" if above == n
        else f"below the measured one in all {n} combinations" if above == 0
        else f"above the measured one in {above} of {n} combinations and below it in the others"
    )
    closest = min(rows, key=lambda r: abs(r["model_loss"] - r["measured_loss"]))
    model_excess = [r["model_loss"] - r["expected_held_share"] for r in rows]
    return (
        "Paper 003's lossless model (Sec. 2.2, Eq. 1–4, with random spike lengths as in Sec. 3.2) has the link silent for each spike and "
        "TCP restart after it in slow start from one packet, doubling its rate every R until Cmax, which takes L = R/ln 2 · ln Cmax "
        "(Eq. 3). Fed each combination's baseline (Cmax, R) and the study's spike laws (spike-free intervals, `interval_kind = "
        f'"spike_free"`), its loss lies {where}, by {100 * min(map(abs, gaps)):.1f}–{100 * max(map(abs, gaps)):.1f} points (closest: {_name(closest)}, '
        f"{pct(closest['model_loss'])} against {pct(closest['measured_loss'])}). The model's loss beyond the time held, the cost of its "
        f"slow start, is {points(min(model_excess))} to {points(max(model_excess))} points; the measured one is "
        f"{points(min(r['excess_mean'] for r in rows))} to {points(max(r['excess_mean'] for r in rows))}. The model is an upper reference "
        "here: it prices every spike at a slow start from one packet, the cost that the linux profile's spurious-timeout detection and undo "
        "(F-RTO, RFC 5682; Eifel, RFC 3522; as `tcp_process_loss` and `tcp_try_undo_loss` in Linux's `net/ipv4/tcp_input.c` run them) "
        "exist to avoid, and the detection counts above say how often they saw a spurious timeout."
    )


def _setup(s: Setup) -> str:
    fq = any(q.startswith("fq_codel") for q in s.queues)
    queue_note = (
        "FQ-CoDel runs with Linux's defaults (RFC 8290, `sch_fq_codel`: 1024 flows, quantum 1514 B, target 5 ms, interval 100 ms, limit 10240 packets)."
        if fq
        else "FQ-CoDel is not in this sweep: the simulator it ran on had no `fq_codel` queue. The queue is a grid axis "
        '(`"links.radio.queue"`), so adding it is one value, `{ kind = "fq_codel" }`, and a sweep with `--extend`.'
    )
    return "\n".join([
        f"- **Links**: the forward direction delivers at the opportunities of a trace ({', '.join(f'`traces/{t}.trace`' for t in s.traces)}; "
        f"`traces/README.md` gives the command that made each), the ACKs return over `{s.reverse}`; {s.delay} each way; the queue: "
        f"{', '.join(f'`{q}`' for q in s.queues)}. {queue_note}",
        f"- **Flow**: one unbounded bulk transfer, `tcp = {{ stack = \"linux\", cc = ... }}` with cc {', '.join(f'`{c}`' for c in s.ccs)}: "
        f"the linux profile's timer (`rto = \"linux\"`: RFC 6298's estimator with Linux's 200 ms floor on its variance term), timestamps, "
        f"SACK with PRR and RACK-TLP, and Eifel, Linux's F-RTO and DSACK detection with undo (`docs/tcp-stacks.md`); {MSS_BYTES} B segments.",
        f"- **Spikes** (paper 003, Sec. 4.1): a spike-free interval `{s.law.interval}` from a spike's end to the next start (as ns-2's Delayer, "
        f"which the paper used, draws it) and a length `{s.law.length}`, the middle of the paper's three ranges (Fig. 7), with a mean interval "
        "inside its range E(T) = 10–50 s; the link holds every packet in both directions for the spike and loses none. The long-run share "
        f"of time held is E[SD] / (E[SD] + E[I]) = {pct(s.law.held_share)}.",
        f"- **Runs**: {s.duration_s:g} s each, {s.replications} replications (seed {s.seed}), {s.runs} runs. Replication r of every grid point "
        "shares its seed, so the runs with spikes see the same spikes, and the loss is computed per replication against the run without "
        f"spikes of the same seed: 1 − G_on / G_off. Intervals are Student-t at {LEVEL_TEXT} over replications (`rtolab.stats`).",
    ])


def render(s: Setup, t: Tables, figures: str) -> str:
    """The page, ``figures`` the path from the page to its figures' directory."""
    return f"""# Delay spikes on today's links

<!-- generated by `python -m rtolab.studies.spikes_today` from the sweep of studies/spikes-today.toml; do not edit -->

Paper 003 asked what delay spikes cost a bulk TCP transfer over a 2000s radio link and how often they fire the
retransmission timer spuriously. `studies/spikes-today.toml` (issue 29 §4) asks it of trace-driven LTE-like links,
with CUBIC and BBR as Linux runs them, with and without spikes; every number below is computed from its sweep by
`python/rtolab/studies/spikes_today_analysis.py`.

{COMMANDS}

## Set-up

{_setup(s)}

## Goodput

Mean over replications ± the half-width of its {LEVEL_TEXT} interval. The loss and the loss beyond the time held are\ncomputed per replication against the run without spikes of the same seed, then averaged.

{goodput_table(t.good, t.timer)}

![goodput]({figures}/goodput.png)

![loss against time held]({figures}/loss-vs-held.png)

## The retransmission timer

Per spike: a run's count over its spikes, then the mean over replications. "Spurious" is the simulator's oracle (a copy
of the retransmitted segment sent before the expiry reached the receiver); "detected" the sender's own verdicts; undos
count every window reduction the sender undid (after timeouts and after fast recoveries).

{timer_table(t.timer)}

![timeouts per spike]({figures}/timeouts.png)

## What it finds

{chr(10).join(f"- {line}" for line in findings(t))}

## Against paper 003's model

{model_table(t.model, t.timer)}

{model_paragraph(t)}
"""


def write(page: Path, text: str) -> None:
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")

