//! Named stacks: every default of a real TCP stack (or of a simulator's agent), each of which
//! a spec can still override field by field.
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

use super::recovery::RecoveryKind;
use super::rto::RtoConfig;
use super::policy::{DupAckRule, FastRetransmit, FlightSize, HandshakeEnd, RttSampling, TimerRestart};
use super::spurious::{DetectorName, Detectors, Response};
use super::cc::CcKind;
use super::initial_window::{InitialWindow, IwRule};
use super::rto::RtoPreset;
use crate::time::SimDuration;
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

/// Every default a stack sets.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The congestion control when the spec names none.
    pub cc: CcKind,
    /// Linux's packet-counted window arithmetic (`tcp_cong.c`) for every controller, Reno
    /// included; the other controllers always use it.
    pub linux_window: bool,
    pub sack: bool,
    pub dsack: bool,
    pub recovery: RecoveryKind,
    pub iw: InitialWindow,
    /// IW after a retransmitted SYN, in segments; `None` keeps the IW.
    pub iw_after_syn_loss: Option<u32>,
    /// ssthresh after a retransmitted SYN, in segments (ns-2 halves the SYN's window of 1 to
    /// its floor of 2).
    pub ssthresh_after_syn_loss: Option<u32>,
    /// SYN retransmissions before those two apply (`SenderConfig::syn_losses_for_window`).
    pub syn_losses_for_window: u32,
    /// Linux `tcp_try_undo_spurious_syn` (`SenderConfig::syn_undo_by_timestamp`).
    pub syn_undo_by_timestamp: bool,
    pub handshake: bool,
    pub timestamps: bool,
    pub limited_transmit: bool,
    pub dupthresh: u32,
    pub dupack_rule: DupAckRule,
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub delack_timeout: SimDuration,
    /// SACK blocks an ACK may carry at most (ns-2's sink: 3).
    pub max_sack_blocks: usize,
    pub rto: RtoPreset,
    /// The stack's first RTO when it differs from its timer preset's (ns-3 `ConnTimeout`).
    pub initial_rto: Option<SimDuration>,
    pub detect: Detectors,
    pub response: Response,
    pub cwnd_validation: bool,
    pub sack_after_timeout: bool,
    pub max_burst: Option<u32>,
    /// When duplicate ACKs start fast retransmit (`policy::FastRetransmit`).
    pub fast_retransmit: FastRetransmit,
    /// RACK loss detection (RFC 8985 6).
    pub rack: bool,
    /// Tail loss probes (RFC 8985 7).
    pub tlp: bool,
    /// Linux's ACK policy at the receiver (`quickack.rs`).
    pub linux_acks: bool,
    /// Where RTT samples come from (`policy::RttSampling`).
    pub rtt_sampling: RttSampling,
    /// When the retransmission timer restarts besides RFC 6298 (`policy::TimerRestart`).
    pub timer_restart: TimerRestart,
    /// The kernel's timer wheel runs the sender's and receiver's timers (`jiffies::Wheel`).
    pub timer_wheel: bool,
    /// What counts as in flight (`policy::FlightSize`).
    pub flight_size: FlightSize,
    /// How the handshake ends (`policy::HandshakeEnd`).
    pub handshake_end: HandshakeEnd,
    /// ns-2's packet-counted fractional window, capped at `window_` packets for reductions.
    pub ns2_window: bool,
    /// The receiver window when the spec gives none, in segments (ns-2 `window_` 20).
    pub default_window: Option<u32>,
    /// The MSS when the spec gives none (ns-2 `packetSize_` 1000, ns-3 `SegmentSize` 536).
    pub default_mss: u32,
}

impl Stack {
    pub fn profile(self) -> Profile {
        let ms = SimDuration::from_millis;
        let base = Profile {
            cc: CcKind::Reno,
            linux_window: false,
            sack: true,
            dsack: false,
            recovery: RecoveryKind::Sack,
            iw: InitialWindow::Rule(IwRule::Rfc6928),
            iw_after_syn_loss: None,
            ssthresh_after_syn_loss: None,
            syn_losses_for_window: 1,
            syn_undo_by_timestamp: false,
            handshake: true,
            timestamps: true,
            limited_transmit: true,
            dupthresh: 3,
            dupack_rule: DupAckRule::Rfc6675,
            delayed_ack: true,
            ack_every: 2,
            delack_timeout: ms(200),
            max_sack_blocks: 4,
            rto: RtoPreset::Rfc6298,
            initial_rto: None,
            detect: Detectors::NONE,
            response: Response::None,
            cwnd_validation: false,
            sack_after_timeout: false,
            max_burst: None,
            fast_retransmit: FastRetransmit::Rfc6582,
            rack: false,
            tlp: false,
            linux_acks: false,
            rtt_sampling: RttSampling::TimedSegment,
            timer_restart: TimerRestart::Rfc6298,
            timer_wheel: false,
            flight_size: FlightSize::Outstanding,
            handshake_end: HandshakeEnd::FirstData,
            ns2_window: false,
            default_window: None,
            default_mss: 1448,
        };
        let all = Detectors::of(&[DetectorName::Eifel, DetectorName::Frto, DetectorName::Dsack]);
        match self {
            Stack::Rtolab => base,
            Stack::Rfc => Profile {
                iw: InitialWindow::Rule(IwRule::Rfc3390),
                iw_after_syn_loss: Some(1),
                timestamps: false,
                sack_after_timeout: true,
                ..base
            },
            Stack::Linux => Profile {
                cc: CcKind::Cubic,
                linux_window: true,
                dsack: true,
                iw: InitialWindow::Segments(10),
                iw_after_syn_loss: Some(1),
                syn_losses_for_window: 2,
                syn_undo_by_timestamp: true,
                recovery: RecoveryKind::Prr,
                rack: true,
                tlp: true,
                linux_acks: true,
                rtt_sampling: RttSampling::EveryAck,
                timer_restart: TimerRestart::AlsoOnHeadRetransmit,
                timer_wheel: true,
                flight_size: FlightSize::PacketsInFlight,
                handshake_end: HandshakeEnd::PureAck,
                rto: RtoPreset::Linux,
                detect: all,
                response: Response::Undo,
                cwnd_validation: true,
                sack_after_timeout: true,
                ..base
            },
            Stack::Freebsd => Profile {
                iw: InitialWindow::Segments(10),
                rto: RtoPreset::Freebsd,
                detect: Detectors::of(&[DetectorName::Eifel]),
                response: Response::Undo,
                sack_after_timeout: true,
                ..base
            },
            Stack::Ns3 => Profile {
                iw: InitialWindow::Segments(10),
                rto: RtoPreset::Ns3,
                initial_rto: Some(SimDuration::from_secs(3)),
                default_window: Some(131_072 / 536),
                default_mss: 536,
                ..base
            },
            Stack::Ns2Sack1 | Stack::Ns2Newreno => Profile {
                sack: self == Stack::Ns2Sack1,
                recovery: if self == Stack::Ns2Sack1 { RecoveryKind::Ns2Sack1 } else { RecoveryKind::Ns2NewReno },
                iw: InitialWindow::Segments(2),
                iw_after_syn_loss: Some(1),
                ssthresh_after_syn_loss: Some(2),
                timestamps: false,
                dupack_rule: if self == Stack::Ns2Sack1 { DupAckRule::Rfc6675 } else { DupAckRule::Rfc5681 },
                delayed_ack: false,
                max_sack_blocks: 3,
                rto: RtoPreset::Ns2,
                ns2_window: true,
                fast_retransmit: FastRetransmit::NthDuplicate,
                default_window: Some(20),
                default_mss: 1000,
                ..base
            },
        }
    }
}

impl Profile {
    /// The timer of this profile (its preset, `preset` if the spec names another), before
    /// per-field overrides.
    pub fn rto_config(&self, preset: Option<RtoPreset>) -> RtoConfig {
        let mut c = RtoConfig::preset(preset.unwrap_or(self.rto));
        if let (None, Some(initial)) = (preset, self.initial_rto) {
            c.initial_rto = initial;
        }
        c
    }
}
