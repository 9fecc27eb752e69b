"""`rtolab drill --kernel`: the same interpreter against this machine's TCP, in a private
network namespace behind a TUN device. A script that holds passes; every hand-written
mismatch of `tests/test_drill_play.py` fails at the same line with the same words on the
kernel as on the `linux` profile, so the kernel back end cannot pass what it should fail.

The kernel's defaults differ from the profile's (default congestion control `bbr`, the host's
`tcp_rmem[2]`), so each script first sets CUBIC and the 6 MB `tcp_rmem[2]` the expected
packets assume. Needs root and /dev/net/tun, and CUBIC among the host's
`net.ipv4.tcp_allowed_congestion_control` (a network namespace may select only those;
`make validate` adds it); skips with the reason otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtolab.drill.device import unavailable
from rtolab.drill.kernel import play_all
from rtolab.drill.play import Outcome
from test_drill_play import GOOD_TAIL, MISMATCHES, script

ALLOWED = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")


def _cubic_not_allowed() -> str | None:
    """Why a namespace cannot select CUBIC here, or None when it can."""
    try:
        allowed = ALLOWED.read_text().split()
    except OSError as e:
        return f"{ALLOWED} cannot be read: {e.strerror}"
    return None if "cubic" in allowed else f"cubic is not in {ALLOWED} ({' '.join(allowed)}); make validate adds it"


pytestmark = [
    pytest.mark.skipif(unavailable() is not None, reason=f"the kernel back end is unavailable: {unavailable()}"),
    pytest.mark.skipif(_cubic_not_allowed() is not None, reason=f"the scripts select CUBIC: {_cubic_not_allowed()}"),
]
#: GOOD_TAIL with the RTO as a range: the kernel's RTT sample is the wall-clock time of the
#: handshake (100 ms and a fraction), and its RTO is counted in jiffies (4 ms at HZ 250).
KERNEL_GOOD_TAIL = GOOD_TAIL.replace("tcpi_rto == 300000", "300000 <= tcpi_rto <= 312000")
INIT = '`sysctl -q net.ipv4.tcp_congestion_control=cubic net.ipv4.tcp_rmem="4096 131072 6291456"`'


def on_kernel(tmp_path: Path, texts: list[str]) -> list[Outcome]:
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"case{i}.pkt"
        path.write_text(text)
        paths.append(path)
    return play_all(paths)


def test_the_kernel_passes_a_script_that_holds_and_fails_each_mismatch(tmp_path: Path) -> None:
    outcomes = on_kernel(tmp_path, [script(KERNEL_GOOD_TAIL, init=INIT)] + [script(tail, init=INIT) for tail, _, _ in MISMATCHES])
    assert (outcomes[0].status, outcomes[0].message) == ("pass", "")
    for (tail, line, words), result in zip(MISMATCHES, outcomes[1:]):
        assert (result.status, result.line) == ("fail", line), (tail, result)
        assert words in result.message, (tail, result)


def test_a_failing_shell_command_fails_the_script(tmp_path: Path) -> None:
    [result] = on_kernel(tmp_path, [script(KERNEL_GOOD_TAIL, init="`sysctl -q net.ipv4.no_such_setting=1`")])
    assert result.status == "fail" and "command exited with status" in result.message
