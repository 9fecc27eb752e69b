//! The queue a link direction is given in a scenario (`queue = { kind = … }`): DropTail or
//! RED with ns-2's parameter names, or CoDel, PIE or FQ-CoDel with Linux's (their tables are
//! declared beside their runtime, `codel.rs`, `pie.rs`, `fq_codel.rs`). The runtime queue
//! (`queue.rs`) is built from these; the scenario schema (`spec`) uses them as they are.

pub use super::codel::CodelSpec;
pub use super::fq_codel::FqCodelSpec;
pub use super::pie::PieSpec;
use crate::units::{Bytes, Limit};
use schemars::JsonSchema;
use serde::Deserialize;

/// The queue in front of a link direction's transmitter.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueSpec {
    /// First in, first out; arrivals beyond the limit are dropped (`kind = "droptail"`).
    Droptail(DroptailSpec),
    /// Random Early Detection with ns-2's parameter names and semantics.
    Red(RedSpec),
    /// CoDel, controlled delay (RFC 8289), as Linux's `codel` qdisc.
    Codel(CodelSpec),
    /// PIE, proportional integral controller enhanced (RFC 8033), as Linux's `pie` qdisc.
    Pie(PieSpec),
    /// FQ-CoDel, flow queueing with CoDel (RFC 8290), as Linux's `fq_codel` qdisc.
    #[serde(rename = "fq_codel")]
    FqCodel(FqCodelSpec),
}

impl QueueSpec {
    /// Reads `table` (its `kind` removed) as the table of queue `kind` alone, for the path
    /// inside the table of its first error (`spec::load::refine_tagged`); `None` for an
    /// unknown kind or a table without error.
    pub fn table_error(kind: &str, table: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
        fn read<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
            serde_path_to_error::deserialize::<_, T>(v).err()
        }
        match kind {
            "droptail" => read::<DroptailSpec>(table),
            "red" => read::<RedSpec>(table),
            "codel" => read::<CodelSpec>(table),
            "pie" => read::<PieSpec>(table),
            "fq_codel" => read::<FqCodelSpec>(table),
            _ => None,
        }
    }
}

impl Default for QueueSpec {
    /// ns-2's default queue: DropTail, 50 packets.
    fn default() -> Self {
        QueueSpec::Droptail(DroptailSpec { limit: Limit::Packets(50) })
    }
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DroptailSpec {
    /// Most packets ("50p") or bytes ("64kB") the queue holds; arrivals beyond it are dropped.
    pub limit: Limit,
}

/// RED as in ns-2's `Queue/RED` (Floyd & Jacobson 1993; "gentle" variant of 2000).
/// Thresholds are in packets unless `queue_in_bytes`, in which case they are in units of
/// `mean_pktsize` bytes, as in ns-2.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Hard limit of the queue (packets or bytes).
    pub limit: Limit,
    /// EWMA weight of the average queue (ns-2 `q_weight_`).
    #[serde(default = "red_q_weight")]
    pub q_weight: f64,
    /// Minimum threshold (ns-2 `thresh_`).
    #[serde(default = "red_thresh")]
    pub thresh: f64,
    /// Maximum threshold (ns-2 `maxthresh_`).
    #[serde(default = "red_maxthresh")]
    pub maxthresh: f64,
    /// Drop probability at `maxthresh`; give this or `linterm` (= 1/max_p), not both.
    pub max_p: Option<f64>,
    /// ns-2's `linterm_`, 1/max_p (default 10, max_p = 0.1, when neither is given).
    pub linterm: Option<f64>,
    /// Average packet size used for idle-time decay and byte mode (ns-2 `mean_pktsize_`).
    #[serde(default = "red_mean_pktsize")]
    pub mean_pktsize: Bytes,
    /// Byte mode: drop probability scaled by packet size (ns-2 `bytes_`).
    #[serde(default)]
    pub bytes: bool,
    /// Measure the queue in bytes (ns-2 `queue_in_bytes_`).
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// Gentle RED: probability rises from max_p to 1 between maxthresh and 2·maxthresh.
    #[serde(default = "yes")]
    pub gentle: bool,
    /// Space drops out more evenly (ns-2 `wait_`).
    #[serde(default = "yes")]
    pub wait: bool,
}

fn red_q_weight() -> f64 {
    0.002
}
fn red_thresh() -> f64 {
    5.0
}
fn red_maxthresh() -> f64 {
    15.0
}
fn red_mean_pktsize() -> Bytes {
    Bytes(500)
}
fn yes() -> bool {
    true
}
