"""The ``sysctl`` settings a script may make, as settings of a simulated stack.

A script's shell commands (its init command, timed back-quoted commands, and the lines of a
shell file such as the Linux self-tests' ``defaults.sh`` that a command runs) may set
``net.ipv4`` sysctls. Those that select a behaviour rtolab models map to a field of the
flow's ``tcp`` table (``docs/tcp-stacks.md``); those that change nothing a script can see in
the simulated socket (metrics caching, memory limits, the qdisc) are accepted and ignored;
any other command makes the script *skipped*, with the command as the reason.
Sources: ``Documentation/networking/ip-sysctl.rst`` of Linux.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The simulated socket's ``tcp_rmem`` (least, initial, largest receive buffer) for a script
#: that sets none: Linux's default until 6.15, which the scripts here and the interpreter's
#: tests assume (a 6.18 namespace starts from 4096 131072 33554432, scale 10 where this gives
#: 7; the kernel tests set it). The initial and largest set the window offered and its scale.
DEFAULT_RMEM = (4096, 131072, 6 * 1024 * 1024)

#: Sysctls without effect on the simulated socket: metrics caching (no earlier connection
#: is remembered), memory limits, the send buffer (the application writes at once), the
#: qdisc, the ECN and fast-open switches when off.
IGNORED = {
    "tcp_no_metrics_save", "tcp_wmem", "tcp_mem", "tcp_min_tso_segs", "tcp_pacing_ss_ratio",
    "tcp_pacing_ca_ratio", "tcp_autocorking", "tcp_tso_win_divisor",
    "tcp_syncookies", "tcp_min_snd_mss", "ip_local_port_range",
    # Limits a script does not reach (how many SYN or SYN-ACK retransmissions before giving
    # up), switches without effect since Linux 4.15 (FACK), on what the socket does not
    # model (when a write blocks, fast open: a script that uses it is skipped by its
    # options), and the AccECN option, which needs ECN (off).
    "tcp_syn_retries", "tcp_synack_retries", "tcp_fack", "tcp_notsent_lowat", "tcp_fastopen",
    "tcp_fastopen_key", "tcp_ecn_option",
}


#: The F-RTO detectors (``docs/tcp-stacks.md``): RFC 5682's and Linux's.
FRTO_DETECTORS = ("frto", "frto-linux")


class Unsupported(Exception):
    """A command the simulated stack cannot honour: the script is skipped with this reason."""


@dataclass
class StackSettings:
    """The ``tcp`` table of the simulated socket and its receive buffer (``tcp_rmem``). Detectors are
    turned on or off (``detectors``) relative to those the stack runs, which only the core
    knows: :meth:`tcp_with` applies them to that list."""

    tcp: dict[str, Any] = field(default_factory=dict)
    rmem: tuple[int, int, int] = DEFAULT_RMEM
    detectors: dict[str, bool] = field(default_factory=dict)
    #: ``tcp_frto``: None when not set; off removes whichever F-RTO the stack runs, on keeps
    #: it or adds RFC 5682's when it runs none.
    frto: bool | None = None

    def tcp_with(self, running: list[str]) -> dict[str, Any]:
        """The ``tcp`` table, its ``detect`` list being ``running`` (the stack's detectors)
        with the sysctls' changes; unchanged when no sysctl named a detector."""
        if not self.detectors and self.frto is None:
            return self.tcp
        kept = [d for d in running if self.detectors.get(d, True) and not (self.frto is False and d in FRTO_DETECTORS)]
        added = [d for d, on in self.detectors.items() if on and d not in kept]
        if self.frto and not any(d in kept for d in FRTO_DETECTORS):
            added.append("frto")
        return {**self.tcp, "detect": kept + added}

    def apply_cubic(self, name: str, value: str) -> None:
        """Applies a parameter of the ``tcp_cubic`` module (``tcp_cubic.c``'s
        ``module_param``s): ``hystart`` on or off, and ``hystart_detect`` 3 (both of HyStart's
        detectors, the default) or 0 (neither: HyStart off); anything else is
        :class:`Unsupported`."""
        if (name, value) in (("hystart", "1"), ("hystart_detect", "3")):
            self.tcp["hystart"] = True
        elif (name, value) in (("hystart", "0"), ("hystart_detect", "0")):
            self.tcp["hystart"] = False
        else:
            raise Unsupported(f"tcp_cubic module parameter {name}={value}")

    def apply(self, name: str, value: str) -> None:
        """Applies ``net.ipv4.<name> = value``; raises :class:`Unsupported` for a name or a
        value rtolab does not model."""
        words = value.split()
        number = int(words[0]) if words and re.fullmatch(r"-?\d+", words[0]) else None
        if name in IGNORED:
            return
        if name == "tcp_sack" and number in (0, 1):
            self.tcp["sack"] = number == 1
        elif name == "tcp_dsack" and number in (0, 1):
            self.tcp["dsack"] = number == 1
            self.detectors["dsack"] = number == 1
        elif name == "tcp_timestamps" and number in (0, 1):
            self.tcp["timestamps"] = number == 1
        elif name == "tcp_frto" and number in (0, 1, 2):
            self.frto = number != 0
        elif name == "tcp_early_retrans" and number in (0, 3, 4):
            self.tcp["tlp"] = number != 0
        elif name == "tcp_recovery" and number in (0, 1):
            self.tcp["rack"] = number == 1
        elif name == "tcp_reordering" and number is not None and number > 0:
            self.tcp["dupthresh"] = number
        elif name == "tcp_congestion_control" and value in ("reno", "cubic"):
            self.tcp["cc"] = value
        elif name == "tcp_rmem" and len(words) == 3 and all(w.isdigit() for w in words):
            self.rmem = (int(words[0]), int(words[1]), int(words[2]))
        elif name in ("tcp_slow_start_after_idle", "tcp_fastopen", "tcp_ecn", "tcp_shrink_window") and number == 0:
            return
        elif name == "tcp_moderate_rcvbuf" and number == 1:
            return
        else:
            raise Unsupported(f"sysctl net.ipv4.{name}={value}")


_SYSCTL = re.compile(r"^(?:net\.ipv4\.|/proc/sys/net/ipv4/)([a-z_0-9]+)$")
#: Output redirections a set-up line may carry (``> /dev/null 2>&1``).
_REDIRECT = re.compile(r"\s*\d?>\s*(?:/dev/null|&\d)")
#: Shell arithmetic in a value (``$((15*1024*1024))``): integers and + - * / ( ).
_ARITHMETIC = re.compile(r"\$\(\(([\d\s+\-*/()]+)\)\)")


def _arithmetic(text: str) -> str:
    """``text`` with each ``$((...))`` replaced by its value, as the shell computes it
    (integers; ``/`` truncates)."""
    def value(match: re.Match[str]) -> str:
        expression = match.group(1).replace("/", "//")
        return str(int(eval(compile(expression, "<arithmetic>", "eval"), {"__builtins__": {}})))  # noqa: S307 - digits and + - * / ( ) only, by the pattern
    return _ARITHMETIC.sub(value, text)


def run_command(settings: StackSettings, command: str, directory: Path) -> None:
    """Applies a shell command line by line: ``sysctl -q -w net.ipv4.x=v`` (or ``-qw``,
    several assignments), ``echo v > /proc/sys/net/ipv4/x``, a shell file run as
    ``./file``, ``sh file`` or ``source file`` (its lines, recursively), comments and empty
    lines; ``ip tcp_metrics flush`` and ``tc qdisc ...`` are accepted and do nothing (the
    simulated socket remembers no earlier connection and has no qdisc: a script that depends
    on fq's pacing differs); anything else is :class:`Unsupported`."""
    for raw in command.replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0].strip().rstrip(";").strip()
        if not line:
            continue
        for part in (p.strip() for p in line.split("&&")):
            _run_one(settings, part, directory)


def _run_one(settings: StackSettings, line: str, directory: Path) -> None:
    line = _arithmetic(_REDIRECT.sub("", line))
    try:
        words = shlex.split(line)
    except ValueError:
        raise Unsupported(f"command {line!r}") from None
    if not words:
        return
    if words[0].endswith("set_sysctls.py"):
        # The Linux self-tests' helper: each argument is ``/proc/sys/...=value``.
        for a in words[1:]:
            key, _, value = a.partition("=")
            match = _SYSCTL.match(key)
            if not match:
                raise Unsupported(f"set_sysctls.py {key}")
            settings.apply(match.group(1), value)
        return
    if words[0] == "sysctl":
        assignments = [w for w in words[1:] if not w.startswith("-")]
        if not assignments:
            raise Unsupported(f"command {line!r}")
        for a in assignments:
            key, _, value = a.partition("=")
            match = _SYSCTL.match(key.strip())
            if not match:
                raise Unsupported(f"sysctl {key}")
            settings.apply(match.group(1), value.strip().strip('"'))
        return
    echo = re.fullmatch(r"echo\s+(.+?)\s*>\s*(\S+)", line)
    if echo:
        value = echo.group(1).strip().strip('"')
        cubic = re.fullmatch(r"/sys/module/tcp_cubic/parameters/([a-z_]+)", echo.group(2))
        if cubic:
            settings.apply_cubic(cubic.group(1), value)
            return
        match = _SYSCTL.match(echo.group(2))
        if not match:
            raise Unsupported(f"command {line!r}")
        settings.apply(match.group(1), value)
        return
    if words[:3] == ["ip", "tcp_metrics", "flush"]:
        return  # no earlier connection is remembered
    if words[:2] == ["tc", "qdisc"]:
        return  # the socket sends straight onto the wire: no qdisc, no pacing
    if words[0] in ("sh", "bash", "source", ".") and len(words) == 2:
        shell_file: str | None = words[1]
    elif words[0].startswith(("./", "../")):
        shell_file = words[0]
    else:
        shell_file = None
    if shell_file is not None:
        path = (directory / shell_file).resolve()
        if not path.is_file():
            raise Unsupported(f"command {line!r} (no file {path})")
        text = path.read_text()
        shebang = text.splitlines()[0] if text.startswith("#!") else ""
        if shebang and not re.search(r"\b(?:ba)?sh\b", shebang):
            raise Unsupported(f"command {line!r} (not a shell file: {shebang})")
        run_command(settings, text, path.parent)
        return
    raise Unsupported(f"command {line!r}")
