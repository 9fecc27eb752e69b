//! The delay spikes a link direction is given in a scenario (`spikes = { … }`); the runtime
//! spike process (`spikes.rs`) is built from these and the scenario schema uses them as they
//! are.

use crate::units::{Duration, DurationRv};
use schemars::JsonSchema;
use serde::Deserialize;

/// Which directions of a link a delay spike holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SpikeDirection {
    Forward,
    Reverse,
    #[default]
    Both,
}

/// What a spike holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SpikeHold {
    /// The transmitter stops and packets already on the wire are held at the far end too:
    /// nothing leaves the link during the spike.
    #[default]
    All,
    /// Only the transmitter stops; packets on the wire still arrive (ns-2's `Delayer`,
    /// which sits between the queue and the link).
    Queue,
}

/// Delay spikes after ns-2's `Delayer`: during a spike the link direction stops serving
/// (and, with `hold = "all"`, holds what is on the wire; nothing is dropped by the spike);
/// when the spike ends, held packets are released back to back. `interval` is the spike-free time
/// from the end of one spike to the start of the next (the first spike starts one interval
/// after `start`); or give fixed start times with `at`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpikeSpec {
    /// The spike-free time from the end of one spike to the start of the next, e.g.
    /// "uniform(10s, 30s)"; give this or `at`.
    pub interval: Option<DurationRv>,
    /// Fixed start times of the spikes, instead of `interval`.
    pub at: Option<Vec<Duration>>,
    /// How long each spike lasts, e.g. "uniform(1s, 2s)".
    pub length: DurationRv,
    /// Which directions a spike stops: "forward", "reverse" or "both" (default "both").
    #[serde(default)]
    pub direction: SpikeDirection,
    /// When random spikes begin to be drawn (default 0 s).
    pub start: Option<Duration>,
    /// "all" (default): the link direction holds everything; "queue": only the
    /// transmitter stops, as in ns-2.
    #[serde(default)]
    pub hold: SpikeHold,
}
