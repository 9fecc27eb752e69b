//! What a user writes for a QUIC connection (`quic = { cc = "cubic", … }`) and the
//! quinn-proto transport configuration it becomes. Every field left out keeps quinn-proto
//! 0.11.19's own default, named on the field.

use crate::units::{Bytes, Duration};
use quinn_proto::congestion::{CubicConfig, NewRenoConfig};
use quinn_proto::{AckFrequencyConfig, TransportConfig, VarInt};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// quinn-proto's congestion controllers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuicCc {
    /// RFC 9002 §7 (quinn-proto's `NewReno`).
    Newreno,
    /// RFC 9438 (quinn-proto's `Cubic`, its default).
    Cubic,
    /// quinn-proto's BBR. Refused by validation: it seeds its ProbeBW phase from the operating
    /// system's generator (`Bbr::new`), which no seed reaches, so its runs cannot repeat.
    Bbr,
}

impl QuicCc {
    pub fn name(self) -> &'static str {
        match self {
            QuicCc::Newreno => "newreno",
            QuicCc::Cubic => "cubic",
            QuicCc::Bbr => "bbr",
        }
    }
}

/// One QUIC connection per transfer: the client opens it, asks on one bidirectional stream
/// for the flow's `size` bytes, and the server sends them (`quic::transfer`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuicSpec {
    /// The congestion controller, "newreno" or "cubic" (default "cubic", quinn-proto's).
    pub cc: Option<QuicCc>,
    /// The RTT assumed before the first sample (RFC 9002 §6.2.2; default "333ms").
    pub initial_rtt: Option<Duration>,
    /// The longest a peer may delay an ACK. Given, each end asks its peer for it with the ACK
    /// frequency extension (draft-ietf-quic-ack-frequency); absent, the peer's own 25 ms
    /// (RFC 9000 §18.2's default `max_ack_delay`).
    pub max_ack_delay: Option<Duration>,
    /// Packets acknowledged after a packet before it is declared lost (RFC 9002 §6.1.1,
    /// kPacketThreshold; default 3).
    pub packet_threshold: Option<u32>,
    /// The multiple of the RTT after which an unacknowledged packet that a later one
    /// overtook is declared lost (RFC 9002 §6.1.2, kTimeThreshold; default 1.125).
    pub time_threshold: Option<f64>,
    /// The congestion window before any ACK, e.g. "14720B" (RFC 9002 §7.2; default
    /// quinn-proto's 14 720 bytes).
    pub initial_window: Option<Bytes>,
    /// Stream flow control: bytes a stream may have unread (default 1 250 000 B).
    pub stream_receive_window: Option<Bytes>,
    /// Connection flow control: bytes all streams may have unread (default unlimited).
    pub receive_window: Option<Bytes>,
    /// Bytes a sender keeps unacknowledged across its streams (default 10 000 000 B).
    pub send_window: Option<Bytes>,
    /// The size of every datagram before path MTU discovery, in bytes of UDP payload
    /// (default 1200, RFC 9000 §14's minimum). With a 1500-byte path MTU, 1472 fills it.
    pub initial_mtu: Option<u16>,
    /// Path MTU discovery (RFC 8899, DPLPMTUD). Off unless asked for (default false):
    /// its probes are traffic a comparison with TCP does not have.
    #[serde(default)]
    pub mtu_discovery: bool,
}

/// RFC 9000 §14: every path carries datagrams of at least 1200 bytes.
pub const MIN_INITIAL_MTU: u16 = 1200;
/// The largest UDP payload over IPv4 (65 535 − 28).
pub const MAX_INITIAL_MTU: u16 = 65_507;

impl QuicSpec {
    pub fn cc(&self) -> QuicCc {
        self.cc.unwrap_or(QuicCc::Cubic)
    }

    /// The first wrong field, as (field, message); `None` when every field holds.
    pub fn check(&self) -> Option<(&'static str, String)> {
        if self.cc == Some(QuicCc::Bbr) {
            return Some(("cc", "got \"bbr\": quinn-proto 0.11.19's BBR draws its ProbeBW phase from the operating system's generator, which no seed reaches, so its runs cannot be repeated; expected \"newreno\" or \"cubic\"".into()));
        }
        if self.packet_threshold == Some(0) {
            return Some(("packet_threshold", "got 0, expected at least 1 (RFC 9002 recommends 3)".into()));
        }
        if let Some(t) = self.time_threshold {
            if !(t.is_finite() && t >= 1.0) {
                return Some(("time_threshold", format!("got {t}, expected a finite multiple of the RTT of at least 1 (RFC 9002 recommends 1.125)")));
            }
        }
        if let Some(d) = self.initial_rtt {
            if d.0.as_nanos() == 0 {
                return Some(("initial_rtt", "got 0s, expected a positive duration (RFC 9002 recommends 333ms)".into()));
            }
        }
        if let Some(d) = self.max_ack_delay {
            if d.0.as_secs_f64() >= 16.384 {
                return Some(("max_ack_delay", format!("got {}, expected under 16.384 s (RFC 9000 §18.2)", d.0)));
            }
        }
        if let Some(m) = self.initial_mtu {
            if !(MIN_INITIAL_MTU..=MAX_INITIAL_MTU).contains(&m) {
                return Some(("initial_mtu", format!("got {m}, expected {MIN_INITIAL_MTU} to {MAX_INITIAL_MTU} bytes of UDP payload")));
            }
        }
        for (field, v) in [("initial_window", self.initial_window), ("stream_receive_window", self.stream_receive_window), ("receive_window", self.receive_window), ("send_window", self.send_window)] {
            match v {
                Some(b) if b.0 == 0 => return Some((field, "got 0 B, expected a positive number of bytes".into())),
                Some(b) if field != "initial_window" && field != "send_window" && VarInt::from_u64(b.0).is_err() => return Some((field, format!("got {} B, expected under 2^62", b.0))),
                _ => {}
            }
        }
        None
    }

    /// quinn-proto's transport configuration for a connection of this spec. Path MTU
    /// discovery is off unless asked for; GSO is off (one datagram per transmit).
    pub fn transport(&self) -> TransportConfig {
        let mut t = TransportConfig::default();
        if let Some(d) = self.initial_rtt {
            t.initial_rtt(std::time::Duration::from_nanos(d.0.as_nanos()));
        }
        if let Some(d) = self.max_ack_delay {
            let mut ack = AckFrequencyConfig::default();
            ack.max_ack_delay(Some(std::time::Duration::from_nanos(d.0.as_nanos())));
            t.ack_frequency_config(Some(ack));
        }
        if let Some(n) = self.packet_threshold {
            t.packet_threshold(n);
        }
        if let Some(x) = self.time_threshold {
            t.time_threshold(x as f32);
        }
        if let Some(b) = self.stream_receive_window {
            t.stream_receive_window(VarInt::from_u64(b.0).unwrap_or(VarInt::MAX));
        }
        if let Some(b) = self.receive_window {
            t.receive_window(VarInt::from_u64(b.0).unwrap_or(VarInt::MAX));
        }
        if let Some(b) = self.send_window {
            t.send_window(b.0);
        }
        if let Some(m) = self.initial_mtu {
            t.initial_mtu(m);
            t.min_mtu(m);
        }
        if !self.mtu_discovery {
            t.mtu_discovery_config(None);
        }
        t.enable_segmentation_offload(false);
        match self.cc() {
            QuicCc::Newreno => {
                let mut c = NewRenoConfig::default();
                if let Some(w) = self.initial_window {
                    c.initial_window(w.0);
                }
                t.congestion_controller_factory(Arc::new(c));
            }
            QuicCc::Bbr => unreachable!("validation refuses bbr (QuicSpec::check)"),
            QuicCc::Cubic => {
                let mut c = CubicConfig::default();
                if let Some(w) = self.initial_window {
                    c.initial_window(w.0);
                }
                t.congestion_controller_factory(Arc::new(c));
            }
        }
        t
    }
}
