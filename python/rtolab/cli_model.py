"""``rtolab model …``: the analytic models from the command line, in user units."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, TypeVar

import typer

from rtolab._console import fail, new_table, out
from rtolab.model.defaults import DEFAULT_TIMEOUT_S

T = TypeVar("T")



class Approx(StrEnum):
    """E(A | T') by Eq. 9 (Wald) or Eq. 7 (exact)."""

    wald = "wald"
    exact = "exact"


class CaGrowth(StrEnum):
    """The congestion-avoidance slope: the paper's 1/R, or 1/R² (one packet per RTT)."""

    paper = "paper"
    per_rtt = "per_rtt"


model_app = typer.Typer(no_args_is_help=True, help="Analytic models (paper 003's spike model).")

_LABELS = {
    "goodput_bps": "goodput (bit/s)",
    "goodput_pps": "goodput (packets/s)",
    "cmax_pps": "Cmax (packets/s)",
    "ramp_s": "L = R·log2 Cmax (s)",
    "period_mean_s": "E(T), spike start to start (s)",
    "mode": "TCP mode (1 sawtooth, 2 cut, 3 rate-limited)",
    "x0_pps": "x0 (packets/s)",
    "tau_ca_s": "τCA (s)",
    "tau_ss_s": "τSS (s)",
    "beta": "β",
    "mean_cycle_s": "E(Y) (s)",
}


def _parsed(option: str, text: str, parse: Callable[[str], T]) -> T:
    try:
        return parse(text)
    except ValueError as e:
        raise fail(f"{option}: {e}") from None


@model_app.command()
def spikes(
    rate: Annotated[str, typer.Option(help='Link rate, e.g. "40kbps".')],
    mss: Annotated[str, typer.Option(help='Packet size, e.g. "576" or "576B" (Cmax = rate / (8·mss)).')],
    rtt: Annotated[str, typer.Option(help='R without spikes, e.g. "315ms".')],
    spike_length: Annotated[str, typer.Option(help='SD: a duration or a distribution, e.g. "7.5s" or "uniform(5s, 10s)".')],
    interval: Annotated[str, typer.Option(help='Spike interval distribution, e.g. "uniform(10s, 50s)", "exp(20s)".')],
    loss: Annotated[float, typer.Option(help="Congestion loss probability p (0: lossless model).")] = 0.0,
    approx: Annotated[Approx, typer.Option(help="E(A | T') by Eq. 9 (wald) or Eq. 7 (exact).")] = Approx.wald,
    timeout: Annotated[str, typer.Option(help="TO, the mean timeout in τSS.")] = f"{DEFAULT_TIMEOUT_S}s",
    period: Annotated[
        bool, typer.Option("--period", help="The interval runs from a spike's start to the next start (the paper's T), not from a spike's end to the next start (the simulator's reading, ns-2's Delayer).")
    ] = False,
    ca_growth: Annotated[CaGrowth, typer.Option(help="Congestion-avoidance slope: paper (1/R) or per_rtt (1/R², one packet per RTT).")] = CaGrowth.paper,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Goodput of a bulk TCP transfer under delay spikes (paper 003, Eq. 1–18)."""
    from rtolab.model import goodput
    from rtolab.model.parse import duration_distribution, rate_bps, seconds, size_bytes

    try:
        result = goodput.spikes(
            rate_bps=_parsed("--rate", rate, rate_bps),
            mss=_parsed("--mss", mss, size_bytes),
            rtt=_parsed("--rtt", rtt, seconds),
            spike_length=_parsed("--spike-length", spike_length, duration_distribution),
            interval=_parsed("--interval", interval, duration_distribution),
            loss=loss,
            approx="exact" if approx is Approx.exact else "wald",
            timeout=_parsed("--timeout", timeout, seconds),
            interval_kind="period" if period else "spike_free",
            ca_growth="per_rtt" if ca_growth is CaGrowth.per_rtt else "paper",
        )
    except ValueError as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(json.dumps(result.as_dict()))
        return
    table = new_table(f"TCP goodput under delay spikes ({'lossless' if result.loss == 0 else f'p = {result.loss:g}, {approx}'})")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for key, label in _LABELS.items():
        value = result.as_dict()[key]
        if value is not None:
            table.add_row(label, f"{value:,.6g}" if isinstance(value, float) else str(value))
    out.print(table)
