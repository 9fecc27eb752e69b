"""The sentences of the voice-over-HSDPA page's "What it finds": each built from the study's
tables (``voice_hsdpa_analysis.Tables``), with the direction read from the 90 % interval of
the difference paired by replication ("higher", "lower", "not distinguished"), never
from the point estimates alone."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from rtolab.studies.voice_hsdpa_analysis import MOS_SATISFIED, Tables, paired, point

NAMES = {"rr": "RR", "max-sir": "SIR"}
UDP_NAMES = {"cbr": "the three CBR flows", "on-off": "the three on/off flows"}
SHORT = {"cbr": "CBR", "on-off": "on/off"}


def _f(x: float | None, digits: int, scale: float = 1.0) -> str:
    return "–" if x is None or math.isnan(x) else f"{x * scale:.{digits}f}"


def _mean(t: Tables, measure: str, **keys: Any) -> float:
    try:
        value = point(t.summary, measure, **keys)["mean"]
    except KeyError:
        return math.nan
    return math.nan if value is None else float(value)


def _word(low: float, high: float) -> str:
    if math.isnan(low):
        return "not distinguished"
    return "higher" if low > 0 else "lower" if high < 0 else "not distinguished"


def _verdicts(t: Tables, measure: str, factor: str, level: str) -> str:
    """How the 90 % intervals of one contrast's effects on ``measure`` fall over the
    (scheduler, minRTO) cases: "higher in 4, not distinguished in 2 of 6"."""
    e = t.effects.filter((pl.col("measure") == measure) & (pl.col("factor") == factor) & (pl.col("level") == level))
    counts = e.group_by("verdict").len()
    parts = [f"{word} in {n}" for word in ("higher", "lower", "not distinguished") for v, n in counts.iter_rows() if v == word]
    return f"{', '.join(parts)} of {e.height} (scheduler, minRTO) cases"


def _scheds(t: Tables) -> list[str]:
    return sorted(t.runs["scheduler"].unique().to_list(), key=lambda s: s != "rr")


def _change(t: Tables, measure: str, rto: float, a: dict[str, Any], b: dict[str, Any], digits: int, scale: float = 1.0) -> str:
    """``RR x → y, SIR x → y`` at minRTO ``rto``: ``measure`` at ``b`` then at ``a``."""
    return ", ".join(
        f"{NAMES.get(s, s)} {_f(_mean(t, measure, scheduler=s, min_rto_s=rto, **b), digits, scale)} → {_f(_mean(t, measure, scheduler=s, min_rto_s=rto, **a), digits, scale)}"
        for s in _scheds(t)
    )


def voice_on_tcp(t: Tables, rto: float) -> list[str]:
    lines = []
    for calls in sorted(c for c in t.runs["calls"].unique().to_list() if c):
        a, b = {"udp": "none", "calls": calls}, {"udp": "none", "calls": 0}
        lines.append(
            f"**{calls} calls ({calls // 7} per cell) against none, without UDP.** Timeouts per transfer: {_verdicts(t, 'timeouts_per_transfer', 'calls', str(calls))} "
            f"(minRTO {rto:g} s: {_change(t, 'timeouts_per_transfer', rto, a, b, 3)}). Spurious timeouts per transfer: "
            f"{_verdicts(t, 'spurious_per_transfer', 'calls', str(calls))} ({_change(t, 'spurious_per_transfer', rto, a, b, 4)}); the 99th percentile of the "
            f"transfers' mean RTTs: {_verdicts(t, 'rtt_p99_s', 'calls', str(calls))} ({_change(t, 'rtt_p99_s', rto, a, b, 0, 1e3)} ms); the median "
            f"transfer's goodput: {_verdicts(t, 'goodput_median_bps', 'calls', str(calls))} ({_change(t, 'goodput_median_bps', rto, a, b, 0, 1e-3)} kbit/s)."
        )
    return lines


def min_rto_under_load(t: Tables) -> str:
    rtos = sorted(t.runs["min_rto_s"].unique().to_list())
    calls = max(t.runs["calls"].unique().to_list())
    lo, hi = rtos[0], rtos[-1]
    parts = []
    for s in _scheds(t):
        for u in ("none", "on-off"):
            a = {"scheduler": s, "calls": calls, "udp": u, "min_rto_s": hi}
            b = {"scheduler": s, "calls": calls, "udp": u, "min_rto_s": lo}
            d, low, high, _ = paired(t.runs, "spurious_per_transfer", a, b)
            parts.append(
                f"{NAMES.get(s, s)} {'without UDP' if u == 'none' else 'with on/off UDP'} {_f(_mean(t, 'spurious_per_transfer', **b), 4)} → "
                f"{_f(_mean(t, 'spurious_per_transfer', **a), 4)} ({_word(low, high)})"
            )
    return (
        f"**minRTO under voice.** With {calls} calls, spurious timeouts per transfer at minRTO {lo:g} s → {hi:g} s: {'; '.join(parts)}. "
        "The direction is read from the paired 90 % interval."
    )


def udp_on_tcp(t: Tables, rto: float) -> list[str]:
    lines = []
    for u in [x for x in ("cbr", "on-off") if x in t.runs["udp"].unique().to_list()]:
        a, b = {"udp": u, "calls": 0}, {"udp": "none", "calls": 0}
        lines.append(
            f"**{UDP_NAMES[u][0].upper() + UDP_NAMES[u][1:]} against none, without voice.** Transfers per run: {_verdicts(t, 'transfers', 'udp', u)} "
            f"(minRTO {rto:g} s: {_change(t, 'transfers', rto, a, b, 0)}; transfers begun in the last fifth of the run per one begun in the first "
            f"fifth: {_change(t, 'late_to_early', rto, a, b, 2)}). Timeouts per transfer: {_verdicts(t, 'timeouts_per_transfer', 'udp', u)} "
            f"({_change(t, 'timeouts_per_transfer', rto, a, b, 3)}); spurious timeouts per transfer: {_verdicts(t, 'spurious_per_transfer', 'udp', u)} "
            f"({_change(t, 'spurious_per_transfer', rto, a, b, 4)}); share of the timeouts that were spurious: "
            f"{_change(t, 'spurious_of_timeouts', rto, a, b, 0, 100)} %."
        )
    return lines


def _tail(t: Tables, scheduler: str, udp: str, calls: int) -> dict[str, Any] | None:
    hit = t.tails.filter((pl.col("scheduler") == scheduler) & (pl.col("udp") == udp) & (pl.col("calls") == calls) & (pl.col("packets") > 0))
    return hit.row(0, named=True) if hit.height else None


def _effect(t: Tables, measure: str, factor: str, level: str) -> list[str]:
    e = t.effects.filter((pl.col("measure") == measure) & (pl.col("factor") == factor) & (pl.col("level") == level))
    return [str(x) for x in e["verdict"]]


def udp_mechanism(t: Tables, rto: float) -> str | None:
    """How the CBR flows act on TCP, when the tables show the pattern of losses rather than
    delays: fewer transfers in every case, users collecting where they cannot be served
    (``late_to_early`` lower), fewer of the timeouts spurious, and no longer delay tail of
    the packets that arrive; None when the CBR level was not run."""
    if "cbr" not in t.runs["udp"].unique().to_list():
        return None
    scheds = _scheds(t)
    fewer = all(v == "lower" for v in _effect(t, "transfers", "udp", "cbr"))
    stuck = all(_mean(t, "late_to_early", scheduler=s, min_rto_s=rto, udp="cbr", calls=0) < _mean(t, "late_to_early", scheduler=s, min_rto_s=rto, udp="none", calls=0) for s in scheds)
    genuine = all(
        _mean(t, "spurious_of_timeouts", scheduler=s, min_rto_s=rto, udp="cbr", calls=0) < _mean(t, "spurious_of_timeouts", scheduler=s, min_rto_s=rto, udp="none", calls=0)
        for s in scheds
    )
    pairs = [(_tail(t, s, "none", 0), _tail(t, s, "cbr", 0)) for s in scheds]
    shorter = all(a is not None and b is not None and b["p999_s"] <= a["p999_s"] for a, b in pairs)
    cells = "; ".join(
        f"{NAMES.get(s, s)} {sum(b['cell_drops']):.0f} packets refused against {sum(a['cell_drops']):.0f}, "
        f"{_f(b['cell_drops'][0] / max(1.0, sum(b['cell_drops'])), 0, 100)} % of them in the busiest cell (busy {_f(b['cell_busy'][0], 0, 100)} % of its TTIs)"
        for s, (a, b) in zip(scheds, pairs) if a is not None and b is not None
    )
    if not (fewer and stuck and genuine and shorter):
        return (
            "**How the CBR flows act on TCP.** The tables do not show one pattern (fewer transfers in every case, users collecting, "
            f"fewer spurious timeouts, no longer delay tail): read them directly. Cells in the delay-series runs: {cells}."
        )
    return (
        "**How the UDP flows interrupt TCP here: by losses, not by delays.** With the CBR flows the web packets that arrive are not "
        "delayed more (the delay-series table: 99.9th percentile "
        + ", ".join(f"{NAMES.get(s, s)} {_f(a['p999_s'], 2)} → {_f(b['p999_s'], 2)} s" for s, (a, b) in zip(scheds, pairs) if a and b)
        + f"), but the base stations refuse far more packets ({cells}; one replication). The reading these numbers fit: a flow of "
        "1 Mbit/s to a user who cannot receive that much keeps its cell's shared 50-packet buffer full, so the packets of the other users "
        "of that cell are refused on arrival; their timeouts are genuine and back off (from the 6 s first RTO when a SYN is lost). Each "
        "new transfer starts at a new position, so in time more web users are held up in such cells: the transfers begun in the last "
        "fifth of the run are "
        + ", ".join(f"{NAMES.get(s, s)} {_f(_mean(t, 'late_to_early', scheduler=s, min_rto_s=rto, udp='cbr', calls=0), 2)}" for s in scheds)
        + " of those begun in its first fifth, and the per-transfer measures depend on the run's length. The paper's \"sudden service "
        "interruptions\" appear here as refusals at a shared drop-tail buffer, which spurious-timeout counts do not see."
    )


def delay_spikes(t: Tables) -> str:
    tails = t.tails.filter(pl.col("packets") > 0)
    if tails.is_empty():
        return "**Delay spikes.** The delay-series pass recorded no packets."
    parts = []
    for s in _scheds(t):
        cells = []
        for u, c, label in (("none", 0, "alone"), ("none", max(t.runs["calls"].unique().to_list()), "with the most calls"), ("cbr", 0, "with CBR"), ("on-off", 0, "with on/off")):
            hit = tails.filter((pl.col("scheduler") == s) & (pl.col("udp") == u) & (pl.col("calls") == c))
            if hit.height:
                r = hit.row(0, named=True)
                cells.append(f"{label} {_f(r['p999_s'], 2)} s / {_f(r['max_s'], 2)} s ({_f(r['beyond_1s'], 2, 1e3)} ‰ beyond 1 s)")
        parts.append(f"{NAMES.get(s, s)}: {', '.join(cells)}")
    return (
        "**Delay spikes (one replication).** The 99.9th percentile / the longest one-way delay of the web transfers' data packets: "
        + "; ".join(parts) + "."
    )


def mos(t: Tables, rto: float) -> list[str]:
    lines = []
    scheds = _scheds(t)
    for calls in sorted(c for c in t.runs["calls"].unique().to_list() if c):
        per = []
        for s in scheds:
            k = {"scheduler": s, "min_rto_s": rto, "calls": calls, "udp": "none"}
            per.append(f"{NAMES.get(s, s)} mean {_f(_mean(t, 'mos_mean', **k), 2)}, {_f(_mean(t, 'mos_low_share', **k), 1, 100)} % below {MOS_SATISFIED:g}")
        text = f"**Voice, {calls} calls, no UDP (minRTO {rto:g} s).** MOS {'; '.join(per)}"
        if len(scheds) == 2:
            a = {"scheduler": scheds[1], "min_rto_s": rto, "calls": calls, "udp": "none"}
            b = {"scheduler": scheds[0], "min_rto_s": rto, "calls": calls, "udp": "none"}
            d, low, high, _ = paired(t.runs, "mos_low_share", a, b)
            text += f"; {NAMES.get(scheds[1], scheds[1])} − {NAMES.get(scheds[0], scheds[0])} in the share below {MOS_SATISFIED:g}: {_f(d, 1, 100)} points ({_word(low, high)})"
        udp = []
        for u in ("cbr", "on-off"):
            for s in scheds:
                a = {"scheduler": s, "min_rto_s": rto, "calls": calls, "udp": u}
                b = {"scheduler": s, "min_rto_s": rto, "calls": calls, "udp": "none"}
                d, low, high, _ = paired(t.runs, "mos_low_share", a, b)
                udp.append(f"{SHORT[u]} {NAMES.get(s, s)} {_f(_mean(t, 'mos_low_share', **a), 1, 100)} % ({_word(low, high)})")
        lines.append(text + f". With UDP the share below {MOS_SATISFIED:g} becomes: {', '.join(udp)}.")
    return lines


def mos_mechanism(t: Tables, rto: float) -> str | None:
    """Why UDP can lower a scheduler's share of poor calls, when the tables show it: the
    calls lose more in the network (those in the UDP flows' cells) and are late less (the
    others, whose cells the web users left)."""
    lines = []
    for s, calls in ((s, c) for s in _scheds(t) for c in sorted(c for c in t.runs["calls"].unique().to_list() if c)):
        a = {"scheduler": s, "min_rto_s": rto, "calls": calls, "udp": "cbr"}
        b = {"scheduler": s, "min_rto_s": rto, "calls": calls, "udp": "none"}
        low = paired(t.runs, "mos_low_share", a, b)
        late = paired(t.runs, "voice_late_share", a, b)
        lost = paired(t.runs, "voice_lost_share", a, b)
        if _word(low[1], low[2]) == "lower" and _word(late[1], late[2]) == "lower" and _word(lost[1], lost[2]) == "higher":
            lines.append(
                f"{NAMES.get(s, s)} with {calls} calls: late for the playout {_f(_mean(t, 'voice_late_share', **b), 2, 100)} → {_f(_mean(t, 'voice_late_share', **a), 2, 100)} %, "
                f"lost in the network {_f(_mean(t, 'voice_lost_share', **b), 2, 100)} → {_f(_mean(t, 'voice_lost_share', **a), 2, 100)} %"
            )
    if not lines:
        return None
    return (
        "**Why the CBR flows can lower the share of poor calls.** Where they do, the calls lose more packets in the network and are "
        "late for the playout less (without → with CBR, minRTO " + f"{rto:g} s): " + "; ".join(lines) + ". That fits the reading above: "
        "the calls in the CBR flows' cells lose their packets at the full buffer, while the others wait less because the web users held "
        "up in the CBR flows' cells no longer load the rest. Fewer poor calls there is not UDP helping voice but TCP's users taken out "
        "of the other cells."
    )


def mos_min_rto(t: Tables) -> str:
    rtos = sorted(t.runs["min_rto_s"].unique().to_list())
    calls = max(t.runs["calls"].unique().to_list())
    parts = []
    for s in _scheds(t):
        a = {"scheduler": s, "min_rto_s": rtos[-1], "calls": calls, "udp": "none"}
        b = {"scheduler": s, "min_rto_s": rtos[0], "calls": calls, "udp": "none"}
        d, low, high, _ = paired(t.runs, "mos_low_share", a, b)
        parts.append(f"{NAMES.get(s, s)} {_f(_mean(t, 'mos_low_share', **b), 1, 100)} → {_f(_mean(t, 'mos_low_share', **a), 1, 100)} % ({_word(low, high)})")
    return f"**TCP's minRTO and the calls.** Share of the {calls} calls below {MOS_SATISFIED:g} without UDP, minRTO {rtos[0]:g} s → {rtos[-1]:g} s: {'; '.join(parts)}."


def findings(t: Tables, rto: float) -> list[str]:
    """The page's "What it finds", in order: voice on TCP, minRTO, UDP on TCP and how it acts,
    delay spikes, MOS, how UDP acts on it, and minRTO's effect on it."""
    optional = [udp_mechanism(t, rto), mos_mechanism(t, rto)]
    return [
        *voice_on_tcp(t, rto), min_rto_under_load(t), *udp_on_tcp(t, rto), *(x for x in optional[:1] if x), delay_spikes(t),
        *mos(t, rto), *(x for x in optional[1:] if x), mos_min_rto(t),
    ]
