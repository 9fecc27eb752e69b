"""The applications of the reference emulator, run inside a namespace (`ip netns exec`):

    python apps.py receive PORT
    python apps.py send PEER PORT FLOWS SIZE CC [BASE_PORT] [--nodelay] [--cork] [--stagger-ms=X]

The sender opens FLOWS connections at once (one thread each, released together), each from
source port BASE_PORT + k (flow k X·k ms after the first), writes SIZE bytes in one `sendall`, half-closes and reads to the
end; it prints one JSON line per flow with the CLOCK_MONOTONIC times (ns) of the connect
call, of its return, and of the end of the write. The receiver reads each connection to EOF
and closes it.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time


def receive(port: int) -> None:
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(128)

    def drain(c: socket.socket) -> None:
        while c.recv(1 << 16):
            pass
        c.close()

    while True:
        c, _ = ls.accept()
        threading.Thread(target=drain, args=(c,), daemon=True).start()


def send(peer: str, port: int, flows: int, size: int, cc: str, base: int, nodelay: bool, cork: bool, stagger_ms: float) -> None:
    go = threading.Barrier(flows)
    out: list[dict[str, int]] = [{} for _ in range(flows)]

    def one(k: int) -> None:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        if nodelay:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", base + k))
        go.wait()
        time.sleep(k * stagger_ms / 1000)
        r = out[k]
        r["connect"] = time.monotonic_ns()
        s.connect((peer, port))
        r["established"] = time.monotonic_ns()
        if cork:  # tcp(7) TCP_CORK: the last partial segment waits, so the FIN rides on it
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
        s.sendall(bytes(size))
        r["written"] = time.monotonic_ns()
        s.shutdown(socket.SHUT_WR)
        while s.recv(1 << 16):
            pass
        r["eof"] = time.monotonic_ns()
        s.close()

    threads = [threading.Thread(target=one, args=(k,)) for k in range(flows)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, r in enumerate(out):
        print(json.dumps({"flow": k, "sport": base + k, **r}), flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "receive":
        receive(int(a[1]))
    else:
        rest = [x for x in a[1:] if not x.startswith("--")]
        send(rest[0], int(rest[1]), int(rest[2]), int(rest[3]), rest[4], int(rest[5]) if len(rest) > 5 else 20000, "--nodelay" in a, "--cork" in a, float(next((x.split("=")[1] for x in a if x.startswith("--stagger-ms=")), 0)))
