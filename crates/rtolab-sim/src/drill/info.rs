//! The fields of Linux's `struct tcp_info` (`include/uapi/linux/tcp.h`, filled by
//! `tcp_get_info` in `net/ipv4/tcp.c`) that a script may assert on, from a simulated
//! sender's state. Units as the kernel's: windows in segments, times in µs.

/// `tcpi_ca_state` values (`enum tcp_ca_state`, `include/net/tcp.h`).
pub const TCP_CA_OPEN: u8 = 0;
pub const TCP_CA_DISORDER: u8 = 1;
pub const TCP_CA_CWR: u8 = 2;
pub const TCP_CA_RECOVERY: u8 = 3;
pub const TCP_CA_LOSS: u8 = 4;

/// `TCP_INFINITE_SSTHRESH`: ssthresh before any reduction.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    pub tcpi_ca_state: u8,
    /// Consecutive timeouts of the current episode (`icsk_retransmits`).
    pub tcpi_retransmits: u8,
    /// Exponential back-off of the RTO (`icsk_backoff`).
    pub tcpi_backoff: u8,
    pub tcpi_rto: u32,
    pub tcpi_snd_mss: u32,
    /// Segments sent and not cumulatively acknowledged (`packets_out`).
    pub tcpi_unacked: u32,
    pub tcpi_sacked: u32,
    pub tcpi_lost: u32,
    /// Retransmitted segments still outstanding (`retrans_out`).
    pub tcpi_retrans: u32,
    pub tcpi_rtt: u32,
    pub tcpi_rttvar: u32,
    pub tcpi_snd_ssthresh: u32,
    pub tcpi_snd_cwnd: u32,
    pub tcpi_reordering: u32,
    pub tcpi_total_retrans: u32,
    /// `tcp_min_rtt` in µs: the least RTT of the last 300 s (0 before a sample).
    pub tcpi_min_rtt: u32,
    /// The receiving half (Linux's window with the `linux` profile, else 0): `rcv_ssthresh`,
    /// `rcvq_space.space`, the window last offered, the peer's MSS guess and the receiver's
    /// RTT estimate in µs.
    pub tcpi_rcv_ssthresh: u32,
    pub tcpi_rcv_space: u32,
    pub tcpi_rcv_wnd: u32,
    pub tcpi_rcv_mss: u32,
    pub tcpi_rcv_rtt: u32,
}

impl TcpInfo {
    /// `(name, value)` pairs, in `struct tcp_info`'s order, for an interpreter's namespace.
    pub fn fields(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("tcpi_ca_state", self.tcpi_ca_state as u64),
            ("tcpi_retransmits", self.tcpi_retransmits as u64),
            ("tcpi_backoff", self.tcpi_backoff as u64),
            ("tcpi_rto", self.tcpi_rto as u64),
            ("tcpi_snd_mss", self.tcpi_snd_mss as u64),
            ("tcpi_unacked", self.tcpi_unacked as u64),
            ("tcpi_sacked", self.tcpi_sacked as u64),
            ("tcpi_lost", self.tcpi_lost as u64),
            ("tcpi_retrans", self.tcpi_retrans as u64),
            ("tcpi_rtt", self.tcpi_rtt as u64),
            ("tcpi_rttvar", self.tcpi_rttvar as u64),
            ("tcpi_snd_ssthresh", self.tcpi_snd_ssthresh as u64),
            ("tcpi_snd_cwnd", self.tcpi_snd_cwnd as u64),
            ("tcpi_reordering", self.tcpi_reordering as u64),
            ("tcpi_total_retrans", self.tcpi_total_retrans as u64),
            ("tcpi_min_rtt", self.tcpi_min_rtt as u64),
            ("tcpi_rcv_ssthresh", self.tcpi_rcv_ssthresh as u64),
            ("tcpi_rcv_space", self.tcpi_rcv_space as u64),
            ("tcpi_rcv_wnd", self.tcpi_rcv_wnd as u64),
            ("tcpi_rcv_mss", self.tcpi_rcv_mss as u64),
            ("tcpi_rcv_rtt", self.tcpi_rcv_rtt as u64),
        ]
    }
}
