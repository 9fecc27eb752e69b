"""Plays the published Linux TCP packetdrill scripts of the loss-recovery, congestion-control
and slow-start areas against this machine's kernel (`rtolab drill --kernel`, several times
each; optionally also packetdrill itself, the reference) and the `linux` profile, and writes
the results into docs/drill.md ("Published packetdrill scripts").

The scripts are not part of the repository: `--tree DIR` names a directory that holds them,
laid out as

- `DIR/gtests/net/tcp/<area>/*.pkt` with `DIR/gtests/net/tcp/common/` and
  `DIR/gtests/net/common/` (google/packetdrill: `git archive HEAD gtests/net/tcp
  gtests/net/common`), areas `cubic`, `cwnd_moderation`, `fast_recovery`, `fast_retransmit`,
  `limited_transmit`, `sack`, `slow_start`;
- `DIR/selftests/tcp_{fast_recovery,limited_transmit,sack,slow_start}_*.pkt` with
  `defaults.sh` and `set_sysctls.py` (Linux's `tools/testing/selftests/net/packetdrill/`).

The profile is played as the script is written (`linux`) and, when that does not pass,
*relaxed* (`linux, relaxed`): the init command's shell files expanded line by line, `$((...))`
arithmetic evaluated, `> /dev/null` and `2>&1` dropped, `set_sysctls.py /proc/sys/x=v` read as
`echo v > /proc/sys/x`, every line the simulated stack refuses on its own dropped, and the
`+0 setsockopt(SO_SNDBUF)` calls dropped (the scripts' buffers exceed what they write). The
relaxed run shows what stops the profile once the suites' set-up no longer does; it is not a
pass of the script as written.

Each reason is rtolab's skip reason or failing line; where a failure was read and explained
(`NOTES`, keyed by script and line) the explanation and its group are given, and a note
applies only while the profile fails at that line. With `--packetdrill`, scripts on which
`rtolab drill --kernel` and packetdrill disagree are listed with the cause (`KERNEL_CAUSES`,
by rtolab's message).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from rtolab.doc_section import replace_section
from rtolab.drill import parse_file
from rtolab.drill.device import unavailable
from rtolab.drill.kernel import kernel_version, play_all
from rtolab.drill.play import Outcome, play
from rtolab.drill.script import Event, Name, Script, Shell, Syscall
from rtolab.drill.sysctls import StackSettings, Unsupported, run_command

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- drill-published:begin -->", "<!-- drill-published:end -->"
AREAS = ["cubic", "cwnd_moderation", "fast_recovery", "fast_retransmit", "limited_transmit", "sack", "slow_start"]
SELFTEST_AREAS = ["fast_recovery", "limited_transmit", "sack", "slow_start"]
#: The acceptance target: the share of the scripts passing on the kernel that the profile passes.
TARGET = 0.8


@dataclass
class Row:
    name: str
    path: Path
    packetdrill: list[Outcome] | None
    kernel: list[Outcome]
    profile: Outcome
    relaxed: Outcome | None
    blockers: list[str]
    dropped: list[str]


def corpus(tree: Path) -> list[tuple[str, Path]]:
    paths = [p for area in AREAS for p in sorted((tree / "gtests/net/tcp" / area).glob("*.pkt"))]
    paths += [p for area in SELFTEST_AREAS for p in sorted((tree / "selftests").glob(f"tcp_{area}_*.pkt"))]
    return [(str(p.relative_to(tree)), p) for p in paths]


# --- the init command, line by line ----------------------------------------------------

_ARITH = re.compile(r"\$\(\(([0-9+\-*/ ()]+)\)\)")
_REDIRECT = re.compile(r"\s*(?:2>&1|>\s*/dev/null)")


def _expand(command: str, directory: Path, depth: int = 0) -> list[tuple[str, Path]]:
    """The command's lines with the shell files it runs (``./x``, ``../x``, ``sh x``,
    ``source x``) replaced by their own lines, each with the directory it runs in."""
    lines: list[tuple[str, Path]] = []
    for raw in command.replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        target = words[1] if words[0] in ("sh", "bash", "source", ".") and len(words) == 2 else words[0]
        path = (directory / target).resolve()
        if depth < 4 and target.startswith(("./", "../")) and path.is_file() and _is_shell(path) and len(words) == 1 + (target != words[0]):
            lines += _expand(path.read_text(), path.parent, depth + 1)
        else:
            lines.append((line, directory))
    return lines


def _is_shell(path: Path) -> bool:
    first = path.read_text().split("\n", 1)[0]
    return not first.startswith("#!") or first.rstrip().endswith(("/sh", "/bash"))


def _relax(line: str) -> list[str]:
    """The line with its arithmetic evaluated and output redirections dropped; the suites'
    ``set_sysctls.py /proc/sys/x=v ...`` as the ``echo v > /proc/sys/x`` lines it runs."""
    words = line.split()
    if words and words[0].endswith("set_sysctls.py"):
        return [f"echo {w.partition('=')[2]} > {w.partition('=')[0]}" for w in words[1:]]
    line = _ARITH.sub(lambda m: str(eval(m.group(1), {"__builtins__": {}})), line)  # noqa: S307 - digits and + - * / ( ) only
    return [_REDIRECT.sub("", line).strip()]


def _refusal(line: str, directory: Path) -> str | None:
    """Why the simulated stack refuses this line of a command on its own, or None."""
    try:
        run_command(StackSettings(), line, directory)
    except Unsupported as e:
        return str(e)
    except ValueError as e:  # shlex on a line that is not shell
        return f"command {line!r} ({e})"
    return None


def init_blockers(script: Script) -> list[str]:
    """Every line of the init command (shell files expanded) the simulated stack refuses, as
    written."""
    if script.init_command is None:
        return []
    directory = Path(script.path).parent
    return [why for line, d in _expand(script.init_command.command, directory) if (why := _refusal(line, d))]


def relaxed(script: Script) -> tuple[Script, list[str]]:
    """The script relaxed (module docstring) and what was dropped from it."""
    kept: list[str] = []
    dropped: list[str] = []
    command = script.init_command.command if script.init_command is not None else ""
    for written, d in _expand(command, Path(script.path).parent):
        for line in _relax(written):
            if _refusal(line, d) is None:
                kept.append(line)
            else:
                dropped.append(line)
    init = Shell(command="\n".join(kept)) if kept else None
    events = tuple(e for e in script.events if not _is_sndbuf(e))
    if len(events) != len(script.events):
        dropped.append("setsockopt(SO_SNDBUF)")
    return replace(script, init_command=init, events=events), dropped


def _is_sndbuf(event: Event) -> bool:
    """A ``+0 setsockopt(fd, SOL_SOCKET, SO_SNDBUF, ...)``: the suites set a send buffer larger
    than anything their scripts write."""
    call = event.action
    return (
        isinstance(call, Syscall) and call.name == "setsockopt" and event.time.kind == "relative" and event.time.start == 0
        and len(call.args) > 2 and isinstance(call.args[2], Name) and call.args[2].symbol == "SO_SNDBUF"
    )


# --- the runs ---------------------------------------------------------------------------

_PD_ERROR = re.compile(r"^[^:\s]+\.pkt:(\d+): (.*)$", re.M)


def packetdrill_runs(binary: str, paths: list[Path], runs: int) -> list[list[Outcome]]:
    """Each of ``runs`` plays of each script by packetdrill itself, each in a fresh network
    namespace and from the script's directory, as packetdrill's own runner does (IPv4, its
    default addresses); a failure with the line and message packetdrill printed."""
    results: list[list[Outcome]] = [[] for _ in paths]
    for _ in range(runs):
        for i, path in enumerate(paths):
            command = f"ip link set lo up; cd {shlex.quote(str(path.parent))} && {shlex.quote(binary)} {shlex.quote(path.name)}"
            try:
                done = subprocess.run(["unshare", "-n", "sh", "-c", command], capture_output=True, text=True, timeout=300, check=False)
            except subprocess.TimeoutExpired:
                results[i].append(Outcome(str(path), "fail", "packetdrill ran longer than 300 s"))
                continue
            if done.returncode == 0:
                results[i].append(Outcome(str(path), "pass"))
                continue
            error = _PD_ERROR.search(done.stderr)
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            results[i].append(Outcome(str(path), "fail", error.group(2) if error else last, int(error.group(1)) if error else None))
    return results


def measure(tree: Path, runs: int, packetdrill: str | None, kernel: bool) -> list[Row]:
    scripts = corpus(tree)
    paths = [p for _, p in scripts]
    pd: list[list[Outcome] | None] = list(packetdrill_runs(packetdrill, paths, runs)) if packetdrill else [None] * len(paths)
    rounds = [play_all(paths) for _ in range(runs)] if kernel else []
    rows = []
    for i, (name, path) in enumerate(scripts):
        parsed = parse_file(path)
        with contextlib.redirect_stdout(io.StringIO()):  # what the scripts' %{ }% blocks print
            profile = play(parsed, "linux")
            relaxed_outcome: Outcome | None = None
            dropped: list[str] = []
            if profile.status != "pass":
                relaxed_script, dropped = relaxed(parsed)
                if dropped:
                    relaxed_outcome = play(relaxed_script, "linux")
        rows.append(Row(name, path, pd[i], [r[i] for r in rounds], profile, relaxed_outcome, init_blockers(parsed), dropped))
    return rows


# --- reasons ------------------------------------------------------------------------------

#: Skip reasons of the profile, as groups: (pattern of rtolab's message, group).
SKIP_GROUPS = [
    (r"sysctl|command '", "the init command (`defaults.sh`) has lines the profile refuses"),
    (r"SO_SNDBUF", "needs setsockopt(SO_SNDBUF)"),
    (r"connect\(\)", "needs connect() (an active open)"),
    (r"IP_PMTUDISC|SOL_IP|IP_TOS|IP_MTU_DISCOVER", "needs IP-level socket options (IP_MTU_DISCOVER, IP_TOS) and connect()"),
    (r"flags \S*[EWU]", "needs ECN (ECE/CWR flags, tcp_ecn)"),
    (r"a command after the socket exists", "needs a shell command while the connection runs (a qdisc change)"),
    (r"close\(\)|shutdown\(\)", "needs close() (a FIN)"),
    (r"read\(\)|recv\(\)|data from the peer", "needs data from the peer"),
    (r"tcp_info field", "needs a tcp_info field the profile lacks"),
    (r"setsockopt", "needs another socket option"),
]

#: Failures of the profile that were read and explained: (script, line) -> (group, sentence).
#: A note applies only while the profile still fails at that line.
_PSH = "PSH on every TSO buffer / forced push"
_PSH_WHY = ("the kernel sends the write in TSO buffers that each end in PSH ({}); "
            "the profile marks PSH only on the segment that ends the write")
NOTES: dict[tuple[str, int], tuple[str, str]] = {
    **{(name, line): (_PSH, _PSH_WHY.format(what)) for name, line, what in [
        ("gtests/net/tcp/fast_recovery/prr-ss-30pkt-lost-1_4-11_16.pkt", 19, "P. 1:10001 of a 20000-byte write"),
        ("gtests/net/tcp/limited_transmit/limited-transmit-no-sack.pkt", 21, "P. 1:10001 of a 15000-byte write"),
        ("gtests/net/tcp/limited_transmit/limited-transmit-sack.pkt", 21, "P. 1:10001 of a 15000-byte write"),
        ("selftests/tcp_limited_transmit_limited-transmit-no-sack.pkt", 22, "P. 1:10001 of a 15000-byte write"),
        ("selftests/tcp_limited_transmit_limited-transmit-sack.pkt", 22, "P. 1:10001 of a 15000-byte write"),
        ("gtests/net/tcp/cubic/cubic-hystart-delay-min-rtt-jumps-downward.pkt", 26, "P. 1:10001 of a larger write"),
        ("gtests/net/tcp/cubic/cubic-hystart-delay-rtt-jumps-upward.pkt", 24, "P. 1:10001 of a larger write"),
        ("gtests/net/tcp/cubic/cubic-rto-ss-ca-cwnd-bump.pkt", 59, "P. 6001:8001 of a 200000-byte write"),
        ("gtests/net/tcp/slow_start/slow-start-ack-per-1pkt.pkt", 22, "P. 1:10001 of a 30000-byte write"),
        ("gtests/net/tcp/slow_start/slow-start-ack-per-2pkt.pkt", 23, "P. 1:10001 of a 30000-byte write"),
        ("gtests/net/tcp/slow_start/slow-start-ack-per-4pkt.pkt", 22, "P. 1:10001 of a 30000-byte write"),
        ("gtests/net/tcp/slow_start/slow-start-after-idle.pkt", 20, "P. 1:5001 of a 26000-byte write"),
        ("gtests/net/tcp/slow_start/slow-start-after-win-update.pkt", 20, "P. 1:5001 of a larger write"),
        ("gtests/net/tcp/slow_start/slow-start-fq-ack-per-2pkt.pkt", 26, "P. 1:2921 of a 40000-byte write"),
        ("selftests/tcp_slow_start_slow-start-ack-per-1pkt.pkt", 23, "P. 1:10001 of a 30000-byte write"),
        ("selftests/tcp_slow_start_slow-start-ack-per-2pkt.pkt", 24, "P. 1:10001 of a 30000-byte write"),
        ("selftests/tcp_slow_start_slow-start-ack-per-4pkt.pkt", 23, "P. 1:10001 of a 30000-byte write"),
        ("selftests/tcp_slow_start_slow-start-fq-ack-per-2pkt.pkt", 27, "P. 1:2921 of a 40000-byte write"),
    ]},
    **{(name, line): ("PRR slow-start reduction bound", "on the ACK of 4001 (SACK 8001:9001) the kernel sends 4001:7001, three "
                      "segments (PRR's slow-start reduction bound: newly delivered + 1 MSS while in flight is below "
                      "ssthresh), the profile two (4001:6001)") for name, line in [
        ("gtests/net/tcp/fast_recovery/prr-ss-ack-below-snd_una-cubic.pkt", 31),
        ("selftests/tcp_fast_recovery_prr-ss-ack-below-snd_una-cubic.pkt", 32),
    ]},
    **{(name, line): ("tcp_info lost count after a lost segment is SACKed", "after the SACK of 3001:4001 the kernel counts 5 "
                      "segments lost (tcpi_lost), the profile 6: it does not take the newly SACKed segment out of its "
                      "lost count") for name, line in [
        ("gtests/net/tcp/sack/sack-shift-sacked-2-6-8-3-9-nofack.pkt", 37),
        ("selftests/tcp_sack_sack-shift-sacked-2-6-8-3-9-nofack.pkt", 38),
    ]},
    ("gtests/net/tcp/cubic/cubic-bulk-166k.pkt", 113): ("%{ }% blocks do not share variables", "the block uses a variable an earlier block set (packetdrill runs all blocks as one program; rtolab's play.py gives each block a fresh namespace)"),
}


def reason(name: str, outcome: Outcome) -> tuple[str, str]:
    """(group, sentence) for a profile outcome that is not a pass."""
    if outcome.status == "skip":
        for pattern, group in SKIP_GROUPS:
            if re.search(pattern, outcome.message):
                return group, f"skip: {outcome.message}"
        return "skip: " + re.sub(r"^line \d+: ", "", outcome.message), f"skip: {outcome.message}"
    note = NOTES.get((name, outcome.line or 0))
    if note is not None:
        return note[0], f"fail at line {outcome.line}: {note[1]}"
    words = re.sub(r"\d+(\.\d+)?", "N", outcome.message.split(";")[0])
    return f"fail, not yet read: {words}", f"fail at line {outcome.line}: {outcome.message[:300]}"


#: Causes of rtolab --kernel outcomes that differ from packetdrill's, by rtolab's message.
KERNEL_CAUSES = [
    (r"flags \S*[EWU]", "the interpreter skips inbound ECE/CWR flags (`_Player.inbound`) on the kernel too"),
    (r"IP_PMTUDISC|SOL_IP", "`_option_value` (`play.py`) takes no symbolic option value (`[IP_PMTUDISC_DONT]`), "
     "and the script's `connect()` blocks (`+0...0.010`), which the interpreter plays only for `accept`"),
    (r"timing error", "timing at the tolerance's edge: a kernel timer fires at the jiffy after its expiry, and the "
     "two tools' clocks start at the same phase of a jiffy (`run.c`: `schedule_start_time_usecs`) but not at the "
     "same instant"),
]


def kernel_cause(outcomes: list[Outcome]) -> str:
    bad = next((o for o in outcomes if o.status != "pass"), None)
    if bad is None:
        return "passes where packetdrill fails: " + KERNEL_CAUSES[-1][1]
    for pattern, cause in KERNEL_CAUSES:
        if re.search(pattern, bad.message):
            return cause
    return "not yet read"


def _first_line(outcomes: list[Outcome]) -> int | str | None:
    bad = next((o for o in outcomes if o.status != "pass"), None)
    return None if bad is None else bad.line if bad.status == "fail" else bad.status


def passes(outcomes: list[Outcome]) -> int:
    return sum(o.status == "pass" for o in outcomes)


def runs_cell(outcomes: list[Outcome] | None) -> str:
    if not outcomes:
        return "not run"
    bad = next((o for o in outcomes if o.status != "pass"), None)
    if bad is None:
        return f"pass ({len(outcomes)}/{len(outcomes)})"
    where = f"line {bad.line}" if bad.line else "init command" if "first command" in bad.message else "-"
    return f"{bad.status} ({where}), {passes(outcomes)}/{len(outcomes)} passed"


def outcome_cell(o: Outcome | None) -> str:
    if o is None:
        return ""
    return {"pass": "pass", "skip": "skip"}.get(o.status, f"fail (line {o.line})")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("\t", " ")


def reference_pass(row: Row) -> bool:
    """Passes on the kernel in every run: by packetdrill when it was run, else by rtolab."""
    runs = row.packetdrill if row.packetdrill is not None else row.kernel
    return bool(runs) and passes(runs) == len(runs)


def section(rows: list[Row], runs: int, packetdrill: bool, kernel: bool) -> str:
    reference = [r for r in rows if reference_pass(r)]
    profile_pass = [r for r in reference if r.profile.status == "pass"]
    relaxed_pass = [r for r in reference if (r.relaxed or r.profile).status == "pass"]

    def share(part: list[Row]) -> str:
        return f"{len(part) / len(reference):.0%}" if reference else "-"

    common = set.intersection(*(set(r.blockers) for r in rows if r.blockers)) if any(r.blockers for r in rows) else set()
    out = [
        BEGIN,
        "## Published packetdrill scripts (`validate/drill/published.py`)",
        "",
        f"The loss-recovery, congestion-control and slow-start scripts of packetdrill's own suite "
        f"(`gtests/net/tcp/`: {', '.join(AREAS)}) and of Linux 6.17's self-tests "
        f"(`tools/testing/selftests/net/packetdrill/tcp_{{{','.join(SELFTEST_AREAS)}}}_*`), "
        f"played as written on kernel {kernel_version()}: packetdrill in a fresh network namespace, "
        "IPv4, without the self-tests' command-line options (`ksft_runner.sh` adds addresses and `-D` "
        "symbols these scripts do not use, an IPv6 run with `--mtu=1520`, and `--tolerance_usecs=14000` on a "
        "slow machine: `rtolab drill` has no way to pass such options). The scripts are not in this repository "
        "(`--tree`; see the module's docstring). `relaxed` plays the script with the init command's refused "
        "lines and `setsockopt(SO_SNDBUF)` dropped: what the profile does next, not a pass of the script.",
        "",
        f"- scripts: {len(rows)}; passing on the kernel in {runs} runs out of {runs}, by "
        f"{'packetdrill' if packetdrill else '`rtolab drill --kernel`'}: **{len(reference)}**",
        f"- of those, passing on the `linux` profile as written: **{len(profile_pass)}** ({share(profile_pass)}; target {TARGET:.0%})",
        f"- of those, passing on the `linux` profile relaxed: {len(relaxed_pass)} ({share(relaxed_pass)})",
    ]
    disagree: list[Row] = []
    other_line: list[Row] = []
    if packetdrill and kernel:
        for r in rows:
            assert r.packetdrill is not None
            pd_pass, rk_pass = passes(r.packetdrill) * 2 > runs, passes(r.kernel) * 2 > runs
            if pd_pass != rk_pass:
                disagree.append(r)
            elif not pd_pass and _first_line(r.packetdrill) != _first_line(r.kernel):
                other_line.append(r)
        out.append(f"- scripts on which `rtolab drill --kernel` and packetdrill disagree (pass in most runs or not): **{len(disagree)}**; "
                   f"both fail, at different lines or with a different status: {len(other_line)}")
    out += ["", "| script | packetdrill | rtolab --kernel | linux | linux, relaxed | why the profile does not pass |", "| --- | --- | --- | --- | --- | --- |"]
    groups: dict[str, list[str]] = defaultdict(list)
    relaxed_groups: dict[str, list[str]] = defaultdict(list)
    blocker_count: Counter[str] = Counter()
    for r in rows:
        why = []
        if r.profile.status != "pass":
            group, sentence = reason(r.name, r.profile)
            extra = [b for b in dict.fromkeys(r.blockers) if b not in common]
            if group == SKIP_GROUPS[0][1]:
                sentence = "skip: the init command (`defaults.sh`" + (", and " + "; ".join(extra) if extra else "") + ")"
            why.append(sentence)
            if reference_pass(r):
                groups[group].append(r.name)
                blocker_count.update(list(dict.fromkeys(r.blockers)))
            if r.relaxed is not None:
                if r.relaxed.status == "pass":
                    why.append("relaxed: pass")
                else:
                    rgroup, rsentence = reason(r.name, r.relaxed)
                    why.append(f"relaxed: {rsentence}")
                    if reference_pass(r):
                        relaxed_groups[rgroup].append(r.name)
        out.append(f"| `{r.name}` | {runs_cell(r.packetdrill)} | {runs_cell(r.kernel)} | {outcome_cell(r.profile)} | {outcome_cell(r.relaxed)} | {_escape(' — '.join(why))} |")

    def listing(found: dict[str, list[str]]) -> list[str]:
        return [f"- {_escape(g)}: **{len(n)}** ({', '.join(f'`{x}`' for x in n)})" for g, n in sorted(found.items(), key=lambda g: (-len(g[1]), g[0]))]

    out += ["", f"### Why the profile does not pass, over the {len(reference)} scripts passing on the kernel", "", "As written:", ""]
    out += listing(groups)
    if blocker_count:
        out += ["", "Lines of the init commands the simulated stack refuses (`rtolab/drill/sysctls.py`), and how many of these scripts each stops:", ""]
        out += [f"- {_escape(b)}: {n}" for b, n in blocker_count.most_common()]
    out += ["", "Relaxed (what stops the profile next):", ""]
    out += listing(relaxed_groups)
    for title, found in (("disagree", disagree), ("both fail, not at the same line", other_line)):
        if not found:
            continue
        by_cause: dict[str, list[str]] = defaultdict(list)
        for r in found:
            assert r.packetdrill is not None
            by_cause[kernel_cause(r.kernel)].append(f"`{r.name}` (packetdrill {runs_cell(r.packetdrill)}; rtolab {runs_cell(r.kernel)})")
        out += ["", f"### `rtolab drill --kernel` and packetdrill: {title}", ""]
        out += [f"- {_escape(cause)}: **{len(names)}**: {'; '.join(names)}" for cause, names in sorted(by_cause.items(), key=lambda c: -len(c[1]))]
    out += [END, ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, required=True, help="the directory holding the scripts (see above)")
    parser.add_argument("--out", type=Path, default=HERE.parent.parent / "docs" / "drill.md")
    parser.add_argument("--runs", type=int, default=3, help="how many times each script is played on the kernel")
    parser.add_argument("--packetdrill", help="packetdrill's binary: also play each script with it, as the reference")
    parser.add_argument("--no-kernel", action="store_true", help="play the profile only")
    args = parser.parse_args()
    kernel = not args.no_kernel and unavailable() is None
    rows = measure(args.tree.resolve(), args.runs, args.packetdrill if kernel else None, kernel)
    replace_section(args.out, BEGIN, END, section(rows, args.runs, bool(args.packetdrill) and kernel, kernel))
    print(f"published-script results written to {args.out}")


if __name__ == "__main__":
    main()
