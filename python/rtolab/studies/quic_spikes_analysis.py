"""The tables of the QUIC-spikes study (issue 44 §7), from the runs' summaries
(``quic_spikes_runs``).

Method, fixed before any run was looked at:

- Goodput is the flow's bytes delivered over the run. A grid point without spikes is the
  baseline of the same point with them: replication r of both shares its seed, so the loss
  is 1 − G_on / G_off per replication, and every interval is over replications (Student-t at
  ``LEVEL``, 90 % as in the papers; ``rtolab.stats.summarize``).
- Timers: a TCP timeout and a QUIC PTO of the server (RFC 9002 §6.2; the data sender's, as
  TCP's timeouts are its sender's) are both "timer firings"; the client's PTOs are counted
  apart (``client_…``); spurious by the simulator's oracle (TCP: a copy of the segment reached the
  receiver before the expiry; QUIC: no packet the end waited for had been lost). Per flow:
  counts per run; per spike: a run's count over its spikes, and the share of its spikes
  whose renewal period (start to the next start) holds at least one spurious firing.
- The window after a spike: for each spike whose next spike starts more than
  ``quic_spikes_runs.AFTER_S`` after its end, cwnd ``AFTER_S`` after the end over cwnd just
  before the start (``ratio_after``), and the least cwnd between the two over cwnd before
  (``ratio_min``); averaged over a run's spikes, then over replications.
- The model: paper 003's renewal-reward model (``rtolab.model.spikes``) with the spike laws
  of the runs, Cmax the baseline's goodput and R its mean smoothed RTT: lossless (Eq. 1–4,
  a slow start from one packet after every spike, ramp L = R·log2 Cmax) and, for the lossy
  points, the model with congestion losses (Eq. 5–10, Wald) with its τCA, τSS and β, and the
  same with β = 0 (no timeout-slow-start cycles).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import stats
from rtolab.model import spikes as spike_model
from rtolab.model.congestion import cycles
from rtolab.model.parse import duration_distribution
from rtolab.study import Study
from rtolab.studies.quic_spikes import TRANSPORTS, transport_label

LEVEL = 0.9
KEYS = ["part", "setting", "transport"]
PAIR = [*KEYS, "replication"]
SPIKE_PARTS = ("paper003", "today")


class AnalysisError(ValueError):
    """Runs this analysis cannot read, with what is wrong."""


def _setting(part: str, params: dict[str, Any]) -> str:
    """The grid point's setting besides the transport: the loss (paper003), the trace
    (today), the users (hsdpa)."""
    if part == "paper003":
        return f"loss {float(params['links.radio.loss']) * 100:g} %"
    if part == "today":
        return Path(str(params["links.radio.trace"])).name.removesuffix(".trace")
    return f"{_flow_param(params)['users']} users"


def _flow_param(params: dict[str, Any]) -> dict[str, Any]:
    """The run's flow table (or web generator's), as the grid wrote it (a store keeps it as
    JSON text)."""
    flow: Any = params["flows.bulk"] if "flows.bulk" in params else params["generators.web"]
    return dict(json.loads(flow)) if isinstance(flow, str) else dict(flow)


def spike_runs(part: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per run of a spike part: part, setting, transport, spikes, replication, the
    flow's goodput and timer counters (``timers``/``spurious``: timeouts or PTOs), the
    mean of the sender's smoothed RTT series (``mean_rtt_s``; TCP and QUIC alike), the forward direction's spike count and time held."""
    out = []
    for r in rows:
        f = r["flow"]
        quic = f["transport"] == "quic"
        out.append({
            "part": part,
            "setting": _setting(part, r["params"]),
            "transport": transport_label(_flow_param(r["params"])),
            "spikes": r["params"]["tag.spikes"],
            "replication": r["replication"],
            "goodput_bps": f["goodput_bps"],
            "timers": (f["ptos"] if quic else f["timeouts"]) or 0,
            "spurious": (f["spurious_ptos"] if quic else f["spurious_timeouts"]) or 0,
            "client_timers": f.get("client_ptos") or 0,
            "client_spurious": f.get("spurious_client_ptos") or 0,
            "declared_lost": f["declared_lost"],
            "spurious_declared_lost": f["spurious_declared_lost"],
            "undos": f["undos"],
            "mean_rtt_s": r.get("mean_srtt_s"),
            "spike_count": r["spike_count"],
            "spike_time_s": r["spike_time_s"],
        })
    return pl.DataFrame(out, infer_schema_length=None)


def spike_rows(part: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per spike of the runs with spikes (``quic_spikes_runs.per_spike``), labelled
    with its run's part, setting, transport and replication."""
    out = []
    for r in rows:
        if r["params"]["tag.spikes"] != "on":
            continue
        label = {"part": part, "setting": _setting(part, r["params"]), "transport": transport_label(_flow_param(r["params"])), "replication": r["replication"]}
        out += [{**label, **s} for s in r["spikes"]]
    schema = {"part": pl.String, "setting": pl.String, "transport": pl.String, "replication": pl.Int64, "start_s": pl.Float64, "end_s": pl.Float64,
              "cwnd_before": pl.Float64, "cwnd_after": pl.Float64, "cwnd_min": pl.Float64, "clean": pl.Boolean, "timers": pl.Int64, "spurious": pl.Int64}
    return pl.DataFrame(out, schema=schema)


def _summary(frame: pl.DataFrame, value: str, prefix: str, keys: list[str] = KEYS) -> pl.DataFrame:
    """n, mean and the interval of ``value`` per ``keys``, as ``prefix``_…"""
    s = stats.summarize(frame, value, by=keys, level=LEVEL)
    return s.select(*keys, pl.col("n").alias(f"{prefix}_n"), *(pl.col(c).alias(f"{prefix}_{c}") for c in ("mean", "ci_low", "ci_high")))


def _joined(parts: list[pl.DataFrame], keys: list[str] = KEYS) -> pl.DataFrame:
    out = parts[0]
    for part in parts[1:]:
        out = out.join(part, on=keys, how="left", maintain_order="left")
    return out


def _order(frame: pl.DataFrame) -> pl.DataFrame:
    """Rows in the study's order: part, setting as first seen, transport as ``TRANSPORTS``."""
    rank = {t: i for i, t in enumerate(TRANSPORTS)}
    return frame.with_columns(pl.col("transport").replace_strict(rank, default=len(rank), return_dtype=pl.Int64).alias("_t")).sort("part", "setting", "_t", maintain_order=True).drop("_t")


def pairs(runs: pl.DataFrame) -> pl.DataFrame:
    """Each run with spikes beside its baseline (same part, setting, transport and
    replication): ``on_bps``, ``off_bps``, ``loss`` = 1 − on/off and the time held. Raises
    ``AnalysisError`` naming a run without its partner."""
    on = runs.filter(pl.col("spikes") == "on").select(*PAIR, pl.col("goodput_bps").alias("on_bps"), "spike_time_s")
    off = runs.filter(pl.col("spikes") == "off").select(*PAIR, pl.col("goodput_bps").alias("off_bps"))
    joined = on.join(off, on=PAIR, how="full", coalesce=True)
    lone = joined.filter(pl.col("on_bps").is_null() | pl.col("off_bps").is_null())
    if not lone.is_empty():
        row = lone.row(0, named=True)
        raise AnalysisError(f"no partner for {row['part']} {row['setting']} {row['transport']} replication {row['replication']} ({lone.height} runs alone)")
    return joined.with_columns((1 - pl.col("on_bps") / pl.col("off_bps")).alias("loss")).sort(PAIR)


def goodput(runs: pl.DataFrame) -> pl.DataFrame:
    """Per (part, setting, transport): goodput without spikes (``off_…``) and with them
    (``on_…``), bit/s, and the loss 1 − on/off (``loss_…``), with intervals over the paired
    replications."""
    p = pairs(runs)
    return _order(_joined([_summary(p, "off_bps", "off"), _summary(p, "on_bps", "on"), _summary(p, "loss", "loss")]))


def versus(runs: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """Per (part, setting): the loss of transport ``a`` minus that of ``b``, paired by
    replication (the same spikes: the spike draws are the link's own stream), n, mean and
    interval; no row where either is missing."""
    p = pairs(runs)
    side = {t: p.filter(pl.col("transport") == t).select("part", "setting", "replication", pl.col("loss").alias(t)) for t in (a, b)}
    both = side[a].join(side[b], on=["part", "setting", "replication"], how="inner").with_columns((pl.col(a) - pl.col(b)).alias("difference"))
    s = stats.summarize(both, "difference", by=["part", "setting"], level=LEVEL)
    return s.select("part", "setting", pl.lit(a).alias("a"), pl.lit(b).alias("b"), "n", "mean", "ci_low", "ci_high")


def timers(runs: pl.DataFrame, per: pl.DataFrame) -> pl.DataFrame:
    """Per (part, setting, transport), over the runs with spikes: timer firings and spurious
    ones per run (``timers_…``, ``spurious_…``) and per spike (``timers_per_spike_…``,
    ``spurious_per_spike_…``), the share of spikes with a spurious firing in their renewal
    period (``spiked_share_…``), the share of firings that were spurious (pooled), and timer
    firings and spurious ones per run without spikes (``off_timers_…``, ``off_spurious_…``),
    and the QUIC client's PTOs and spurious ones per run, with and without spikes
    (``client_timers_…``, ``client_spurious_…``, ``off_client_spurious_…``)."""
    on = runs.filter((pl.col("spikes") == "on") & (pl.col("spike_count") > 0)).with_columns(
        (pl.col("timers") / pl.col("spike_count")).alias("timers_per_spike"),
        (pl.col("spurious") / pl.col("spike_count")).alias("spurious_per_spike"),
    )
    off = runs.filter(pl.col("spikes") == "off")
    shares = per.group_by(PAIR).agg((pl.col("spurious") > 0).mean().alias("spiked_share"))
    pooled = on.group_by(KEYS).agg((pl.col("spurious").sum() / pl.col("timers").sum()).alias("spurious_share"), pl.col("spike_count").mean().alias("spikes_per_run"))
    parts = [
        _summary(on, "timers", "timers"),
        _summary(on, "spurious", "spurious"),
        _summary(on, "timers_per_spike", "timers_per_spike"),
        _summary(on, "spurious_per_spike", "spurious_per_spike"),
        _summary(shares, "spiked_share", "spiked_share"),
        pooled,
        _summary(off, "timers", "off_timers"),
        _summary(off, "spurious", "off_spurious"),
        _summary(on, "client_timers", "client_timers"),
        _summary(on, "client_spurious", "client_spurious"),
        _summary(off, "client_spurious", "off_client_spurious"),
    ]
    return _order(_joined(parts))


def window(per: pl.DataFrame) -> pl.DataFrame:
    """Per (part, setting, transport): over the clean spikes (the next spike starts after
    the window is read), the mean per run of cwnd ``AFTER_S`` after the end over cwnd before
    the start (``ratio_after_…``) and of the least cwnd between over cwnd before
    (``ratio_min_…``), with intervals over replications; the clean spikes counted
    (``clean_spikes``) and the mean window before them in bytes (``cwnd_before``)."""
    clean = per.filter(pl.col("clean") & pl.col("cwnd_before").is_not_null() & (pl.col("cwnd_before") > 0) & pl.col("cwnd_after").is_not_null())
    clean = clean.with_columns((pl.col("cwnd_after") / pl.col("cwnd_before")).alias("ratio_after"), (pl.col("cwnd_min") / pl.col("cwnd_before")).alias("ratio_min"))
    per_run = clean.group_by(PAIR).agg(pl.col("ratio_after").mean(), pl.col("ratio_min").mean())
    counts = clean.group_by(KEYS).agg(pl.len().alias("clean_spikes"), pl.col("cwnd_before").mean())
    return _order(_joined([_summary(per_run, "ratio_after", "ratio_after"), _summary(per_run, "ratio_min", "ratio_min"), counts]))


@dataclass(frozen=True)
class SpikeLaw:
    """A part's spikes as its study writes them (spec text): the spike-free interval, the
    length, and the run length in seconds."""

    interval: str
    length: str
    duration_s: float

    @property
    def held_share(self) -> float:
        """E[SD] / (E[SD] + E[I]): the long-run share of time a spike holds the link."""
        sd = duration_distribution(self.length).mean()
        return sd / (sd + duration_distribution(self.interval).mean())


def spike_law(s: Study) -> SpikeLaw:
    """The spike table of the study's "on" case."""
    case = next(c for c in s.cases if c.get("tag.spikes") == "on")
    table = case["links.radio.spikes"]
    return SpikeLaw(table["interval"], table["length"], float(str(s.base["duration"]).removesuffix("s")))


def _payload(part: str, transport: str) -> float:
    """Bytes of data per packet the model counts in: TCP's MSS, QUIC's datagram less its
    per-packet overheads (``quic_spikes.QUIC_PAYLOAD`` at 1200 B; the same 54 B at 1472)."""
    from rtolab.studies import quic_spikes as q

    if part == "paper003":
        return float(q.TCP_MSS if transport.startswith("tcp") else q.QUIC_PAYLOAD)
    return 1448.0 if transport.startswith("tcp") else float(1472 - (1200 - q.QUIC_PAYLOAD))


def model(runs: pl.DataFrame, good: pl.DataFrame, laws: dict[str, SpikeLaw]) -> pl.DataFrame:
    """Per (part, setting, transport): paper 003's lossless model's loss (Eq. 1–4: a slow
    start from one packet after every spike), 1 − G_model / Cmax with Cmax the baseline's
    mean goodput and R its mean smoothed RTT; the loss with no slow start after a spike, the
    held share (the model with its ramp L = 0); the ramp L = R·log2(Cmax) in seconds; and the
    measured loss beside them."""
    rtt = runs.filter(pl.col("spikes") == "off").group_by(KEYS).agg(pl.col("mean_rtt_s").mean().alias("rtt_s"))
    base = good.select(*KEYS, pl.col("off_mean").alias("cmax_bps"), "loss_mean", pl.col("loss_mean").alias("measured_loss"), "loss_ci_low", "loss_ci_high").join(rtt, on=KEYS, how="left")
    rows: list[dict[str, Any]] = []
    for row in base.iter_rows(named=True):
        law = laws[row["part"]]
        mss = _payload(row["part"], row["transport"])
        m = spike_model(row["cmax_bps"], mss, row["rtt_s"], law.length, law.interval, interval_kind="spike_free")
        rows.append({**row, "mss_bytes": mss, "cmax_pps": m.cmax_pps, "model_loss": 1 - m.goodput_bps / row["cmax_bps"], "held_share": law.held_share, "ramp_s": m.ramp_s})
    return _order(pl.DataFrame(rows))


def lossy_model(runs: pl.DataFrame, laws: dict[str, SpikeLaw], timeout_s: float = 1.0) -> pl.DataFrame:
    """Part paper003's lossy points: the model with congestion losses (Eq. 5–10, Wald) on the
    link's rate (Cmax = link rate over the packet's wire size; R as ``quic_spikes.paper_rtt_s``;
    TO ``timeout_s``, the RFC 6298 minimum the model defaults to): its mode, τCA, τSS, β and
    goodput with spikes, and the same with β = 0 (E(Y) = τCA: no timeout-slow-start cycle),
    beside the measured goodput with spikes per transport (mean and interval), in the
    packet's payload rate."""
    from rtolab.studies import quic_spikes as q

    lossy = runs.filter((pl.col("part") == "paper003") & (pl.col("spikes") == "on") & (pl.col("setting") != "loss 0 %"))
    if lossy.is_empty():
        return pl.DataFrame()
    law = laws["paper003"]
    measured = _order(_summary(lossy, "goodput_bps", "on"))
    rows = []
    cmax = q.RATE_BPS / (8 * q.WIRE_BYTES)
    rtt = q.paper_rtt_s()
    held = 1 - law.held_share
    for row in measured.iter_rows(named=True):
        p = float(row["setting"].removeprefix("loss ").removesuffix(" %")) / 100
        c = cycles(p, rtt, cmax, timeout_s)
        mss = _payload("paper003", row["transport"])
        published = held / (p * c.mean_cycle) * 8 * mss
        no_timeouts = held / (p * c.tau_ca) * 8 * mss
        rows.append({**row, "p": p, "mode": c.mode, "tau_ca_s": c.tau_ca, "tau_ss_s": c.tau_ss, "beta": c.beta, "model_bps": published, "model_beta0_bps": no_timeouts,
                     "check_bps": spike_model(q.RATE_BPS * mss / q.WIRE_BYTES, mss, rtt, law.length, law.interval, loss=p, timeout=timeout_s).goodput_bps})
    return pl.DataFrame(rows)


def web(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """One row per web run: setting (users), transport, replication and its summary."""
    out = [{"part": "hsdpa", "setting": _setting("hsdpa", r["params"]), "transport": transport_label(_flow_param(r["params"])), "replication": r["replication"],
            **{k: v for k, v in r.items() if k not in ("params", "replication", "seed")}} for r in rows]
    return pl.DataFrame(out, infer_schema_length=None)


WEB_MEASURES = ("spurious_share", "client_spurious_share", "timer_share", "spurious_lost_share", "timers_per_transfer", "goodput_bps", "transfers", "censored")


def web_summary(runs: pl.DataFrame) -> pl.DataFrame:
    """Per (users, transport): every web measure's mean and interval over replications."""
    frame = runs.with_columns(pl.col("transfers").cast(pl.Float64))
    return _order(_joined([_summary(frame, m, m) for m in WEB_MEASURES]))


@dataclass(frozen=True)
class Tables:
    """Every table of the study."""

    runs: pl.DataFrame
    spikes: pl.DataFrame
    good: pl.DataFrame
    versus: pl.DataFrame
    timers: pl.DataFrame
    window: pl.DataFrame
    model: pl.DataFrame
    lossy: pl.DataFrame
    web_runs: pl.DataFrame
    web: pl.DataFrame
    laws: dict[str, SpikeLaw]


def tabulate(rows: dict[str, list[dict[str, Any]]], studies: dict[str, Study]) -> Tables:
    """The tables from each part's runs (``quic_spikes_runs.run_part``) and studies."""
    present = [p for p in SPIKE_PARTS if rows.get(p)]
    if not present:
        raise AnalysisError("no spike runs: nothing to tabulate")
    runs = pl.concat([spike_runs(p, rows[p]) for p in present], how="diagonal_relaxed")
    per = pl.concat([spike_rows(p, rows[p]) for p in present])
    laws = {p: spike_law(studies[p]) for p in present}
    good = goodput(runs)
    comparisons = [versus(runs, a, b) for a, b in (("quic-newreno", "tcp"), ("quic-cubic", "tcp"), ("tcp-no-detect", "tcp"), ("tcp-no-frto", "tcp"), ("quic-cubic", "quic-newreno"))]
    web_runs = web(rows["hsdpa"]) if rows.get("hsdpa") else pl.DataFrame()
    return Tables(
        runs=runs,
        spikes=per,
        good=good,
        versus=pl.concat(comparisons),
        timers=timers(runs, per),
        window=window(per),
        model=model(runs, good, laws),
        lossy=lossy_model(runs, laws),
        web_runs=web_runs,
        web=web_summary(web_runs) if not web_runs.is_empty() else pl.DataFrame(),
        laws=laws,
    )


def write_csv(t: Tables, out: Path) -> list[Path]:
    """Each table as ``OUT/<name>.csv``."""
    written = []
    for name in ("runs", "spikes", "good", "versus", "timers", "window", "model", "lossy", "web_runs", "web"):
        frame = getattr(t, name)
        if frame.is_empty():
            continue
        path = out / f"{name}.csv"
        frame.write_csv(path)
        written.append(path)
    return written
