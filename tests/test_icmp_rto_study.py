"""The ICMP-feedback adaptive RTO study (paper 001): set-up, the 3GPP packet-call field, the
analysis on hand-made tables, and a tiny end-to-end reproduction."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import assert_graded

import rtolab
from rtolab.reproduce import reproduce
from rtolab.studies import icmp_rto, icmp_rto_findings
from rtolab.studies import icmp_rto_analysis as analysis


def test_every_point_of_the_full_study_is_a_valid_scenario() -> None:
    for study in (icmp_rto.scheme_study("web"), icmp_rto.scheme_study("ftp"), icmp_rto.arq_study()):
        seen = set()
        for p in study.points():
            if p.point not in seen:
                seen.add(p.point)
                rtolab.validate(p.spec)
    assert icmp_rto.bad_fraction(8.0) == 0.5
    assert round(icmp_rto.bad_fraction(1.0), 3) == 0.111


def test_web_and_ftp_run_the_three_senders_at_every_bad_fraction() -> None:
    """Each sender under each reading of the timer: ns-1's (the back-off stops at 64, no
    cap) and the 64 s cap."""
    for study, tcp_path in ((icmp_rto.scheme_study("web", quick=True), "generators.web.tcp"), (icmp_rto.scheme_study("ftp", quick=True), "flows.ftp.tcp")):
        assert len(study.cases) == 3 * len(icmp_rto.TIMERS) * len(icmp_rto.BAD_MEANS_QUICK)
        for case in study.cases:
            fields = {**icmp_rto.TIMERS[case[icmp_rto.TIMER]], **icmp_rto.SCHEMES[case[icmp_rto.SCHEME]]}
            assert {k.removeprefix(f"{tcp_path}."): v for k, v in case.items() if k.startswith(tcp_path)} == fields
        schemes = [c[icmp_rto.SCHEME] for c in study.cases if c[icmp_rto.BAD_MEAN] == 8.0 and c[icmp_rto.TIMER] == icmp_rto.MAIN_TIMER]
        assert schemes == [icmp_rto.OFF, icmp_rto.ON, icmp_rto.ON_NO_BACKOFF]
        spec = next(p.spec for p in study.points() if p.params.get(icmp_rto.SCHEME) == icmp_rto.ON_NO_BACKOFF)
        rtolab.validate(spec)


def test_each_unknown_setting_runs_the_scheme_off_and_on_with_its_setting() -> None:
    """The link's unstated details (``UNKNOWNS``): every case carries the setting, only the
    scheme off and the graded reading run, under ns-1's timer, and the scenarios are valid."""
    for unknown, setting in icmp_rto.UNKNOWNS.items():
        for traffic in icmp_rto.TRAFFICS:
            study = icmp_rto.scheme_study(traffic, quick=True, unknown=unknown)
            assert len(study.cases) == 2 * len(icmp_rto.BAD_MEANS_QUICK)
            assert {c[icmp_rto.SCHEME] for c in study.cases} == {icmp_rto.OFF, icmp_rto.MAIN_SCHEME}
            assert {c[icmp_rto.TIMER] for c in study.cases} == {icmp_rto.MAIN_TIMER}
            assert all(setting.items() <= c.items() for c in study.cases)
            rtolab.validate(study.points()[-1].spec)


def test_perfect_channel_has_one_ber() -> None:
    ge = icmp_rto.channel(0.0)
    assert ge["ber_bad"] == ge["ber_good"] == 1e-6


@pytest.mark.parametrize(
    ("datagrams", "path"),
    [({"mean_count": 0.5}, "generators[0].datagrams.mean_count"), ({"mean_count": 25, "max_size": 0}, "generators[0].datagrams.max_size")],
)
def test_bad_datagrams_name_the_field(datagrams: dict[str, object], path: str) -> None:
    spec = icmp_rto.web_scenario(100)
    spec["generators"][0]["datagrams"] = datagrams
    with pytest.raises(rtolab.SpecError, match=path.replace("[", r"\[").replace("]", r"\]")):
        rtolab.validate(spec)


def test_packet_calls_have_the_3gpp_mean_size() -> None:
    """E[call] = 25 · E[min(Pareto(81.5 B, 1.1), 66 666 B)] = 25 · 479.7 B ≈ 11 993 B. Over
    ~2 400 calls of one run the standard error is ≈ 3 %; 15 % is five of them."""
    spec = icmp_rto.web_scenario(200_000)
    spec["links"] = [{"name": "wired", "rate": "100Mbps", "delay": "1ms"}, {"name": "wireless", "rate": "100Mbps", "delay": "1ms"}]
    spec["generators"][0]["think"] = "exp(80s)"
    sizes = rtolab.run(spec, seed=3).flows["size"]
    assert sizes.len() > 2000
    assert abs(sizes.mean() / 11_993 - 1) < 0.15  # type: ignore[operator]


def test_time_weighted_rto_by_hand() -> None:
    flows = pl.DataFrame({"name": ["a", "b"], "start_s": [0.0, 10.0], "end_s": [4.0, None]})
    series = pl.DataFrame({
        "time_s": [0.0, 1.0, 10.0, 12.0],
        "entity": ["a", "a", "b", "b"],
        "metric": ["rto", "rto", "rto", "rto"],
        "value": [6.0, 3.0, 6.0, 12.0],
    })
    out = analysis.time_weighted_rto(flows, series, run_end_s=20.0).sort("name")
    assert out["rto_integral_s"].to_list() == [6.0 * 1 + 3.0 * 3, 6.0 * 2 + 12.0 * 8]
    assert out["active_s"].to_list() == [4.0, 10.0]


def test_calls_keep_only_the_first_k_finished_in_every_point() -> None:
    rows = []
    for point, finished in ((0, 3), (1, 2)):
        for k in range(finished):
            rows.append({"run": f"r{point}", "point": point, "replication": 0, "name": f"web.u0.{k}", icmp_rto.ICMP_WEB: False,
                         "start_s": 10.0 * k, "end_s": 10.0 * k + 1 + point, "bytes": 1000})
    c = analysis.calls(pl.DataFrame(rows))
    assert c.group_by("point").len().sort("point")["len"].to_list() == [2, 2]
    assert set(c["completion_s"].to_list()) == {1.0, 2.0}


@pytest.mark.slow  # one of the longest end-to-end checks (5-7 s); `make test-all` runs it
def test_tiny_reproduction(tmp_path: Path) -> None:
    """``rtolab reproduce icmp-rto --quick`` with two replications: every output is written,
    and the channel does what it must. At 0 % bad no DROP is ever sent, so the scheme changes
    nothing (equal to the last bit) under either reading of the back-off; at 50 % bad the web
    throughput is below half the perfect channel's and the completion ratio above 2 for every
    sender (the quick run measures ≈ 1/9 and ≈ 9×, so the tolerance is wide). Leaving the
    back-off alone on the scheme's timeouts keeps the timer short: at 50 % bad the FTP average
    RTO without that back-off is below half the one with it (the quick run with 5
    replications measures 0.11× [0.05, 0.18]; half leaves a wide margin for 2)."""
    r = reproduce("icmp-rto", tmp_path, quick=True, executor=rtolab.LocalExecutor(2), replications=2)
    assert r.failed == 0
    assert_graded(tmp_path / "findings.csv", icmp_rto_findings.REGISTRY)
    for stem in ("figure2", "figure4", "figure5", "figure6", "figure7", "figure8"):
        assert (tmp_path / f"{stem}.png").stat().st_size > 10_000
    for name in ("summary.csv", "comparison.csv", "comparison-unknowns.csv", "cases.csv", "arq.csv", "ablation.csv", "runs-web.csv", "runs-ftp.csv"):
        assert (tmp_path / name).exists()
    s = pl.read_csv(tmp_path / "summary.csv")

    def mean(traffic: str, metric: str, bad: float, scheme: str) -> float:
        row = s.filter(
            (pl.col(icmp_rto.TRAFFIC) == traffic) & (pl.col("metric") == metric) & (pl.col(icmp_rto.BAD_MEAN) == bad) & (pl.col(icmp_rto.SCHEME) == scheme) & (pl.col(icmp_rto.TIMER) == icmp_rto.MAIN_TIMER)
        )
        assert row.height == 1
        return float(row["mean"][0])

    for traffic, metric in (("web", "throughput_bps"), ("web", "rto_time_s"), ("ftp", "throughput_bps")):
        for scheme in (icmp_rto.ON, icmp_rto.ON_NO_BACKOFF):
            assert mean(traffic, metric, 0.0, icmp_rto.OFF) == mean(traffic, metric, 0.0, scheme)
    for scheme in icmp_rto.SCHEMES:
        assert mean("web", "throughput_bps", 8.0, scheme) < 0.5 * mean("web", "throughput_bps", 0.0, scheme)
        assert mean("web", "completion_ratio", 8.0, scheme) > 2.0
        assert mean("ftp", "throughput_bps", 8.0, scheme) < mean("ftp", "throughput_bps", 0.0, scheme)
    assert mean("ftp", "rto_time_s", 8.0, icmp_rto.ON_NO_BACKOFF) < 0.5 * mean("ftp", "rto_time_s", 8.0, icmp_rto.ON)
    cases = pl.read_csv(tmp_path / "cases.csv").filter(pl.col(icmp_rto.BAD_MEAN) == 8.0)
    assert cases.height == 4 * len(icmp_rto.TIMERS) and ((cases["case1"] + cases["case2"] + cases["other"] - 1).abs() < 1e-9).all()
    arq = pl.read_csv(tmp_path / "arq.csv")
    assert arq["mean"].is_between(0.0, 1.0).all()


def test_findings_on_paired_intervals_by_hand() -> None:
    """Three replications of web runs at bad means 0, 0.5, 1 and 8 s (ns-1's timer, the scheme
    off and its main reading); t(0.95, 2) = 2.920, so values x ± e per replication give the
    interval x ± 1.686·e.

    - abstract-throughput (8 s, 50 % bad): throughput 10 without, 25, 26, 27 with: ratios 2.5,
      2.6, 2.7, 2.6 ± 0.17 above 2: 1.
    - abstract-idle, idle time per call without → with the scheme: at 1 s bad 2 → 0.5, 0.7,
      0.6 (ratios 0.25, 0.35, 0.30: 0.30 ± 0.084 holds 1/3, ½); at 8 s 4 → 0.4, 0.4, 0.8
      (0.1, 0.1, 0.2: 0.133 ± 0.097 below 1/3, 1); at 0.5 s the sender without the scheme idles
      in one replication only (0, 0, 1): the ratio has no interval and the case is left out:
      (½ + 1) / 2 = 0.75.
    - web-rto-rises, the scheme's RTO 1 → 1.5, 1.6, 1.7 → 1.6, 1.5, 1.7 → 3: the steps 0.6 ±
      0.17 (1), 0 ± 0.17 (½), 1.4 ± 0.17 (1): 5/6.
    - idle-time (8 s): 0.133 ± 0.097 below 0.9: 1."""
    rows = []
    with_scheme: dict[str, dict[float, list[float]]] = {
        "throughput_bps": {0.0: [40, 40, 40], 0.5: [30, 30, 30], 1.0: [20, 20, 20], 8.0: [25, 26, 27]},
        "idle_s": {0.0: [0, 0, 0], 0.5: [0, 0, 0.1], 1.0: [0.5, 0.7, 0.6], 8.0: [0.4, 0.4, 0.8]},
        "rto_time_s": {0.0: [1, 1, 1], 0.5: [1.5, 1.6, 1.7], 1.0: [1.6, 1.5, 1.7], 8.0: [3, 3, 3]},
    }
    without: dict[str, dict[float, list[float]]] = {
        "throughput_bps": {0.0: [40, 40, 40], 0.5: [30, 30, 30], 1.0: [20, 20, 20], 8.0: [10, 10, 10]},
        "idle_s": {0.0: [0, 0, 0], 0.5: [0, 0, 1], 1.0: [2, 2, 2], 8.0: [4, 4, 4]},
        "rto_time_s": {0.0: [1, 1, 1], 0.5: [2, 2, 2], 1.0: [3, 3, 3], 8.0: [6, 6, 6]},
    }
    for scheme, values in ((icmp_rto.OFF, without), (icmp_rto.MAIN_SCHEME, with_scheme)):
        for bad in (0.0, 0.5, 1.0, 8.0):
            for r in range(3):
                rows.append({"run": f"{scheme}{bad}{r}", "replication": r, icmp_rto.TRAFFIC: "web", icmp_rto.BAD_MEAN: bad,
                             icmp_rto.BAD_FRACTION: icmp_rto.bad_fraction(bad), icmp_rto.TIMER: icmp_rto.MAIN_TIMER, icmp_rto.SCHEME: scheme,
                             **{m: float(v[bad][r]) for m, v in values.items()}})
    table = analysis.comparison(pl.DataFrame(rows), ["throughput_bps", "idle_s", "rto_time_s"])
    m = icmp_rto_findings.measure(table, pl.DataFrame())
    assert m["abstract-throughput"].value == 1.0
    assert m["abstract-idle"].value == 0.75
    assert "left out" in m["abstract-idle"].detail
    assert m["web-rto-rises"].value == pytest.approx(5 / 6)
    assert m["idle-time"].value == 1.0
    assert m["web-throughput"].value == pytest.approx(2.6)
