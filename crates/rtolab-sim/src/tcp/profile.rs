//! Named stacks: every default of a real TCP stack (or of a simulator's agent), each of which
//! a spec can still override field by field. The values are written beside each setting's
//! declaration (`settings.rs`); this file names the stacks and cites where their values come
//! from.
//!
//! Sources:
//! - `rtolab` (no `stack` given): rtolab's own defaults, unchanged from earlier versions
//!   (SACK, timestamps, IW per RFC 6928, delayed ACKs, RFC 6298 timer), with the RFCs read
//!   literally where they speak (RFC 6675 duplicate ACKs, RFC 5681 3.2 FlightSize).
//! - `rfc`: RFC 5681, 6582, 6675, 6298, 3042 and 2018 read literally: IW per RFC 3390
//!   (RFC 5681 3.1), one segment after a lost SYN or SYN-ACK, no timestamps (RFC 6298 Karn
//!   sampling), RFC 6298 (5.7) fallback, SACK kept after a timeout (RFC 6675 5.1).
//! - `linux`: Linux 6.x defaults: CUBIC (`CONFIG_DEFAULT_TCP_CONG`) and packet-counted
//!   window arithmetic for every controller (`tcp_cong.c`), IW 10, timestamps, SACK
//!   and DSACK, delayed ACKs, `rto = "linux"`, `tcp_frto = 2` (SACK-enhanced F-RTO), undo on
//!   timestamps (`tcp_packet_delayed`) and DSACK (`undo_retrans`), cwnd grown only while
//!   cwnd-limited (`tcp_is_cwnd_limited`), IW 1 after two retransmitted SYNs unless the SYN-ACK
//!   answers the first (`tcp_init_transfer`, `tcp_try_undo_spurious_syn`), RACK-TLP
//!   (`tcp_recovery` 1, `tcp_early_retrans` 3), PRR (`tcp_cwnd_reduction`), and the receiver's
//!   quick ACKs and adaptive delayed-ACK timeout (`quickack.rs`).
//! - `freebsd`: IW 10, SACK, timestamps, delayed ACKs, `rto = "freebsd"` (30 ms floor,
//!   200 ms slop), the timestamp-based "bad retransmit" undo (Eifel detection, undo).
//! - `ns3`: ns-3.44's defaults, read from the library's attributes: `SegmentSize` 536,
//!   `InitialCwnd` 10 (also after a lost SYN), SACK, timestamps, `DelAckCount` 2 /
//!   `DelAckTimeout` 200 ms, `LimitedTransmit`, `ReTxThreshold` 3, `rto = "ns3"` (`MinRto`
//!   1 s, `ClockGranularity` 1 ms, no RFC 6298 (5.7) fallback), `ConnTimeout` 3 s for the
//!   SYN, a 128 KiB receive buffer (244 segments of 536 B), no spurious-timeout detection.
//!   ns-3.44 defaults to CUBIC with PRR; this stack runs Reno with RFC 6675 recovery unless
//!   the spec says `cc = "cubic"`, `recovery = "prr"` (rtolab's are Linux's, whose details
//!   differ from ns-3's `TcpCubic` and `TcpPrrRecovery`).
//! - `ns2-sack1`, `ns2-newreno`: ns-2.35's `Agent/TCP/Sack1` and `Agent/TCP/Newreno` with
//!   `TCPSink/Sack1` and `TCPSink` (`tcp/tcp.cc`, `tcp-sack1.cc`, `tcp-newreno.cc`,
//!   `tcp-sink.cc`, `tcl/lib/ns-default.tcl`): windowInit_ 2, window_ 20, packet-counted
//!   fractional cwnd, ssthresh from min(cwnd, window_), ns-2's integer RTO on a 10 ms clock,
//!   3 s initial RTO, go-back-N with the scoreboard cleared after a timeout, no timestamps,
//!   no delayed ACKs, limited transmit (`singledup_` 1), no DSACK, F-RTO off.

pub use super::settings::Profile;
use schemars::JsonSchema;
use serde::Deserialize;

/// A named stack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Stack {
    #[default]
    Rtolab,
    Rfc,
    Linux,
    Freebsd,
    Ns3,
    #[serde(rename = "ns2-sack1")]
    Ns2Sack1,
    #[serde(rename = "ns2-newreno")]
    Ns2Newreno,
}

impl Stack {
    /// Every default this stack sets: each setting's value for it in the table of
    /// `settings.rs`.
    pub fn profile(self) -> Profile {
        super::settings::defaults(self)
    }
}
