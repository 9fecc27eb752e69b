//! A flow's TCP settings resolved: its merged settings (`TcpSpec::settings`, the table of
//! `settings.rs`) turned into the sender's and receiver's configurations, with the rules
//! that read several settings at once (which recovery runs, which detectors, the timer).

use super::cc::{CcKind, CcName, WindowArith};
use super::icmp_rto::IcmpRtoConfig;
use super::jiffies::Wheel;
use super::profile::Profile;
use super::receive_window::KERNEL_RMEM;
use super::recovery::RecoveryKind;
use super::rto::{RtoConfig, SynFallback};
use super::settings::TcpSpec;
use super::spurious::{DetectSpec, Detectors};
use super::{ReceiverConfig, SenderConfig};
use crate::time::SimDuration;

/// The two endpoints' configurations, resolved from a `TcpSpec`.
#[derive(Clone, Debug)]
pub struct ResolvedTcp {
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    /// Both ends' segments take ns-2's sizes on the wire (`FLAG_NS2_SIZES`).
    pub ns2_sizes: bool,
}

impl TcpSpec {
    /// The settings of a flow or generator that names none: one shared value, borrowed where a
    /// `&TcpSpec` is needed and none was written (a UDP flow, a call).
    pub fn none_given() -> &'static TcpSpec {
        static DEFAULT: std::sync::LazyLock<TcpSpec> = std::sync::LazyLock::new(TcpSpec::default);
        &DEFAULT
    }

    pub fn profile(&self) -> Profile {
        self.stack.unwrap_or_default().profile()
    }

    pub fn mss(&self) -> u32 {
        self.mss.unwrap_or(self.profile().mss)
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

    pub fn timestamps(&self) -> bool {
        self.timestamps.unwrap_or(self.profile().timestamps)
    }

    /// The receiver window cap in segments, if any.
    pub fn window_segments(&self) -> Option<u32> {
        self.max_window.or(self.profile().max_window)
    }

    pub fn dupthresh(&self) -> u32 {
        self.dupthresh.unwrap_or(self.profile().dupthresh)
    }

    pub fn ack_every(&self) -> u32 {
        self.ack_every.unwrap_or(self.profile().ack_every)
    }

    /// The RTO configuration: the stack's timer (or the named preset), then each override.
    pub fn rto_config(&self) -> RtoConfig {
        self.rto_config_of(&self.settings())
    }

    /// The RTO configuration from the merged settings `s`. A stack's own first RTO (ns-3's
    /// `ConnTimeout`) goes with its own timer only: a spec that names a preset gets the
    /// preset's unless it sets `initial_rto` too.
    fn rto_config_of(&self, s: &Profile) -> RtoConfig {
        let mut c = RtoConfig::preset(s.rto);
        let initial_rto = if self.rto.is_some() { self.initial_rto.map(|d| d.sim()) } else { s.initial_rto };
        c.initial_rto = initial_rto.unwrap_or(c.initial_rto);
        c.min_rto = s.min_rto.unwrap_or(c.min_rto);
        c.max_rto = s.max_rto.unwrap_or(c.max_rto);
        c.max_backoff = s.max_backoff.or(c.max_backoff);
        c.granularity = s.granularity.unwrap_or(c.granularity);
        c.k = s.k.unwrap_or(c.k);
        c.alpha = s.alpha.unwrap_or(c.alpha);
        c.beta = s.beta.unwrap_or(c.beta);
        c.floor = s.min_rto_applies_to.unwrap_or(c.floor);
        c.extra = s.rto_extra.unwrap_or(c.extra);
        if let Some(t) = s.tick {
            c.tick = (t > SimDuration::ZERO).then_some(t);
            if let Some(clock) = &mut c.ns2 {
                clock.tick = c.tick.unwrap_or(clock.tick);
            }
        }
        if let Some(clock) = &mut c.ns2 {
            clock.timestamps = s.timestamps;
        }
        match s.syn_fallback_3s {
            Some(false) => c.syn_fallback = SynFallback::Never,
            Some(true) if c.syn_fallback == SynFallback::Never => c.syn_fallback = SynFallback::Always,
            _ => {}
        }
        c
    }

    /// The sender's and receiver's configurations for a flow of `size` bytes.
    pub fn resolve(&self, size: Option<u64>) -> ResolvedTcp {
        let s = self.settings();
        let (mss, sack, timestamps) = (s.mss, s.sack, s.timestamps);
        let segments = |n: u32| n.max(1) as u64 * mss as u64;
        let sender = SenderConfig {
            mss,
            initial_window: s.iw.bytes(mss),
            syn_loss_window: s.iw_after_syn_loss.map(segments),
            syn_loss_ssthresh: s.ssthresh_after_syn_loss.map(segments),
            syn_losses_for_window: s.syn_losses_for_window,
            syn_undo_by_timestamp: s.syn_undo_by_timestamp,
            holds_at_recovery_point: s.holds_at_recovery_point,
            timeout_reduces_per_window: s.timeout_reduces_per_window,
            lone_fin: s.lone_fin,
            handshake: s.handshake,
            cc: s.cc,
            cubic: s.cc.cubic_params(s.hystart, s.cubic_beta),
            ack_counting: s.ack_counting,
            window_arith: if s.ns2_window {
                WindowArith::Ns2 { cap: s.max_window.unwrap_or(u32::MAX) }
            } else if s.linux_window || s.cc != CcKind::Reno {
                WindowArith::Linux
            } else {
                WindowArith::Bytes
            },
            recovery: s.recovery,
            sack,
            dupack_rule: s.dupack,
            limited_transmit: s.limited_transmit,
            dupthresh: s.dupthresh,
            timestamps,
            rto: self.rto_config_of(&s),
            size,
            detect: s.detect,
            response: s.response,
            cwnd_validation: s.cwnd_validation,
            sack_after_timeout: s.sack_after_timeout,
            max_burst: s.max_burst,
            fast_retransmit: s.fast_retransmit,
            flight_size: s.flight_size,
            rtt_sampling: s.rtt_sampling,
            timer_restart: s.timer_restart,
            handshake_end: s.handshake_end,
            rack: sack && s.rack,
            tlp: sack && s.tlp,
            icmp_rto: s.icmp_rto.then_some(IcmpRtoConfig {
                case7: s.icmp_rto_case7,
                extension: s.icmp_rto_extension,
                backoff_premature: s.icmp_rto_backoff,
            }),
            wheel: s.timer_wheel.then(Wheel::default),
        };
        let receiver = ReceiverConfig {
            mss,
            sack,
            dsack: sack && (s.dsack || s.detect.any_needs(|n| n.dsack)),
            max_sack_blocks: s.max_sack_blocks.min(if timestamps { 3 } else { 4 }),
            timestamps,
            delayed_ack: s.delayed_ack,
            ack_every: s.ack_every,
            delack_timeout: s.delack_timeout,
            window: s.max_window.map(|w| w as u64 * mss as u64).unwrap_or(u64::MAX / 4),
            // Linux's adaptive ACKs stand for its own timer and count: off once either is set.
            linux_acks: s.linux_acks && self.ack_every.is_none() && self.delack_timeout.is_none(),
            wheel: s.timer_wheel.then(Wheel::default),
            // Linux's receive buffer and window with 6.18's default `tcp_rmem`, unless a window
            // cap stands for the receiver (`max_window`).
            rmem: (s.linux_receive_window && s.max_window.is_none()).then(|| Box::new(KERNEL_RMEM)),
        };
        ResolvedTcp { sender, receiver, ns2_sizes: s.ns2_sizes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::initial_window::{InitialWindow, IwRule};

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
