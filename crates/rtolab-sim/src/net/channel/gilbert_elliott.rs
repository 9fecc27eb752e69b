//! The Gilbert–Elliott channel, `loss = { kind = "gilbert-elliott", ... }`: a two-state
//! (good/bad) channel in one of two forms, the time-based process of paper 001 Sec. III
//! (`gilbert_time.rs`) or the packet-based chain other tools parameterise (Gilbert 1960, the
//! `gemodel` of Linux netem; `gilbert_packets.rs`). This file holds its table, the checks of
//! the table and the form a table builds.

use super::{ChannelContext, FieldError, GilbertElliott, GilbertPackets, LossModel, LossModelKind};
use crate::time::SimTime;
use crate::units::{DurationRv, Probability, RvSampler};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::Deserialize;

/// A two-state (good/bad) channel, in one of two forms:
/// - time-based (paper 001 Sec. III): `good` and `bad` sojourn-time distributions and a bit
///   error rate per state (`ber_good`, `ber_bad`); a packet's loss probability follows from
///   its size;
/// - packet-based, as other tools parameterise it: `mean_loss` (long-run share of packets
///   lost) and `mean_burst` (mean run of consecutive losses, in packets).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    /// Must be "gilbert-elliott".
    pub kind: LossModelKind,
    /// Time-based form: how long the channel stays good, e.g. "exp(8s)".
    pub good: Option<DurationRv>,
    /// Time-based form: how long the channel stays bad, e.g. "exp(1s)".
    pub bad: Option<DurationRv>,
    /// Time-based form: bit error rate in the good state (default 0).
    pub ber_good: Option<f64>,
    /// Time-based form: bit error rate in the bad state (default 0).
    pub ber_bad: Option<f64>,
    /// Packet-based form: the long-run share of packets lost.
    pub mean_loss: Option<Probability>,
    /// Packet-based form: the mean number of consecutive losses, in packets (≥ 1).
    pub mean_burst: Option<f64>,
}

/// The form a validated table built.
pub enum GilbertElliottChannel {
    /// The time-based process, drawing its sojourns from the direction's `channel-state`
    /// stream.
    Time(Box<GilbertElliott>),
    /// The packet-based chain, drawing from the direction's stream.
    Packets(GilbertPackets),
}

impl LossModel for GilbertElliottChannel {
    type Spec = GilbertElliottSpec;

    const TABLE: &'static str = "a Gilbert–Elliott channel table";

    /// One complete form: time-based (good, bad, ber_good, ber_bad) or packet-based
    /// (mean_loss, mean_burst); sojourn means positive, BERs in [0, 1].
    fn validate(ge: &GilbertElliottSpec) -> Result<(), FieldError> {
        let time_form = ge.good.is_some() || ge.bad.is_some() || ge.ber_good.is_some() || ge.ber_bad.is_some();
        let packet_form = ge.mean_loss.is_some() || ge.mean_burst.is_some();
        if time_form && packet_form {
            let extra = if ge.mean_loss.is_some() { "mean_loss" } else { "mean_burst" };
            return Err(FieldError::new(
                extra,
                "give the time-based form (good, bad, ber_good, ber_bad) or the packet-based form (mean_loss, mean_burst), not both",
            ));
        }
        if packet_form {
            let Some(loss) = ge.mean_loss else {
                return Err(FieldError::new("mean_loss", "missing; the packet-based form needs mean_loss and mean_burst"));
            };
            let Some(burst) = ge.mean_burst else {
                return Err(FieldError::new("mean_burst", "missing; the packet-based form needs mean_loss and mean_burst"));
            };
            if loss.0 >= 1.0 {
                return Err(FieldError::new("mean_loss", format!("got {}, expected a probability below 1", loss.0)));
            }
            if !(burst >= 1.0 && burst.is_finite()) {
                return Err(FieldError::new("mean_burst", format!("got {burst}, expected a mean burst of at least 1 packet")));
            }
            return Ok(());
        }
        for (field, rv) in [("good", &ge.good), ("bad", &ge.bad)] {
            let Some(rv) = rv else {
                return Err(FieldError::new(field, "missing; expected a sojourn-time distribution such as \"exp(8s)\" (or give mean_loss and mean_burst)"));
            };
            if let Some(m) = rv.0.mean().filter(|m| !(*m > 0.0)) {
                return Err(FieldError::new(field, format!("got a mean sojourn of {m} s, expected a positive mean")));
            }
        }
        for (field, ber) in [("ber_good", ge.ber_good), ("ber_bad", ge.ber_bad)] {
            match ber {
                None => return Err(FieldError::new(field, "missing; expected a bit error rate in [0, 1]")),
                Some(b) if !(0.0..=1.0).contains(&b) => return Err(FieldError::new(field, format!("got {b}, expected a bit error rate in [0, 1]"))),
                _ => {}
            }
        }
        Ok(())
    }

    fn new(ge: &GilbertElliottSpec, cx: &ChannelContext) -> Self {
        match (&ge.good, &ge.bad, ge.mean_loss, ge.mean_burst) {
            (Some(good), Some(bad), _, _) => GilbertElliottChannel::Time(Box::new(GilbertElliott::new(
                RvSampler::new(good.0.clone()),
                RvSampler::new(bad.0.clone()),
                ge.ber_good.unwrap_or(0.0),
                ge.ber_bad.unwrap_or(0.0),
                cx.stream("channel-state"),
                cx.record,
            ))),
            (_, _, Some(loss), Some(burst)) => GilbertElliottChannel::Packets(GilbertPackets::new(loss.0, burst)),
            _ => unreachable!("validated: a Gilbert–Elliott table has one complete form"),
        }
    }

    #[inline]
    fn lost(&mut self, start: SimTime, end: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> bool {
        match self {
            GilbertElliottChannel::Time(ge) => rng.random::<f64>() < ge.error_rate(start, end, bytes),
            GilbertElliottChannel::Packets(g) => g.next_lost(rng),
        }
    }

    fn trace(&self) -> Option<&[(SimTime, u8)]> {
        match self {
            GilbertElliottChannel::Time(ge) => ge.trace(),
            GilbertElliottChannel::Packets(_) => None,
        }
    }

    fn finish(&mut self, end: SimTime) {
        if let GilbertElliottChannel::Time(ge) = self {
            ge.advance(end);
        }
    }

    fn bad_share(&self, end: SimTime) -> Option<f64> {
        match self {
            GilbertElliottChannel::Time(ge) => Some(ge.bad_time(end).as_secs_f64() / end.as_secs_f64().max(f64::MIN_POSITIVE)),
            GilbertElliottChannel::Packets(_) => None,
        }
    }
}
