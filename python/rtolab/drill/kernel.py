"""The machine's own TCP as a drill back end (``rtolab drill --kernel``).

Each script is played in a process of its own, in a private network namespace
(:mod:`rtolab.drill.device`): the script's system calls are made on real sockets, its inbound
packets are written to a TUN device as the peer's, and what the kernel sends is sniffed on that
device with the kernel's own time stamps and checked on the wall clock, with packetdrill's
tolerance. The clock starts 250 µs after a kernel tick, as packetdrill's does
(``run.c``: ``schedule_start_time_usecs``), so jiffy-rounded timers land where they land under
packetdrill. Shell commands run with ``/bin/sh -c`` in the script's directory, with
``PACKETDRILL_PID`` set as packetdrill sets it, so their sysctls set the namespace's own TCP.

Sequence numbers are kept in the script's numbering (:mod:`rtolab.drill.backend`): the
kernel's ISN, learned from its SYN or SYN-ACK, is taken off what it sends and put on the ACK
and SACK numbers the script sends it; the peer's numbers are the script's own.
"""

from __future__ import annotations

import errno
import json
import os
import platform
import select
import socket as pysocket
import struct
import subprocess
import sys
import time
from pathlib import Path

from rtolab.drill import packets, tcp_info
from rtolab.drill.backend import Refused, Sent, Skip, check_result
from rtolab.drill.device import LOCAL_IP, PACKET_OUTGOING, REMOTE_IP, SO_TIMESTAMPNS, enter_private_namespace, open_sniffer, open_tun, unavailable
from rtolab.drill.play import Outcome, play_on
from rtolab.drill.script import Int, Name, Syscall
from rtolab.drill.wire import FLAG_BITS, Segment

#: packetdrill's default port of a bound socket (``config.c``: ``bind_port``) and the
#: peer's port.
LOCAL_PORT = 8080
REMOTE_PORT = 48_620
#: How long ``accept()`` waits for the kernel to finish a handshake it was just given.
ACCEPT_WAIT_S = 0.05
#: How long a ``*`` outbound packet is waited for.
ANY_TIME_WAIT_NS = 10_000_000_000
#: How long one script may take in its process: the longest of the suite waits out the
#: kernel's 300 s minimum-RTT window (``min-rtt-window.pkt``).
SCRIPT_TIMEOUT_S = 600
#: packetdrill starts its clock this long after a tick of ``times(2)`` (``run.c``).
START_AFTER_TICK_NS = 250_000
#: Socket option levels by the names scripts use (``symbols_linux.c``).
LEVELS = {"SOL_SOCKET": pysocket.SOL_SOCKET, "IPPROTO_TCP": pysocket.IPPROTO_TCP, "SOL_TCP": pysocket.IPPROTO_TCP, "IPPROTO_IP": pysocket.IPPROTO_IP, "SOL_IP": pysocket.IPPROTO_IP}
MOD32 = 1 << 32


def kernel_version() -> str:
    return platform.release()


class KernelStack:
    """The kernel's TCP behind a TUN device, on the wall clock (0 at the first event)."""

    def __init__(self, tun: int, sniffer: pysocket.socket, directory: Path) -> None:
        self.tun = tun
        self.sniffer = sniffer
        self.directory = directory
        self.sockets: dict[int, pysocket.socket] = {}
        self.last_fd: int | None = None
        self.t0: int | None = None
        self.realtime_offset = 0
        self.local_isn: int | None = None
        self.remote_isn = 0
        self.ip_id = 0
        self.ends = packets.Endpoints(LOCAL_IP, LOCAL_PORT, REMOTE_IP, REMOTE_PORT)

    def clock(self) -> int:
        """Script time now, in ns; the first call starts the clock."""
        if self.t0 is None:
            self.t0 = _start_after_tick()
            self.realtime_offset = time.time_ns() - time.monotonic_ns()
            while time.monotonic_ns() < self.t0:
                pass
        return time.monotonic_ns() - self.t0

    def now(self) -> int | None:
        return self.clock()

    def command(self, command: str, directory: Path) -> None:
        env = {**os.environ, "PACKETDRILL_PID": str(os.getpid())}
        done = subprocess.run(["/bin/sh", "-c", command], cwd=directory, capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            raise Refused(f"command exited with status {done.returncode}: {command.strip()!r}: {done.stderr.strip()}")

    def poll(self, limit: float) -> list[Sent] | None:
        if limit == float("inf"):
            limit = self.clock() + ANY_TIME_WAIT_NS
        while True:
            wait = limit - self.clock()
            if wait <= 0:
                return None
            readable, _, _ = select.select([self.sniffer.fileno(), self.tun], [], [], wait / 1e9)
            if self.tun in readable:
                self._drain_device()
            if self.sniffer.fileno() in readable:
                sent = self._sniff_all()
                if sent:
                    return sent

    def _drain_device(self) -> None:
        """Reads what the kernel queued on the device, so that its transmit path completes
        as it does for a NIC (packetdrill's ``local_netdev_read_queue``); the sniffer has
        the packets and their times."""
        while True:
            try:
                os.read(self.tun, 70_000)
            except BlockingIOError:
                return

    def _sniff_all(self) -> list[Sent]:
        sent: list[Sent] = []
        while True:
            try:
                data, ancillary, _, address = self.sniffer.recvmsg(70_000, pysocket.CMSG_SPACE(16))
            except BlockingIOError:
                return sent
            if address[2] != PACKET_OUTGOING:
                continue
            decoded = packets.decode(data)
            if decoded is None or decoded[0].remote_ip != REMOTE_IP:
                continue
            self.ends = packets.Endpoints(LOCAL_IP, decoded[0].local_port, REMOTE_IP, REMOTE_PORT)
            sent.append((self._stamp(ancillary), self._to_script(decoded[1])))

    def _stamp(self, ancillary: list[tuple[int, int, bytes]]) -> int:
        """Script time of a sniffed packet: the kernel's time stamp, else now."""
        for level, kind, data in ancillary:
            if level == pysocket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                seconds, nanoseconds = struct.unpack("qq", data[:16])
                assert self.t0 is not None
                return int(seconds) * 1_000_000_000 + int(nanoseconds) - self.realtime_offset - self.t0
        return self.clock()

    def _to_script(self, seg: Segment) -> Segment:
        if seg["flags"] & FLAG_BITS["S"]:
            self.local_isn = seg["seq"]
        isn = self.local_isn or 0
        return {**seg, "seq": (seg["seq"] - isn) % MOD32, "ack": (seg["ack"] - self.remote_isn) % MOD32}

    def inbound(self, now: int, seg: Segment) -> list[Sent]:
        if seg["flags"] & FLAG_BITS["S"]:
            self.remote_isn = seg["seq"]
        isn = self.local_isn or 0
        options = [(k, [(v + isn) % MOD32 for v in vs]) if k == "sack" else (k, vs) for k, vs in seg["options"]]
        ack = (seg["ack"] + isn) % MOD32 if seg["flags"] & FLAG_BITS["."] else 0
        self.ip_id += 1
        os.write(self.tun, packets.encode({**seg, "ack": ack, "options": options}, self.ends, self.ip_id))
        return []

    def socket(self, fd: int) -> None:
        self.clock()
        self.sockets[fd] = pysocket.socket(pysocket.AF_INET, pysocket.SOCK_STREAM)

    def _sock(self, fd: int) -> pysocket.socket:
        if fd not in self.sockets:
            raise Refused(f"bad file descriptor {fd}: no socket() or accept() gave it")
        return self.sockets[fd]

    def setsockopt(self, fd: int, level: str, name: str, value: int | str) -> None:
        level_number = LEVELS.get(level)
        option = getattr(pysocket, name, None)
        if level_number is None or not isinstance(option, int):
            raise Skip(f"setsockopt({level}, {name}): not a socket option rtolab knows")
        try:
            self._sock(fd).setsockopt(level_number, option, value.encode() if isinstance(value, str) else value)
        except OSError as e:
            raise Refused(f"setsockopt({level}, {name}, {value!r}) failed: {e.strerror}") from None

    def bind(self, fd: int) -> None:
        self._sock(fd).bind((LOCAL_IP, LOCAL_PORT))

    def listen(self, fd: int) -> None:
        self._sock(fd).listen(16)

    def accept(self, fd: int, new_fd: int) -> bool:
        listener = self._sock(fd)
        if not select.select([listener], [], [], ACCEPT_WAIT_S)[0]:
            return False
        conn, _ = listener.accept()
        conn.setblocking(False)
        self.sockets[new_fd] = conn
        self.last_fd = new_fd
        return True

    def write(self, now: int, fd: int, size: int) -> tuple[int, list[Sent]]:
        sock = self._sock(fd)
        sock.setblocking(False)
        try:
            return sock.send(bytes(size)), []
        except BlockingIOError:
            return -1, []

    def tcp_info(self, fd: int | None) -> dict[str, int]:
        fd = self.last_fd if fd is None else fd
        if fd is None or fd not in self.sockets:
            return {}
        return tcp_info.read(self.sockets[fd])

    def other(self, now: int, call: Syscall) -> list[Sent]:
        fd = call.args[0].value if call.args and isinstance(call.args[0], Int) else None
        if fd is None or call.name not in ("close", "shutdown", "read", "recv", "connect"):
            raise Skip(f"{call.name}()")
        sock = self._sock(fd)
        if call.name == "connect":
            sock.setblocking(False)
            result = sock.connect_ex((REMOTE_IP, REMOTE_PORT))
            expected = call.result.value if isinstance(call.result, Int) else None
            got = 0 if result == 0 else -1
            if expected is not None and got != expected:
                raise Refused(f"connect(): expected result {expected} but got {got} ({errno.errorcode.get(result, result)})")
            if got == -1 and call.errno is not None and errno.errorcode.get(result) != call.errno:
                raise Refused(f"connect(): expected errno {call.errno} but got {errno.errorcode.get(result, result)}")
            self.last_fd = fd
        elif call.name == "close":
            sock.close()
            del self.sockets[fd]
        elif call.name == "shutdown":
            how = call.args[1] if len(call.args) > 1 else None
            sock.shutdown(getattr(pysocket, how.symbol) if isinstance(how, Name) else pysocket.SHUT_WR)
        else:
            size = call.args[2] if len(call.args) > 2 else None
            try:
                got = len(sock.recv(size.value if isinstance(size, Int) else 65536))
            except BlockingIOError:
                got = -1
                if call.errno not in (None, "EAGAIN", "EWOULDBLOCK"):
                    raise Refused(f"{call.name}() = -1 EAGAIN, expected {call.errno}") from None
            check_result(call, got)
        return []


def play_script(path: Path) -> Outcome:
    """Plays one script against the kernel in this process, which it moves into a private
    network namespace (call it in a process of its own: :func:`play_all`)."""
    from rtolab.drill import parse_file

    script = parse_file(path)
    enter_private_namespace()
    tun = open_tun()
    stack = KernelStack(tun, open_sniffer(), path.parent)
    return play_on(script, stack, realtime=True)


def _start_after_tick() -> int:
    """A monotonic time 250 µs after the next tick of ``times(2)``, which counts the kernel's
    jiffies (packetdrill's ``schedule_start_time_usecs``)."""
    tick = os.times().elapsed
    while os.times().elapsed == tick:
        pass
    return time.monotonic_ns() + START_AFTER_TICK_NS


def play_all(paths: list[Path]) -> list[Outcome]:
    """Plays each script against the kernel in a process and namespace of its own."""
    reason = unavailable()
    if reason is not None:
        raise RuntimeError(reason)
    outcomes = []
    for path in paths:
        try:
            done = subprocess.run([sys.executable, "-m", "rtolab.drill.kernel", str(path)], capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            outcomes.append(Outcome(str(path), "fail", f"the script ran longer than {SCRIPT_TIMEOUT_S} s"))
            continue
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines:
            detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            outcomes.append(Outcome(str(path), "fail", f"playing against the kernel failed: {detail}"))
            continue
        record = json.loads(lines[-1])
        outcomes.append(Outcome(record["script"], record["status"], record["message"], record["line"]))
    return outcomes


def _main(argv: list[str]) -> int:
    outcome = play_script(Path(argv[0]))
    print(json.dumps(outcome.to_dict()))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(_main(sys.argv[1:]))
    except OSError as e:
        print(f"{e.strerror or e} ({errno.errorcode.get(e.errno or 0, e.errno)})", file=sys.stderr)
        sys.exit(1)
