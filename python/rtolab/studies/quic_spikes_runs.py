"""The runs of the QUIC-spikes study, each reduced in its worker to what the analysis needs,
and kept in ``OUT/<part>.json`` by run key so that a second call reuses them.

A spike run (parts ``paper003`` and ``today``) is made with the ``cwnd`` and ``srtt`` series
(the mean of the latter's samples is the run's ``mean_srtt_s``: QUIC's flow rows have no
RTT) and the
``spike``, ``timeout`` and ``pto`` events, and returns its flow's counters, the forward
direction's spikes, and one row per spike of the forward direction (``per_spike``). A web
run (part ``hsdpa``) returns the measured transfers' shares (``web_summary``)."""

from __future__ import annotations

import copy
import json
import sys
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from rtolab.model.parse import seconds
from rtolab.study import RunPoint, Study

#: Part of every stored summary's key: a summary of another shape is made again.
VERSION = 2
#: The window after a spike is read this long after the spike's end.
AFTER_S = 1.0
#: The link direction whose spikes are counted (spikes stop both directions together).
FORWARD = "radio.forward"
FLOW_COUNTERS = (
    "transport", "bytes", "goodput_bps", "timeouts", "spurious_timeouts", "spurious_detected", "spurious_detected_correct",
    "undos", "mean_rtt_s", "ptos", "spurious_ptos", "client_ptos", "spurious_client_ptos", "declared_lost", "spurious_declared_lost", "congestion_events",
    "datagrams_sent", "datagrams_lost", "retransmits",
)


def _value_at(times: np.ndarray, values: np.ndarray, t: float, strict: bool) -> float | None:
    """The last value recorded before ``t`` (``strict``) or at or before it; None if none."""
    i = int(np.searchsorted(times, t, side="left" if strict else "right")) - 1
    return float(values[i]) if i >= 0 else None


def per_spike(spikes: pl.DataFrame, cwnd: pl.DataFrame, timers: pl.DataFrame, duration_s: float) -> list[dict[str, Any]]:
    """One row per spike of the forward direction: its ``start_s`` and ``end_s`` (an
    unfinished last spike ends at ``duration_s``); the window just before it
    (``cwnd_before``: the last sample before the start), ``AFTER_S`` after its end
    (``cwnd_after``) and the least value in force from the start to then (``cwnd_min``: the
window before the start or any sample between), all in bytes;
    ``clean``: the next spike starts later than that (else its ``cwnd_after`` is another
    spike's window); and the timers that fired in its renewal period, from its start to the
    next spike's start (``timers``: timeouts or PTOs, ``spurious``: the oracle's verdict).

    ``spikes`` has the spike events (``time_s``, ``detail`` "start"/"end") of the direction,
    ``cwnd`` the sender's cwnd series (``time_s``, ``value``), ``timers`` the timer events
    (``time_s``, ``oracle``)."""
    starts = spikes.filter(pl.col("detail") == "start")["time_s"].sort().to_numpy()
    ends = spikes.filter(pl.col("detail") == "end")["time_s"].sort().to_numpy()
    c = cwnd.sort("time_s")
    ct, cv = c["time_s"].to_numpy(), c["value"].to_numpy()
    tt = timers["time_s"].to_numpy()
    spur = (timers["oracle"] == "spurious").to_numpy() if timers.height else np.zeros(0, dtype=bool)
    rows = []
    for i, start in enumerate(starts):
        end = float(ends[i]) if i < len(ends) else duration_s
        nxt = float(starts[i + 1]) if i + 1 < len(starts) else duration_s
        after = end + AFTER_S
        inside = (ct >= start) & (ct <= after)
        held = [v for v in (_value_at(ct, cv, float(start), strict=True),) if v is not None] + [float(x) for x in cv[inside]]
        in_period = (tt >= start) & (tt < nxt)
        rows.append({
            "start_s": float(start),
            "end_s": end,
            "cwnd_before": _value_at(ct, cv, float(start), strict=True),
            "cwnd_after": _value_at(ct, cv, after, strict=False) if after <= duration_s else None,
            "cwnd_min": min(held) if held else None,
            "clean": bool(nxt > after and after <= duration_s),
            "timers": int(in_period.sum()),
            "spurious": int((in_period & spur).sum()),
        })
    return rows


def measure_spikes(task: tuple[str, dict[str, Any], int]) -> tuple[str, dict[str, Any]]:
    """Worker: one spike run with its cwnd series and spike and timer events; its summary."""
    from rtolab.api import run

    key, spec, seed = task
    spec = copy.deepcopy(spec)
    spec["output"] = {"series": ["cwnd", "srtt"], "events": ["spike", "timeout", "pto"]}
    result = run(spec, seed=seed)
    flow = result.flows.filter(pl.col("name") == "bulk").row(0, named=True)
    link = result.links.filter((pl.col("link") == "radio") & (pl.col("direction") == "forward")).row(0, named=True)
    events = result.events.with_columns(pl.col("kind").cast(pl.String))
    spikes = events.filter((pl.col("kind") == "spike") & (pl.col("link") == FORWARD))
    # The data sender's timer: TCP's sender's timeouts, QUIC's server's PTOs (the client's are
    # counted apart, in the flow's counters).
    server_pto = (pl.col("kind") == "pto") & (pl.col("detail") == "server")
    timers = events.filter(((pl.col("kind") == "timeout") | server_pto) & (pl.col("flow") == "bulk"))
    series = result.series.with_columns(pl.col("metric").cast(pl.String), pl.col("entity").cast(pl.String))
    cwnd = series.filter((pl.col("metric") == "cwnd") & (pl.col("entity") == "bulk"))
    srtt = series.filter((pl.col("metric") == "srtt") & (pl.col("entity") == "bulk"))["value"]
    duration = seconds(str(spec["duration"]))
    return key, {
        "flow": {k: flow.get(k) for k in FLOW_COUNTERS},
        "spike_count": int(link["spikes"]),
        "spike_time_s": float(link["spike_time_s"]),
        "utilisation": float(link["utilisation"]),
        "mean_srtt_s": float(srtt.mean()) if srtt.len() else None,  # type: ignore[arg-type]
        "spikes": per_spike(spikes, cwnd, timers, duration),
    }


def web_summary(flows: pl.DataFrame, warm_up_s: float) -> dict[str, Any]:
    """The transfers begun after ``warm_up_s`` (paper 000's warm-up) of one web run: how
    many, the share still running at the end (``censored``), the share with at least one
    timer firing (TCP: a timeout; QUIC: a PTO of the server, the data sender) and with at
    least one spurious by the oracle (``spurious_share``), the share with a spurious PTO of
    the client (``client_spurious_share``), QUIC's share with a spurious loss declaration, the
    timers per transfer and the mean per-transfer goodput (bit/s; a censored transfer's so
    far)."""
    f = flows.filter(pl.col("start_s") >= warm_up_s)
    quic = f["transport"].cast(pl.String).eq("quic").all() if f.height else False
    timers = pl.col("ptos") if quic else pl.col("timeouts")
    spurious = pl.col("spurious_ptos") if quic else pl.col("spurious_timeouts")
    if f.height == 0:
        return {"transfers": 0}
    row = f.select(
        transfers=pl.len(),
        censored=pl.col("end_s").is_null().mean(),
        timer_share=(timers.fill_null(0) > 0).mean(),
        spurious_share=(spurious.fill_null(0) > 0).mean(),
        client_spurious_share=(pl.col("spurious_client_ptos").fill_null(0) > 0).mean(),
        spurious_lost_share=(pl.col("spurious_declared_lost").fill_null(0) > 0).mean(),
        timers_per_transfer=timers.fill_null(0).mean(),
        spurious_per_transfer=spurious.fill_null(0).mean(),
        goodput_bps=pl.col("goodput_bps").mean(),
    ).row(0, named=True)
    return {k: (float(v) if k != "transfers" else int(v)) for k, v in row.items()}


def measure_web(task: tuple[str, dict[str, Any], int, float]) -> tuple[str, dict[str, Any]]:
    """Worker: one web run; its transfers' summary (``web_summary``)."""
    from rtolab.api import run

    key, spec, seed, warm_up_s = task
    return key, web_summary(run(spec, seed=seed).flows, warm_up_s)


def _key(p: RunPoint) -> str:
    return f"v{VERSION}-{p.key}"


def run_part(part: str, s: Study, store: Path, executor: Executor, progress: bool = False) -> tuple[list[dict[str, Any]], int]:
    """Each run of ``s`` as its parameters, replication and summary, and how many were run
    now (the others read from ``store``, a JSON object keyed by version and run key)."""
    from rtolab.executors import run_all
    from rtolab.studies.quic_spikes import WARM_UP_S

    kept: dict[str, Any] = json.loads(store.read_text()) if store.exists() else {}
    points = s.points()
    todo = [p for p in points if _key(p) not in kept]
    if part == "hsdpa":
        web = [(_key(p), p.spec, p.seed, WARM_UP_S) for p in todo]
        results = run_all(executor, measure_web, web)
    else:
        results = run_all(executor, measure_spikes, [(_key(p), p.spec, p.seed) for p in todo])
    for n, (key, summary) in enumerate(results, 1):
        kept[key] = summary
        store.write_text(json.dumps(kept) + "\n")
        if progress:
            print(f"\r{part}: {n}/{len(todo)}", end="", file=sys.stderr, flush=True)
    if progress and todo:
        print(file=sys.stderr)
    return [{"params": p.params, "replication": p.replication, "seed": p.seed, **kept[_key(p)]} for p in points], len(todo)

