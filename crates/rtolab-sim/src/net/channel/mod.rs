//! The channel of a link direction: decides whether a transmission (one packet, or one ARQ
//! attempt) reaches the far end. Models: none, Bernoulli per packet, the time-based
//! Gilbert–Elliott channel of paper 001 Sec. III and the packet-based two-state chain.
//! Scripted losses (`drop_packets`, by transmission ordinal) apply on top of any model.

mod gilbert_elliott;
mod gilbert_packets;

pub use gilbert_elliott::{packet_error_rate, GilbertElliott};
pub use gilbert_packets::GilbertPackets;

use crate::time::SimTime;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The loss model of a channel.
pub enum ChannelModel {
    Perfect,
    /// Independent loss with this probability per transmission.
    Bernoulli(f64),
    GilbertElliott(Box<GilbertElliott>),
    GilbertPackets(GilbertPackets),
}

pub struct Channel {
    model: ChannelModel,
    /// Ordinals (from 1, sorted) of transmissions that are lost.
    drop_packets: Vec<u64>,
    transmissions: u64,
    pub losses: u64,
}

impl Channel {
    pub fn new(model: ChannelModel, mut drop_packets: Vec<u64>) -> Self {
        drop_packets.sort_unstable();
        Channel { model, drop_packets, transmissions: 0, losses: 0 }
    }

    /// Judges the transmission of `bytes` serialised over [start, end]. Per-packet draws come
    /// from `rng`, the link direction's stream (shared with RED so their order is fixed);
    /// the Gilbert–Elliott state process has a stream of its own.
    #[inline]
    pub fn lost(&mut self, start: SimTime, end: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> bool {
        self.transmissions += 1;
        let listed = !self.drop_packets.is_empty() && self.drop_packets.binary_search(&self.transmissions).is_ok();
        let lost = listed
            || match &mut self.model {
                ChannelModel::Perfect => false,
                ChannelModel::Bernoulli(p) => *p > 0.0 && rng.random::<f64>() < *p,
                ChannelModel::GilbertElliott(ge) => rng.random::<f64>() < ge.error_rate(start, end, bytes),
                ChannelModel::GilbertPackets(g) => g.next_lost(rng),
            };
        self.losses += lost as u64;
        lost
    }

    /// The state trace (time, 1 = bad), when the model has one and recording was asked for.
    pub fn trace(&self) -> Option<&[(SimTime, u8)]> {
        match &self.model {
            ChannelModel::GilbertElliott(ge) => ge.trace(),
            _ => None,
        }
    }

    /// Brings a time-based state process up to `end` (for its trace and time shares).
    pub fn finish(&mut self, end: SimTime) {
        if let ChannelModel::GilbertElliott(ge) = &mut self.model {
            ge.advance(end);
        }
    }

    /// Fraction of [0, end] the channel spent in its bad state, for time-based models.
    pub fn bad_share(&self, end: SimTime) -> Option<f64> {
        match &self.model {
            ChannelModel::GilbertElliott(ge) => Some(ge.bad_time(end).as_secs_f64() / end.as_secs_f64().max(f64::MIN_POSITIVE)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
