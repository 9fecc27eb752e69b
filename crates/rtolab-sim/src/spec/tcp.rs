//! TCP settings of a flow: a named stack (`stack`) sets every default; each field overrides
//! it. `resolve` turns the table into the sender's and receiver's configurations.

pub use crate::tcp::cc::{CcKind, CcName};
use crate::tcp::cc::WindowArith;
use crate::tcp::icmp_rto::{Case7, IcmpRtoConfig};
use crate::tcp::jiffies::Wheel;
use crate::tcp::profile::{Profile, Stack};
pub use crate::tcp::recovery::RecoveryKind;
pub use crate::tcp::initial_window::{InitialWindow, IwRule};
pub use crate::tcp::rto::RtoPreset;
use crate::tcp::rto::{RtoConfig, RtoFloor, SynFallback};
pub use crate::tcp::spurious::{DetectorName, Response};
use crate::tcp::spurious::Detectors;
pub use crate::tcp::DupAckRule;
use crate::tcp::{ReceiverConfig, SenderConfig};
use crate::time::SimDuration;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoDetector {
    None,
}

/// `"none"` or a list of detectors.
#[derive(Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(untagged)]
pub enum DetectSpec {
    None(NoDetector),
    List(Vec<DetectorName>),
}

/// By hand rather than derived, so that a bad value gets an error saying what is expected
/// (an untagged enum's derived error names neither).
impl<'de> Deserialize<'de> for DetectSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Expect;
        impl<'de> serde::de::Visitor<'de> for Expect {
            type Value = DetectSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                let names: Vec<String> = DetectorName::all().iter().map(|n| format!("\"{}\"", n.name())).collect();
                write!(f, "\"none\" or a list of {}", names.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DetectSpec, E> {
                match v {
                    "none" => Ok(DetectSpec::None(NoDetector::None)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DetectSpec, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<DetectorName>()? {
                    names.push(name);
                }
                Ok(DetectSpec::List(names))
            }
        }
        d.deserialize_any(Expect)
    }
}

/// TCP configuration of one flow. `stack` names the stack whose defaults apply (default:
/// rtolab's own); every other field overrides one of them.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// A named stack: "rfc", "linux", "freebsd", "ns3", "ns2-sack1", "ns2-newreno"; none
    /// means rtolab's defaults.
    pub stack: Option<Stack>,
    /// Congestion control: "reno"; "newreno" = Reno with NewReno recovery; "cubic", "bic",
    /// "westwood" as Linux runs them (`tcp/cc/`); "cubic-2.6.24" as Linux 2.6.24 ran CUBIC.
    /// Default: the stack's (CUBIC for `linux`, Reno for the others).
    pub cc: Option<CcName>,
    /// CUBIC's HyStart (Linux 2.6.29 on); false gives the CUBIC of Linux 2.6.24, which had
    /// none. Only with `cc = "cubic"`. Default true.
    pub hystart: Option<bool>,
    /// CUBIC's β, the share of the window kept at a reduction (Linux 6.x: 717/1024 ≈ 0.7;
    /// Linux 2.6.24, CUBIC 2.1: 819/1024 ≈ 0.8), rounded to 1/1024. Only with
    /// `cc = "cubic"` or `"cubic-2.6.24"`.
    pub cubic_beta: Option<f64>,
    /// Grow the window per ACK, not per segment acknowledged, as Linux 2.6.24 did with its
    /// default `tcp_abc` 0: slow start adds one segment per ACK while cwnd ≤ ssthresh
    /// (`tcp_slow_start`), and congestion avoidance counts ACKs in `snd_cwnd_cnt`, a segment
    /// per cwnd + 1 ACKs (`tcp_reno_cong_avoid`) or per `cnt` + 1 (`bictcp_cong_avoid`, with
    /// 2.6.24's other BIC details). With a delayed-ACK receiver that is half today's growth
    /// for Reno and Westwood+. For `cc = "reno"`/`"newreno"` on Linux's packet window (stack
    /// `linux`), `"bic"` and `"westwood"`; `"cubic-2.6.24"` always counts ACKs (true is
    /// accepted, false refused), today's `"cubic"` never. Default false (segments, as
    /// today's kernel).
    pub ack_counting: Option<bool>,
    /// Loss recovery ("reno", "newreno", "sack", "prr", "rate-halving"); by default SACK
    /// recovery when `sack`.
    pub recovery: Option<RecoveryKind>,
    /// SACK (RFC 2018) at the receiver and, unless `recovery` says otherwise, RFC 6675
    /// recovery at the sender.
    pub sack: Option<bool>,
    /// DSACK blocks from the receiver (RFC 2883).
    pub dsack: Option<bool>,
    /// Spurious-timeout detectors: "none" or a list of "eifel", "frto", "dsack".
    pub detect: Option<DetectSpec>,
    /// Response to a spurious timeout: "none", "rfc4015", "undo", "ns2-1", "ns2-2", "ns2-3".
    pub response: Option<Response>,
    /// Maximum segment size: payload bytes per segment (default 1448; ns-2: 1000; ns-3: 536).
    pub mss: Option<u32>,
    /// Initial congestion window: segments (10), or "rfc3390" / "rfc6928" (the RFC's byte
    /// rule in whole segments); default "rfc6928", and each `stack` sets its own.
    pub iw: Option<InitialWindow>,
    /// Initial window in segments after a retransmitted SYN (RFC 5681 3.1: 1).
    pub iw_after_syn_loss: Option<u32>,
    /// Receiver window cap in segments (models window = BDP); none means unlimited (ns-2
    /// stacks: `window_` 20).
    pub max_window: Option<u32>,
    /// RFC 7323 timestamps, used for RTT sampling on every ACK.
    pub timestamps: Option<bool>,
    /// Limited transmit, RFC 3042.
    pub limited_transmit: Option<bool>,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupthresh: Option<u32>,
    /// Which ACKs count as duplicates: "rfc5681" or "rfc6675".
    pub dupack: Option<DupAckRule>,
    /// Delayed ACKs (RFC 5681, 4.2): ACK every `ack_every` full segments or after the timeout.
    pub delayed_ack: Option<bool>,
    /// With delayed ACKs: full-sized segments per ACK (default 2, RFC 5681 4.2).
    pub ack_every: Option<u32>,
    /// With delayed ACKs: the longest an ACK waits (default 200 ms, and each `stack` sets its
    /// own).
    pub delack_timeout: Option<Duration>,
    /// Grow cwnd only while it limits the sender (RFC 7661, Linux).
    pub cwnd_validation: Option<bool>,
    /// After a timeout, keep SACK information and resend only what is not SACKed
    /// (RFC 6675 5.1) instead of clearing the scoreboard.
    pub sack_after_timeout: Option<bool>,
    /// At most this many segments sent per ACK (ns-2 `maxburst_`).
    pub max_burst: Option<u32>,
    /// RACK time-based loss detection (RFC 8985 6; Linux `tcp_recovery` 1); needs SACK.
    pub rack: Option<bool>,
    /// Tail loss probes (RFC 8985 7; Linux `tcp_early_retrans` 3); needs SACK.
    pub tlp: Option<bool>,
    /// A SYN handshake before data.
    pub handshake: Option<bool>,
    /// RTO preset of the timer alone; the fields below override it one by one.
    pub rto: Option<RtoPreset>,
    /// The RTO's floor (default per `rto` preset: RFC 6298 (2.4) 1 s; linux and ns2 200 ms;
    /// freebsd 30 ms).
    pub min_rto: Option<Duration>,
    /// The RTO's ceiling, back-off included (default per `rto` preset: 60 s, RFC 6298 (2.5)'s
    /// "at least 60 seconds"; linux 120 s; freebsd 64 s).
    pub max_rto: Option<Duration>,
    /// The back-off multiplier stops doubling at this value whatever the timeout (ns-1 and
    /// ns-2 with `rfc2988_` false: 64); unset, it doubles while the timeout is below
    /// `max_rto` (RFC 6298 (5.5)).
    pub max_backoff: Option<u32>,
    /// The RTO before the first RTT sample, the SYN's included (default per `rto` preset:
    /// 1 s, RFC 6298 (2.1); ns2 3 s).
    pub initial_rto: Option<Duration>,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3).
    pub granularity: Option<Duration>,
    /// K of RFC 6298 (2.3).
    pub k: Option<u32>,
    /// Gains of RFC 6298 (2.3): alpha = 1/8, beta = 1/4.
    pub alpha: Option<f64>,
    /// RTTVAR's gain of RFC 6298 (2.3) (default 1/4).
    pub beta: Option<f64>,
    /// Where the minimum applies: to the whole RTO ("rto", RFC 6298 (2.4)) or to the
    /// variance term ("variance", Linux).
    pub min_rto_applies_to: Option<RtoFloor>,
    /// Constant added to every RTO (FreeBSD's slop).
    pub rto_extra: Option<Duration>,
    /// Tick of a coarse timer: RTT samples and RTO are whole ticks (ns-2's `tcpTick_`).
    pub tick: Option<Duration>,
    /// RFC 6298 (5.7): after a SYN timeout, start data transfer with RTO = 3 s.
    pub syn_fallback_3s: Option<bool>,
    /// Paper 001's adaptive timeout: ICMP DROP / DEFER from a link's ARQ (`arq.icmp`) move
    /// the retransmission timer earlier or later (`docs/icmp-rto.md`). Not with RACK-TLP,
    /// whose probe and re-check share the timer.
    pub icmp_rto: Option<bool>,
    /// How the paper's truncated case 7 is read: "timeout" (default) or "rejudge".
    pub icmp_rto_case7: Option<Case7>,
    /// Length of the extended timeout (state ET) as a multiple of the RTO (default 1).
    pub icmp_rto_extension: Option<f64>,
    /// Whether a timeout the scheme brought forward backs the RTO off (default true; the
    /// paper's "without affecting the back-off algorithms" read the other way is false).
    pub icmp_rto_backoff: Option<bool>,
}

/// The two endpoints' configurations, resolved from a `TcpSpec`.
#[derive(Clone, Debug)]
pub struct ResolvedTcp {
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
}

impl TcpSpec {
    pub fn profile(&self) -> Profile {
        self.stack.unwrap_or_default().profile()
    }

    pub fn mss(&self) -> u32 {
        self.mss.unwrap_or(self.profile().default_mss)
    }

    /// SACK is on: the spec's word, else the stack's.
    pub fn sack_enabled(&self) -> bool {
        self.sack.unwrap_or(self.profile().sack)
    }

    /// Which recovery runs: `recovery` if given; else SACK recovery when SACK is on and was
    /// asked for or `cc` is not given; else NewReno for `cc = "newreno"`, Reno for "reno";
    /// else the stack's.
    pub fn recovery_kind(&self) -> RecoveryKind {
        let named = self.recovery_named();
        if self.sack_enabled() {
            named
        } else {
            named.without_sack()
        }
    }

    /// The recovery the spec names, else the one its `cc` name implies (`CcName::
    /// implied_recovery`, SACK off: "reno" Reno's, "newreno" NewReno's or ns-2's NewReno
    /// agent under its stack), else the stack's, SACK's when `sack = true` is asked for.
    fn recovery_named(&self) -> RecoveryKind {
        let profile = self.profile();
        let implied = self.cc.and_then(CcName::implied_recovery).filter(|_| !self.sack_enabled());
        match (self.recovery, self.sack, implied) {
            (Some(kind), _, _) => kind,
            (None, Some(true), _) if matches!(profile.recovery, RecoveryKind::Sack | RecoveryKind::Prr | RecoveryKind::Ns2Sack1) => profile.recovery,
            (None, Some(true), _) => RecoveryKind::Sack,
            (None, _, Some(RecoveryKind::NewReno)) if profile.recovery == RecoveryKind::Ns2NewReno => profile.recovery,
            (None, _, Some(kind)) => kind,
            (None, Some(false), None) if self.cc.is_none() && matches!(profile.recovery, RecoveryKind::Sack | RecoveryKind::Prr) => RecoveryKind::NewReno,
            _ => profile.recovery,
        }
    }

    /// The detectors that run: a stack's Eifel needs timestamps and its DSACK needs SACK
    /// (as in Linux); a list the user wrote is checked by validation instead.
    pub fn detectors(&self) -> Detectors {
        match &self.detect {
            None => self.profile().detect.filter(|n| n.needs().met_by(self.timestamps(), self.sack_enabled())),
            Some(DetectSpec::None(_)) => Detectors::NONE,
            Some(DetectSpec::List(names)) => Detectors::of(names),
        }
    }

    pub fn response(&self) -> Response {
        self.response.unwrap_or(self.profile().response)
    }

    pub fn timestamps(&self) -> bool {
        self.timestamps.unwrap_or(self.profile().timestamps)
    }

    /// The receiver window cap in segments, if any.
    pub fn window_segments(&self) -> Option<u32> {
        self.max_window.or(self.profile().default_window)
    }

    pub fn dupthresh(&self) -> u32 {
        self.dupthresh.unwrap_or(self.profile().dupthresh)
    }

    pub fn ack_every(&self) -> u32 {
        self.ack_every.unwrap_or(self.profile().ack_every)
    }

    /// The RTO configuration: the stack's timer (or the named preset), then each override.
    pub fn rto_config(&self) -> RtoConfig {
        let mut c = self.profile().rto_config(self.rto);
        let d = |o: Option<Duration>| o.map(|d| d.sim());
        c.min_rto = d(self.min_rto).unwrap_or(c.min_rto);
        c.max_rto = d(self.max_rto).unwrap_or(c.max_rto);
        c.max_backoff = self.max_backoff.or(c.max_backoff);
        c.initial_rto = d(self.initial_rto).unwrap_or(c.initial_rto);
        c.granularity = d(self.granularity).unwrap_or(c.granularity);
        c.k = self.k.unwrap_or(c.k);
        c.alpha = self.alpha.unwrap_or(c.alpha);
        c.beta = self.beta.unwrap_or(c.beta);
        c.floor = self.min_rto_applies_to.unwrap_or(c.floor);
        c.extra = d(self.rto_extra).unwrap_or(c.extra);
        if let Some(t) = self.tick {
            c.tick = (t.sim() > SimDuration::ZERO).then_some(t.sim());
            if let Some(clock) = &mut c.ns2 {
                clock.tick = c.tick.unwrap_or(clock.tick);
            }
        }
        if let Some(clock) = &mut c.ns2 {
            clock.timestamps = self.timestamps();
        }
        match self.syn_fallback_3s {
            Some(false) => c.syn_fallback = SynFallback::Never,
            Some(true) if c.syn_fallback == SynFallback::Never => c.syn_fallback = SynFallback::Always,
            _ => {}
        }
        c
    }

    /// The sender's and receiver's configurations for a flow of `size` bytes.
    pub fn resolve(&self, size: Option<u64>) -> ResolvedTcp {
        let p = self.profile();
        let mss = self.mss();
        let sack = self.sack_enabled();
        let timestamps = self.timestamps();
        let detect = self.detectors();
        let window = self.window_segments();
        let segments = |n: u32| n.max(1) as u64 * mss as u64;
        let cc = self.cc.map_or(p.cc, |name| name.kind);
        let sender = SenderConfig {
            mss,
            initial_window: self.iw.unwrap_or(p.iw).bytes(mss),
            syn_loss_window: self.iw_after_syn_loss.or(p.iw_after_syn_loss).map(segments),
            syn_loss_ssthresh: p.ssthresh_after_syn_loss.map(segments),
            syn_losses_for_window: p.syn_losses_for_window,
            syn_undo_by_timestamp: p.syn_undo_by_timestamp,
            handshake: self.handshake.unwrap_or(p.handshake),
            cc,
            cubic: cc.cubic_params(self.hystart, self.cubic_beta),
            ack_counting: self.ack_counting.unwrap_or(false),
            window_arith: if p.ns2_window {
                WindowArith::Ns2 { cap: window.unwrap_or(u32::MAX) }
            } else if p.linux_window || cc != CcKind::Reno {
                WindowArith::Linux
            } else {
                WindowArith::Bytes
            },
            recovery: self.recovery_kind(),
            sack,
            dupack_rule: self.dupack.unwrap_or(p.dupack_rule),
            limited_transmit: self.limited_transmit.unwrap_or(p.limited_transmit),
            dupthresh: self.dupthresh(),
            timestamps,
            rto: self.rto_config(),
            size,
            detect,
            response: self.response(),
            cwnd_validation: self.cwnd_validation.unwrap_or(p.cwnd_validation),
            sack_after_timeout: self.sack_after_timeout.unwrap_or(p.sack_after_timeout),
            max_burst: self.max_burst.or(p.max_burst),
            fast_retransmit: p.fast_retransmit,
            flight_size: p.flight_size,
            rtt_sampling: p.rtt_sampling,
            timer_restart: p.timer_restart,
            handshake_end: p.handshake_end,
            rack: sack && self.rack.unwrap_or(p.rack),
            tlp: sack && self.tlp.unwrap_or(p.tlp),
            icmp_rto: (self.icmp_rto == Some(true)).then(|| IcmpRtoConfig {
                case7: self.icmp_rto_case7.unwrap_or_default(),
                extension: self.icmp_rto_extension.unwrap_or(IcmpRtoConfig::default().extension),
                backoff_premature: self.icmp_rto_backoff.unwrap_or(true),
            }),
            wheel: p.timer_wheel.then(Wheel::default),
        };
        let receiver = ReceiverConfig {
            mss,
            sack,
            dsack: sack && (self.dsack.unwrap_or(p.dsack) || detect.any_needs(|n| n.dsack)),
            max_sack_blocks: p.max_sack_blocks.min(if timestamps { 3 } else { 4 }),
            timestamps,
            delayed_ack: self.delayed_ack.unwrap_or(p.delayed_ack),
            ack_every: self.ack_every(),
            delack_timeout: self.delack_timeout.map(|d| d.sim()).unwrap_or(p.delack_timeout),
            window: window.map(|w| w as u64 * mss as u64).unwrap_or(u64::MAX / 4),
            linux_acks: p.linux_acks && self.ack_every.is_none() && self.delack_timeout.is_none(),
            wheel: p.timer_wheel.then(Wheel::default),
        };
        ResolvedTcp { sender, receiver }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3390 (1) and RFC 6928 (2) worked by hand for MSS 1448 and 536.
    #[test]
    fn initial_window_rules() {
        let r3390 = InitialWindow::Rule(IwRule::Rfc3390);
        let r6928 = InitialWindow::Rule(IwRule::Rfc6928);
        assert_eq!(r3390.bytes(1448), 4344); // min(5792, max(2896, 4380)) = 4380 B: 3 full segments
        assert_eq!(r3390.bytes(536), 2144); // min(2144, 4380)
        assert_eq!(r6928.bytes(1448), 14480); // min(14480, max(2896, 14600))
        assert_eq!(r6928.bytes(536), 5360);
        assert_eq!(InitialWindow::Segments(3).bytes(1000), 3000);
    }

    /// `cc = "cubic-2.6.24"` runs module 2.1 with β = 819/1024 unless `cubic_beta` says
    /// otherwise (0.7 → round(716.8) = 717), in the Linux arithmetic; `recovery =
    /// "rate-halving"` selects it with SACK and falls back to NewReno without.
    #[test]
    fn linux_2_6_24_resolves() {
        let t = |s: &str| toml::from_str::<TcpSpec>(s).unwrap().resolve(None).sender;
        let c = t("stack = \"linux\"\ncc = \"cubic-2.6.24\"\nrecovery = \"rate-halving\"");
        assert_eq!((c.cc, c.cubic.beta, c.window_arith, c.recovery), (CcKind::Cubic2624, 819, WindowArith::Linux, RecoveryKind::RateHalving));
        assert_eq!(t("cc = \"cubic-2.6.24\"\ncubic_beta = 0.7").cubic.beta, 717);
        assert_eq!(t("sack = false\nrecovery = \"rate-halving\"").recovery, RecoveryKind::NewReno);
        // `ack_counting`: false unless given.
        assert!(!c.ack_counting && t("stack = \"linux\"\ncc = \"reno\"\nack_counting = true").ack_counting);
    }
}
