"""``rtolab reproduce``: paper reproductions end to end (sweep, analysis, figures, findings).

Every paper runs through ``reproduce``: it times the run, hands the paper's module
(``rtolab.papers.PAPERS``) a ``Context`` to sweep into, grades the ``Outcome``'s measurements
against the paper's ``REGISTRY`` into ``out/findings.csv``, and returns a ``Reproduction``.
``reproduce_all`` runs the five and writes the scorecard; ``write_docs`` puts the graded
findings into the papers' pages.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rtolab import calibration, scorecard
from rtolab.doc_section import replace_section
from rtolab.executors import LocalExecutor
from rtolab.findings import Measured, ablation_table, grade
from rtolab.output_dir import open_store, staged_into_store
from rtolab.papers import PAPERS
from rtolab.study import Study
from rtolab.sweep import RunsFailed, errors, sweep
from rtolab.sweep_memory import sweep_in_memory


#: Where a reproduction lists the runs of its in-memory sweeps that failed.
IN_MEMORY_ERRORS = "errors-in-memory.csv"


@dataclass
class Context:
    """What a paper's reproduction runs with: where it writes its tables and figures (``out``,
    a staging directory whose files replace their namesakes in ``root`` when the
    reproduction ends: ``rtolab.output_dir``), the quick or full study, the executor, an
    override of the replications, whether to show progress; the directory its sweeps' stores
    go in (``root``, the reproduction's own; ``out`` when None); and the runs its results rest
    on so far (``runs``), of which ``made`` were run by this call (the others were read back
    from stores an earlier call wrote) and ``failed`` failed, counted by ``sweep`` and
    ``count``."""

    out: Path
    quick: bool
    executor: Executor
    replications: int | None
    progress: bool
    root: Path | None = None
    runs: int = 0
    made: int = 0
    failed: int = 0

    def sweep(self, study: Study, directory: str = "sweep", load: bool = True) -> pl.DataFrame:
        """Sweeps ``study`` into ``out/directory`` (resuming a partial sweep), counts its runs,
        those it made and its failures, and returns its flows table (with ``load=False`` an
        empty one: read a large study in parts, ``batches``)."""
        path = self.stores / directory
        todo: set[str] = set()
        with warnings.catch_warnings():
            # The reproduction counts and reports its failed runs itself.
            warnings.simplefilter("ignore", RunsFailed)
            flows = sweep(study, path, executor=self.executor, progress=self.progress, on_todo=todo.update, load=load)
        self.runs += _run_count(study)
        self.made += len(todo)
        self.failed += errors(path).height
        return flows

    def sweep_in_memory(self, study: Study) -> pl.DataFrame:
        """Runs every run of ``study`` and returns its flows table as ``sweep`` would, with no
        store (``rtolab.sweep_memory``: for an ablation read once); counts them all as made.
        Runs that failed are counted and added to ``out/IN_MEMORY_ERRORS`` (study, run, error),
        as a stored sweep keeps them in its ``errors/``."""
        swept = sweep_in_memory(study, self.executor)
        self.count(_run_count(study))
        self.failed += len(swept.failed)
        if swept.failed:
            path = self.stores / IN_MEMORY_ERRORS
            rows = pl.DataFrame([(study.name, key, error) for key, error in swept.failed], schema=["study", "run", "error"], orient="row")
            (pl.concat([pl.read_csv(path), rows]) if path.exists() else rows).write_csv(path)
        return swept.flows

    def batches(self, study: Study, directory: str = "sweep") -> Iterator[pl.DataFrame]:
        """The flows of a study swept into ``out/directory``, a few whole runs at a time, in
        study order (``rtolab.store.Store.batches``)."""
        from rtolab.store import Store

        return Store(self.stores / directory).batches(study)

    @property
    def stores(self) -> Path:
        """The directory the sweeps' stores and the in-memory failures go in."""
        return self.root or self.out

    def count(self, runs: int) -> None:
        """Counts ``runs`` made outside a sweep (a traced run, say): always made now."""
        self.runs += runs
        self.made += runs


def _run_count(study: Study) -> int:
    return study.replications * len(list(study.combinations()))


@dataclass(frozen=True)
class Outcome:
    """What a paper's reproduction hands back: its main table, its measurement of every
    finding of its ``REGISTRY`` (ablations attached), the figures it wrote and, for a paper
    whose operating point is calibrated, its calibration targets with the values reached at
    the frozen reading (``rtolab.calibration.target_table``)."""

    summary: pl.DataFrame
    measured: Mapping[str, Measured]
    figures: list[Path]
    targets: pl.DataFrame | None = None


@dataclass(frozen=True)
class Reproduction:
    """What one paper's reproduction wrote: its directory, cost (wall time; the sweeps' runs,
    those made by this call and those that failed), figures, its main table (``summary``),
    its graded findings (``findings``, also in ``out/findings.csv``) and every ablation's
    value and verdict for every finding (``ablations``, also in ``out/ablations.csv``)."""

    out: Path
    wall_s: float
    runs: int
    made: int
    failed: int
    figures: list[Path]
    summary: pl.DataFrame
    findings: pl.DataFrame
    ablations: pl.DataFrame
    targets: pl.DataFrame


def reproduce(name: str, out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False, force: bool = False) -> Reproduction:
    """Runs the reproduction of paper ``name`` (a key of ``PAPERS``) into ``out``: what its
    module writes there, and its graded findings in ``out/findings.csv``. ``out`` is a
    reproduction's directory (``rtolab.output_dir``: new, empty, or one rtolab wrote for a
    reproduction; with ``force``, one holding other files, which are kept); its sweeps resume,
    and its tables and figures are staged and each replaces its namesake at the end."""
    module = PAPERS[name].reproduction()
    started = time.monotonic()
    open_store(out, "reproduce", force)
    with _owned(executor) as pool, staged_into_store(out, "reproduce") as staging:
        ctx = Context(staging, quick, pool, replications, progress, root=out)
        outcome: Outcome = module.reproduce(ctx)
        findings = grade(module.REGISTRY, outcome.measured)
        findings.write_csv(staging / "findings.csv")
        ablations = ablation_table(module.REGISTRY, outcome.measured)
        ablations.write_csv(staging / "ablations.csv")
        targets = outcome.targets if outcome.targets is not None else pl.DataFrame(schema=calibration.TARGET_SCHEMA)
        if targets.height:
            targets.write_csv(staging / "targets.csv")
    figures = [out / path.relative_to(staging) for path in outcome.figures]
    return Reproduction(out, time.monotonic() - started, ctx.runs, ctx.made, ctx.failed, figures, outcome.summary, findings, ablations, targets)


def reproduce_all(out: Path, quick: bool = False, executor: Executor | None = None, replications: int | None = None, progress: bool = False, command: str = "rtolab reproduce all", force: bool = False) -> dict[str, Reproduction]:
    """Runs the five reproductions into ``out/NAME`` and writes ``out/findings.csv`` (every
    finding of every paper), ``out/ablations.csv`` (every ablation of every finding) and
    ``out/scorecard.md`` (``command`` names the run in it); ``out`` as for ``reproduce``."""
    open_store(out, "reproduce", force)
    with _owned(executor) as pool:
        done = {name: reproduce(name, out / name, quick, pool, replications, progress) for name in PAPERS}
    table, ablations = all_findings(done), all_ablations(done)
    with staged_into_store(out, "reproduce") as staging:
        table.write_csv(staging / "findings.csv")
        ablations.write_csv(staging / "ablations.csv")
        (staging / "scorecard.md").write_text(_scorecard_text(table, ablations, done, command))
    return done


def _owned(executor: Executor | None) -> contextlib.AbstractContextManager[Executor]:
    """``executor`` left open for its owner, or local workers of our own, shut down (their
    processes and threads joined) when the block ends: a pool still running when the
    interpreter exits can print a traceback from its clean-up (``rtolab.cli``'s commands
    shut theirs down for the same reason)."""
    return LocalExecutor() if executor is None else contextlib.nullcontext(executor)


def all_findings(done: dict[str, Reproduction]) -> pl.DataFrame:
    """Every graded finding of the reproductions in ``done``, paper after paper."""
    return pl.concat([r.findings for r in done.values()])


def all_ablations(done: dict[str, Reproduction]) -> pl.DataFrame:
    """Every ablation of every finding of the reproductions in ``done``, paper after paper."""
    return pl.concat([r.ablations for r in done.values()])


def _scorecard_text(table: pl.DataFrame, ablations: pl.DataFrame, done: dict[str, Reproduction], command: str) -> str:
    titles = {p.paper: p.title for p in PAPERS.values()}
    costs = {PAPERS[n].paper: scorecard.Cost(r.wall_s, r.runs, r.made) for n, r in done.items()}
    return scorecard.render(table, titles, command, costs, ablations, _calibration(done))


def _calibration(done: dict[str, Reproduction]) -> list[scorecard.Calibrated]:
    """Each calibrated paper's targets as reached, its frozen reading and the search table it
    was frozen from (``rtolab.calibration.FROZEN_DIR``)."""
    out = []
    for name, r in done.items():
        module = PAPERS[name].calibrated()
        if module is None:
            continue
        table = calibration.frozen_table(name)
        search = calibration.markdown(module.AXES, module.TARGETS, table, calibration.choose(table)) if table is not None else ""
        out.append(scorecard.Calibrated(PAPERS[name].paper, calibration.label(module.AXES, module.calibrated()), r.targets, search))
    return out


def write_docs(docs: Path, done: dict[str, Reproduction], command: str) -> None:
    """Puts each reproduction's graded findings into its paper's page under ``docs`` and, when
    all five ran, writes ``docs/scorecard.md`` and ``docs/scorecard.csv``. Call it only for
    runs that all succeeded: the pages then never mix a partial run with a whole one. With all
    five, ``docs/scorecard-ablations.csv`` holds every ablation the scorecard weighs."""
    for name, r in done.items():
        replace_section(docs / PAPERS[name].doc, scorecard.BEGIN, scorecard.END, scorecard.paper_section(r.findings, command))
    if set(done) == set(PAPERS):
        table, ablations = all_findings(done), all_ablations(done)
        (docs / "scorecard.md").write_text(_scorecard_text(table, ablations, done, command))
        table.write_csv(docs / "scorecard.csv")
        ablations.write_csv(docs / "scorecard-ablations.csv")
