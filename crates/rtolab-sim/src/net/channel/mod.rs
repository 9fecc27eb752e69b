//! The channel of a link direction: decides whether a transmission (one packet, or one ARQ
//! attempt) reaches the far end. Models: none, Bernoulli per packet (`loss = 0.01`), and the
//! registered ones, each a table `loss = { kind = "...", ... }`: the Gilbert–Elliott channel,
//! time-based (paper 001 Sec. III) or packet-based. Scripted losses (`drop_packets`, by
//! transmission ordinal) apply on top of any model.
//!
//! Adding a model: a file with its table and a type implementing `LossModel` (`model.rs`),
//! then a `mod` line and one entry in `register_channels!` below (`registry.rs`), which makes
//! its `kind`, reads and checks its table, lists it in the schema and has `Channel` run it.

mod gilbert_elliott;
mod gilbert_packets;
mod gilbert_time;
mod model;
mod registry;
mod table;
#[cfg(test)]
mod toy;

pub use gilbert_elliott::{GilbertElliottChannel, GilbertElliottSpec};
pub use gilbert_packets::GilbertPackets;
pub use gilbert_time::{packet_error_rate, GilbertElliott};
pub use model::{ChannelContext, LossModel};
pub use super::field_error::FieldError;

use crate::time::SimTime;
use rand_xoshiro::Xoshiro256PlusPlus;

// The registry: each model's `kind` and type, in the schema's order.
registry::register_channels! {
    /// The Gilbert–Elliott channel: time-based (paper 001 Sec. III) or packet-based.
    GilbertElliott = "gilbert-elliott" => gilbert_elliott::GilbertElliottChannel,
    /// A toy for the registry's test: every n-th transmission is lost.
    #[cfg(test)]
    EveryNth = "every-nth" => toy::EveryNth,
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
    /// a model with a state process of its own (the time-based Gilbert–Elliott channel) has
    /// a stream of its own.
    #[inline]
    pub fn lost(&mut self, start: SimTime, end: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> bool {
        self.transmissions += 1;
        let listed = !self.drop_packets.is_empty() && self.drop_packets.binary_search(&self.transmissions).is_ok();
        let lost = listed || self.model.lost(start, end, bytes, rng);
        self.losses += lost as u64;
        lost
    }

    /// The state trace (time, 1 = bad), when the model has one and recording was asked for.
    pub fn trace(&self) -> Option<&[(SimTime, u8)]> {
        self.model.trace()
    }

    /// Brings a time-based state process up to `end` (for its trace and time shares).
    pub fn finish(&mut self, end: SimTime) {
        self.model.finish(end);
    }

    /// Fraction of [0, end] the channel spent in its bad state, for time-based models.
    pub fn bad_share(&self, end: SimTime) -> Option<f64> {
        self.model.bad_share(end)
    }
}

#[cfg(test)]
mod tests;
