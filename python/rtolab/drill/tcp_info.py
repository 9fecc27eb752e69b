"""``struct tcp_info`` of a kernel socket (``include/uapi/linux/tcp.h``, as of Linux 6.7),
read with ``getsockopt(IPPROTO_TCP, TCP_INFO)``: the fields a ``%{ }%`` block or a
``getsockopt`` line may name. The kernel copies as much of the struct as it has; fields past
the length it returns are left out."""

from __future__ import annotations

import socket
import struct

#: (name, struct format) in the struct's order; ``B`` fields packed in bits are split below.
FIELDS: tuple[tuple[str, str], ...] = (
    ("tcpi_state", "B"), ("tcpi_ca_state", "B"), ("tcpi_retransmits", "B"), ("tcpi_probes", "B"),
    ("tcpi_backoff", "B"), ("tcpi_options", "B"), ("_wscale", "B"), ("_app_limited", "B"),
    ("tcpi_rto", "I"), ("tcpi_ato", "I"), ("tcpi_snd_mss", "I"), ("tcpi_rcv_mss", "I"),
    ("tcpi_unacked", "I"), ("tcpi_sacked", "I"), ("tcpi_lost", "I"), ("tcpi_retrans", "I"), ("tcpi_fackets", "I"),
    ("tcpi_last_data_sent", "I"), ("tcpi_last_ack_sent", "I"), ("tcpi_last_data_recv", "I"), ("tcpi_last_ack_recv", "I"),
    ("tcpi_pmtu", "I"), ("tcpi_rcv_ssthresh", "I"), ("tcpi_rtt", "I"), ("tcpi_rttvar", "I"),
    ("tcpi_snd_ssthresh", "I"), ("tcpi_snd_cwnd", "I"), ("tcpi_advmss", "I"), ("tcpi_reordering", "I"),
    ("tcpi_rcv_rtt", "I"), ("tcpi_rcv_space", "I"), ("tcpi_total_retrans", "I"),
    ("tcpi_pacing_rate", "Q"), ("tcpi_max_pacing_rate", "Q"), ("tcpi_bytes_acked", "Q"), ("tcpi_bytes_received", "Q"),
    ("tcpi_segs_out", "I"), ("tcpi_segs_in", "I"), ("tcpi_notsent_bytes", "I"), ("tcpi_min_rtt", "I"),
    ("tcpi_data_segs_in", "I"), ("tcpi_data_segs_out", "I"), ("tcpi_delivery_rate", "Q"),
    ("tcpi_busy_time", "Q"), ("tcpi_rwnd_limited", "Q"), ("tcpi_sndbuf_limited", "Q"),
    ("tcpi_delivered", "I"), ("tcpi_delivered_ce", "I"), ("tcpi_bytes_sent", "Q"), ("tcpi_bytes_retrans", "Q"),
    ("tcpi_dsack_dups", "I"), ("tcpi_reord_seen", "I"), ("tcpi_rcv_ooopack", "I"), ("tcpi_snd_wnd", "I"),
    ("tcpi_rcv_wnd", "I"), ("tcpi_rehash", "I"), ("tcpi_total_rto", "H"), ("tcpi_total_rto_recoveries", "H"),
    ("tcpi_total_rto_time", "I"),
)
_FORMAT = "=" + "".join(f for _, f in FIELDS)


def read(sock: socket.socket) -> dict[str, int]:
    """The socket's ``tcp_info``, fields by name (as many as the kernel filled)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, struct.calcsize(_FORMAT))
    info: dict[str, int] = {}
    offset = 0
    for name, fmt in FIELDS:
        size = struct.calcsize("=" + fmt)
        if offset + size > len(raw):
            break
        info[name] = struct.unpack_from("=" + fmt, raw, offset)[0]
        offset += size
    wscale = info.pop("_wscale", 0)
    info["tcpi_snd_wscale"], info["tcpi_rcv_wscale"] = wscale & 0x0F, wscale >> 4
    flags = info.pop("_app_limited", 0)
    info["tcpi_delivery_rate_app_limited"] = flags & 0x01
    info["tcpi_fastopen_client_fail"] = (flags >> 1) & 0x03
    return info
