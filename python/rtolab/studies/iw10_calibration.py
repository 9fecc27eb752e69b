"""Paper 002's absolute levels: the slides' maxima of the one-way delay with REDok (slide 11:
"Maximum values with REDok: IW10: 2.80s, IW3: 2.06s" for a single EDGE flow; "IW10: 0.429s,
IW3: 0.296s" for six flows, read as HSPA, ``iw10_analysis.DELAY_SETS``), and the readings of
what the slides leave open that move them: the window (ns-2's default ``window_`` 20, which
the slides do not override, or one no flow reaches) and when the flows start (the later
burst's offset and each flow's start jitter, ``iw10_irto.Reading``). Tolerance ±25 %, as the
findings on the same maxima' ratios use (``iw10_findings``); measured over the slides' 100
replications at IRTO 3 s, as the slides' delay figures are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rtolab import calibration
from rtolab.calibration import Axis, Candidate, Reading, Target, frozen, settings
from rtolab.findings import within
from rtolab.studies import iw10_irto

REPLICATIONS = 100
SEED = 2010
#: (key, link, flows, iw, the slides' maximum in seconds).
MAXIMA = [
    ("002-delay-max-edge-iw10", "EDGE", 1, 10, 2.80),
    ("002-delay-max-edge-iw3", "EDGE", 1, 3, 2.06),
    ("002-delay-max-hspa-iw10", "HSPA", 6, 10, 0.429),
    ("002-delay-max-hspa-iw3", "HSPA", 6, 3, 0.296),
]

TARGETS: list[Target] = [
    Target(
        "002", key, "slide 11" if link == "EDGE" else "slide 12", f"Maximum values with REDok: IW{iw}: {seconds:g}s", f"{seconds:g} s",
        f"largest one-way delay of a data packet, {link} {flows}+{flows}, REDok, IW{iw}, IRTO 3 s, over {REPLICATIONS} replications",
        within(seconds, 0.25), 0.25 * seconds,
    )
    for key, link, flows, iw, seconds in MAXIMA
]

AXES: list[Axis] = [
    Axis("window", (
        Reading(f"{iw10_irto.WINDOW} packets", "ns-2's default window_ of 20, which the slides' settings do not override", {}),
        Reading(f"{iw10_irto.OPEN_WINDOW} packets", "a window no flow reaches (the slides give none)", {"window": iw10_irto.OPEN_WINDOW}),
    )),
    Axis("later burst's offset", (
        Reading("× 1", "rtolab's reading of the slides' 'later starting burst' (iw10_irto.Bottleneck.offset)", {}),
        Reading("× 0.5", "half the offset (the slides give no time)", {"offset_scale": 0.5}),
        Reading("× 2", "twice the offset (the slides give no time)", {"offset_scale": 2.0}),
    )),
    Axis("start jitter", (
        Reading("× 1", "rtolab's reading of a burst's flows starting together (iw10_irto.Bottleneck.jitter_max)", {}),
        Reading("× 0.5", "half the spread (the slides give none)", {"jitter_scale": 0.5}),
        Reading("× 2", "twice the spread (the slides give none)", {"jitter_scale": 2.0}),
    )),
]

#: The reading the search picked by ``rtolab.calibration.RULE``, frozen as the study's default.
CALIBRATED: dict[str, str] = {
    "window": "1000 packets",
    "later burst's offset": "× 2",
    "start jitter": "× 1",
}


def calibrated() -> Candidate:
    """The frozen reading, the study's default."""
    return frozen(AXES, CALIBRATED)


def earlier() -> Candidate:
    """The study's reading before calibration."""
    return calibration.earlier(AXES)


def study_reading(candidate: Candidate) -> iw10_irto.Reading:
    """The study's ``iw10_irto.Reading`` of a candidate."""
    return iw10_irto.Reading(**settings(candidate))


def reached(delays: Any) -> dict[str, float]:
    """Each target's value from a delay table (``iw10_analysis.one_way_delays``: columns link,
    flows, buffer, iw, irto, delay_s): the largest delay of its set at REDok, IRTO 3 s."""
    import polars as pl

    out = {}
    for key, link, flows, iw, _ in MAXIMA:
        part = delays.filter((pl.col("link") == link) & (pl.col("flows") == flows) & (pl.col("buffer") == "REDok") & (pl.col("iw") == iw) & (pl.col("irto") == "3s"))
        out[key] = float(part["delay_s"].max()) if part.height else float("nan")
    return out


def evaluate(cands: Sequence[Candidate], executor: Any = None) -> list[dict[str, float]]:
    """Each candidate's value for every target: its REDok delay runs on ``executor``."""
    from rtolab.executors import LocalExecutor
    from rtolab.studies.iw10_analysis import DELAY_SETS, one_way_delays

    pool = executor or LocalExecutor()
    try:
        return [reached(one_way_delays(pool, REPLICATIONS, SEED, DELAY_SETS, study_reading(c), irtos=("3s",), buffer_names=("REDok",))) for c in cands]
    finally:
        if executor is None:
            pool.shutdown()


def search_size() -> int:
    from rtolab.calibration import candidates

    return len(candidates(AXES)) * len(MAXIMA) * REPLICATIONS
