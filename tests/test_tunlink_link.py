"""The reference emulator's link (validate/tunlink/link.py, issue 26) does what the spec's
"2Mbps / 70ms / droptail 24p" says in rtolab (crates/rtolab-sim/src/net/queue.rs,
transmitter.rs, propagation.rs): at most 24 packets wait while one is serialised, each IP
datagram takes 8·bytes / rate, then 70 ms on the wire."""

import importlib.util
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("tunlink_link", Path(__file__).parents[1] / "validate" / "tunlink" / "link.py")
assert spec and spec.loader
link = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = link  # dataclasses look their module up
spec.loader.exec_module(link)

MS = 1_000_000


def test_one_packet_takes_its_serialisation_then_the_delay() -> None:
    d = link.Direction(2_000_000, 70 * MS, 24)
    assert d.offer(0, bytes(1500))
    assert d.advance(76 * MS - 1) == []
    assert [t for t, _ in d.advance(76 * MS)] == [76 * MS]  # 1500 B at 2 Mbit/s = 6 ms


def test_the_limit_counts_waiting_packets_not_the_one_being_sent() -> None:
    d = link.Direction(2_000_000, 70 * MS, 24)
    accepted = [d.offer(0, bytes(1500)) for _ in range(26)]
    assert accepted.count(True) == 25 and d.drops == 1
    wire = link.Direction(2_000_000, 70 * MS, 24, count_wire=True)
    assert [wire.offer(0, bytes(1500)) for _ in range(26)].count(True) == 24


def test_a_backlog_leaves_back_to_back_at_the_rate() -> None:
    d = link.Direction(2_000_000, 70 * MS, 24)
    for _ in range(3):
        d.offer(0, bytes(1500))
    assert [t for t, _ in d.advance(200 * MS)] == [76 * MS, 82 * MS, 88 * MS]
    assert d.sent == 3
