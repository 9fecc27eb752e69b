"""``rtolab reproduce``: paper reproductions end to end (sweep, analysis, figures, tables)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab import scorecard
from rtolab.doc_section import replace_section
from rtolab.executors import LocalExecutor
from rtolab.findings import grade, with_ablations
from rtolab.study import Study
from rtolab.sweep import errors, sweep
from rtolab.studies import icmp_rto, icmp_rto_analysis, icmp_rto_figures, icmp_rto_findings
from rtolab.studies import iw10_analysis as analysis
from rtolab.studies import cc_hsdpa, cc_hsdpa_analysis, cc_hsdpa_findings, iw10_findings, iw10_irto, minrto_hsdpa, minrto_hsdpa_analysis, minrto_hsdpa_findings, spikes, spikes_analysis, spikes_findings


@dataclass(frozen=True)
class Reproduction:
    """What one paper's reproduction wrote: its directory, cost, figures, its main table
    (``summary``) and its graded findings (``findings``, also in ``out/findings.csv``)."""

    out: Path
    wall_s: float
    runs: int
    failed: int
    figures: list[Path]
    summary: pl.DataFrame
    findings: pl.DataFrame


def _write_findings(out: Path, table: pl.DataFrame) -> pl.DataFrame:
    table.write_csv(out / "findings.csv")
    return table


def _run_count(study: Study) -> int:
    """How many runs ``study`` has: every grid point and case, times its replications."""
    return study.replications * len(list(study.combinations()))


def _sweep_into(out: Path, study: Study, executor: Executor, progress: bool) -> pl.DataFrame:
    """Creates ``out`` and sweeps ``study`` into ``out/sweep`` (resuming a partial sweep)."""
    out.mkdir(parents=True, exist_ok=True)
    return sweep(study, out / "sweep", executor=executor, progress=progress)


def iw10_irto_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 002: sweeps the study into ``out/sweep`` (and again with the later burst's offset
    halved and doubled, ``out/sweep-offset-*``, for the findings' ablations), then writes
    figures, ``summary.csv`` (elapsed time of the longest flow per burst, RTOs, fairness),
    ``delays.parquet`` (one-way delays) and ``findings.csv`` under ``out``."""
    started = time.monotonic()
    executor = executor or LocalExecutor()
    study = iw10_irto.study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor, progress)
    bursts = analysis.per_burst(flows)
    between = analysis.between_bursts(flows)
    table = analysis.summary(bursts)
    table.write_csv(out / "summary.csv")
    bursts.write_parquet(out / "bursts.parquet")
    between.write_parquet(out / "fairness_between.parquet")
    figures = analysis.elapsed_figures(bursts, out)
    figures.append(analysis.rto_figure(bursts, out))
    figures.append(analysis.fairness_figure(bursts, between, out))
    delays = analysis.one_way_delays(executor, replications=3 if quick else 20, seed=study.seed)
    delays.write_parquet(out / "delays.parquet")
    figures += analysis.delay_figure(delays, out)
    alternatives = {}
    runs, failed = _run_count(study), errors(out / "sweep").height
    for scale in iw10_irto.OFFSET_SCALES:
        alt = iw10_irto.study(quick=quick, replications=replications, offset_scale=scale)
        alt_dir = out / f"sweep-offset-{scale:g}x"
        alt_flows = sweep(alt, alt_dir, executor=executor, progress=progress)
        alt_summary = analysis.summary(analysis.per_burst(alt_flows))
        alt_delays = analysis.one_way_delays(executor, replications=3 if quick else 20, seed=study.seed, offset_scale=scale)
        alternatives[f"the later burst's offset × {scale:g}"] = iw10_findings.measure(alt_summary, analysis.between_bursts(alt_flows), alt_delays)
        runs += _run_count(alt)
        failed += errors(alt_dir).height
    measured = with_ablations(iw10_findings.measure(table, between, delays), alternatives)
    found = _write_findings(out, grade(iw10_findings.REGISTRY, measured))
    return Reproduction(out, time.monotonic() - started, runs, failed, figures, table, found)


SENSITIVITY_MEANS = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.5, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0]


def spikes_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 003: sweeps the validation study into ``out/sweep``, compares it with the model
    (``comparison.csv``: every point with its relative error), draws Figures 6–8, and computes
    the model-only sensitivity study (``sensitivity.csv``, Figure 9)."""
    started = time.monotonic()
    executor = executor or LocalExecutor()
    study = spikes.study(quick=quick, replications=replications)
    timer = spikes.timer_study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor, progress)
    table = spikes_analysis.compare(flows)
    table.write_csv(out / "comparison.csv")
    timer_table = spikes_analysis.compare(sweep(timer, out / "sweep-paper-timer", executor=executor, progress=progress))
    timer_table.write_csv(out / "comparison-paper-timer.csv")
    figures = spikes_analysis.validation_figures(table, out)
    sensitivity = pl.concat([spikes_analysis.sensitivity(SENSITIVITY_MEANS, loss) for loss in (0.0, 0.02)])
    sensitivity.write_csv(out / "sensitivity.csv")
    figures += spikes_analysis.sensitivity_figure(sensitivity, out)
    hold = spikes.hold_study(quick=quick, replications=replications)
    hold_table = spikes_analysis.compare(sweep(hold, out / "sweep-hold-all", executor=executor, progress=progress))
    hold_table.write_csv(out / "comparison-hold-all.csv")
    alternatives = {
        "spikes that also hold the packets on the wire (hold = \"all\")": spikes_findings.measure(hold_table, sensitivity.clear()),
        # The timer study holds the 40 kbps points only: only the 40 kbps findings compare.
        "the paper's simulator's timer (minrto_ 1 s)": {
            k: m for k, m in spikes_findings.measure(timer_table, sensitivity.clear()).items() if k.startswith(("fig6-40-", "fig8-40-"))
        },
    }
    measured = with_ablations(spikes_findings.measure(table, sensitivity), alternatives)
    found = _write_findings(out, grade(spikes_findings.REGISTRY, measured))
    runs = _run_count(study) + _run_count(timer) + _run_count(hold)
    failed = errors(out / "sweep").height + errors(out / "sweep-paper-timer").height + errors(out / "sweep-hold-all").height
    return Reproduction(out, time.monotonic() - started, runs, failed, figures, table, found)


def icmp_rto_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 001: sweeps web traffic, FTP, the ARQ characterisation and the ablation of the
    scheme into ``out/sweep-{web,ftp,arq,ablation}``, runs the web and FTP runs once more for
    the time-averaged RTO, and writes ``runs-web.csv``, ``runs-ftp.csv``, ``summary.csv``
    (every measure with its 90 % interval), ``comparison.csv`` (each sender with the scheme
    against the scheme off, paired), ``cases.csv`` (how the sender judged the ICMP messages),
    ``arq.csv``, ``ablation.csv`` and Figures 2 and 4–8 under ``out``."""
    started = time.monotonic()
    executor = executor or LocalExecutor()
    out.mkdir(parents=True, exist_ok=True)
    studies = {
        "web": icmp_rto.web_study(quick=quick, replications=replications),
        "ftp": icmp_rto.ftp_study(quick=quick, replications=replications),
        "arq": icmp_rto.arq_study(quick=quick, replications=replications),
        "ablation": icmp_rto.ablation_study(quick=quick, replications=replications),
    }
    flows = {name: sweep(s, out / f"sweep-{name}", executor=executor, progress=progress) for name, s in studies.items()}
    web = icmp_rto_analysis.web_runs(flows["web"], icmp_rto_analysis.rto_pass(studies["web"], executor))
    ftp = icmp_rto_analysis.ftp_runs(flows["ftp"], icmp_rto_analysis.rto_pass(studies["ftp"], executor))
    web.write_csv(out / "runs-web.csv")
    ftp.write_csv(out / "runs-ftp.csv")
    by = [*icmp_rto_analysis.KEYS]
    web_summary = icmp_rto_analysis.summary(web, icmp_rto_analysis.WEB_METRICS, by)
    ftp_summary = icmp_rto_analysis.summary(ftp, icmp_rto_analysis.FTP_METRICS, by)
    summaries = pl.concat([web_summary, ftp_summary])
    summaries.write_csv(out / "summary.csv")
    table = pl.concat([icmp_rto_analysis.comparison(web, icmp_rto_analysis.WEB_METRICS), icmp_rto_analysis.comparison(ftp, icmp_rto_analysis.FTP_METRICS)])
    table.write_csv(out / "comparison.csv")
    arq = icmp_rto_analysis.arq_runs(flows["arq"], icmp_rto.duration_s(studies["arq"]))
    arq_summary = icmp_rto_analysis.summary(arq, ["goodput_ratio"], [icmp_rto.BAD_MEAN, icmp_rto.BAD_FRACTION, "window", "attempts"])
    arq_summary.write_csv(out / "arq.csv")
    icmp_rto_analysis.ablation(flows["ablation"]).write_csv(out / "ablation.csv")
    found = _write_findings(out, grade(icmp_rto_findings.REGISTRY, icmp_rto_findings.measure(table, arq_summary)))
    pl.concat([icmp_rto_analysis.case_shares(flows["web"]), icmp_rto_analysis.case_shares(flows["ftp"])]).write_csv(out / "cases.csv")
    figures = icmp_rto_figures.comparison_figures(summaries.filter(pl.col(icmp_rto.TIMER) == icmp_rto.MAIN_TIMER), out)
    figures += icmp_rto_figures.arq_figure(arq_summary, out)
    runs = sum(_run_count(s) for s in studies.values())
    failed = sum(errors(out / f"sweep-{name}").height for name in studies)
    return Reproduction(out, time.monotonic() - started, runs, failed, figures, table, found)


def minrto_hsdpa_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 000: sweeps the HSDPA minRTO study into ``out/sweep``, then writes ``runs.csv``
    (the measures of every run), ``summary.csv`` (each with its 90 % interval),
    ``findings.csv`` (the paper's findings checked one by one), ``rtt_cdf.csv`` and
    Figures 2–4, goodput and the RTT CDF under ``out``."""
    started = time.monotonic()
    study = minrto_hsdpa.study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor or LocalExecutor(), progress)
    runs = minrto_hsdpa_analysis.per_run(flows)
    runs.write_csv(out / "runs.csv")
    table = minrto_hsdpa_analysis.summary(runs)
    table.write_csv(out / "summary.csv")
    high = minrto_hsdpa_findings.high_load(study.grid[minrto_hsdpa.USERS])
    tail = minrto_hsdpa_analysis.rtt_tail(flows, users=high, min_rto_s=0.2)
    found = _write_findings(out, grade(minrto_hsdpa_findings.REGISTRY, minrto_hsdpa_findings.measure(table, tail)))
    cdf = minrto_hsdpa_analysis.rtt_cdf(flows, users=high, min_rto_s=0.2)
    cdf.write_csv(out / "rtt_cdf.csv")
    figures = minrto_hsdpa_analysis.figures(table, cdf, out)
    runs_total = _run_count(study)
    return Reproduction(out, time.monotonic() - started, runs_total, errors(out / "sweep").height, figures, table, found)


def cc_hsdpa_study(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Paper 004: sweeps the congestion-control study into ``out/sweep``, traces one downlink
    flow per algorithm, and writes ``flows.parquet`` (every measured flow), ``runs.csv``,
    ``summary.csv`` (per-run means with 90 % intervals), ``cdf.csv``, ``findings.csv`` (the
    paper's findings checked one by one), ``traces.parquet`` and the CDF and cwnd/RTT
    figures under ``out``."""
    from rtolab.api import run

    started = time.monotonic()
    study = cc_hsdpa.study(quick=quick, replications=replications)
    flows = _sweep_into(out, study, executor or LocalExecutor(), progress)
    measured = cc_hsdpa_analysis.per_flow(flows)
    measured.write_parquet(out / "flows.parquet")
    runs = cc_hsdpa_analysis.per_run(measured)
    runs.write_csv(out / "runs.csv")
    table = cc_hsdpa_analysis.summary(runs)
    table.write_csv(out / "summary.csv")
    cdf = cc_hsdpa_analysis.cdfs(measured)
    cdf.write_csv(out / "cdf.csv")
    found = _write_findings(out, grade(cc_hsdpa_findings.REGISTRY, cc_hsdpa_findings.measure(table)))
    trace = cc_hsdpa_analysis.traces({a: run(cc_hsdpa.trace_scenario(a), seed=study.seed).series for a in cc_hsdpa.ALGORITHMS})
    trace.write_parquet(out / "traces.parquet")
    figures = cc_hsdpa_analysis.figures(cdf, trace, out)
    runs_total = _run_count(study)
    return Reproduction(out, time.monotonic() - started, runs_total + len(cc_hsdpa.ALGORITHMS), errors(out / "sweep").height, figures, table, found)


@dataclass(frozen=True)
class Paper:
    """One reproduced paper: its id, title, page under ``docs/`` and reproduction."""

    paper: str
    name: str
    title: str
    doc: str
    run: Callable[..., Reproduction]


#: The five reproductions, in the papers' order; ``rtolab reproduce NAME`` and ``all`` use it.
PAPERS: dict[str, Paper] = {
    p.name: p
    for p in (
        Paper("000", "minrto-hsdpa", "minimum RTO over HSDPA", "minrto-hsdpa.md", minrto_hsdpa_study),
        Paper("001", "icmp-rto", "ICMP-driven adaptive RTO over a 3G link", "icmp-rto.md", icmp_rto_study),
        Paper("002", "iw10-irto", "IW10 and a 1 s initial RTO over slow wireless links", "iw10-irto.md", iw10_irto_study),
        Paper("003", "spikes", "TCP goodput under delay spikes: model against simulation", "spikes.md", spikes_study),
        Paper("004", "cc-hsdpa", "NewReno, Westwood+, BIC and CUBIC over HSDPA", "cc-hsdpa.md", cc_hsdpa_study),
    )
}


def reproduce(name: str, out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False) -> Reproduction:
    """Runs one paper's reproduction into ``out`` (its findings in ``out/findings.csv``)."""
    return PAPERS[name].run(out, quick=quick, executor=executor, replications=replications, progress=progress)


def reproduce_all(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False, command: str = "rtolab reproduce all") -> dict[str, Reproduction]:
    """Runs the five reproductions into ``out/NAME`` and writes ``out/findings.csv`` (every
    finding of every paper) and ``out/scorecard.md`` (``command`` names the run in it)."""
    executor = executor or LocalExecutor()
    done = {name: reproduce(name, out / name, quick, executor, replications, progress) for name in PAPERS}
    table = all_findings(done)
    table.write_csv(out / "findings.csv")
    (out / "scorecard.md").write_text(_scorecard_text(table, done, command))
    return done


def all_findings(done: dict[str, Reproduction]) -> pl.DataFrame:
    """Every graded finding of the reproductions in ``done``, paper after paper."""
    return pl.concat([r.findings for r in done.values()])


def _scorecard_text(table: pl.DataFrame, done: dict[str, Reproduction], command: str) -> str:
    titles = {p.paper: p.title for p in PAPERS.values()}
    timings = {PAPERS[n].paper: r.wall_s for n, r in done.items()}
    return scorecard.render(table, titles, command, timings)


def write_docs(docs: Path, done: dict[str, Reproduction], command: str) -> None:
    """Puts each reproduction's graded findings into its paper's page under ``docs`` and, when
    all five ran, writes ``docs/scorecard.md`` and ``docs/scorecard.csv``. Call it only for
    runs that all succeeded: the pages then never mix a partial run with a whole one."""
    for name, r in done.items():
        replace_section(docs / PAPERS[name].doc, scorecard.BEGIN, scorecard.END, scorecard.paper_section(r.findings, command))
    if set(done) == set(PAPERS):
        table = all_findings(done)
        (docs / "scorecard.md").write_text(_scorecard_text(table, done, command))
        table.write_csv(docs / "scorecard.csv")
