"""A reference TUN emulator for one duplex link, independent of rtolab (issue 26): two network
namespaces, a TUN device in each, and this process between them moving every IP datagram
through `link.Direction` — forward (data) and reverse (ACKs) alike — in real time.

    sudo python validate/tunlink/run.py --flows 6 --size 30000 --iw 3 --runs 3

The kernel is set up as `rtolab emulate` sets it up (crates/rtolab-emu/src/run.rs): IPv6
off, tcp_no_metrics_save = 1, tcp_sack and tcp_timestamps in both namespaces, a route to the
peer with `initcwnd`, MTU 1500, the congestion control per socket. Each flow's completion is
measured two ways: from the application's connect() call (what rtolab reports: start_s is
connect(), end_s the release of the ACK of the last data byte into the sender's TUN) and
from its first SYN entering the link.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from link import Direction  # noqa: E402

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
PORT, BASE = 5001, 20000
ADDR = ("10.78.0.1", "10.78.0.2")
APPS = str(Path(__file__).parent / "apps.py")


def sh(*args: str) -> None:
    subprocess.run(args, check=True)


def tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def setup(tag: str, iw: int, sack: bool, ts: bool) -> tuple[list[str], list[int]]:
    """Two namespaces, each with a TUN device made here and moved into it."""
    names, fds = [], []
    for i, role in enumerate(("snd", "rcv")):
        ns, dev = f"tunlink-{tag}-{role}", f"tl{tag}{i}"
        sh("ip", "netns", "add", ns)
        fds.append(tun(dev))
        sh("ip", "link", "set", dev, "netns", ns)
        for key, value in [
            ("ipv6/conf/all/disable_ipv6", "1"),
            ("ipv6/conf/default/disable_ipv6", "1"),
            ("ipv4/tcp_no_metrics_save", "1"),
            ("ipv4/tcp_sack", str(int(sack))),
            ("ipv4/tcp_timestamps", str(int(ts))),
        ]:
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", f"net.{key.replace('/', '.')}={value}")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "link", "set", dev, "mtu", "1500", "up")
        sh("ip", "-n", ns, "addr", "add", ADDR[i], "peer", f"{ADDR[1 - i]}/32", "dev", dev)
        route = ["ip", "-n", ns, "route", "replace", f"{ADDR[1 - i]}/32", "dev", dev]
        if i == 0 and iw:
            route += ["initcwnd", str(iw)]
        sh(*route)
        names.append(ns)
    return names, fds


def tcp_fields(p: bytes) -> dict[str, int] | None:
    if len(p) < 20 or p[0] >> 4 != 4 or p[9] != 6:
        return None
    ihl = (p[0] & 15) * 4
    total = struct.unpack("!H", p[2:4])[0]
    sport, dport, seq, ack, off_flags = struct.unpack("!HHIIH", p[ihl : ihl + 14])
    doff = (off_flags >> 12) * 4
    return {"sport": sport, "dport": dport, "seq": seq, "ack": ack, "flags": off_flags & 0x3F, "len": total - ihl - doff}


def forward(fds: list[int], dirs: list[Direction], sender: subprocess.Popen[str], log: list[tuple]) -> None:
    """Moves packets until the sender has exited (and 0.5 s more). log rows: (event, dir,
    virtual time ns, real time ns, fields)."""
    ctypes.CDLL(None).prctl(29, 1000, 0, 0, 0)  # PR_SET_TIMERSLACK: 1 µs
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))  # as rtolab's forwarder (sched(7))
    end_at = None
    while end_at is None or time.monotonic_ns() < end_at:
        if end_at is None and sender.poll() is not None:
            end_at = time.monotonic_ns() + 500_000_000
        now = time.monotonic_ns()
        for d, link in enumerate(dirs):
            for due, pkt in link.advance(now):
                os.write(fds[1 - d], pkt)
                log.append(("out", d, due, time.monotonic_ns(), tcp_fields(pkt)))
        nexts = [t for t in (link.next_event() for link in dirs) if t is not None]
        wait = max(0, min(nexts) - time.monotonic_ns()) / 1e9 if nexts else 0.02
        ready, _, _ = select.select(fds, [], [], min(wait, 0.02))
        for fd in ready:
            d = fds.index(fd)
            while True:
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                now = time.monotonic_ns()
                for dd, link in enumerate(dirs):  # what is due first, as its time came first
                    for due, q in link.advance(now):
                        os.write(fds[1 - dd], q)
                        log.append(("out", dd, due, time.monotonic_ns(), tcp_fields(q)))
                ok = dirs[d].offer(now, pkt)
                log.append(("in" if ok else "drop", d, now, now, tcp_fields(pkt)))


def receiver_complete(log: list[tuple], sport: int, isn: int, size: int) -> int:
    """Real time at which the receiver's kernel had every data byte in order."""
    have: list[tuple[int, int]] = []
    for r in log:
        f = r[4]
        if r[0] != "out" or r[1] != 0 or not f or f["sport"] != sport or f["len"] == 0:
            continue
        seq = (f["seq"] - isn - 1) & 0xFFFFFFFF
        have.append((seq, seq + f["len"]))
        have.sort()
        upto = 0
        for a, b in have:
            if a > upto:
                break
            upto = max(upto, b)
        if upto >= size:
            return r[3]
    raise ValueError(f"flow {sport} never completed")


def analyse(log: list[tuple], apps: list[dict], size: int) -> dict:
    flows = {}
    for a in apps:
        sport = a["sport"]
        syn = next(r for r in log if r[0] == "in" and r[1] == 0 and r[4] and r[4]["sport"] == sport and r[4]["flags"] & 2)
        isn = syn[4]["seq"]
        want = (isn + 1 + size) & 0xFFFFFFFF
        acked = next(
            r for r in log
            if r[0] == "out" and r[1] == 1 and r[4] and r[4]["dport"] == sport and r[4]["flags"] & 16
            and ((r[4]["ack"] - want) & 0xFFFFFFFF) < 1 << 31
        )
        data = [r for r in log if r[1] == 0 and r[4] and r[4]["sport"] == sport and r[4]["len"] > 0 and r[0] != "out"]
        received = receiver_complete(log, sport, isn, size)
        seen, rexmit = set(), 0
        for r in data:
            if r[4]["seq"] in seen:
                rexmit += 1
            seen.add(r[4]["seq"])
        flows[sport] = {
            "from_connect_s": (acked[3] - a["connect"]) / 1e9,
            "from_syn_s": (acked[3] - syn[2]) / 1e9,
            "received_from_connect_s": (received - a["connect"]) / 1e9,
            "connect_to_syn_ms": (syn[2] - a["connect"]) / 1e6,
            "data_packets": len(data),
            "retransmits": rexmit,
            "drops": sum(1 for r in data if r[0] == "drop"),
        }
    late = sorted(r[3] - r[2] for r in log if r[0] == "out")
    return {
        "slowest_from_connect_s": max(f["from_connect_s"] for f in flows.values()),
        "slowest_from_syn_s": max(f["from_syn_s"] for f in flows.values()),
        "slowest_received_from_connect_s": max(f["received_from_connect_s"] for f in flows.values()),
        "retransmits": sum(f["retransmits"] for f in flows.values()),
        "drops_forward": sum(1 for r in log if r[0] == "drop" and r[1] == 0),
        "drops_reverse": sum(1 for r in log if r[0] == "drop" and r[1] == 1),
        "lateness_us_median_p99_max": [late[len(late) // 2] / 1e3, late[int(len(late) * 0.99)] / 1e3, late[-1] / 1e3],
        "flows": flows,
    }


def tcpext(ns: str) -> dict[str, int]:
    text = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/net/netstat"], capture_output=True, text=True, check=True).stdout
    lines = [l.split() for l in text.splitlines() if l.startswith("TcpExt:")]
    return dict(zip(lines[0][1:], map(int, lines[1][1:])))


def one_run(args: argparse.Namespace, tag: str) -> dict:
    names, fds = setup(tag, args.iw, args.sack, args.timestamps)
    try:
        dirs = [
            Direction(args.rate, args.delay_ms * 1_000_000, args.limit, args.count_wire, args.overhead),
            Direction(args.rate, args.delay_ms * 1_000_000, args.limit, args.count_wire, args.overhead),
        ]
        if args.ack_path == "free":  # ACKs only delayed, never queued or serialised
            dirs[1] = Direction(10**12, args.delay_ms * 1_000_000, 10**9)
        recv = subprocess.Popen(["ip", "netns", "exec", names[1], sys.executable, APPS, "receive", str(PORT)])
        time.sleep(0.3)
        cmd = ["ip", "netns", "exec", names[0], sys.executable, APPS, "send", ADDR[1], str(PORT), str(args.flows), str(args.size), args.cc, str(BASE)]
        sender = subprocess.Popen(cmd + (["--nodelay"] if args.nodelay else []) + (["--cork"] if args.cork else []) + [f"--stagger-ms={args.stagger_ms}"], stdout=subprocess.PIPE, text=True)
        log: list[tuple] = []
        forward(fds, dirs, sender, log)
        apps = [json.loads(l) for l in sender.stdout.read().splitlines()] if sender.stdout else []
        ext = tcpext(names[0])
        recv.kill()
        recv.wait()
        out = analyse(log, apps, args.size)
        out["tcpext"] = {k: ext.get(k, 0) for k in ("TCPTimeouts", "TCPLossProbes", "TCPSackRecovery", "TCPRenoRecovery", "TCPSACKReorder", "TCPLostRetransmit", "TCPSpuriousRTOs")}
        return out
    finally:
        for fd in fds:
            os.close(fd)
        for ns in names:
            subprocess.run(["ip", "netns", "del", ns])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flows", type=int, default=6)
    ap.add_argument("--size", type=int, default=30000, help="bytes per flow")
    ap.add_argument("--iw", type=int, default=3)
    ap.add_argument("--cc", default="reno")
    ap.add_argument("--rate", type=int, default=2_000_000, help="bit/s")
    ap.add_argument("--delay-ms", type=int, default=70, help="one-way, each direction")
    ap.add_argument("--limit", type=int, default=24, help="packets waiting (see --count-wire)")
    ap.add_argument("--count-wire", action="store_true", help="the packet being serialised counts toward --limit")
    ap.add_argument("--overhead", type=int, default=0, help="bytes serialised per packet beyond the IP datagram")
    ap.add_argument("--ack-path", choices=["link", "free"], default="link", help="free: ACKs are only delayed")
    ap.add_argument("--nodelay", action="store_true")
    ap.add_argument("--stagger-ms", type=float, default=0.0, help="flow k connects k times this later")
    ap.add_argument("--cork", action="store_true", help="TCP_CORK before the write: the FIN rides on the last data segment")
    ap.add_argument("--no-sack", dest="sack", action="store_false")
    ap.add_argument("--no-timestamps", dest="timestamps", action="store_false")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print every run's full result")
    args = ap.parse_args()
    for i in range(args.runs):
        r = one_run(args, f"{os.getpid() % 10000}{i}")
        brief = {k: v for k, v in r.items() if k != "flows"}
        print(json.dumps(r if args.json else brief), flush=True)


if __name__ == "__main__":
    main()
