//! `TCP_INFO` of a kernel socket (include/uapi/linux/tcp.h, struct tcp_info, as of Linux
//! 6.7, which added tcpi_total_rto). The kernel copies as much as it has; the length it
//! returns says which trailing fields are valid.

use rtolab_sim::SimTime;
use std::os::fd::AsRawFd;

/// Linux's `TCP_INFINITE_SSTHRESH`.
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// `tcp_ca_state`: TCP_CA_CWR, TCP_CA_Recovery and TCP_CA_Loss.
pub const CA_CWR: u8 = 2;
pub const CA_RECOVERY: u8 = 3;
pub const CA_LOSS: u8 = 4;
/// `tcpi_state` TCP_FIN_WAIT2: our FIN, hence every byte before it, was acknowledged.
pub const STATE_FIN_WAIT2: u8 = 5;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RawTcpInfo {
    state: u8,
    ca_state: u8,
    retransmits: u8,
    probes: u8,
    backoff: u8,
    options: u8,
    wscale: u8,
    app_limited: u8,
    rto: u32,
    ato: u32,
    snd_mss: u32,
    rcv_mss: u32,
    unacked: u32,
    sacked: u32,
    lost: u32,
    retrans: u32,
    fackets: u32,
    last_data_sent: u32,
    last_ack_sent: u32,
    last_data_recv: u32,
    last_ack_recv: u32,
    pmtu: u32,
    rcv_ssthresh: u32,
    rtt: u32,
    rttvar: u32,
    snd_ssthresh: u32,
    snd_cwnd: u32,
    advmss: u32,
    reordering: u32,
    rcv_rtt: u32,
    rcv_space: u32,
    total_retrans: u32,
    pacing_rate: u64,
    max_pacing_rate: u64,
    bytes_acked: u64,
    bytes_received: u64,
    segs_out: u32,
    segs_in: u32,
    notsent_bytes: u32,
    min_rtt: u32,
    data_segs_in: u32,
    data_segs_out: u32,
    delivery_rate: u64,
    busy_time: u64,
    rwnd_limited: u64,
    sndbuf_limited: u64,
    delivered: u32,
    delivered_ce: u32,
    bytes_sent: u64,
    bytes_retrans: u64,
    dsack_dups: u32,
    reord_seen: u32,
    rcv_ooopack: u32,
    snd_wnd: u32,
    rcv_wnd: u32,
    rehash: u32,
    total_rto: u16,
    total_rto_recoveries: u16,
    total_rto_time: u32,
}

/// Offset just past `tcpi_total_rto_recoveries`.
const WITH_TOTAL_RTO: usize = 244;
/// Offset just past `tcpi_dsack_dups`.
const WITH_DSACK_DUPS: usize = 220;

/// One reading of a socket's state, at `t`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub t: SimTime,
    pub state: u8,
    pub ca_state: u8,
    pub mss: u32,
    pub cwnd_bytes: u64,
    /// `None` while ssthresh is infinite (before the first reduction).
    pub ssthresh_bytes: Option<u64>,
    pub srtt_us: u32,
    pub rttvar_us: u32,
    pub rto_us: u32,
    pub total_retrans: u32,
    pub lost: u32,
    pub sacked: u32,
    pub unacked: u32,
    pub dsack_dups: Option<u32>,
    /// Timeouts, SYN timeouts included (Linux ≥ 6.7).
    pub total_rto: Option<u16>,
    pub total_rto_recoveries: Option<u16>,
    /// `tcpi_pacing_rate`, bytes/s (`None`: unlimited, ~0).
    pub pacing_rate: Option<u64>,
}

/// Reads `TCP_INFO` of `socket` at time `t`.
pub fn read(socket: &impl AsRawFd, t: SimTime) -> std::io::Result<Sample> {
    let mut raw = RawTcpInfo::default();
    let mut len = std::mem::size_of::<RawTcpInfo>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `raw`, a plain C struct.
    let rc = unsafe { libc::getsockopt(socket.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_INFO, &mut raw as *mut RawTcpInfo as *mut libc::c_void, &mut len) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let len = len as usize;
    let mss = raw.snd_mss.max(1);
    Ok(Sample {
        t,
        state: raw.state,
        ca_state: raw.ca_state,
        mss,
        cwnd_bytes: raw.snd_cwnd as u64 * mss as u64,
        ssthresh_bytes: (raw.snd_ssthresh < INFINITE_SSTHRESH).then(|| raw.snd_ssthresh as u64 * mss as u64),
        srtt_us: raw.rtt,
        rttvar_us: raw.rttvar,
        rto_us: raw.rto,
        pacing_rate: (raw.pacing_rate != u64::MAX).then_some(raw.pacing_rate),
        total_retrans: raw.total_retrans,
        lost: raw.lost,
        sacked: raw.sacked,
        unacked: raw.unacked,
        dsack_dups: (len >= WITH_DSACK_DUPS).then_some(raw.dsack_dups),
        total_rto: (len >= WITH_TOTAL_RTO).then_some(raw.total_rto),
        total_rto_recoveries: (len >= WITH_TOTAL_RTO).then_some(raw.total_rto_recoveries),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout matches the kernel's: 248 bytes up to tcpi_total_rto_time (Linux 6.7).
    #[test]
    fn struct_layout_matches_the_kernel() {
        assert_eq!(std::mem::size_of::<RawTcpInfo>(), 248);
        assert_eq!(std::mem::offset_of!(RawTcpInfo, rto), 8);
        assert_eq!(std::mem::offset_of!(RawTcpInfo, pacing_rate), 104);
        assert_eq!(std::mem::offset_of!(RawTcpInfo, dsack_dups) + 4, WITH_DSACK_DUPS);
        assert_eq!(std::mem::offset_of!(RawTcpInfo, total_rto_recoveries) + 2, WITH_TOTAL_RTO);
    }
}
