//! The TCP settings, each declared once (`setting.rs` says how an entry reads): its spec
//! field and doc comment (what `rtolab schema` shows), its value at run time, each stack's
//! default (`profile.rs` cites the sources of every stack) and what the kernel does with it
//! under `rtolab emulate`. Then a list of what only the stacks set.
//!
//! Adding a setting is one line here, plus the code that reads it (`resolve.rs`'s
//! `resolve` hands the merged `Profile` to the sender's and receiver's configurations).

use super::cc::{CcKind, CcName};
use super::icmp_rto::{Case7, IcmpRtoConfig};
use super::initial_window::{InitialWindow, IwRule};
use super::policy::{DupAckRule, FastRetransmit, FlightSize, HandshakeEnd, RttSampling, TimerRestart};
use super::profile::Stack;
use super::recovery::RecoveryKind;
use super::rto::{RtoFloor, RtoPreset};
use super::setting::{declare_tcp_settings, Kernel, SpecValue};
use super::spurious::{DetectSpec, DetectorName, Detectors, Response};
use crate::time::SimDuration;
use crate::units::Duration;

/// The reason the kernel refuses CUBIC's module parameters.
const CUBIC_MODULE: &str = "CUBIC's module parameters are global to the host, not per namespace; the emulator leaves them as they are";
/// The reason the kernel refuses the timer's settings but two.
const TIMER: &str = "the kernel's RTO estimator has no such setting; only min_rto and max_rto can be set";
/// The reason the kernel refuses paper 001's scheme.
const ICMP: &str = "the kernel does not act on ICMP DROP / DEFER (paper 001's scheme is simulated only)";

const fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

declare_tcp_settings! {
    spec {
        /// Congestion control: "reno"; "newreno" = Reno with NewReno recovery; "cubic", "bic",
        /// "westwood" as Linux runs them (`tcp/cc/`); "cubic-2.6.24" as Linux 2.6.24 ran CUBIC.
        /// Default: the stack's (CUBIC for `linux`, Reno for the others).
        cc: CcName => CcKind = CcKind::Reno; Linux = CcKind::Cubic,
            kernel: Kernel::SetsExcept("socket option TCP_CONGESTION", |c| (c.kind == CcKind::Cubic2624).then_some("the kernel's cubic module is today's, not Linux 2.6.24's (module 2.1); \"cubic-2.6.24\" is simulated only"));
        /// CUBIC's HyStart (Linux 2.6.29 on); false gives the CUBIC of Linux 2.6.24, which had
        /// none. Only with `cc = "cubic"`. Default true.
        hystart: bool => Option<bool> = None, kernel: Kernel::Lacks(CUBIC_MODULE);
        /// CUBIC's β, the share of the window kept at a reduction (Linux 6.x: 717/1024 ≈ 0.7;
        /// Linux 2.6.24, CUBIC 2.1: 819/1024 ≈ 0.8), rounded to 1/1024. Only with
        /// `cc = "cubic"` or `"cubic-2.6.24"`.
        cubic_beta: f64 => Option<f64> = None, kernel: Kernel::Lacks(CUBIC_MODULE);
        /// Grow the window per ACK, not per segment acknowledged, as Linux 2.6.24 did with its
        /// default `tcp_abc` 0: slow start adds one segment per ACK while cwnd ≤ ssthresh
        /// (`tcp_slow_start`), and congestion avoidance counts ACKs in `snd_cwnd_cnt`, a segment
        /// per cwnd + 1 ACKs (`tcp_reno_cong_avoid`) or per `cnt` + 1 (`bictcp_cong_avoid`, with
        /// 2.6.24's other BIC details). With a delayed-ACK receiver that is half today's growth
        /// for Reno and Westwood+. For `cc = "reno"`/`"newreno"` on Linux's packet window (stack
        /// `linux`), `"bic"` and `"westwood"`; `"cubic-2.6.24"` always counts ACKs (true is
        /// accepted, false refused), today's `"cubic"` never. Default false (segments, as
        /// today's kernel).
        ack_counting: bool => bool = false,
            kernel: Kernel::Fixed(|on| on.then_some("the kernel grows the window by the segments acknowledged; Linux 2.6.24's per-ACK growth (`tcp_abc` 0) is simulated only"));
        /// Loss recovery ("reno", "newreno", "sack", "prr", "rate-halving"); by default SACK
        /// recovery when `sack`.
        recovery: RecoveryKind => RecoveryKind = RecoveryKind::Sack; Linux = RecoveryKind::Prr; Ns2Sack1 = RecoveryKind::Ns2Sack1; Ns2Newreno = RecoveryKind::Ns2NewReno,
            kernel: Kernel::Fixed(|r| match r {
                RecoveryKind::Reno => Some("the kernel has no Reno recovery (it always handles partial ACKs as NewReno); expected \"newreno\" or \"sack\""),
                RecoveryKind::RateHalving => Some("the kernel reduces the window by PRR (rate halving left Linux in 3.2); \"rate-halving\" is simulated only"),
                _ => None,
            }),
            merged_by recovery_kind;
        /// SACK (RFC 2018) at the receiver and, unless `recovery` says otherwise, RFC 6675
        /// recovery at the sender.
        sack: bool => bool = true; Ns2Newreno = false, kernel: Kernel::Sets("sysctl tcp_sack");
        /// DSACK blocks from the receiver (RFC 2883).
        dsack: bool => bool = false; Linux = true, kernel: Kernel::Sets("sysctl tcp_dsack");
        /// Spurious-timeout detectors: "none" or a list of "eifel", "frto", "frto-linux", "dsack".
        detect: DetectSpec => Detectors = Detectors::NONE;
            Linux = Detectors::of(&[DetectorName::Eifel, DetectorName::FrtoLinux, DetectorName::Dsack]);
            Freebsd = Detectors::of(&[DetectorName::Eifel]),
            kernel: Kernel::Sets("sysctl tcp_frto; leaving \"eifel\" or \"dsack\" out turns tcp_timestamps or tcp_dsack off"),
            merged_by detectors;
        /// Response to a spurious timeout: "none", "rfc4015", "undo", "ns2-1", "ns2-2", "ns2-3".
        response: Response => Response = Response::None; Linux | Freebsd = Response::Undo,
            kernel: Kernel::Fixed(|r| (*r != Response::Undo).then_some("the kernel's response to a spurious timeout is \"undo\""));
        /// Maximum segment size: payload bytes per segment (default 1448; ns-2: 1000; ns-3: 536).
        mss: u32 => u32 = 1448; Ns3 = 536; Ns2Sack1 | Ns2Newreno = 1000, kernel: Kernel::Sets("the TUN devices' MTU");
        /// Initial congestion window: segments (10), or "rfc3390" / "rfc6928" (the RFC's byte
        /// rule in whole segments); default "rfc6928", and each `stack` sets its own.
        iw: InitialWindow => InitialWindow = InitialWindow::Rule(IwRule::Rfc6928);
            Rfc = InitialWindow::Rule(IwRule::Rfc3390); Linux | Freebsd | Ns3 = InitialWindow::Segments(10);
            Ns2Sack1 | Ns2Newreno = InitialWindow::Segments(2),
            kernel: Kernel::Sets("route option initcwnd");
        /// Initial window in segments after a retransmitted SYN (RFC 5681 3.1: 1).
        iw_after_syn_loss: u32 => Option<u32> = None; Rfc | Linux | Ns2Sack1 | Ns2Newreno = Some(1),
            kernel: Kernel::Fixed(|n| (*n != 1).then_some("the kernel restarts with one segment after more than one retransmitted SYN; expected 1"));
        /// Receiver window cap in segments (models window = BDP); none means unlimited (ns-2
        /// stacks: `window_` 20).
        max_window: u32 => Option<u32> = None; Ns3 = Some(131_072 / 536); Ns2Sack1 | Ns2Newreno = Some(20),
            kernel: Kernel::Sets("socket option TCP_WINDOW_CLAMP");
        /// RFC 7323 timestamps, used for RTT sampling on every ACK.
        timestamps: bool => bool = true; Rfc | Ns2Sack1 | Ns2Newreno = false, kernel: Kernel::Sets("sysctl tcp_timestamps");
        /// Limited transmit, RFC 3042.
        limited_transmit: bool => bool = true,
            kernel: Kernel::Fixed(|on| (!on).then_some("the kernel always sends new data on the first duplicate ACKs (RFC 3042)"));
        /// Duplicate ACKs that trigger fast retransmit.
        dupthresh: u32 => u32 = 3, kernel: Kernel::Sets("sysctl tcp_reordering");
        /// Which ACKs count as duplicates: "rfc5681" or "rfc6675".
        dupack: DupAckRule => DupAckRule = DupAckRule::Rfc6675; Ns2Newreno = DupAckRule::Rfc5681,
            kernel: Kernel::Sets("follows tcp_sack: \"rfc6675\" with SACK, \"rfc5681\" without");
        /// Delayed ACKs (RFC 5681, 4.2): ACK every `ack_every` full segments or after the timeout.
        delayed_ack: bool => bool = true; Ns2Sack1 | Ns2Newreno = false, kernel: Kernel::Sets("route option quickack at the receiver when false");
        /// With delayed ACKs: full-sized segments per ACK (default 2, RFC 5681 4.2).
        ack_every: u32 => u32 = 2,
            kernel: Kernel::Fixed(|n| (*n != 2).then_some("the kernel acknowledges every second full-sized segment; expected 2"));
        /// With delayed ACKs: the longest an ACK waits (default 200 ms, and each `stack` sets its
        /// own; ns-2's delayed-ACK sinks wait 100 ms: `Agent/TCPSink/DelAck` and
        /// `Agent/TCPSink/Sack1/DelAck set interval_ 100ms`, `tcl/lib/ns-default.tcl`).
        delack_timeout: Duration => SimDuration = ms(200); Ns2Sack1 | Ns2Newreno = ms(100),
            kernel: Kernel::Lacks("the kernel's delayed-ACK timer adapts between 40 ms and 200 ms and cannot be set");
        /// Grow cwnd only while it limits the sender (RFC 7661, Linux).
        cwnd_validation: bool => bool = false; Linux = true,
            kernel: Kernel::Fixed(|on| (!on).then_some("the kernel always grows cwnd only while cwnd-limited"));
        /// After a timeout, keep SACK information and resend only what is not SACKed
        /// (RFC 6675 5.1) instead of clearing the scoreboard.
        sack_after_timeout: bool => bool = false; Rfc | Linux | Freebsd = true,
            kernel: Kernel::Fixed(|on| (!on).then_some("the kernel keeps SACK information after a timeout"));
        /// At most this many segments sent per ACK (ns-2 `maxburst_`).
        max_burst: u32 => Option<u32> = None, kernel: Kernel::Lacks("the kernel has no per-ACK burst limit");
        /// RACK time-based loss detection (RFC 8985 6; Linux `tcp_recovery` 1); needs SACK.
        rack: bool => bool = false; Linux = true, kernel: Kernel::Sets("sysctl tcp_recovery");
        /// Tail loss probes (RFC 8985 7; Linux `tcp_early_retrans` 3); needs SACK.
        tlp: bool => bool = false; Linux = true, kernel: Kernel::Sets("sysctl tcp_early_retrans");
        /// A SYN handshake before data.
        handshake: bool => bool = true,
            kernel: Kernel::Fixed(|on| (!on).then_some("kernel TCP always opens with a SYN handshake"));
        /// RTO preset of the timer alone; the fields below override it one by one.
        rto: RtoPreset => RtoPreset = RtoPreset::Rfc6298; Linux = RtoPreset::Linux; Freebsd = RtoPreset::Freebsd; Ns3 = RtoPreset::Ns3;
            Ns2Sack1 | Ns2Newreno = RtoPreset::Ns2,
            kernel: Kernel::Fixed(|r| (*r != RtoPreset::Linux).then_some("the kernel's timer is \"linux\"; only min_rto and max_rto can be set"));
        /// The RTO's floor (default per `rto` preset: RFC 6298 (2.4) 1 s; linux and ns2 200 ms;
        /// freebsd 30 ms).
        min_rto: Duration => Option<SimDuration> = None, kernel: Kernel::Sets("route option rto_min");
        /// The RTO's ceiling, back-off included (default per `rto` preset: 60 s, RFC 6298 (2.5)'s
        /// "at least 60 seconds"; linux 120 s; freebsd 64 s).
        max_rto: Duration => Option<SimDuration> = None, kernel: Kernel::Sets("sysctl tcp_rto_max_ms");
        /// The back-off multiplier stops doubling at this value whatever the timeout (ns-1 and
        /// ns-2 with `rfc2988_` false: 64); unset, it doubles while the timeout is below
        /// `max_rto` (RFC 6298 (5.5)).
        max_backoff: u32 => Option<u32> = None, kernel: Kernel::Lacks(TIMER);
        /// The RTO before the first RTT sample, the SYN's included (default per `rto` preset:
        /// 1 s, RFC 6298 (2.1); ns2 3 s).
        initial_rto: Duration => Option<SimDuration> = None; Ns3 = Some(SimDuration::from_secs(3)), kernel: Kernel::Lacks(TIMER);
        /// Clock granularity G of RFC 6298 (2.2)/(2.3).
        granularity: Duration => Option<SimDuration> = None, kernel: Kernel::Lacks(TIMER);
        /// K of RFC 6298 (2.3).
        k: u32 => Option<u32> = None, kernel: Kernel::Lacks(TIMER);
        /// Gains of RFC 6298 (2.3): alpha = 1/8, beta = 1/4.
        alpha: f64 => Option<f64> = None, kernel: Kernel::Lacks(TIMER);
        /// RTTVAR's gain of RFC 6298 (2.3) (default 1/4).
        beta: f64 => Option<f64> = None, kernel: Kernel::Lacks(TIMER);
        /// Where the minimum applies: to the whole RTO ("rto", RFC 6298 (2.4)) or to the
        /// variance term ("variance", Linux).
        min_rto_applies_to: RtoFloor => Option<RtoFloor> = None,
            kernel: Kernel::Fixed(|f| (*f != RtoFloor::Variance).then_some("the kernel floors the variance term (\"variance\")"));
        /// Constant added to every RTO (FreeBSD's slop).
        rto_extra: Duration => Option<SimDuration> = None, kernel: Kernel::Lacks(TIMER);
        /// Tick of a coarse timer: RTT samples and RTO are whole ticks (ns-2's `tcpTick_`).
        tick: Duration => Option<SimDuration> = None, kernel: Kernel::Lacks(TIMER);
        /// RFC 6298 (5.7): after a SYN timeout, start data transfer with RTO = 3 s.
        syn_fallback_3s: bool => Option<bool> = None, kernel: Kernel::Lacks(TIMER);
        /// Paper 001's adaptive timeout: ICMP DROP / DEFER from a link's ARQ (`arq.icmp`) move
        /// the retransmission timer earlier or later (`docs/icmp-rto.md`). Not with RACK-TLP,
        /// whose probe and re-check share the timer.
        icmp_rto: bool => bool = false, kernel: Kernel::Fixed(|on| on.then_some(ICMP));
        /// How the paper's truncated case 7 is read: "timeout" (default) or "rejudge".
        icmp_rto_case7: Case7 => Case7 = Case7::default(), kernel: Kernel::Lacks(ICMP);
        /// Length of the extended timeout (state ET) as a multiple of the RTO (default 1).
        icmp_rto_extension: f64 => f64 = IcmpRtoConfig::default().extension, kernel: Kernel::Lacks(ICMP);
        /// Whether a timeout the scheme brought forward backs the RTO off (default true; the
        /// paper's "without affecting the back-off algorithms" read the other way is false).
        icmp_rto_backoff: bool => bool = true, kernel: Kernel::Lacks(ICMP);
    }
    stacks {
        /// Linux's packet-counted window arithmetic (`tcp_cong.c`) for every controller, Reno
        /// included; the other controllers always use it.
        linux_window: bool = false; Linux = true,
        /// ssthresh after a retransmitted SYN, in segments (ns-2 halves the SYN's window of 1 to
        /// its floor of 2).
        ssthresh_after_syn_loss: Option<u32> = None; Ns2Sack1 | Ns2Newreno = Some(2),
        /// SYN retransmissions before those two apply (`SenderConfig::syn_losses_for_window`).
        syn_losses_for_window: u32 = 1; Linux = 2,
        /// Linux `tcp_try_undo_spurious_syn` (`SenderConfig::syn_undo_by_timestamp`).
        syn_undo_by_timestamp: bool = false; Linux = true,
        /// Linux `tcp_try_undo_recovery` (`SenderConfig::holds_at_recovery_point`).
        holds_at_recovery_point: bool = false; Linux = true,
        /// Linux `tcp_enter_loss` (`SenderConfig::timeout_reduces_per_window`).
        timeout_reduces_per_window: bool = false; Linux = true,
        /// Linux `tcp_send_fin` (`SenderConfig::lone_fin`).
        lone_fin: bool = false; Linux = true,
        /// SACK blocks an ACK may carry at most (ns-2's sink: 3).
        max_sack_blocks: usize = 4; Ns2Sack1 | Ns2Newreno = 3,
        /// When duplicate ACKs start fast retransmit (`policy::FastRetransmit`).
        fast_retransmit: FastRetransmit = FastRetransmit::Rfc6582; Ns2Sack1 | Ns2Newreno = FastRetransmit::NthDuplicate,
        /// Linux's ACK policy at the receiver (`quickack.rs`).
        linux_acks: bool = false; Linux = true,
        /// Linux's receive buffer and the window it offers (`receive_window.rs`: `rcv_ssthresh`,
        /// autotuning, the quick ACKs while the window opens) instead of an unlimited window,
        /// with the buffer of a 6.18 network namespace (`receive_window::KERNEL_RMEM`) unless
        /// `max_window` stands for the receiver.
        linux_receive_window: bool = false; Linux = true,
        /// Where RTT samples come from (`policy::RttSampling`).
        rtt_sampling: RttSampling = RttSampling::TimedSegment; Linux = RttSampling::EveryAck,
        /// When the retransmission timer restarts besides RFC 6298 (`policy::TimerRestart`).
        timer_restart: TimerRestart = TimerRestart::Rfc6298; Linux = TimerRestart::AlsoOnHeadRetransmit,
        /// The kernel's timer wheel runs the sender's and receiver's timers (`jiffies::Wheel`).
        timer_wheel: bool = false; Linux = true,
        /// What counts as in flight (`policy::FlightSize`).
        flight_size: FlightSize = FlightSize::Outstanding; Linux = FlightSize::PacketsInFlight,
        /// How the handshake ends (`policy::HandshakeEnd`).
        handshake_end: HandshakeEnd = HandshakeEnd::FirstData; Linux = HandshakeEnd::PureAck,
        /// ns-2's packet-counted fractional window, capped at `window_` packets for reductions.
        ns2_window: bool = false; Ns2Sack1 | Ns2Newreno = true,
        /// ns-2's packet sizes (`Segment::option_bytes`): 40 B of headers and 8 B per SACK
        /// block, no other options, so a 40 B SYN and 48/56/64 B SACK ACKs.
        ns2_sizes: bool = false; Ns2Sack1 | Ns2Newreno = true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> super::TcpSpec {
        toml::from_str(text).unwrap()
    }

    /// A spec that sets nothing runs its stack's defaults; a field it sets replaces the
    /// stack's value, in run-time units, and leaves the others.
    #[test]
    fn settings_merge_the_spec_over_the_stack() {
        let linux = spec("stack = \"linux\"");
        assert_eq!(format!("{:?}", linux.settings()), format!("{:?}", Stack::Linux.profile()));
        let s = spec("stack = \"ns3\"\ndelack_timeout = \"100ms\"\nmax_window = 30\ncc = \"newreno\"");
        assert_eq!((s.delack_timeout, s.max_window, s.cc), (Some(Duration(ms(100))), Some(30), Some(CcName { kind: CcKind::Reno, newreno: true })));
        let merged = s.settings();
        assert_eq!((merged.delack_timeout, merged.max_window, merged.cc), (ms(100), Some(30), CcKind::Reno));
        assert_eq!((merged.mss, merged.initial_rto), (536, Some(SimDuration::from_secs(3))));
    }

    /// ns-2's delayed-ACK sinks wait 100 ms (`Agent/TCPSink/Sack1/DelAck set interval_
    /// 100ms`, ns-default.tcl): the ns-2 stacks with delayed ACKs turned on wait that long,
    /// the others the default 200 ms.
    #[test]
    fn ns2_delayed_acks_wait_100_ms() {
        for stack in ["ns2-sack1", "ns2-newreno"] {
            let s = spec(&format!("stack = \"{stack}\"\ndelayed_ack = true")).settings();
            assert_eq!((s.delayed_ack, s.delack_timeout), (true, ms(100)), "{stack}");
        }
        assert_eq!(spec("stack = \"rfc\"").settings().delack_timeout, ms(200));
    }

    /// The kernel's refusals name the first field, in the table's order, it cannot run.
    #[test]
    fn kernel_refusal_names_the_field() {
        assert_eq!(spec("sack = false\nmin_rto = \"200ms\"").kernel_refusal(), None);
        assert_eq!(spec("icmp_rto = false").kernel_refusal(), None);
        assert_eq!(spec("k = 4\nack_every = 1").kernel_refusal().map(|r| r.0), Some("ack_every"));
        assert_eq!(spec("recovery = \"newreno\"").kernel_refusal(), None);
        assert_eq!(spec("recovery = \"rate-halving\"").kernel_refusal().map(|r| r.0), Some("recovery"));
    }
}
