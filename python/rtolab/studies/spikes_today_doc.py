"""``docs/spikes-today.md``, written from the tables of ``spikes_today_analysis``: the set-up
as the sweep ran it, the tables, the figures, and the sentences of ``spikes_today_text``.
Every number on the page comes from the tables or from the stored study."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab.studies.spikes_today_analysis import KEYS, MSS_BYTES, SpikeLaw, Tables
from rtolab.studies.spikes_today_text import LEVEL_TEXT, findings, model_paragraph, pct

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
    rows = good.join(timer.select(*KEYS, "held_share_mean", "held_share_ci_high", "off_busy_share"), on=KEYS, how="left", maintain_order="left")
    return _table(
        ["trace", "cc", "queue", "goodput without spikes (Mbit/s)", "link busy without spikes (%)", "with spikes (Mbit/s)", "goodput lost (%)", "time held by spikes (%)", "lost beyond the time held (points)"],
        (
            [
                r["trace"], r["cc"], r["queue"], _pm(r, "off", 1e-6), f"{100 * r['off_busy_share']:.1f}", _pm(r, "on", 1e-6), _pm(r, "loss", 100, 1),
                _pm(r, "held_share", 100, 1), _pm(r, "excess", 100, 1),
            ]
            for r in rows.iter_rows(named=True)
        ),
    )


def timer_table(timer: pl.DataFrame) -> str:
    return _table(
        ["trace", "cc", "queue", "spikes per run", "timeouts per spike", "spurious per spike", "spurious share of timeouts", "timeouts per run without spikes"],
        (
            [r["trace"], r["cc"], r["queue"], f"{r['spikes_per_run']:.1f}", _pm(r, "timeouts"), _pm(r, "spurious"), pct(r["spurious_share"]), f"{r['off_timeouts_per_run']:.2f}"]
            for r in timer.iter_rows(named=True)
        ),
    )


def detection_table(timer: pl.DataFrame) -> str:
    return _table(
        ["trace", "cc", "queue", "detected spurious per spike", "precision", "recall", "undos per run with spikes", "undos per run without spikes"],
        (
            [r["trace"], r["cc"], r["queue"], _pm(r, "detected"), pct(r["precision"]), pct(r["recall"]), f"{r['on_undos_per_run']:.1f}", f"{r['off_undos_per_run']:.1f}"]
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


def _setup(s: Setup) -> str:
    fq = any(q.startswith("fq_codel") for q in s.queues)
    queue_note = (
        "FQ-CoDel runs with Linux's defaults (RFC 8290, `sch_fq_codel`: 1024 flows, quantum 1514 B, target 5 ms, interval 100 ms, limit 10240 packets; `docs/aqm.md`)."
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
of the retransmitted segment sent before the expiry reached the receiver).

{timer_table(t.timer)}

The sender's own verdicts against the oracle (`rtolab.stats.detector_scores` over the runs with spikes: precision is the
share of its verdicts the oracle confirms, recall the share of the oracle's spurious timeouts it found); undos count every
window reduction the sender undid, after timeouts and after fast recoveries.

{detection_table(t.timer)}

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

