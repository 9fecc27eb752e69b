//! The data sender of a TCP connection, sans-IO: it takes `now` and a segment (or a timer
//! expiry) and appends the segments it sends to `out`; `next_wakeup()` says when its timer
//! fires. It never reads a clock or touches the scheduler.
//!
//! Three swappable parts do the protocol work: the congestion controller (`cc/`, owns cwnd
//! and ssthresh), loss recovery (`recovery/`, what fast recovery does to the window) and
//! spurious-timeout detection and response (`spurious/`). The sender keeps the sequence
//! space, the loss state (`LossState`), the SACK scoreboard, the RTO and the timer, and
//! saves what an undo needs before every reduction (`Episode`).
//!
//! Files: `ack.rs` (ACK processing), `loss.rs` (fast retransmit, timeouts, spurious
//! verdicts), `rack_tlp.rs` (RACK loss marking, tail loss probes, PRR's per-ACK window, the
//! timer's kinds), `transmit.rs` (what is sent and when).
//!
//! Sequence numbers count payload bytes from 0; segments are MSS-aligned.

mod ack;
mod fin;
mod loss;
mod paced;
mod rack_tlp;
mod rtt;
mod sack_cache;
mod transmit;

use fin::Fin;
use super::cc::{AnyCc, CcKind, CongestionControl, CubicParams, WindowArith, WindowCore};
use super::icmp_rto::{Expiry, IcmpRto, IcmpRtoConfig, IcmpRtoState, IcmpSignal, TimerChange};
use super::jiffies::Wheel;
use super::policy::{DupAckRule, FastRetransmit, FlightSize, HandshakeEnd, RttSampling, TimerRestart};
use super::rack::Rack;
use super::recovery::{AnyRecovery, RecoveryKind};
use super::rto::{RtoConfig, RtoEstimator};
use super::Round;
use super::scoreboard::{Geometry, Scoreboard};
use super::segment::{ts_now, Segment, FLAG_ACK, FLAG_SYN};
use super::spurious::{Detectors, Episode, Response};
use super::state::LossState;
use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

/// Everything that makes one stack's sender differ from another's.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    pub mss: u32,
    pub initial_window: u64,
    /// The initial window when the SYN or SYN-ACK had to be retransmitted (RFC 5681 3.1:
    /// one segment); `None` keeps `initial_window`.
    pub syn_loss_window: Option<u64>,
    /// ssthresh when the SYN had to be retransmitted (ns-2: its floor of 2 segments).
    pub syn_loss_ssthresh: Option<u64>,
    /// SYN retransmissions it takes for `syn_loss_window` and `syn_loss_ssthresh` to apply
    /// (RFC 5681 3.1: one; Linux `tcp_init_transfer`: more than one, given the 1 s initial
    /// RTO of RFC 6298).
    pub syn_losses_for_window: u32,
    /// No window reduction when the SYN-ACK echoes the first SYN's timestamp (Linux
    /// `tcp_try_undo_spurious_syn`).
    pub syn_undo_by_timestamp: bool,
    /// Without SACK, an ACK that reaches the recovery point exactly leaves the sender in
    /// Recovery or Loss until an ACK above it (Linux `tcp_try_undo_recovery`: "hold old state
    /// until something *above* high_seq is ACKed", against false fast retransmits, RFC 6582
    /// 4.1); the window reduction does not end on it either.
    pub holds_at_recovery_point: bool,
    /// Which timeouts reduce ssthresh and start a new undo episode: Linux `tcp_enter_loss`
    /// ("reduce ssthresh if it has not yet been made inside this window"): one from Open or
    /// Disorder, one after the recovery point was reached, and one in RTO recovery after
    /// SND.UNA advanced (`!icsk_retransmits`); else the first of a series (back-off 0, RFC
    /// 5681 (4)'s "held constant" for a segment already resent by the timer).
    pub timeout_reduces_per_window: bool,
    /// A sized transfer's application writes everything and closes at once (`fin.rs`): when
    /// all the data left before the close, the FIN goes in a segment of its own (Linux
    /// `tcp_send_fin`), which the loss probe resends alone; else it rides on the last segment.
    pub lone_fin: bool,
    /// A three-way handshake before data (ns-2's one-way agents send data at once).
    pub handshake: bool,
    /// The congestion controller.
    pub cc: CcKind,
    /// HyStart and β of the CUBIC controllers (`CcKind::cubic_params`); the defaults for the
    /// others.
    pub cubic: CubicParams,
    pub window_arith: WindowArith,
    /// The window grows per ACK as Linux 2.6.24's (`tcp_abc` 0), not per segment
    /// acknowledged (`WindowCore::with_ack_counting`; spec `ack_counting`).
    pub ack_counting: bool,
    pub recovery: RecoveryKind,
    /// The receiver sends SACK blocks: the scoreboard is kept.
    pub sack: bool,
    /// Which ACKs count as duplicates (`policy::DupAckRule`).
    pub dupack_rule: DupAckRule,
    pub limited_transmit: bool,
    pub dupthresh: u32,
    pub timestamps: bool,
    pub rto: RtoConfig,
    /// Payload bytes to send; `None` for an unbounded transfer.
    pub size: Option<u64>,
    pub detect: Detectors,
    pub response: Response,
    /// Grow cwnd only while it limits the sender (RFC 7661; Linux `tcp_is_cwnd_limited`).
    pub cwnd_validation: bool,
    /// After a timeout keep the SACK scoreboard and resend only what is not SACKed
    /// (RFC 6675 5.1); `false` clears it, as ns-2's SACK agent does (RFC 2018 8 reneging).
    pub sack_after_timeout: bool,
    /// At most this many segments sent in response to one ACK (ns-2 `maxburst_`).
    pub max_burst: Option<u32>,
    /// RACK time-based loss detection (RFC 8985 6) instead of DupThresh and IsLost().
    pub rack: bool,
    /// Tail loss probes (RFC 8985 7); needs `sack`.
    pub tlp: bool,
    /// When duplicate ACKs start fast retransmit (`policy::FastRetransmit`).
    pub fast_retransmit: FastRetransmit,
    /// What counts as in flight (`policy::FlightSize`).
    pub flight_size: FlightSize,
    /// Where RTT samples come from (`policy::RttSampling`).
    pub rtt_sampling: RttSampling,
    /// When the retransmission timer restarts besides RFC 6298 (`policy::TimerRestart`).
    pub timer_restart: TimerRestart,
    /// How the handshake ends (`policy::HandshakeEnd`).
    pub handshake_end: HandshakeEnd,
    /// Paper 001's adaptive timeout driven by ICMP DROP / DEFER (`icmp_rto.rs`).
    pub icmp_rto: Option<IcmpRtoConfig>,
    /// The kernel's timer wheel runs the retransmission, probe and re-check timers, so each
    /// fires at a tick at or after its expiry (`jiffies::Wheel`); `None`: exactly on time.
    pub wheel: Option<Wheel>,
}

/// A sender configuration as flows share it: with thousands of flows, one copy stays in cache
/// instead of one per flow. `From<SenderConfig>` gives a configuration of its own; the world
/// hands flows with equal configurations the same one (`world/configs.rs`).
///
/// Invariant: `rto` equals `sender.rto` (the RTO estimator holds `rto`).
#[derive(Clone, Debug)]
pub struct SharedSenderConfig {
    sender: Arc<SenderConfig>,
    rto: Arc<RtoConfig>,
}

impl From<SenderConfig> for SharedSenderConfig {
    fn from(cfg: SenderConfig) -> Self {
        SharedSenderConfig { rto: Arc::new(cfg.rto.clone()), sender: Arc::new(cfg) }
    }
}

impl SharedSenderConfig {
    pub fn config(&self) -> &SenderConfig {
        &self.sender
    }
}

/// What the sender's one timer is armed for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Retransmission timeout (also the SYN's).
    Rto,
    /// Tail loss probe (RFC 8985 7.2).
    Probe,
    /// RACK's re-check of segments inside the reordering window (RFC 8985 6.3).
    Reorder,
    /// The persist timer: the peer's window is shut with data waiting and nothing in flight
    /// (RFC 9293 3.8.6.1; Linux `ICSK_TIME_PROBE0`).
    Persist,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Closed,
    SynSent,
    Established,
    Done,
}

/// Counters the flow table reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub payload_bytes_sent: u64,
    pub retransmits: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub syn_timeouts: u64,
    pub fast_retransmits: u64,
    /// Timeouts the sender's own detectors declared spurious.
    pub spurious_detected: u64,
    /// Reductions undone (any response that restored the window), timeouts or fast
    /// retransmits.
    pub undos: u64,
    pub dsacks_received: u64,
    /// Tail loss probes sent (Linux `TCPLossProbes`).
    pub loss_probes: u64,
    /// Zero-window probes sent by the persist timer.
    pub window_probes: u64,
    /// Probes that repaired a loss and reduced the window (Linux `TCPLossProbeRecovery`).
    pub probe_recoveries: u64,
    pub rto_sum_s: f64,
    pub rto_samples: u64,
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
    /// The latest RTT sample (0 before the first), for the `rtt` series.
    pub last_rtt_s: f64,
    /// ICMP DROP and DEFER messages that reached the sender.
    pub icmp_drop_received: u64,
    pub icmp_defer_received: u64,
    /// Times each case 1–8 of paper 001's state machine fired (index = case).
    pub icmp_cases: [u64; 9],
    /// Expiries that paper 001's scheme turned into an extended timeout (state ET).
    pub icmp_extensions: u64,
    /// Σ over data timeouts of the time from the sender's last transmission to the expiry:
    /// how long it sat idle waiting for its timer (paper 001, Sec. V-E's "source idle time").
    pub timeout_idle_s: f64,
    /// ACKs on which the congestion control ran its congestion-avoidance rule
    /// (`Growth::Avoidance`), and of those the ones where that rule was its linear,
    /// Reno-friendly one.
    pub ca_acks: u64,
    pub linear_acks: u64,
}

/// Things the sender tells its environment besides segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderNote {
    /// Timeout number `id` (from 0) expired and the segment at `seq` was retransmitted;
    /// `cwnd` and `ssthresh` are the window and threshold before the timeout reduced them.
    Timeout { seq: u64, id: u64, cwnd: u64, ssthresh: u64 },
    /// The SYN's timer expired and the SYN was sent again.
    SynTimeout,
    /// The sender declared timeouts `first..=last` spurious.
    SpuriousDetected { first: u64, last: u64 },
    /// The sender undid a reduction (counted in `undos`): the timeouts `first..=last` of the
    /// episode (none for a fast retransmit's); `cwnd` and `ssthresh` before the undo.
    Undone { timeouts: Option<(u64, u64)>, cwnd: u64, ssthresh: u64 },
    /// Every byte is acknowledged.
    Completed,
    /// Every byte written so far is acknowledged (a sender that takes its data by `write`).
    WritesAcked,
}

/// Linux's record of how much the window was used in the current round (RFC 7661 idea):
/// whether the window stopped a send, and the largest flight, since SND.UNA passed `until`.
#[derive(Clone, Copy, Debug, Default)]
struct WindowUse {
    limited: bool,
    max_flight: u64,
    until: u64,
}

/// Layout: `repr(C)`, in declaration order: the sequence space, the timer and the flags every
/// ACK reads come first and share a few cache lines; the parts only losses, probes, the
/// handshake or paper 001's scheme touch come last. With thousands of flows a flow's state
/// is out of cache whenever one of its packets arrives, so the lines an ACK touches are the
/// cost that grows. `align(64)` starts the sender on a line of its own, so which fields share
/// a line does not depend on where the flow is.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct TcpSender {
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    rwnd: u64,
    /// RFC 6582 `recover`: no new fast retransmit until SND.UNA passes it.
    recover: u64,
    /// Bytes sent by limited transmit since the last new ACK (RFC 5681 3.2 step 2).
    limited_bytes: u64,
    timer: Option<SimTime>,
    /// Read on every ACK; shared with the flows of the same configuration.
    cfg: Arc<SenderConfig>,
    /// Paper 001's state machine, when `icmp_rto` is on (boxed: every ACK asks whether it
    /// is, and few flows have it).
    icmp: Option<Box<IcmpRto>>,
    dupacks: u32,
    /// Without SACK under `FlightSize::PacketsInFlight`: the duplicate ACKs Linux counts as
    /// SACKed segments (`sacked_out` of a Reno connection, `tcp_add_reno_sack`), in segments.
    reno_sacked: u64,
    phase: Phase,
    timer_kind: TimerKind,
    /// An ACK of new data asked for the timer to restart (RFC 6298 (5.3)); done after RACK,
    /// which may arm its re-check instead (Linux `FLAG_SET_XMIT_TIMER`).
    xmit_timer_due: bool,
    /// The window for the current ACK was set by a response; the controller skips it.
    growth_done: bool,
    /// The timeout being taken was brought forward by paper 001's scheme.
    premature_timeout: bool,
    /// That probe resent data (rather than sending new data).
    tlp_retransmitted: bool,
    syn_retransmitted: bool,
    /// The data is what the application writes (`expect_writes`, `write`), and the sender
    /// notes each time all of it is acknowledged (`SenderNote::WritesAcked`).
    writes: bool,
    /// Karn's rule without timestamps: (end of timed segment, time sent).
    rtt_probe: Option<(u64, SimTime)>,
    /// When data was last sent (Linux `lsndtime`).
    last_send: SimTime,
    /// End of the segment the last timeout resent (a detector's `GoBack` resumes after it, RFC 5682 2a/3a).
    head_resent_to: u64,
    /// SND.UNA at the last timeout: a timeout in RTO recovery with SND.UNA still here repeats
    /// one without progress (Linux `icsk_retransmits` > 0).
    una_at_last_timeout: u64,
    geometry: Geometry,
    window_use: WindowUse,
    state: LossState,
    scoreboard: Scoreboard,
    /// The previous ACK's SACK blocks, whose segments a new block need not walk again.
    sack_cache: sack_cache::SackCache,
    notes: Vec<SenderNote>,
    cc: AnyCc,
    recovery: AnyRecovery,
    rto: RtoEstimator,
    pub stats: SenderStats,
    /// SND.MAX when the outstanding tail loss probe was sent.
    tlp_high_seq: Option<u64>,
    syn_sent_at: SimTime,
    completed_at: Option<SimTime>,
    rack: Rack,
    episode: Option<Episode>,
    /// Where the FIN is (`fin.rs`).
    fin: Fin,
    /// The receiver's latest TSval, echoed in TSecr of every segment sent (RFC 7323 4.3
    /// `TS.Recent`; the receiver's RTT measurement, Linux `tcp_rcv_rtt_measure_ts`, reads it).
    ts_recent: u64,
    /// The delivery-rate estimator and the pacer, when the controller paces (`paced.rs`).
    paced: Option<Box<paced::Paced>>,
    /// Linux `tp->retrans_stamp`: the TSval of the earliest retransmission still out, kept
    /// across recovery episodes; cleared once none is (`retransmits_out`). Kept only where
    /// retransmissions stay counted across episodes (`FlightSize::keeps_retransmitted_on_entry`,
    /// the linux profile); elsewhere each episode times its own first retransmission.
    retrans_stamp: Option<u64>,
}

impl TcpSender {
    pub fn new(cfg: impl Into<SharedSenderConfig>) -> Self {
        let SharedSenderConfig { sender: cfg, rto } = cfg.into();
        let geometry = Geometry { mss: cfg.mss as u64, data_end: cfg.size.unwrap_or(u64::MAX), dupthresh: cfg.dupthresh as u64 };
        let core = WindowCore::new(cfg.mss, cfg.initial_window, cfg.window_arith).with_ack_counting(cfg.ack_counting);
        let icmp = cfg.icmp_rto.clone().map(|c| Box::new(IcmpRto::new(c)));
        let cc = AnyCc::new(cfg.cc, cfg.cubic, core);
        let paced = cc.pacing().map(|_| Box::new(paced::Paced::new()));
        TcpSender {
            paced,
            retrans_stamp: None,
            cc,
            recovery: AnyRecovery::new(cfg.recovery),
            state: LossState::Open,
            rto: RtoEstimator::new(rto),
            geometry,
            cfg,
            phase: Phase::Closed,
            timer: None,
            timer_kind: TimerKind::Rto,
            rack: Rack::default(),
            tlp_high_seq: None,
            tlp_retransmitted: false,
            xmit_timer_due: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rwnd: u64::MAX,
            dupacks: 0,
            reno_sacked: 0,
            recover: 0,
            limited_bytes: 0,
            scoreboard: Scoreboard::default(),
            sack_cache: Default::default(),
            rtt_probe: None,
            episode: None,
            fin: Fin::Open,
            ts_recent: 0,
            head_resent_to: 0,
            una_at_last_timeout: 0,
            growth_done: false,
            window_use: WindowUse::default(),
            syn_sent_at: SimTime::ZERO,
            last_send: SimTime::ZERO,
            syn_retransmitted: false,
            writes: false,
            completed_at: None,
            icmp,
            premature_timeout: false,
            stats: SenderStats::default(),
            notes: Vec::new(),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn state(&self) -> LossState {
        self.state
    }
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.rto.srtt()
    }
    /// The pacing rate in bytes/s, when the controller paces and has set one (BBR's
    /// `sk_pacing_rate`, which is unlimited until the module's `init`).
    pub fn pacing_rate(&self) -> Option<u64> {
        self.paced.as_ref().and(self.cc.pacing()).map(|(r, _)| r).filter(|&r| r > 0)
    }
    pub fn rto(&self) -> SimDuration {
        self.rto.current()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    pub fn in_recovery(&self) -> bool {
        self.state.is_recovery()
    }
    /// When the retransmission timer fires, if it is armed, or the pacing timer, if a
    /// paced write waits for it.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        match (self.timer, self.pacing_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// Whether notes wait for `drain_notes`.
    #[inline]
    pub fn has_notes(&self) -> bool {
        !self.notes.is_empty()
    }
    /// Notes since the last call, oldest first.
    pub fn drain_notes(&mut self) -> std::vec::Drain<'_, SenderNote> {
        self.notes.drain(..)
    }

    /// Opens the connection: sends the SYN and arms the timer at the initial RTO, or, for a
    /// stack without a handshake, starts sending data.
    pub fn open(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.syn_sent_at = now;
        if self.cfg.handshake {
            self.phase = Phase::SynSent;
            self.send_syn(now, out);
        } else {
            self.phase = Phase::Established;
            self.cc.on_established(now, None, None, 0);
            self.send_allowed(now, out);
            self.close_after_write(now, out);
        }
    }

    /// A passive open: the peer's SYN was answered and its ACK of the SYN-ACK arrived at
    /// `now`, after `synack_retransmits` retransmissions of the SYN-ACK. `rtt` is the
    /// SYN-ACK's round trip when it was sent once (Linux `tcp_synack_rtt_meas`), `rwnd` the
    /// peer's window in bytes. Without a sample the RTO falls back as after a lost SYN (RFC
    /// 6298 (5.7); Linux `tcp_init_metrics`: 3 s), and as many retransmissions as make an
    /// active opener restart from the stack's window after a lost SYN do so here (Linux
    /// `tcp_init_transfer`: cwnd 1 after more than one). From here on the sender has only
    /// the data the application supplies (`supply`), none yet.
    pub fn accept(&mut self, now: SimTime, rtt: Option<SimDuration>, rwnd: u64, synack_retransmits: u32) {
        self.phase = Phase::Established;
        self.syn_sent_at = now;
        self.rwnd = rwnd;
        self.geometry.data_end = 0;
        match rtt {
            Some(rtt) => self.take_rtt_sample(now, rtt, rtt, false, self.snd_una),
            None => self.rto.apply_syn_fallback(false),
        }
        if synack_retransmits > 0 && synack_retransmits >= self.cfg.syn_losses_for_window {
            if let Some(w) = self.cfg.syn_loss_window {
                self.cc.set_cwnd(w);
            }
        }
        self.cc.on_established(now, self.rto.srtt(), self.min_rtt(), 1);
    }

    /// The application wrote `bytes` more (a sender opened by `accept`): what the window
    /// allows goes at once.
    pub fn supply(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        self.paced_on_write();
        self.geometry.data_end = self.geometry.data_end.saturating_add(bytes);
        if self.phase == Phase::Established {
            self.send_allowed(now, out);
        }
    }

    /// Makes an unbounded sender (`size` none) one whose data is what the application writes
    /// (`write`), with nothing written yet: one connection that carries a web user's files
    /// one after the other (`WebConnection::PerSession`). It never sends a FIN, and notes
    /// `SenderNote::WritesAcked` each time every byte written is acknowledged. Call before
    /// `open`.
    pub fn expect_writes(&mut self) {
        debug_assert!(self.cfg.size.is_none() && self.phase == Phase::Closed);
        self.geometry.data_end = 0;
        self.writes = true;
    }

    /// The application writes `bytes` more, once every byte it wrote before is acknowledged
    /// (after `SenderNote::WritesAcked`; the sender is idle, its timer stopped by RFC 6298
    /// (5.2)). What the window allows goes at once (none before the connection is open).
    /// Nothing is reset: the RTO with its back-off, the RTT estimates, cwnd, ssthresh and
    /// the loss state stay as the previous data left them, as in a stack that does nothing
    /// on idle (ns-2's `send_idle_helper` is empty; no profile here restarts the window
    /// after idle, RFC 5681 4.1).
    ///
    /// Segments tile the data on MSS boundaries (`scoreboard::Geometry`), so when the data
    /// so far ended in a short segment the new bytes start at the next boundary of the
    /// sender's sequence space: SND.UNA, SND.NXT and SND.MAX move up to it, and the
    /// sequence numbers that marked the old end (the recovery point, `recover`, the end of
    /// the window-use round, …) move with them, so that every comparison keeps its outcome.
    /// Returns the sender's sequence number of the first new byte; the caller maps the
    /// sender's numbers to the wire's, on which the write follows the old data at once.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) -> u64 {
        debug_assert!(self.writes && self.snd_una >= self.geometry.data_end, "a write waits until the earlier ones are acknowledged");
        let end = self.geometry.data_end;
        let start = end.next_multiple_of(self.geometry.mss);
        if start > end {
            self.skip_to(end, start);
        }
        self.supply(now, bytes, out);
        start
    }

    /// `write`'s move of an idle sender's sequence space from `end` (every byte below it
    /// acknowledged) up to the segment boundary `start`.
    fn skip_to(&mut self, end: u64, start: u64) {
        let lift = |seq: u64| if seq == end { start } else { seq };
        (self.snd_una, self.snd_nxt, self.snd_max, self.geometry.data_end) = (start, start, start, start);
        self.recover = lift(self.recover);
        self.head_resent_to = lift(self.head_resent_to);
        self.una_at_last_timeout = lift(self.una_at_last_timeout);
        self.window_use.until = lift(self.window_use.until);
        self.tlp_high_seq = self.tlp_high_seq.map(lift);
        self.state = match self.state {
            LossState::Recovery { point } => LossState::Recovery { point: lift(point) },
            LossState::Loss { point } => LossState::Loss { point: lift(point) },
            other => other,
        };
        self.scoreboard.advance(start, &self.geometry);
        self.rack.advance(start, &self.geometry);
    }

    /// The configuration the sender runs.
    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }

    /// Bytes the application has supplied so far (the end of the data).
    pub fn data_end(&self) -> u64 {
        self.geometry.data_end
    }

    /// SND.MAX: the end of the highest data sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// Duplicate ACKs since SND.UNA last advanced: what Linux counts as SACKed segments on a
    /// connection without SACK (`tcp_add_reno_sack`).
    pub fn duplicate_acks(&self) -> u64 {
        self.dupacks as u64
    }

    /// The RTO estimator (smoothed RTT, variation, back-off).
    pub fn rto_estimator(&self) -> &RtoEstimator {
        &self.rto
    }

    /// The SACK scoreboard.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }

    /// The reordering degree RACK saw, in segments (0 when none; Linux `tp->reordering`
    /// once `tcp_check_sack_reordering` raised it above the DupThresh).
    pub fn reordering_seen(&self) -> u64 {
        self.rack.reordering()
    }

    /// Linux's `tcp_min_rtt`: the least RTT of the last 300 s (`Rack::on_rtt_sample`).
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.rack.min_rtt().map(SimDuration)
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        out.push(Segment { flags: FLAG_SYN, ts_val: if self.cfg.timestamps { ts_now(now) } else { 0 }, ..Default::default() });
        self.arm_rto(now);
    }

    /// Handles a segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        match self.phase {
            Phase::SynSent if seg.is_syn() => self.on_syn_ack(now, seg, out),
            Phase::Established if !seg.is_syn() => self.on_ack(now, seg, out),
            _ => {}
        }
    }

    fn on_syn_ack(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.phase = Phase::Established;
        self.rwnd = seg.wnd;
        // A sample from the handshake only where it is unambiguous (Karn) or timestamped.
        let sample = if self.cfg.timestamps && seg.ts_ecr != 0 {
            Some(now.since(SimTime(seg.ts_ecr)))
        } else if !self.syn_retransmitted {
            Some(now.since(self.syn_sent_at))
        } else {
            None
        };
        if let Some(rtt) = sample {
            self.take_rtt_sample(now, rtt, rtt, false, self.snd_una);
        }
        if self.syn_retransmitted {
            // RFC 6298 (5.7); RFC 5681 3.1: IW of one segment after a lost SYN or SYN-ACK.
            self.rto.apply_syn_fallback(sample.is_some());
            // Linux `tcp_try_undo_spurious_syn`: a SYN-ACK echoing the first SYN's timestamp
            // shows the retransmission was not needed.
            let first_syn_answered = self.cfg.syn_undo_by_timestamp && self.cfg.timestamps && seg.ts_ecr == ts_now(self.syn_sent_at);
            if self.stats.syn_timeouts >= self.cfg.syn_losses_for_window as u64 && !first_syn_answered {
                if let Some(w) = self.cfg.syn_loss_window {
                    self.cc.set_cwnd(w);
                }
                if let Some(t) = self.cfg.syn_loss_ssthresh {
                    self.cc.set_ssthresh(t);
                }
            }
        } else {
            self.rto.clear_backoff();
        }
        self.timer = None;
        self.cc.on_established(now, self.rto.srtt(), self.min_rtt(), 1);
        if self.cfg.handshake_end.sends_pure_ack() {
            let ts_val = if self.cfg.timestamps { ts_now(now) } else { 0 };
            out.push(Segment { flags: FLAG_ACK, ts_val, ..Default::default() });
        }
        self.send_allowed(now, out);
        self.close_after_write(now, out);
    }

    /// Handles the expiry of the retransmission timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.pacing_fired(now) && self.phase == Phase::Established {
            self.send_allowed(now, out);
        }
        if self.timer.is_none_or(|t| t > now) {
            return;
        }
        self.timer = None;
        match (self.phase, self.timer_kind) {
            (Phase::Established, TimerKind::Probe) if self.snd_una < self.snd_max => self.send_loss_probe(now, out),
            (Phase::Established, TimerKind::Reorder) if self.snd_una < self.snd_max => self.on_reorder_timeout(now, out),
            (Phase::Established, TimerKind::Persist) => self.send_window_probe(now, out),
            (Phase::SynSent, _) => {
                // RFC 6298 (5.5)-(5.6) apply to the SYN as well.
                self.stats.syn_timeouts += 1;
                self.notes.push(SenderNote::SynTimeout);
                self.syn_retransmitted = true;
                if self.stats.syn_timeouts > self.rto.config().syn_linear_timeouts as u64 {
                    self.rto.back_off();
                }
                self.send_syn(now, out);
            }
            (Phase::Established, _) if self.snd_una < self.snd_max => {
                // Paper 001: the shrunk timer of PT fires early (case 2); the first expiry
                // after a DEFER extends the timer instead (case 6, ET).
                if self.icmp.as_ref().is_some_and(|m| m.state() == IcmpRtoState::Premature) {
                    self.premature_timeout = true;
                }
                if let Some(Expiry::ExtendTo(t)) = self.icmp.as_mut().map(|m| m.on_expiry(now, self.rto.current())) {
                    self.stats.icmp_extensions += 1;
                    self.timer = Some(t);
                    return;
                }
                self.on_rto(now, out)
            }
            _ => {}
        }
    }

    /// An ICMP DROP or DEFER from a network element reached the sender (paper 001 Sec. II).
    /// Without `icmp_rto` it is only counted; with it, the state machine may move the
    /// retransmission timer (b = time since the timer was set, a = the RTO).
    pub fn on_icmp(&mut self, now: SimTime, signal: IcmpSignal, out: &mut Vec<Segment>) {
        match signal {
            IcmpSignal::Drop => self.stats.icmp_drop_received += 1,
            IcmpSignal::Defer => self.stats.icmp_defer_received += 1,
        }
        let Some(machine) = self.icmp.as_mut() else {
            return;
        };
        let armed = self.phase == Phase::Established && self.timer_kind == TimerKind::Rto && self.snd_una < self.snd_max;
        let rto = self.rto.current();
        let (set_at, armed) = match self.timer {
            Some(deadline) if armed => (SimTime(deadline.0.saturating_sub(rto.as_nanos())), true),
            _ => (now, false),
        };
        let change = machine.on_signal(signal, now, set_at, rto, armed);
        self.stats.icmp_cases = machine.case_counts();
        match change {
            TimerChange::Keep => {}
            TimerChange::FireAt(t) => self.timer = Some(t),
            TimerChange::ExpireNow => {
                self.timer = Some(now);
                self.premature_timeout = true;
                self.on_timer(now, out);
                self.premature_timeout = false;
            }
        }
    }

    /// Feeds `rtt` to the estimator (its per-round state counted with SND.UNA at `snd_una`)
    /// and `congestion_rtt` to RACK's minimum (`Rack::on_rtt_sample`; `maybe_delayed`: Linux's
    /// `FLAG_ACK_MAYBE_DELAYED`).
    fn take_rtt_sample(&mut self, now: SimTime, rtt: SimDuration, congestion_rtt: SimDuration, maybe_delayed: bool, snd_una: u64) {
        self.rto.on_sample(now, rtt, Round { snd_una, snd_max: self.snd_max });
        self.rack.on_rtt_sample(now, congestion_rtt, maybe_delayed);
        self.stats.last_rtt_s = rtt.as_secs_f64();
        self.stats.rtt_sum_s += self.stats.last_rtt_s;
        self.stats.rtt_samples += 1;
        self.stats.rto_sum_s += self.rto.current().as_secs_f64();
        self.stats.rto_samples += 1;
    }

    fn segment_len(&self, seq: u64) -> u64 {
        self.geometry.mss.min(self.geometry.data_end.saturating_sub(seq))
    }

    /// One past the last segment, from segment `first` on, that lies wholly below `seq`.
    fn segments_end(&self, first: u64, seq: u64) -> u64 {
        let mss = self.geometry.mss;
        let mut end = first;
        while end * mss < seq && end * mss + self.segment_len(end * mss) <= seq {
            end += 1;
        }
        end
    }

    /// Per-segment send times are kept (RACK, RTT samples from send times).
    fn tracks_sends(&self) -> bool {
        self.cfg.rack || self.cfg.rtt_sampling.from_send_times()
    }

    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

#[cfg(test)]
mod tests;
