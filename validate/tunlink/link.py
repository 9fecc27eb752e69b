"""One direction of the link, as plainly as it can be written: a DropTail FIFO of at most
`limit` packets waiting, one transmitter that serialises one IP datagram at a time at `rate`
bit/s, then a fixed one-way propagation `delay`. Times are integer nanoseconds.

This is the reference the rtolab emulator is checked against (issue 26), so it shares no
code with rtolab. Variants that the issue's emulator may have used instead are switches:
`count_wire` (the packet being serialised counts toward `limit`) and `overhead` (bytes
serialised per packet on top of the IP datagram, e.g. 14 for an Ethernet header).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class Direction:
    rate_bps: int
    delay_ns: int
    limit: int
    count_wire: bool = False
    overhead: int = 0
    waiting: deque[bytes] = field(default_factory=deque)
    # The packet being serialised and when its last bit is sent (virtual time).
    sending: bytes | None = None
    tx_end: int = 0
    # Packets on the wire: (due time at the far end, packet), in order.
    wire: deque[tuple[int, bytes]] = field(default_factory=deque)
    drops: int = 0
    sent: int = 0

    def tx_time(self, pkt: bytes) -> int:
        return (len(pkt) + self.overhead) * 8 * 1_000_000_000 // self.rate_bps

    def offer(self, now: int, pkt: bytes) -> bool:
        """A packet arrives at `now`: onto an idle transmitter, else into the FIFO if it has
        room, else dropped (returns False)."""
        if self.sending is None:
            self._start(now, pkt)
            return True
        held = len(self.waiting) + (1 if self.count_wire else 0)
        if held >= self.limit:
            self.drops += 1
            return False
        self.waiting.append(pkt)
        return True

    def _start(self, at: int, pkt: bytes) -> None:
        self.sending = pkt
        self.tx_end = at + self.tx_time(pkt)

    def next_event(self) -> int | None:
        times = []
        if self.sending is not None:
            times.append(self.tx_end)
        if self.wire:
            times.append(self.wire[0][0])
        return min(times) if times else None

    def advance(self, now: int) -> list[tuple[int, bytes]]:
        """Runs every event due by `now` in time order; returns the packets that reached the far
        end, with their due times."""
        out: list[tuple[int, bytes]] = []
        while True:
            t = self.next_event()
            if t is None or t > now:
                return out
            if self.wire and self.wire[0][0] == t:
                out.append(self.wire.popleft())
                continue
            assert self.sending is not None
            self.wire.append((self.tx_end + self.delay_ns, self.sending))
            self.sent += 1
            done = self.tx_end
            self.sending = None
            if self.waiting:
                self._start(done, self.waiting.popleft())
