"""Trace-driven links from Python and the command line: `rtolab trace info | synth |
from-series`, and spec errors of a link's `trace` (exit 2, one message naming the field).
Expected numbers are computed in each test's comment from the trace's definition: one
opportunity carries one 1500-byte datagram, 1500 · 8 bits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, rtolab_cli
from rtolab import run, traces

SCENARIO = """
name = "t"
duration = "3s"
[[links]]
name = "l"
{link}
delay = "10ms"
[[flows]]
name = "f"
route = ["l"]
size = "200kB"
"""


def test_info_of_the_shipped_constant_trace() -> None:
    # 1000 opportunities at 1, 2, …, 1000 ms: 1000 · 12000 bit / 1 s = 12 Mbit/s. The ten
    # 100 ms windows hold 99 (1–99), 100 eight times, and 101 (900–1000, the period's end
    # included): 11.88, 12 (×8) and 12.12 Mbit/s. numpy's linear percentiles over the sorted
    # ten: p5 at position 0.45, 11.88 + 0.45 · 0.12 = 11.934; p50 12; p95 at position 8.55,
    # 12 + 0.55 · 0.12 = 12.066.
    i = traces.info(traces.read(ROOT / "traces" / "const-12mbps.trace"))
    assert (i.duration_s, i.opportunities, i.mean_bps) == (1.0, 1000, 12e6)
    assert (i.p5_bps, i.p50_bps, i.p95_bps) == pytest.approx((11.934e6, 12e6, 12.066e6))


def test_window_rates_count_opportunities_per_window() -> None:
    # Period 250 ms: windows [0, 100), [100, 200), [200, 250]. Opportunities at 5, 5, 150 and
    # 250 (the period's end, in the last window): 2, 1, 1 of them; rates 2 · 12000 / 0.1,
    # 12000 / 0.1, 12000 / 0.05 bit/s.
    starts, rates = traces.window_rates(np.array([5, 5, 150, 250]))
    assert starts.tolist() == [0.0, 0.1, 0.2]
    assert rates.tolist() == pytest.approx([240_000.0, 120_000.0, 240_000.0])


def test_a_rate_series_becomes_opportunities_where_its_bytes_arrive() -> None:
    # 6 Mbit/s = 750 B/ms for 4 ms, then 0 until 6 ms: 1500 B by 2 ms, 3000 B by 4 ms, so
    # opportunities at 2 and 4 ms; the last moves to the end, 6 ms.
    times = traces.from_rates(np.array([0.0, 0.004]), np.array([6e6, 0.0]), 0.006)
    assert times.tolist() == [2, 6]


def test_markov_synthesis_is_deterministic_and_stays_between_its_rates() -> None:
    a = traces.markov_rates([1e6, 40e6], [0.5, 0.5], 20.0, seed=7)
    b = traces.markov_rates([1e6, 40e6], [0.5, 0.5], 20.0, seed=7)
    c = traces.markov_rates([1e6, 40e6], [0.5, 0.5], 20.0, seed=8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and not np.array_equal(a[0], c[0])
    # With two states every move goes to the other one: the rates alternate from state 0.
    assert a[1][:4].tolist() == [1e6, 40e6, 1e6, 40e6]
    assert a[0][0] == 0.0 and np.all(np.diff(a[0]) > 0)


def test_from_rate_series_puts_each_ttis_bytes_at_its_end() -> None:
    # Two 2 ms TTIs at 0 and 2 ms, each carrying 6 Mbit/s · 2 ms / 8 = 1500 B: the bytes
    # arrive at 2 and 4 ms, one opportunity each; the trace ends at the last TTI's end, 4 ms.
    times = traces.from_rate_series(np.array([0.0, 0.002]), np.array([6e6, 6e6]), 0.002, 0.004)
    assert times.tolist() == [2, 4]


def test_synth_and_info_on_the_command_line(tmp_path: Path) -> None:
    csv = tmp_path / "rates.csv"
    csv.write_text("time_s,rate_bps\n0,12000000\n0.5,24000000\n")
    out = tmp_path / "t.trace"
    proc = rtolab_cli("trace", "synth", str(out), "--csv", str(csv))
    assert proc.returncode == 0, proc.stderr
    # Default length: 0.5 + 0.5 s. Bytes: 12e6 · 0.5 / 8 + 24e6 · 0.5 / 8 = 2.25 MB, 1500
    # opportunities.
    assert len(traces.read(out)) == 1500 and traces.read(out)[-1] == 1000
    png = tmp_path / "rate.png"
    proc = rtolab_cli("trace", "info", str(out), "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    assert "1500" in proc.stdout and "18.000" in proc.stdout and png.stat().st_size > 0
    markov = tmp_path / "m.trace"
    args = ("trace", "synth", str(markov), "--states", "1Mbps,10Mbps", "--holding", "1s,1s", "--duration", "5s", "--seed", "3")
    assert rtolab_cli(*args).returncode == 0
    first = markov.read_bytes()
    assert rtolab_cli(*args).returncode == 0 and markov.read_bytes() == first


def test_from_series_replays_a_radio_users_deliveries(tmp_path: Path) -> None:
    import polars as pl

    radio = tmp_path / "radio.toml"
    radio.write_text('duration = "3s"\n[radio]\ncells = 1\n[output]\nseries = ["rate"]\n[[flows]]\nname = "f"\nroute = ["hsdpa"]\n')
    run_dir = tmp_path / "run"
    assert rtolab_cli("run", str(radio), "--out", str(run_dir)).returncode == 0
    out = tmp_path / "ue0.trace"
    proc = rtolab_cli("trace", "from-series", str(run_dir), str(out))
    assert proc.returncode == 0, proc.stderr
    # The series' bytes (rate · 2 ms / 8 per TTI) are what the cell says it carried, and the
    # trace holds one opportunity per whole 1500 bytes of them.
    series = pl.read_parquet(run_dir / "series.parquet").filter(pl.col("metric").cast(pl.String) == "rate")
    carried = float((series["value"] * 0.002 / 8).sum())
    cells = pl.read_parquet(run_dir / "cells.parquet")
    assert carried == pytest.approx(float(cells["bytes"].sum()))
    assert len(traces.read(out)) == int(carried // 1500)
    # Replayed as a link, it carries a flow.
    spec = tmp_path / "replay.toml"
    spec.write_text(SCENARIO.format(link=f'trace = "{out.name}"'))
    assert run(spec).flows["end_s"][0] is not None


@pytest.mark.parametrize(
    ("link", "needles"),
    [
        ('rate = "1Mbps"\ntrace = "t.trace"', ["links[0].trace", "not both"]),
        ('trace = "missing.trace"', ["links[0].trace", '"missing.trace"', "no such file"]),
        ('trace = "down.trace"', ["links[0].trace", "line 2: got 3 after 5", "non-decreasing"]),
        ('trace = "empty.trace"', ["links[0].trace", "no delivery opportunities"]),
        ('trace = { file = "t.trace", loop = "no" }', ["links[0].trace.loop"]),
    ],
)
def test_bad_trace_fields_exit_2_naming_the_field(link: str, needles: list[str], tmp_path: Path) -> None:
    (tmp_path / "t.trace").write_text("1\n2\n")
    (tmp_path / "down.trace").write_text("5\n3\n")
    (tmp_path / "empty.trace").write_text("")
    spec = tmp_path / "s.toml"
    spec.write_text(SCENARIO.format(link=link))
    proc = rtolab_cli("run", str(spec), cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("error:") == 1
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_a_relative_trace_is_read_beside_the_scenario_and_runs_repeat(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.trace").write_text((ROOT / "traces" / "const-12mbps.trace").read_text())
    spec = tmp_path / "s.toml"
    spec.write_text(SCENARIO.format(link='trace = "traces/t.trace"'))
    a, b = run(spec), run(spec)
    assert a.flows.equals(b.flows) and a.links.equals(b.links)
    assert a.flows["end_s"][0] is not None
    assert a.links["rate_bps"][0] == 12e6


STUDY = """
name = "traces"
[scenario]
duration = "1s"
[[scenario.links]]
name = "l"
trace = "../traces/a.trace"
delay = "10ms"
reverse = { trace = { file = "../traces/a.trace" } }
[[scenario.flows]]
name = "f"
route = ["l"]
[grid]
"links.l.trace" = ["../traces/a.trace", { file = "../traces/b.trace", loop = false }]
[[cases]]
"links.l.reverse" = { trace = "../traces/b.trace" }
[[cases]]
"links.l.reverse.trace.file" = "../traces/a.trace"
"""


def test_a_study_files_traces_are_read_beside_it_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inline scenario's, the grid's and the cases' relative trace paths, in each form a
    link takes one, are read from the study file's directory, whatever the working directory."""
    from rtolab.sweep import spec_errors
    from rtolab.study import Study

    (tmp_path / "traces").mkdir()
    for name in ("a", "b"):
        (tmp_path / "traces" / f"{name}.trace").write_text((ROOT / "traces" / "const-12mbps.trace").read_text())
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "s.toml").write_text(STUDY)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    study = Study.load(Path("..") / "studies" / "s.toml")
    points = study.points()
    assert len(points) == 4 and spec_errors(points) == {}
    here = str((tmp_path / "studies").resolve())
    link = points[1].spec["links"][0]
    assert link["trace"] == {"file": f"{here}/../traces/b.trace", "loop": False}
    assert link["reverse"] == {"trace": f"{here}/../traces/b.trace"}
    assert points[2].spec["links"][0]["reverse"] == {"trace": {"file": f"{here}/../traces/a.trace"}}
    assert Study.from_dict(study.to_dict()).fingerprint == study.fingerprint


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["info", "{dir}/down.trace"], ["line 2: got 3 after 5"]),
        (["info", "{dir}/missing.trace"], ["missing.trace", "no such file"]),
        (["synth", "{dir}/o.trace"], ["give --csv", "or --states"]),
        (["synth", "{dir}/o.trace", "--states", "1Mbps,2Mbps", "--holding", "1s", "--duration", "5s"], ["two states with one holding time each"]),
        (["synth", "{dir}/o.trace", "--states", "1Mbps,2Mbsp", "--holding", "1s,1s", "--duration", "5s"], ["--states", "2Mbsp"]),
        (["from-series", "{dir}", "{dir}/o.trace"], ["cannot read a series table"]),
    ],
)
def test_trace_tools_refuse_bad_input_with_exit_2(args: list[str], needles: list[str], tmp_path: Path) -> None:
    (tmp_path / "down.trace").write_text("5\n3\n")
    proc = rtolab_cli("trace", *[a.format(dir=tmp_path) for a in args])
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("error:") == 1
    for needle in needles:
        assert needle in proc.stderr, proc.stderr
    assert not (tmp_path / "o.trace").exists()
