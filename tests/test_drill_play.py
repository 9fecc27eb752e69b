"""`rtolab drill` against the simulated stacks: a script that holds passes; each kind of
mismatch fails at its line with packetdrill's wording; what the simulated socket does not
model skips the script naming it; the sysctls a script sets reach the stack.

The expected packets are worked by hand from the Linux sources each test cites (the `linux`
profile runs them): a SYN offering MSS 1000, SACK and window scale 7 is answered
`<mss 1460,nop,nop,sackOK,nop,wscale 7>` (`tcp_options_write`; scale = ilog2 of the 6 MB
`tcp_rmem[2]` − 15 = 7); the ACK 100 ms later is the first RTT sample, so SRTT = 100 ms,
RTTVAR = 50 ms and RTO = 300 ms (RFC 6298 (2.2)); a 10 000-byte write leaves at once as IW 10
segments of 1000 bytes (RFC 6928), PSH on the last (`tcp_push`); with no ACK the loss probe
follows 2·SRTT + 2 jiffies = 208 ms later (`tcp_schedule_loss_probe`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from rtolab.drill import parse
from rtolab.drill.play import play

HEAD = """--tolerance_usecs=10000
{init}
0      socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0     setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0
+0     bind(3, ..., ...) = 0
+0     listen(3, 1) = 0
+0     < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0     > S. 0:0(0) ack 1 {synack}
+.1    < . 1:1(0) ack 1 win 257
+0     accept(3, ..., ...) = 4
+0     write(4, ..., 10000) = 10000
"""
SYNACK = "<mss 1460,nop,nop,sackOK,nop,wscale 7>"
GOOD_TAIL = """+0     > P. 1:10001(10000) ack 1
+.208  > P. 9001:10001(1000) ack 1
+0     %{ assert tcpi_snd_cwnd == 10 and tcpi_unacked == 10 and tcpi_rto == 300000 }%
"""


def script(tail: str, init: str = "", synack: str = SYNACK) -> str:
    return HEAD.format(init=init, synack=synack) + tail


def outcome(text: str, stack: str = "linux", path: str = "t.pkt"):
    return play(parse(text, path), stack)


def test_a_script_that_holds_passes() -> None:
    result = outcome(script(GOOD_TAIL))
    assert (result.status, result.message) == ("pass", "")


#: One script per kind of mismatch: (tail after HEAD, the failing line, words of the message).
#: ``tests/test_drill_kernel.py`` plays the same against the kernel.
MISMATCHES = [
    # the probe resends 9001:10001, not 8001:9001
    ("+0 > P. 1:10001(10000) ack 1\n+.208 > P. 8001:9001(1000) ack 1\n", 13, "live packet field tcp_seq: expected: 8001 vs actual: 9001"),
    # the probe carries PSH (it ends the data written)
    ("+0 > P. 1:10001(10000) ack 1\n+.208 > . 9001:10001(1000) ack 1\n", 13, "live packet field flags: expected: . vs actual: P."),
    # the probe leaves 208 ms after the write, not 100 ms (tolerance max(10 ms, 12.5 % of 100 ms));
    # the expected time counts from when the burst left, 0.1 s (a kernel: plus microseconds)
    ("+0 > P. 1:10001(10000) ack 1\n+.1 > P. 9001:10001(1000) ack 1\n", 13, "timing error: expected outbound packet at 0.20"),
    # everything is acknowledged: nothing more leaves
    ("+0 > P. 1:10001(10000) ack 1\n+.1 < . 1:1(0) ack 10001 win 257\n+0 > P. 10001:11001(1000) ack 1\n", 14, "timed out waiting for packet P. 10001:11001(1000) ack 1"),
    # IW 10, not 12
    ("+0 > P. 1:12001(12000) ack 1\n", 12, "live packet payload: expected 12000 bytes vs actual 10000 bytes"),
    # the window field is 64240 / 2^7 rounded up (`ALIGN` in `__tcp_select_window`): 502
    ("+0 > P. 1:10001(10000) ack 1 win 500\n", 12, "live packet field tcp_window: expected: 500 vs actual: 502"),
    # cwnd is 10 segments
    ("+0 > P. 1:10001(10000) ack 1\n+0 %{ assert tcpi_snd_cwnd == 4, tcpi_snd_cwnd }%\n", 13, "assertion failed in %{ }% block: 10"),
    # TCP_INFO read by getsockopt: the state is Open (0)
    ("+0 > P. 1:10001(10000) ack 1\n+0 getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_ca_state=TCP_CA_Loss}, [104]) = 0\n", 13, "tcpi_ca_state expected 4 vs actual 0"),
]


@pytest.mark.parametrize(("tail", "line", "words"), MISMATCHES)
def test_each_kind_of_mismatch_fails_at_its_line(tail: str, line: int, words: str) -> None:
    result = outcome(script(tail))
    assert (result.status, result.line) == ("fail", line), result
    assert words in result.message


def test_a_call_before_listen_fails_naming_it() -> None:
    result = outcome("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 accept(3, ..., ...) = 4\n")
    assert (result.status, result.line) == ("fail", 2) and "no socket is listening" in result.message


def test_wrong_syn_ack_options_fail_at_the_syn_ack() -> None:
    result = outcome(script(GOOD_TAIL, synack="<mss 1460,sackOK,nop,nop,nop,wscale 7>"))
    assert (result.status, result.line) == ("fail", 8)
    assert "TCP options" in result.message and "<mss 1460,nop,nop,sackOK,nop,wscale 7>" in result.message


def test_sysctls_reach_the_stack() -> None:
    # tcp_sack = 0: the SYN-ACK offers no SACK: <mss 1460,nop,wscale 7> (tcp_options_write);
    # tcp_rmem[2] = 15 MB: ilog2(15728640) − 15 = 8, so the window field is ⌈64240 / 256⌉ = 251.
    init = '`sysctl -q net.ipv4.tcp_sack=0\nsysctl -q net.ipv4.tcp_rmem="4096 131072 15728640"`'
    tail = "+0 > P. 1:10001(10000) ack 1 win 251\n"
    result = outcome(script(tail, init=init, synack="<mss 1460,nop,wscale 8>"))
    assert result.status == "pass", result


def test_detector_sysctls_change_the_stacks_own_detectors() -> None:
    # tcp_frto=0 takes F-RTO out of what the stack runs: the linux profile keeps its Eifel and
    # DSACK undos (tcp/settings.rs), the rfc profile, which runs none, gains none.
    import json

    from rtolab import _core
    from rtolab.drill.sysctls import StackSettings

    for stack, expected in (("linux", ["eifel", "dsack"]), ("rfc", [])):
        settings = StackSettings(tcp={"stack": stack})
        settings.apply("tcp_frto", "0")
        tcp = settings.tcp_with(_core.drill_detectors(json.dumps(settings.tcp)))
        assert tcp["detect"] == expected, stack
    assert _core.drill_detectors(json.dumps({"stack": "linux"})) == ["eifel", "frto-linux", "dsack"]


def test_a_defaults_file_the_script_runs_is_read(tmp_path: Path) -> None:
    (tmp_path / "defaults.sh").write_text("#!/bin/sh\nsysctl -q net.ipv4.tcp_no_metrics_save=1\nip tcp_metrics flush all > /dev/null 2>&1\nsysctl -q net.ipv4.tcp_early_retrans=0\n")
    # tcp_early_retrans = 0: no loss probe, so the first thing after the write is the timeout:
    # due at 100 + 300 ms = 100 jiffies of 4 ms, 75 ahead, it lands in the timer wheel's
    # level 1 (8-jiffy buckets, rounded up: (100 + 8) >> 3 = 13) and fires at 104 jiffies,
    # 416 ms, 316 ms after the write.
    text = script("+0 > P. 1:10001(10000) ack 1\n+.316 > . 1:1001(1000) ack 1\n", init="`./defaults.sh`")
    result = play(parse(text, str(tmp_path / "t.pkt")), "linux")
    assert result.status == "pass", result


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)\n", "connect()"),
        ("`sysctl -q net.ipv4.tcp_ecn=1`\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n", "sysctl net.ipv4.tcp_ecn=1"),
        (script("+.1 < P. 1:101(100) ack 1 win 257\n+0 read(4, ..., 1000) = 100\n+0 read(4, ..., 1000) = -1 EAGAIN (Resource temporarily unavailable)\n"), "a read with no data waiting"),
        ("0 socket(..., SOCK_DGRAM, IPPROTO_UDP) = 3\n", "not SOCK_STREAM"),
    ],
)
def test_what_is_not_modelled_skips_the_script(text: str, reason: str) -> None:
    result = outcome(text)
    assert result.status == "skip" and reason in result.message, result


def test_profiles_differ_where_their_stacks_do() -> None:
    # RFC 3390's IW for MSS 1000 is 4 segments: the first write leaves 4000 bytes.
    result = outcome(script(GOOD_TAIL), stack="rfc")
    assert (result.status, result.line) == ("fail", 12) and "actual 4000 bytes" in result.message


def _rtolab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rtolab", *args], capture_output=True, text=True, check=False)


def test_the_command_reports_and_exits_by_outcome(tmp_path: Path) -> None:
    good, bad, broken = tmp_path / "good.pkt", tmp_path / "bad.pkt", tmp_path / "broken.pkt"
    good.write_text(script(GOOD_TAIL))
    bad.write_text(script("+0 > P. 1:12001(12000) ack 1\n"))
    broken.write_text("0 socket(\n")
    ok = _rtolab("drill", "--json", str(good))
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "pass"
    junit = tmp_path / "report.xml"
    failed = _rtolab("drill", "--junit", str(junit), str(good), str(bad))
    assert failed.returncode == 1 and "1 passed, 1 failed, 0 skipped" in failed.stdout
    suite = ElementTree.parse(junit).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    unparsable = _rtolab("drill", str(broken))
    assert unparsable.returncode == 2 and unparsable.stderr.startswith("error:") and "broken.pkt:2:" in unparsable.stderr
    assert "Traceback" not in unparsable.stderr


def test_every_script_of_the_suite_passes_on_the_linux_profile() -> None:
    scripts = sorted(Path(__file__).parent.parent.joinpath("validate", "drill").glob("*.pkt"))
    assert scripts
    for path in scripts:
        result = play(parse(path.read_text(), str(path)), "linux")
        assert result.status == "pass", result


def test_published_set_up_lines_reach_the_stack(tmp_path: Path) -> None:
    # A suite's defaults file: shell arithmetic in tcp_rmem (15 MB: ilog2(15728640) - 15 = 8,
    # the SYN-ACK's wscale), redirections, settings without effect on the socket, and the
    # self-tests' set_sysctls.py helper (tcp_sack = 0: no sackOK offered). tcp_rmem[1] = 540000
    # sets the window of the first data segment: ⌊270000 / 1460⌋ · 1460 = 268640 bytes, not
    # capped at 64 KB since Linux 6.10, ⌈268640 / 256⌉ = 1050 (what kernel 6.18.44 sends).
    (tmp_path / "defaults.sh").write_text(
        "#!/bin/bash\nip tcp_metrics flush all > /dev/null 2>&1\n"
        'sysctl -q net.ipv4.tcp_rmem="4096 540000 $((15*1024*1024))"\n'
        "sysctl -q net.ipv4.tcp_syn_retries=5\nsysctl -q net.ipv4.tcp_fack=0\n"
        "sysctl -q net.ipv4.tcp_notsent_lowat=4294967295 > /dev/null 2>&1\n"
        "sysctl -q net.ipv4.tcp_fastopen=0x70403\ntc qdisc add dev tun0 root pfifo\n"
    )
    (tmp_path / "set_sysctls.py").write_text("#!/usr/bin/env python3\n")
    init = "`./defaults.sh && ./set_sysctls.py /proc/sys/net/ipv4/tcp_sack=0`"
    text = script("+0     > P. 1:10001(10000) ack 1 win 1050\n", init=init, synack="<mss 1460,nop,wscale 8>")
    result = play(parse(text, str(tmp_path / "t.pkt")), "linux")
    assert result.status == "pass", result


def test_a_python_file_run_as_a_command_is_not_read_as_shell(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("#!/usr/bin/env python3\nimport os\nprint('x' if os else 'y')\n")
    result = play(parse(script(GOOD_TAIL, init="`./helper.py`"), str(tmp_path / "t.pkt")), "linux")
    assert result.status == "skip" and "not a shell file" in result.message


def test_blocks_share_one_namespace_with_packetdrills_names() -> None:
    # packetdrill runs every %{ }% block in one Python program (code.c): a name set in one
    # block is seen by the next; TCP_ESTABLISHED and TCPI_OPT_SACK are among its names.
    tail = GOOD_TAIL + "+0     %{ first_cwnd = tcpi_snd_cwnd }%\n+0     %{ assert first_cwnd == 10 and TCP_ESTABLISHED == 1 and TCPI_OPT_SACK == 2 }%\n"
    assert outcome(script(tail)).status == "pass"


def test_close_sends_a_fin_and_the_peers_fin_is_acknowledged() -> None:
    # Linux tcp_send_fin with nothing unsent: a FIN of its own after the data (F. 10001:10001);
    # the peer's FIN, acknowledging it (ack 10002), is acknowledged at once (tcp_fin: ack 2).
    tail = ("+0 > P. 1:10001(10000) ack 1\n+.1 < . 1:1(0) ack 10001 win 257\n+.1 close(4) = 0\n"
            "+0 > F. 10001:10001(0) ack 1\n+.1 < F. 1:1(0) ack 10002 win 257\n+0 > . 10002:10002(0) ack 2\n")
    result = outcome(script(tail))
    assert result.status == "pass", result


def test_cubic_module_parameters_reach_the_stack() -> None:
    # tcp_cubic's hystart_detect 3 is its default (both detectors); 1 (one of them) is not modelled.
    assert outcome(script(GOOD_TAIL, init="`echo 3 > /sys/module/tcp_cubic/parameters/hystart_detect`")).status == "pass"
    skipped = outcome(script(GOOD_TAIL, init="`echo 1 > /sys/module/tcp_cubic/parameters/hystart_detect`"))
    assert skipped.status == "skip" and "hystart_detect=1" in skipped.message
