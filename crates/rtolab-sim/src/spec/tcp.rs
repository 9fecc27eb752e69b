//! TCP settings of a flow: congestion control, loss recovery options, ACK policy and the RTO
//! preset with per-field overrides.

use crate::tcp::rto::{RtoConfig, RtoFloor};
use crate::time::SimDuration;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::Deserialize;

/// Congestion-control algorithm. Reno and NewReno differ in fast recovery (RFC 5681 vs
/// RFC 6582); with `sack = true` recovery follows RFC 6675 for both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    Reno,
    #[default]
    Newreno,
}

/// Named RTO behaviours of real stacks and simulators (see `RtoConfig::preset`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoPreset {
    #[default]
    Rfc6298,
    Linux,
    Freebsd,
    Ns2,
    Ns3,
}

/// Initial congestion window: a number of segments or the RFC rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum InitialWindow {
    Segments(u32),
    Rule(IwRule),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IwRule {
    /// min(4·MSS, max(2·MSS, 4380 B)), RFC 3390 (1).
    Rfc3390,
    /// min(10·MSS, max(2·MSS, 14600 B)), RFC 6928 (2).
    Rfc6928,
}

impl InitialWindow {
    /// The initial window in bytes for a given MSS, in whole segments (the byte bound of
    /// the RFC rounded down to full-sized segments, as segment-counting stacks do).
    pub fn bytes(self, mss: u32) -> u64 {
        let mss = mss as u64;
        let bound = match self {
            InitialWindow::Segments(n) => return n.max(1) as u64 * mss,
            InitialWindow::Rule(IwRule::Rfc3390) => (4 * mss).min((2 * mss).max(4380)),
            InitialWindow::Rule(IwRule::Rfc6928) => (10 * mss).min((2 * mss).max(14600)),
        };
        (bound / mss).max(1) * mss
    }
}

/// TCP configuration of one flow. Every field has a default; RTO fields override the preset.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    #[serde(default)]
    pub cc: CcKind,
    /// SACK (RFC 2018) at the receiver and RFC 6675 recovery at the sender.
    #[serde(default = "yes")]
    pub sack: bool,
    /// Maximum segment size: payload bytes per segment.
    #[serde(default = "default_mss")]
    pub mss: u32,
    #[serde(default = "default_iw")]
    pub iw: InitialWindow,
    /// Receiver window cap in segments (models window = BDP); none means unlimited.
    pub max_window: Option<u32>,
    /// RFC 7323 timestamps, used for RTT sampling on every ACK.
    #[serde(default = "yes")]
    pub timestamps: bool,
    /// Limited transmit, RFC 3042.
    #[serde(default = "yes")]
    pub limited_transmit: bool,
    /// Duplicate ACKs that trigger fast retransmit.
    #[serde(default = "default_dupthresh")]
    pub dupthresh: u32,
    /// Delayed ACKs (RFC 5681, 4.2): ACK every `ack_every` full segments or after the timeout.
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    #[serde(default = "default_ack_every")]
    pub ack_every: u32,
    #[serde(default = "default_delack_timeout")]
    pub delack_timeout: Duration,
    /// RTO preset; the fields below override it one by one.
    #[serde(default)]
    pub rto: RtoPreset,
    pub min_rto: Option<Duration>,
    pub max_rto: Option<Duration>,
    pub initial_rto: Option<Duration>,
    /// Clock granularity G of RFC 6298 (2.2)/(2.3).
    pub granularity: Option<Duration>,
    /// K of RFC 6298 (2.3).
    pub k: Option<u32>,
    /// Gains of RFC 6298 (2.3): alpha = 1/8, beta = 1/4.
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    /// Where the minimum applies: to the whole RTO ("rto", RFC 6298 (2.4)) or to the
    /// variance term ("variance", Linux).
    pub min_rto_applies_to: Option<RtoFloor>,
    /// Constant added to every RTO (FreeBSD adds two ticks).
    pub rto_extra: Option<Duration>,
    /// Tick of a coarse timer: RTT samples and RTO are whole ticks (ns-2's `tcpTick_`).
    pub tick: Option<Duration>,
    /// RFC 6298 (5.7): after a SYN timeout, start data transfer with RTO = 3 s.
    pub syn_fallback_3s: Option<bool>,
}

fn yes() -> bool {
    true
}
fn default_mss() -> u32 {
    1448
}
fn default_iw() -> InitialWindow {
    InitialWindow::Rule(IwRule::Rfc6928)
}
fn default_dupthresh() -> u32 {
    3
}
fn default_ack_every() -> u32 {
    2
}
fn default_delack_timeout() -> Duration {
    Duration(SimDuration::from_millis(200))
}

impl Default for TcpSpec {
    fn default() -> Self {
        toml::from_str("").expect("an empty table is a valid TcpSpec")
    }
}

impl TcpSpec {
    /// The RTO configuration: the preset, then each given override.
    pub fn rto_config(&self) -> RtoConfig {
        let mut c = RtoConfig::preset(self.rto);
        let d = |o: Option<Duration>| o.map(|d| d.sim());
        c.min_rto = d(self.min_rto).unwrap_or(c.min_rto);
        c.max_rto = d(self.max_rto).unwrap_or(c.max_rto);
        c.initial_rto = d(self.initial_rto).unwrap_or(c.initial_rto);
        c.granularity = d(self.granularity).unwrap_or(c.granularity);
        c.k = self.k.unwrap_or(c.k);
        c.alpha = self.alpha.unwrap_or(c.alpha);
        c.beta = self.beta.unwrap_or(c.beta);
        c.floor = self.min_rto_applies_to.unwrap_or(c.floor);
        c.extra = d(self.rto_extra).unwrap_or(c.extra);
        if let Some(t) = self.tick {
            c.tick = (t.sim() > SimDuration::ZERO).then_some(t.sim());
        }
        c.syn_fallback_3s = self.syn_fallback_3s.unwrap_or(c.syn_fallback_3s);
        c
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
}
