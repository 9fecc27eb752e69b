"""The analytic models of rtolab.model against closed forms, hand values and the paper's own
statements (paper 003; PFTK; RFC 5348; Mathis et al.)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from rtolab import model as m
from rtolab.model import congestion, lossless
from tests.conftest import rtolab_cli

# --- Lossless model, Sec. 2.2 -------------------------------------------------------------

GRID = [
    (rate, rtt, sd, mean)
    for rate in (40_000, 100_000, 2_000_000)
    for rtt in (0.1, 0.315, 0.72)
    for sd in (0.0, 1.5, 7.5)
    for mean in (2.0, 10.0, 50.0)
]


@pytest.mark.parametrize(("rate", "rtt", "sd", "mean"), GRID)
def test_exponential_closed_form_equals_numerical_integral(rate: float, rtt: float, sd: float, mean: float) -> None:
    """G = E[A(T − SD)]/E[T] integrated numerically (adaptive quadrature over the pdf, and
    again over scipy's exponential) equals the closed form to 1e-9 relative."""
    closed = lossless.goodput_exponential(mean, sd, rtt, rate / (8 * 576))
    numeric = m.spikes(rate, 576, rtt, sd, m.Exponential(mean), interval_kind="period").goodput_pps
    via_scipy = m.spikes(rate, 576, rtt, sd, m.ScipyInterval(stats.expon(scale=mean)), interval_kind="period").goodput_pps
    assert numeric == pytest.approx(closed, rel=1e-9)
    assert via_scipy == pytest.approx(closed, rel=1e-9)


def test_exponential_closed_form_at_its_removable_singularity() -> None:
    """At E(T) = R/ln2 the closed form is 0/0; its limit must equal the integral."""
    rtt, cmax = 0.315, 8.68
    mean = rtt / math.log(2)
    numeric = m.spikes(cmax * 8 * 576, 576, rtt, 1.0, m.Exponential(mean), interval_kind="period").goodput_pps
    assert lossless.goodput_exponential(mean, 1.0, rtt, cmax) == pytest.approx(numeric, rel=1e-9)


def test_reward_eq4_by_hand() -> None:
    """Eq. 4 with R = 1, C = 8: L = 3 s; A(2) = (4 − 1)/ln2; A(5) = 7/ln2 + 8·2."""
    assert lossless.ramp_time(1.0, 8.0) == pytest.approx(3.0)
    assert lossless.reward(2.0, 1.0, 8.0) == pytest.approx(3 / math.log(2))
    assert lossless.reward(5.0, 1.0, 8.0) == pytest.approx(7 / math.log(2) + 16)
    assert lossless.reward(-1.0, 1.0, 8.0) == 0.0


def test_constant_period_by_hand() -> None:
    """T = 20 s, SD = 5 s, R = 1, C = 8: A(15) = 7/ln2 + 8·12 packets per 20 s."""
    g = m.spikes(8 * 8 * 576, 576, 1.0, 5.0, m.Constant(20.0), interval_kind="period")
    assert g.goodput_pps == pytest.approx((7 / math.log(2) + 96) / 20)
    spike_free = m.spikes(8 * 8 * 576, 576, 1.0, 5.0, m.Constant(15.0), interval_kind="spike_free")
    assert spike_free.goodput_pps == pytest.approx(g.goodput_pps)


def test_random_spike_length_is_an_outer_expectation() -> None:
    """Sec. 3.2: SD uniform on {4, 6} (as a two-point empirical law) averages the two
    constant-SD rewards over the same E(T)."""
    args = (40_000, 576, 0.315)
    interval = m.Uniform(10, 30)
    both = m.spikes(*args, m.Empirical([4.0, 6.0]), interval, interval_kind="period").goodput_pps
    each = [m.spikes(*args, sd, interval, interval_kind="period").goodput_pps for sd in (4.0, 6.0)]
    assert both == pytest.approx(np.mean(each), rel=1e-12)


def test_markov_modulated_matches_eq11_and_eq13() -> None:
    """Eq. 11 (lossless) and Eq. 13 (Wald): per-state exponential closed forms weighted by
    π_i·μ_i over π0·μ0 + π1·μ1."""
    rate, rtt, sd, mean = 40_000, 0.72, 5.0, 20.0
    mus, pis = (0.25 * mean, 1.75 * mean), (0.5, 0.5)
    cmax = rate / (8 * 576)
    law = m.markov_modulated(mus, 0.5, 0.5)
    weight = sum(p * mu for p, mu in zip(pis, mus))
    eq11 = sum(p * mu * lossless.goodput_exponential(mu, sd, rtt, cmax) for p, mu in zip(pis, mus)) / weight
    assert m.spikes(rate, 576, rtt, sd, law, interval_kind="period").goodput_pps == pytest.approx(eq11, rel=1e-9)
    c = congestion.cycles(0.02, rtt, cmax, 1.0)
    eq13 = sum(p * mu * math.exp(-sd / mu) for p, mu in zip(pis, mus)) / (weight * 0.02 * c.mean_cycle)
    assert m.spikes(rate, 576, rtt, sd, law, loss=0.02, interval_kind="period").goodput_pps == pytest.approx(eq13, rel=1e-9)


def test_wald_exponential_closed_form() -> None:
    """Eq. 10 for exponential intervals: e^(−SD/E(T)) / (p·E(Y))."""
    for rate, p in [(40_000, 0.02), (100_000, 0.05), (2_000_000, 0.01)]:
        cmax = rate / (8 * 576)
        c = congestion.cycles(p, 0.3, cmax, 1.0)
        numeric = m.spikes(rate, 576, 0.3, 3.0, m.Exponential(15.0), loss=p, interval_kind="period").goodput_pps
        assert numeric == pytest.approx(congestion.goodput_exponential_wald(15.0, 3.0, c), rel=1e-9)


# --- Congestion cycles, Sec. 2.3 and Appendix ---------------------------------------------


def test_eq7_index_sets_stop_with_probability_one() -> None:
    for beta in (0.0, 0.1, 0.5, 0.9, 1.0):
        c = congestion.Cycles(1, 1.0, 0.3, 1.1, beta, 0.05)
        for u in (0.05, 0.3, 0.31, 1.0, 2.7, 10.0, 33.3):
            assert congestion.stopping_probability(u, c) == pytest.approx(1.0, abs=1e-9)


def _eq9_error(beta: float, tau_ca: float, t: float) -> float:
    c = congestion.Cycles(1, 1.0, tau_ca, 1.0, beta, 1.0)
    exact = congestion.reward_exact(t, c)
    return (exact - congestion.reward_wald(t, c)) / exact


@pytest.mark.parametrize("beta", [0.1, 0.5])
def test_eq9_error_behaves_as_figure4(beta: float) -> None:
    """Figure 4 (τSS = 1, β = 0.1 / 0.5, τCA = 0.1 / 0.5): the error of Eq. 9 is larger for
    T < τSS, close to zero for large T, and larger when τSS and τCA differ more."""
    for tau_ca in (0.1, 0.5):
        short = max(abs(_eq9_error(beta, tau_ca, t)) for t in np.linspace(0.2, 0.95, 16))
        long = max(abs(_eq9_error(beta, tau_ca, t)) for t in np.linspace(40, 50, 11))
        assert long < 0.01
        assert short > 4 * long
    far = np.mean([abs(_eq9_error(beta, 0.1, t)) for t in np.linspace(0.2, 5, 40)])
    near = np.mean([abs(_eq9_error(beta, 0.5, t)) for t in np.linspace(0.2, 5, 40)])
    assert far > near


def test_eq7_without_timeouts_is_cycles_at_constant_rate() -> None:
    """β = 0: every cycle is a CA cycle of 1/p packets, so E(A | u) = u / (p·τCA) exactly."""
    c = congestion.Cycles(3, 8.0, 0.7, 2.0, 0.0, 0.02)
    for u in (0.3, 0.7, 5.0, 12.34):
        assert congestion.reward_exact(u, c) == pytest.approx(u / (0.02 * 0.7), rel=1e-12)


def test_tau_by_hand_in_each_mode() -> None:
    """Eq. 14 by hand: mode 1 τCA = √(2R/(3p)); mode 3 τCA = 1/(p·C)."""
    p, rtt = 0.02, 0.5
    assert congestion.mode_and_x0(p, rtt, 100.0)[0] == 1
    assert congestion.tau_ca(p, rtt, 100.0) == pytest.approx(math.sqrt(2 * rtt / (3 * p)))
    assert congestion.mode_and_x0(p, rtt, 5.0)[0] == 3
    assert congestion.tau_ca(p, rtt, 5.0) == pytest.approx(1 / (p * 5.0))
    # Mode 3, Eq. 18 when slow start ends below 1/p packets: TO + R·log2 C + (1/p − a1)/C.
    a1 = rtt * 4 / math.log(2)
    assert congestion.tau_ss(p, rtt, 5.0, 1.0) == pytest.approx(1.0 + rtt * math.log2(5.0) + (50 - a1) / 5.0)


@pytest.mark.parametrize(("p", "rtt"), [(0.01, 0.3), (0.02, 0.72), (0.05, 0.1)])
@pytest.mark.parametrize("per_rtt", [False, True])
def test_tau_continuous_at_mode_boundaries(p: float, rtt: float, per_rtt: bool) -> None:
    """The paper notes that τCA is continuous where the modes meet; so is τSS. With h = 1/slope
    (R for the paper's slope): mode 1/2 at x0 = C/2, i.e. C = 2·√(2/(3ph)); mode 2/3 at x0 = C,
    i.e. C = 1/√(ph)."""
    slope = 1 / rtt**2 if per_rtt else None
    h = rtt**2 if per_rtt else rtt
    for boundary, modes in [(2 * math.sqrt(2 / (3 * p * h)), (2, 1)), (1 / math.sqrt(p * h), (3, 2))]:
        below, above = boundary * (1 - 1e-9), boundary * (1 + 1e-9)
        assert (congestion.mode_and_x0(p, rtt, below, slope)[0], congestion.mode_and_x0(p, rtt, above, slope)[0]) == modes
        assert congestion.tau_ca(p, rtt, below, slope) == pytest.approx(congestion.tau_ca(p, rtt, above, slope), rel=1e-6)
        assert congestion.tau_ss(p, rtt, below, 1.0, slope) == pytest.approx(congestion.tau_ss(p, rtt, above, 1.0, slope), rel=1e-6)


def test_per_rtt_growth_gives_the_square_root_law_in_mode_1() -> None:
    """With the window growing one packet per RTT (slope 1/R²), a pure-sawtooth CA cycle
    sends 1/p packets at the mean rate of Mathis' law, √(3/(2p))/R; with the paper's slope
    1/R it is √R times that."""
    p, rtt, cmax = 0.01, 0.2, 1000.0
    mathis_pps = m.mathis_bps(1 / 8, rtt, p)
    per_rtt = congestion.cycles(p, rtt, cmax, 1.0, slope=1 / rtt**2)
    paper = congestion.cycles(p, rtt, cmax, 1.0)
    assert per_rtt.mode == paper.mode == 1
    assert (1 / p) / per_rtt.tau_ca == pytest.approx(mathis_pps, rel=1e-12)
    assert (1 / p) / paper.tau_ca == pytest.approx(math.sqrt(rtt) * mathis_pps, rel=1e-12)


def test_timeout_probability_small_windows_always_time_out() -> None:
    """Eq. 5: β = 1 for w ≤ 3; it falls with the window and rises with p."""
    assert congestion.timeout_probability(3, 0.01) == 1.0
    assert congestion.timeout_probability(10, 0.01) > congestion.timeout_probability(20, 0.01)
    assert congestion.timeout_probability(10, 0.05) > congestion.timeout_probability(10, 0.01)


# --- Properties of the full model -------------------------------------------------------


@pytest.mark.parametrize("loss", [0.0, 0.02, 0.05])
@pytest.mark.parametrize("rate", [40_000, 100_000])
def test_model_monotone_in_spike_length_and_interval(loss: float, rate: float) -> None:
    rtt = 0.2 + 576 * 8 / rate

    def g(sd: float, mean: float) -> float:
        return m.spikes(rate, 576, rtt, sd, m.Uniform(10, 2 * mean - 10), loss=loss, timeout=0.4, interval_kind="spike_free").goodput_bps

    for mean in (15, 30, 50):
        by_sd = [g(sd, mean) for sd in (1.5, 3.0, 7.5)]
        assert by_sd == sorted(by_sd, reverse=True)
    for sd in (1.5, 3.0, 7.5):
        by_mean = [g(sd, mean) for mean in (15, 20, 30, 40, 50)]
        assert by_mean == sorted(by_mean)


def test_exact_and_wald_agree_for_long_intervals() -> None:
    args = (100_000, 576, 0.246, 3.0, m.Uniform(40, 60))
    wald = m.spikes(*args, loss=0.01, approx="wald", interval_kind="period").goodput_bps
    exact = m.spikes(*args, loss=0.01, approx="exact", interval_kind="period").goodput_bps
    assert exact == pytest.approx(wald, rel=0.02)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        (dict(rate_bps=0.0), "rate_bps"),
        (dict(mss=-1.0), "mss"),
        (dict(loss=1.0), "loss"),
        (dict(timeout=-1.0), "timeout"),
        (dict(approx="bogus"), "approx"),
        (dict(interval_kind="bogus"), "interval_kind"),
        (dict(ca_growth="bogus"), "ca_growth"),
    ],
)
def test_bad_model_input_names_the_field(kwargs: dict[str, object], field: str) -> None:
    args: dict[str, object] = dict(rate_bps=40_000, mss=576, rtt=0.315, spike_length=7.5, interval=m.Uniform(10, 30), loss=0.02)
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        m.spikes(**args)  # type: ignore[arg-type]


# --- Reference formulas -------------------------------------------------------------------


def test_reference_formulas_by_hand() -> None:
    """p = 0.01, R = 100 ms, T0 = 400 ms, b = 1, s = 1/8 B so that bit/s = packets/s.
    By hand: Mathis √150/0.1 = 122.47; TFRC 1/(0.1·0.08165 + 0.4·0.18371·0.01·1.0032)
    = 112.33; full PFTK with E[W] = 17.279, Q̂ = 0.21048, f(p) = 1.010204 gives
    116.4916 / 1.04986 = 110.96 packets/s."""
    assert m.mathis_bps(1 / 8, 0.1, 0.01) == pytest.approx(122.47, rel=1e-4)
    assert m.tfrc_bps(1 / 8, 0.1, 0.01, 0.4) == pytest.approx(112.33, rel=1e-4)
    assert m.pftk_full_bps(1 / 8, 0.1, 0.01, 0.4) == pytest.approx(110.96, rel=1e-4)


def test_pftk_window_limit_and_small_loss_limit() -> None:
    """Window-limited PFTK tends to W_max/R as p → 0; unconstrained it tends to Mathis with
    C = √(3/(2b)) as p → 0 (timeouts vanish)."""
    assert m.pftk_full_bps(1 / 8, 0.2, 1e-7, 1.0, max_window=10) == pytest.approx(10 / 0.2, rel=0.01)
    assert m.pftk_full_bps(1 / 8, 0.2, 1e-6, 1.0) == pytest.approx(m.mathis_bps(1 / 8, 0.2, 1e-6), rel=0.01)


# --- Command line -------------------------------------------------------------------------

ISSUE_ARGS = ["model", "spikes", "--rate", "40kbps", "--mss", "576", "--rtt", "315ms", "--spike-length", "7.5s", "--interval", "uniform(10s, 50s)"]


def test_cli_json_matches_api() -> None:
    r = rtolab_cli(*ISSUE_ARGS, "--loss", "0.02", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    want = m.spikes(40_000, 576, 0.315, 7.5, m.Uniform(10, 50), loss=0.02)
    assert got["goodput_bps"] == pytest.approx(want.goodput_bps, rel=1e-12)
    assert got["mode"] == 3 and got["beta"] == 1.0
    assert got["cmax_pps"] == pytest.approx(40_000 / (8 * 576))


def test_cli_table_and_bad_interval() -> None:
    ok = rtolab_cli(*ISSUE_ARGS)
    assert ok.returncode == 0 and "Cmax" in ok.stdout
    bad = rtolab_cli(*ISSUE_ARGS[:-1], "uniform(50s, 10s)")
    assert bad.returncode == 2
    assert "--interval" in bad.stderr and "lo must not exceed hi" in bad.stderr and "Traceback" not in bad.stderr
