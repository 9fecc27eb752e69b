"""rtolab against ns-2.35 on paper 002's IW10 / initial-RTO dumbbell (validate/ns2/iw10.tcl),
with the same per-flow start times.

For each grid point of a subset of ``rtolab.studies.iw10_irto.study()`` and each replication,
rtolab runs the study's own spec and seed (``Study.points()``); every flow's ``start_s`` and
``size`` are read from its flows table and handed to ns-2, which runs one process at a time.
Three simulations per run:

- ``rtolab``        the study's scenario as it is (180 kB split over N flows; a flow's last
                    segment is partial).
- ``rtolab-whole``  the same, with each flow's size rounded up to whole 1460 B segments
                    (``total`` = N · ceil(180000 / N / 1460) · 1460 B): the bytes ns-2 sends,
                    since a one-way ns-2 agent sends whole packets only. The jitter stream is
                    named by generator, so the starts are the same as ``rtolab``'s.
- ``ns2``           ns-2.35 with the paper's settings: DropTail ``queue-limit`` N for the slides'
                    N-packet FIFO, which the study writes as rtolab's ``"(N − 1)p"``
                    (``iw10_irto.ns2_droptail``: ns-2 counts the packet being sent).

Per group it computes the statistics the findings use (``iw10_analysis.per_burst``,
``between_bursts``, ``summary``) and the findings' test values (``iw10_findings.measure``),
for each simulator. Only the findings listed in ``FINDINGS`` are reported: those no timing
ablation moved to agree (``iw10_findings.NS2_COMPARED``).

    .venv/bin/python validate/iw10_ns2.py --reps 20 --out /tmp/iw10-ns2
    .venv/bin/python validate/iw10_ns2.py --only EDGE --reps 5            # a quick look
    .venv/bin/python validate/iw10_ns2.py --compare --out /tmp/iw10-ns2   # tables only
    .venv/bin/python validate/iw10_ns2.py --reps 20 --out DIR --doc docs/iw10-ns2.md   # make validate
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from rtolab import run as rtolab_run
from rtolab.doc_section import replace_section
from rtolab.studies import iw10_findings, iw10_analysis
from rtolab.studies.iw10_analysis import FLOWS, IRTO, IW
from rtolab.findings import verdict
from rtolab.studies.iw10_irto import BOTTLENECKS, WINDOW, study

HERE = Path(__file__).resolve().parent
TCL = HERE / "ns2" / "iw10.tcl"
MSS = 1460
TOTAL = 180_000

FINDINGS = list(iw10_findings.NS2_COMPARED)

#: The subset: (link, buffers, flow counts); every IW (3, 10) and IRTO (3 s, 1 s).
SUBSET = [
    ("LTE", ["BDP", "2BDP", "RED", "REDok"], [1, 6, 18]),
    ("HSPA", ["BDP", "2BDP", "RED", "REDok"], [1, 18]),
    ("EDGE", ["BDP", "2BDP", "50p"], [1, 2]),
]


def points(reps: int, only: list[str] | None) -> list[Any]:
    s = study(replications=reps)
    want = {(link, buf, n) for link, bufs, ns in SUBSET for buf in bufs for n in ns}
    out = []
    for p in s.points():
        key = (p.params["tag.link"], p.params["tag.buffer"], p.params[FLOWS])
        if key in want and (not only or key[0] in only):
            out.append(p)
    return out


def whole_spec(spec: dict[str, Any], n: int) -> dict[str, Any]:
    s = json.loads(json.dumps(spec))
    per = math.ceil(TOTAL / n / MSS) * MSS
    for g in s["generators"]:
        g["total"] = f"{per * n}B"
    return s


def with_delay(spec: dict[str, Any]) -> dict[str, Any]:
    s = json.loads(json.dumps(spec))
    s["output"] = {"series": ["delay"]}
    return s


def wants_delays(params: dict[str, Any]) -> bool:
    """delay-1-bdp: EDGE 1+1, FIFO BDP, IRTO 3 s (iw10_analysis.one_way_delays)."""
    return params["tag.link"] == "EDGE" and params[FLOWS] == 1 and params["tag.buffer"] == "BDP" and params[IRTO] == "3s"


def ns2_args(params: dict[str, Any], flows: pl.DataFrame, seed: int, delays: bool, trace: str | None = None) -> list[str]:
    b = BOTTLENECKS[params["tag.link"]]
    q = params["links.bottleneck.queue"]
    rate = {"160kbps": 160_000, "2Mbps": 2_000_000, "50Mbps": 50_000_000}[b.rate]
    delay = {"250ms": 0.25, "70ms": 0.07, "15ms": 0.015}[b.delay]
    limit = int(q["limit"].rstrip("p"))
    args = [f"rate_bps={rate}", f"delay_s={delay}", f"iw={params[IW]}", f"irto={params[IRTO].rstrip('s')}",
            f"mss={MSS}", f"window={WINDOW}", f"seed={seed % 2_000_000_000 + 1}", "max_s=2000", f"delays={int(delays)}"]
    if q["kind"] == "droptail":
        # The study's "Np" FIFO is N waiting packets plus the one being sent: ns-2's queue-limit N + 1.
        args += ["queue=droptail", f"qlimit={limit + 1}"]
    else:
        args += ["queue=red", f"qlimit={limit}", f"q_weight={q['q_weight']}", f"thresh={q['thresh']}",
                 f"maxthresh={q['maxthresh']}", f"linterm={q['linterm']}"]
    for g, k in (("first", 1), ("later", 2)):
        part = flows.filter(pl.col("generator") == g).sort("flow")
        args.append(f"starts{k}=" + " ".join(f"{x:.9f}" for x in part["start_s"].to_list()))
        args.append(f"bytes{k}=" + " ".join(str(x) for x in part["size"].to_list()))
    if trace:
        args.append(f"trace={trace}")
    return args


def run_ns2(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(["ns", str(TCL), *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows_from_rtolab(flows: pl.DataFrame) -> list[dict[str, Any]]:
    return [
        {"flow": r["flow"], "generator": r["generator"], "start_s": r["start_s"], "end_s": r["end_s"],
         "timeouts": r["timeouts"], "syn_timeouts": r["syn_timeouts"], "spurious_timeouts": r["spurious_timeouts"],
         "spurious_syn_timeouts": r["spurious_syn_timeouts"], "size": r["size"], "goodput_bps": r["goodput_bps"]}
        for r in flows.sort("flow").iter_rows(named=True)
    ]


def rows_from_ns2(res: dict[str, Any], flows: pl.DataFrame) -> list[dict[str, Any]]:
    base = flows.sort("flow")
    out = []
    for i, r in enumerate(base.iter_rows(named=True)):
        end = res["end_s"][i]
        done = end >= 0
        size = res["data_packets"][i] * MSS
        out.append({"flow": r["flow"], "generator": r["generator"], "start_s": res["start_s"][i], "end_s": end if done else None,
                    "timeouts": res["timeouts"][i], "syn_timeouts": res["syn_timeouts"][i], "spurious_timeouts": 0,
                    "spurious_syn_timeouts": 0, "size": size,
                    "goodput_bps": size * 8 / (end - res["start_s"][i]) if done else None})
    return out


def collect(reps: int, only: list[str] | None, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    flows_path, delays_path = out / "flows.jsonl", out / "delays.jsonl"
    done: set[tuple[int, int]] = set()
    if flows_path.exists():
        for line in flows_path.open():
            d = json.loads(line)
            done.add((d["point_key"], d["replication"]))
    pts = points(reps, only)
    t0, n_new, ns2_time = time.time(), 0, 0.0
    with flows_path.open("a") as ff, delays_path.open("a") as fd:
        for p in pts:
            pkey = hash_point(p.params)
            if (pkey, p.replication) in done:
                continue
            n = p.params[FLOWS]
            delays = wants_delays(p.params)
            sims: dict[str, list[dict[str, Any]]] = {}
            r = rtolab_run(with_delay(p.spec) if delays else p.spec, seed=p.seed)
            sims["rtolab"] = rows_from_rtolab(r.flows)
            if delays:
                dl = r.series.filter(pl.col("metric") == "delay")["value"].to_list()
                fd.write(json.dumps({"sim": "rtolab", "point_key": pkey, "replication": p.replication, "iw": p.params[IW], "delay_s": dl}) + "\n")
            w = rtolab_run(whole_spec(p.spec, n), seed=p.seed)
            sims["rtolab-whole"] = rows_from_rtolab(w.flows)
            t = time.time()
            res = run_ns2(ns2_args(p.params, w.flows, p.replication, delays))
            ns2_time += time.time() - t
            sims["ns2"] = rows_from_ns2(res, w.flows)
            if delays:
                fd.write(json.dumps({"sim": "ns2", "point_key": pkey, "replication": p.replication, "iw": p.params[IW], "delay_s": res["one_way_delays_s"]}) + "\n")
            for sim, rows in sims.items():
                for row in rows:
                    ff.write(json.dumps({"sim": sim, "point_key": pkey, "point": p.point, "replication": p.replication, "seed": p.seed,
                                         "params": {k: v for k, v in p.params.items() if k != "links.bottleneck.queue"}, **row}) + "\n")
            ff.flush()
            fd.flush()
            n_new += 1
            if n_new % 50 == 0:
                print(f"{n_new} runs, {time.time() - t0:.0f} s (ns-2 {ns2_time:.0f} s)", file=sys.stderr)
    print(f"collected {n_new} runs in {time.time() - t0:.1f} s (ns-2 processes {ns2_time:.1f} s)", file=sys.stderr)


def hash_point(params: dict[str, Any]) -> int:
    import hashlib

    return int(hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode()).hexdigest()[:12], 16)


def flows_table(out: Path) -> pl.DataFrame:
    recs = []
    for line in (out / "flows.jsonl").open():
        d = json.loads(line)
        prm = d.pop("params")
        recs.append({**d, **{k: prm[k] for k in ("tag.link", "tag.buffer", "generators.later.start")},
                     FLOWS: prm[FLOWS], IW: prm[IW], IRTO: prm[IRTO]})
    df = pl.DataFrame(recs, infer_schema_length=None)
    return df.with_columns(run=pl.format("{}-{}", pl.col("point_key"), pl.col("replication")))


def delays_table(out: Path, sim: str, flows: pl.DataFrame) -> pl.DataFrame:
    p = out / "delays.jsonl"
    parts = []
    if p.exists():
        for line in p.open():
            d = json.loads(line)
            if d["sim"] == sim:
                parts.append(pl.DataFrame({"link": "EDGE", "flows": 1, "buffer": "BDP", "iw": d["iw"], "delay_s": [float(x) for x in d["delay_s"]]}))
    return pl.concat(parts) if parts else pl.DataFrame()


def analyse(out: Path) -> dict[str, Any]:
    allf = flows_table(out)
    sims = allf["sim"].unique(maintain_order=True).to_list()
    result: dict[str, Any] = {"sims": sims, "summary": {}, "findings": {}, "runs": allf.select("run").n_unique()}
    for sim in sims:
        f = allf.filter(pl.col("sim") == sim)
        bursts = iw10_analysis.per_burst(f)
        between = iw10_analysis.between_bursts(f)
        summ = iw10_analysis.summary(bursts)
        m = iw10_findings.measure(summ, between, delays_table(out, sim, f), bursts=bursts)
        result["summary"][sim] = summ
        result["findings"][sim] = {k: m[k] for k in FINDINGS if k in m}
        result.setdefault("bursts", {})[sim] = bursts
    return result


def flow_diff(out: Path, a: str, b: str) -> pl.DataFrame:
    """Per flow: RTO counts of a and b, split by whether the flow had a SYN timeout in both."""
    f = flows_table(out)
    x = f.filter(pl.col("sim") == a)
    y = f.filter(pl.col("sim") == b).select("run", "flow", pl.col("end_s").alias("end_b"), pl.col("timeouts").alias("to_b"), pl.col("syn_timeouts").alias("syn_b"))
    j = x.join(y, on=["run", "flow"])
    return j.group_by((pl.col("syn_timeouts") > 0).alias("syn_timeout_a"), (pl.col("syn_b") > 0).alias("syn_timeout_b")).agg(
        pl.len().alias("flows"), (pl.col("timeouts") == pl.col("to_b")).sum().alias("same_data_rtos"),
        (pl.col("timeouts") > pl.col("to_b")).sum().alias(f"more_in_{a}"), (pl.col("timeouts") < pl.col("to_b")).sum().alias(f"more_in_{b}"),
        pl.col("timeouts").sum().alias(f"rtos_{a}"), pl.col("to_b").sum().alias(f"rtos_{b}")).sort("syn_timeout_a", "syn_timeout_b")


def per_run_diff(out: Path, a: str, b: str) -> pl.DataFrame:
    """Per (run, burst): elapsed time and RTOs of simulators a and b, where they differ."""
    allf = flows_table(out)
    res = []
    for sim in (a, b):
        bursts = iw10_analysis.per_burst(allf.filter(pl.col("sim") == sim))
        res.append(bursts.select("run", "tag.link", "tag.buffer", FLOWS, IW, IRTO, "generator", pl.col("elapsed_s").alias(f"elapsed_{sim}"), pl.col("rtos").alias(f"rtos_{sim}")))
    j = res[0].join(res[1].drop("tag.link", "tag.buffer", FLOWS, IW, IRTO), on=["run", "generator"])
    return j


def findings_table(r: dict[str, Any], sims: list[str], detail: bool) -> list[str]:
    """A Markdown table: each finding's test value and verdict per simulator (with the
    finding's numbers in words when ``detail``)."""
    reg = {f.key: f for f in iw10_findings.REGISTRY}
    lines = ["| finding | " + " | ".join(sims) + " |", "| --- |" + " --- |" * len(sims)]
    for k in FINDINGS:
        cells = []
        for s in sims:
            m = r["findings"][s].get(k)
            if m is None:
                cells.append("–")
                continue
            v = verdict(m.value, reg[k].agree, reg[k].partly)
            cells.append(f"**{m.value:.4g}** {getattr(v, 'value', v)} ({m.detail})" if detail else f"{m.value:.4g} {getattr(v, 'value', v)}")
        lines.append(f"| 002-{k} | " + " | ".join(cells) + " |")
    return lines


def agreement(out: Path, a: str, b: str) -> pl.DataFrame:
    """Per (link, buffer): bursts, those with the same elapsed time (±1 ms) and the same RTO
    count in simulators ``a`` and ``b``, and the median ratio of their elapsed times."""
    d = per_run_diff(out, a, b)
    return d.group_by("tag.link", "tag.buffer", maintain_order=True).agg(
        pl.len().alias("bursts"),
        ((pl.col(f"elapsed_{a}") - pl.col(f"elapsed_{b}")).abs() < 1e-3).sum().alias("same_elapsed"),
        (pl.col(f"rtos_{a}") == pl.col(f"rtos_{b}")).sum().alias("same_rtos"),
        (pl.col(f"elapsed_{b}") / pl.col(f"elapsed_{a}")).median().alias("median_ratio"),
    )


def report(out: Path) -> None:
    r = analyse(out)
    sims = r["sims"]
    print(f"{r['runs']} runs; simulators: {', '.join(sims)}\n")
    print("\n".join(findings_table(r, sims, detail=True)))
    print()
    keys = ["tag.link", "tag.buffer", FLOWS, IW, IRTO, "generator"]
    wide = None
    for s in sims:
        t = r["summary"][s].select(*keys, pl.col("median").round(3).alias(f"med_{s}"), pl.col("min").round(3).alias(f"min_{s}"),
                                   pl.col("max").round(3).alias(f"max_{s}"), pl.col("mean_rtos").round(2).alias(f"rtos_{s}"))
        wide = t if wide is None else wide.join(t, on=keys, how="left")
    assert wide is not None
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=400, tbl_formatting="MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        print(wide)
    wide.write_csv(out / "groups.csv")
    for a, b in [("rtolab-whole", "ns2")]:
        if a in sims and b in sims:
            d = per_run_diff(out, a, b)
            same = d.filter((pl.col(f"elapsed_{a}") - pl.col(f"elapsed_{b}")).abs() < 1e-3).height
            rto_same = d.filter(pl.col(f"rtos_{a}") == pl.col(f"rtos_{b}")).height
            print(f"\n{a} vs {b}: {same} of {d.height} bursts with the same elapsed time (±1 ms), {rto_same} with the same RTO count")
            by = agreement(out, a, b).with_columns(pl.col("median_ratio").round(3))
            with pl.Config(tbl_rows=-1, tbl_formatting="MARKDOWN", tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
                print(by)
                print(f"\nper flow, data RTOs (timeouts), {a} vs {b}:")
                print(flow_diff(out, a, b))


BEGIN, END = "<!-- iw10-ns2:begin -->", "<!-- iw10-ns2:end -->"


def doc_section(out: Path) -> str:
    """The generated part of docs/iw10-ns2.md: each finding's test value and verdict per
    simulator, and how often single bursts agree (rtolab-whole against ns2)."""
    r = analyse(out)
    sims = [s for s in ("rtolab", "ns2") if s in r["sims"]]
    lines = [BEGIN, f"Generated by `validate/iw10_ns2.py --doc` from {r['runs']} runs; do not edit by hand.", "", *findings_table(r, sims, detail=False)]
    a, b = "rtolab-whole", "ns2"
    if a in r["sims"] and b in r["sims"]:
        by = agreement(out, a, b)
        lines += ["", f"Single bursts, `{a}` against `{b}`: elapsed time within ±1 ms, the same RTO count.", "",
                  "| link | buffer | bursts | same elapsed | same RTOs | median ratio ns2/rtolab |", "| --- | --- | ---: | ---: | ---: | ---: |"]
        for row in by.iter_rows(named=True):
            lines.append(f"| {row['tag.link']} | {row['tag.buffer']} | {row['bursts']} | {row['same_elapsed']} | {row['same_rtos']} | {row['median_ratio']:.3f} |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", nargs="*", help="links to run (EDGE HSPA LTE)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/iw10-ns2"))
    ap.add_argument("--compare", action="store_true", help="only analyse what --out holds")
    ap.add_argument("--doc", type=Path, help="also write the generated section of this page (docs/iw10-ns2.md)")
    a = ap.parse_args()
    if not a.compare:
        collect(a.reps, a.only, a.out)
    report(a.out)
    if a.doc:
        replace_section(a.doc, BEGIN, END, doc_section(a.out))


if __name__ == "__main__":
    main()
