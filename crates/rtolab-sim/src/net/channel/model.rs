//! What a registered channel model is (`LossModel`): its table in `loss = { kind = ..., ... }`,
//! the checks the table's types cannot express, how a link direction builds it, and its
//! judgement of each transmission. `register_channels!` (`registry.rs`) dispatches to it.

use crate::net::field_error::FieldError;
use crate::rng::stream;
use crate::time::SimTime;
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// A loss model of a link direction's channel.
///
/// Invariant: a model draws per transmission only from the `rng` that `lost` is given (the
/// direction's stream, shared with RED in event order) and from streams of its own taken from
/// `ChannelContext::stream` when it is built, so its results depend on (seed, link,
/// purpose) alone.
pub trait LossModel: Sized {
    /// The model's table (`deny_unknown_fields`, with a `kind: LossModelKind` field whose doc
    /// says `Must be "its-name".`); its doc comments are `rtolab schema`'s descriptions.
    type Spec: Clone + Debug + PartialEq + DeserializeOwned + JsonSchema;

    /// How the description of `loss` in `rtolab schema` names the table ("a … table").
    const TABLE: &'static str;

    /// The checks of a parsed table that its types cannot express; an error names the field.
    fn validate(spec: &Self::Spec) -> Result<(), FieldError>;

    /// The model of one link direction, from a validated table.
    fn new(spec: &Self::Spec, cx: &ChannelContext) -> Self;

    /// Whether the transmission of `bytes` serialised over [start, end] is lost.
    fn lost(&mut self, start: SimTime, end: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> bool;

    /// The state trace (time, 1 = bad), for a model with states when recording was asked for.
    fn trace(&self) -> Option<&[(SimTime, u8)]> {
        None
    }

    /// Brings a time-based state process up to `end` (for its trace and time shares).
    fn finish(&mut self, _end: SimTime) {}

    /// Fraction of [0, end] spent in the bad state, for a time-based model.
    fn bad_share(&self, _end: SimTime) -> Option<f64> {
        None
    }
}

/// What a link direction's channel is built with: the run's seed, the direction's name
/// (`links/{link}/{way}`) and whether its state is recorded (`output.series` has `channel`).
pub struct ChannelContext<'a> {
    pub seed: u64,
    pub direction: &'a str,
    pub record: bool,
}

impl ChannelContext<'_> {
    /// The direction's stream for `purpose`: (seed, direction, purpose), as `rng::stream`.
    pub fn stream(&self, purpose: &str) -> Xoshiro256PlusPlus {
        stream(self.seed, self.direction, purpose)
    }
}
