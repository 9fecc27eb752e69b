"""Bad input through the real command line: one clear message naming the field path and the
expected form, exit code 2, no traceback, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import QUICKSTART, rtolab_cli

BASE = QUICKSTART.read_text()
CORE_LINE = BASE.splitlines().index('name = "core"') + 1

CASES = {
    "toml syntax": (BASE.replace('name = "core"', 'name = "core'), [f"line {CORE_LINE}, column 13"]),
    "unknown field": (BASE.replace('delay = "11ms"', 'delay = "11ms"\nspeed = 3'), ["links[0].speed", "unknown field"]),
    "bad unit": (BASE.replace('"2Mbps"', '"2Mbsp"'), ["links[1].rate", '"2Mbsp"', "expected a positive rate"]),
    "negative rate": (BASE.replace('"2Mbps"', "-2000000"), ["links[1].rate", "expected a positive rate"]),
    "zero rate": (BASE.replace('"2Mbps"', '"0Mbps"'), ["links[1].rate"]),
    "missing link": (BASE.replace('route = ["core", "radio"]   #', 'route = ["core", "radi0"]   #'), ["flows[0].route[1]", 'no link named "radi0"']),
    "min_rto > max_rto": (BASE.replace('rto = "linux" }', 'rto = "linux", min_rto = "2s", max_rto = "1s" }'), ["flows[0].tcp.min_rto", "min_rto <= max_rto"]),
    "mss 0": (BASE.replace("mss = 1448", "mss = 0"), ["flows[0].tcp.mss", "expected 1..=65495"]),
    "infinite without duration": (BASE.replace('duration = "120s"', ""), ["flows[0].size", "needs a `duration`"]),
    "unknown stack": (BASE.replace('rto = "linux" }', 'stack = "bsd" }'), ["flows[0].tcp.stack", "`bsd`", "ns2-sack1"]),
    "eifel without timestamps": (
        BASE.replace('rto = "linux" }', 'rto = "linux", timestamps = false, detect = ["eifel"] }'),
        ["flows[0].tcp.detect", "needs timestamps"],
    ),
    "bad detector": (BASE.replace('rto = "linux" }', 'rto = "linux", detect = ["bogus"] }'), ["flows[0].tcp.detect", "`bogus`", "`eifel`"]),
    "bad detect word": (BASE.replace('rto = "linux" }', 'rto = "linux", detect = "all" }'), ["flows[0].tcp.detect", '"all"', '"none" or a list']),
    "bad response": (BASE.replace('rto = "linux" }', 'rto = "linux", response = "revert" }'), ["flows[0].tcp.response", "`revert`", "rfc4015"]),
    "bad distribution": (BASE.replace('"exp(1.5s)"', '"gamma(1.5s)"'), ["generators[1].think", "unknown distribution"]),
    "arq window 0": (BASE.replace("loss = 0.0 ", 'arq = { window = "0p", attempts = 6 } '), ["links[1].arq.window", "at least 1 packet"]),
    "arq attempts 0": (BASE.replace("loss = 0.0 ", 'arq = { window = "3p", attempts = 0 } '), ["links[1].arq.attempts", "at least 1 attempt"]),
    "ber above 1": (
        BASE.replace("loss = 0.0 ", 'loss = { kind = "gilbert-elliott", good = "exp(8s)", bad = "exp(2s)", ber_good = 1e-6, ber_bad = 2 } '),
        ["links[1].loss.ber_bad", "got 2", "[0, 1]"],
    ),
    "zero mean sojourn": (
        BASE.replace("loss = 0.0 ", 'loss = { kind = "gilbert-elliott", good = "0s", bad = "exp(2s)", ber_good = 1e-6, ber_bad = 1e-3 } '),
        ["links[1].loss.good", "positive mean"],
    ),
    "codel target 0": (BASE.replace('{ kind = "droptail", limit = "48p" }', '{ kind = "codel", target = "0ms" }'), ["links[1].queue.target", "got 0s", "1.024us to 137s"]),
    "fq_codel flows 0": (BASE.replace('{ kind = "droptail", limit = "48p" }', '{ kind = "fq_codel", flows = 0 }'), ["links[1].queue.flows", "got 0", "1 to 65536"]),
    "pie alpha": (BASE.replace('{ kind = "droptail", limit = "48p" }', '{ kind = "pie", alpha = 99 }'), ["links[1].queue.alpha", "got 99"]),
    "codel control law": (BASE.replace('{ kind = "droptail", limit = "48p" }', '{ kind = "codel", control_law = "newton" }'), ["links[1].queue.control_law", "`newton`", "`linux` or `exact`"]),
    "quoted number without a unit": (BASE.replace('delay = "70ms"', 'delay = "40"'), ["links[1].delay", '"40", a number without a unit', 'write "40ms" or "40s"']),
    "quoted rate without a unit": (BASE.replace('"2Mbps"', '"2"'), ["links[1].rate", 'write "2Mbps" or "2kbps"']),
    "quoted limit without a unit": (BASE.replace('limit = "48p"', 'limit = "48"'), ["links[1].queue.limit", '"48p" (packets)']),
    "tc rate": (BASE.replace('"2Mbps"', '"2mbit"'), ["links[1].rate", 'did you mean "2Mbps"?']),
    "tc time": (BASE.replace('delay = "70ms"', 'delay = "40msec"'), ["links[1].delay", 'did you mean "40ms"?']),
    "unitless inside a distribution": (BASE.replace('"exp(1.5s)"', '"exp(1.5)"'), ["generators[1].think", '"1.5s"']),
    "unknown field near a valid one": (BASE.replace('rto = "linux" }', 'rto = "linux", min_rtoo = "1s" }'), ["flows[0].tcp.min_rtoo", "did you mean `min_rto`?"]),
    "icmp_rto with rack": (BASE.replace('rto = "linux" }', 'rto = "linux", rack = true, icmp_rto = true }'), ["flows[0].tcp.icmp_rto", "rack"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_spec_exits_2_with_one_clear_message(case: str, tmp_path: Path) -> None:
    text, needles = CASES[case]
    spec = tmp_path / "bad.toml"
    spec.write_text(text)
    out_dir = tmp_path / "out"
    proc = rtolab_cli("run", str(spec), "--out", str(out_dir))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr
    assert proc.stderr.count("error:") == 1
    assert not out_dir.exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = rtolab_cli("run", str(tmp_path / "nope.toml"))
    assert proc.returncode == 2
    assert "no scenario file" in proc.stderr and "Traceback" not in proc.stderr


#: A range error in either of typer's wordings (0.29 and later through pydantic, before its own).
AT_LEAST_ONE = ("greater than or equal to 1", "not in the range x>=1")

CHOICES: dict[str, tuple[list[str], list[str | tuple[str, ...]]]] = {
    "bench name": (["bench", "nope"], ["'nope' is not one of", "'bulk-lte'", "'spiky-hspa'"]),
    "compare stack": (["compare", str(QUICKSTART), "--stack", "bsd"], ["--stack", "'bsd' is not one of", "'linux'", "'ns2-sack1'"]),
    "compare reps": (["compare", str(QUICKSTART), "--reps", "0"], ["--reps", AT_LEAST_ONE]),
    "reproduce replications": (["reproduce", "spikes", "--replications", "0"], ["--replications", AT_LEAST_ONE]),
}


@pytest.mark.parametrize("case", sorted(CHOICES))
def test_bad_choice_exits_2_naming_the_choices_before_anything_runs(case: str, tmp_path: Path) -> None:
    args, needles = CHOICES[case]
    proc = rtolab_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    flat = " ".join(proc.stderr.replace("│", " ").split())
    for needle in needles:
        alternatives = (needle,) if isinstance(needle, str) else needle
        assert any(a in flat for a in alternatives), proc.stderr
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == []


def test_good_run_prints_tables_and_writes_results(tmp_path: Path) -> None:
    proc = rtolab_cli("run", str(QUICKSTART), "--seed", "3", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "flows of quickstart (seed 3)" in proc.stdout and "links" in proc.stdout
    assert (tmp_path / "out" / "flows.parquet").exists()


def test_schema_command_prints_json() -> None:
    proc = rtolab_cli("schema")
    assert proc.returncode == 0 and '"links"' in proc.stdout


def test_bench_command_reports_rates() -> None:
    proc = rtolab_cli("bench", "spiky-hspa")
    assert proc.returncode == 0, proc.stderr
    assert "packets/s" in proc.stdout and "spiky-hspa" in proc.stdout


def test_a_quoted_number_in_a_grid_or_set_is_refused_too(tmp_path: Path) -> None:
    """The same rule in a study's grid (a "200" meant as 200 ms became a 200 s min_rto) and in
    --set; an unquoted number stays seconds, with a note."""
    study = tmp_path / "study.toml"
    study.write_text(f'name = "g"\nbase = "{QUICKSTART}"\n[grid]\n"flows.bulk.tcp.min_rto" = ["200"]\n')
    proc = rtolab_cli("sweep", str(study), "--out", str(tmp_path / "out"), "--workers", "1")
    assert proc.returncode == 2 and "flows[0].tcp.min_rto" in proc.stderr and '"200ms" or "200s"' in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    quoted = rtolab_cli("run", str(QUICKSTART), "--set", 'links.radio.delay="40"')
    assert quoted.returncode == 2 and "links[1].delay" in quoted.stderr and '"40ms" or "40s"' in quoted.stderr, quoted.stderr
    bare = rtolab_cli("run", str(QUICKSTART), "--set", "links.radio.delay=0.04", "--set", "duration=1", "--format", "csv")
    assert bare.returncode == 0, bare.stderr
    assert "links[1].delay = 0.04 is read as 0.04 s" in bare.stderr
