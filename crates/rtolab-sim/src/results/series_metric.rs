//! The recordable time series: what `output.series` asks for and what the `series` table's
//! `metric` column holds, one enum for both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A recordable time series.
///
/// Invariant: `name` is the variant's serde name, and `ALL` lists every variant in
/// declaration order, which is the order of the `metric` column's categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum SeriesMetric {
    Cwnd,
    Ssthresh,
    Srtt,
    Rto,
    /// Per flow: the pacing rate of a controller that paces (BBR), or the kernel's
    /// `tcpi_pacing_rate` under `rtolab emulate`.
    #[serde(rename = "pacing_rate")]
    PacingRate,
    Queue,
    Delay,
    /// Per link direction with a Gilbert–Elliott channel: its state (0 good, 1 bad) on
    /// every change.
    Channel,
    /// Per mobile user of the radio network: its SIR in each TTI it is served.
    Sir,
    /// Per mobile user of the radio network: the rate its block carried in each TTI it is
    /// served (0 for a damaged block).
    Rate,
    /// Per link direction with CoDel, PIE or FQ-CoDel: each sent packet's time in the
    /// queue, at its departure.
    Sojourn,
    /// Per flow: each RTT sample the sender takes, at the ACK that gives it.
    Rtt,
    /// Per QUIC flow: the server's RTT variance (RFC 9002 §5.3 rttvar), on change.
    Rttvar,
}

impl SeriesMetric {
    /// Every metric, in declaration order.
    pub const ALL: [SeriesMetric; 13] = [Self::Cwnd, Self::Ssthresh, Self::Srtt, Self::Rto, Self::PacingRate, Self::Queue, Self::Delay, Self::Channel, Self::Sir, Self::Rate, Self::Sojourn, Self::Rtt, Self::Rttvar];
    /// The per-flow sender state, in the order a sender's values are sampled.
    pub const SENDER: [SeriesMetric; 5] = [Self::Cwnd, Self::Ssthresh, Self::Srtt, Self::Rto, Self::PacingRate];

    /// The name users write in `output.series` and find in the `metric` column.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cwnd => "cwnd",
            Self::Ssthresh => "ssthresh",
            Self::Srtt => "srtt",
            Self::Rto => "rto",
            Self::PacingRate => "pacing_rate",
            Self::Queue => "queue",
            Self::Delay => "delay",
            Self::Channel => "channel",
            Self::Sir => "sir",
            Self::Rate => "rate",
            Self::Sojourn => "sojourn",
            Self::Rtt => "rtt",
            Self::Rttvar => "rttvar",
        }
    }

    /// The unit of the `value` column for this metric.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Cwnd | Self::Ssthresh => "bytes",
            Self::Srtt | Self::Rto | Self::Delay | Self::Sojourn | Self::Rtt | Self::Rttvar => "s",
            Self::Queue => "packets",
            Self::Channel => "state",
            Self::Sir => "dB",
            Self::Rate | Self::PacingRate => "bit/s",
        }
    }

    /// One line on what the metric records, for `rtolab schema --results`.
    pub fn description(self) -> &'static str {
        match self {
            Self::Cwnd => "per flow: the sender's congestion window, on change",
            Self::Ssthresh => "per flow: the slow-start threshold (infinite until first set), on change",
            Self::Srtt => "per flow: the smoothed RTT, on change",
            Self::Rto => "per flow: the retransmission timeout, on change",
            Self::PacingRate => "per flow: the pacing rate, on change (simulated: controllers that pace, BBR; kernel: tcpi_pacing_rate, which Linux keeps for every controller)",
            Self::Queue => "per link direction: the queue length, on change",
            Self::Delay => "per flow: the one-way delay of each data packet at the receiver",
            Self::Channel => "per link direction with a Gilbert–Elliott channel: 0 good, 1 bad, on change",
            Self::Sir => "per mobile user of the radio network: its SIR in each TTI it is served",
            Self::Rate => "per mobile user of the radio network: the IP bytes its block carried in a TTI it is served, as a rate (0 when damaged)",
            Self::Sojourn => "per link direction with CoDel, PIE or FQ-CoDel: each sent packet's time in the queue, at its departure",
            Self::Rttvar => "per QUIC flow: the server's RTT variance (RFC 9002 rttvar), on change",
            Self::Rtt => "per flow: each RTT sample the sender takes (Karn's rule: none from a retransmitted segment), at the ACK that gives it",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SeriesMetric;

    #[test]
    fn test_names_are_the_serde_names_and_all_is_complete() {
        for (i, m) in SeriesMetric::ALL.into_iter().enumerate() {
            let parsed: SeriesMetric = serde_json::from_value(serde_json::Value::String(m.name().into())).expect("a metric's name parses");
            assert_eq!(parsed, m);
            assert_eq!(m as usize, i, "ALL is in declaration order");
        }
    }
}
