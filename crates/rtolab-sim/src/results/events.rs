//! The `events` table: one row per event of the kinds a scenario asks for
//! (`output.events`), with the facts that explain it. Empty unless asked for.
//!
//! Invariant (tested on every stack): the rows of each kind agree with the flows table's
//! counts: `timeout` rows with `timeouts`, those with `oracle = "spurious"` with
//! `spurious_timeouts`, those `detected` with `spurious_detected`, `undo` rows with `undos`,
//! `retransmit` rows with `retransmits`.

use super::table::result_table;
use super::EventKind;
use serde::Serialize;

result_table! {
    /// One row of the `events` table.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct EventRow in "events" {
        /// When it happened.
        #[unit = "s"]
        pub time_s: f64,
        /// What happened: "timeout", "spurious" (the sender declared timeouts spurious),
        /// "undo", "retransmit", "drop" or "spike".
        #[unit = ""]
        pub kind: EventKind,
        /// The flow it concerns (its name in the flows table); null for a spike.
        #[unit = ""]
        pub flow: Option<String>,
        /// Where: the link direction ("radio.forward") or "hsdpa" (the radio network) that
        /// dropped the packet or whose spike began or ended; null for the sender's events.
        #[unit = ""]
        pub link: Option<String>,
        /// The segment's first byte: the one sent again or dropped, SND.UNA at a timeout.
        #[unit = "bytes"]
        pub seq: Option<u64>,
        /// The sender's congestion window before a timeout or an undo.
        #[unit = "bytes"]
        pub cwnd_before: Option<u64>,
        /// The congestion window once the sender had handled the event.
        #[unit = "bytes"]
        pub cwnd_after: Option<u64>,
        /// The slow-start threshold before a timeout or an undo; null while unset (infinite).
        #[unit = "bytes"]
        pub ssthresh_before: Option<u64>,
        /// The slow-start threshold once the sender had handled the event; null while unset.
        #[unit = "bytes"]
        pub ssthresh_after: Option<u64>,
        /// A timeout's verdict by the oracle: "spurious" (a copy of the segment sent before the
        /// expiry reached the receiver) or "genuine".
        #[unit = ""]
        pub oracle: Option<String>,
        /// Whether the sender declared this timeout spurious (a timeout's row only).
        #[unit = ""]
        pub detected: Option<bool>,
        /// Whether the sender undid this timeout's reduction (a timeout's row only).
        #[unit = ""]
        pub undone: Option<bool>,
        /// More of the event: a drop's cause ("queue": refused or dropped by the queue, RED,
        /// CoDel, PIE or FQ-CoDel; "channel": lost on the wire; "arq": discarded or flushed by link-layer ARQ; "radio-buffer":
        /// refused by a full user buffer; "moved": flushed when its user moved on), a spike's
        /// "start" or "end", the timeouts a detection or an undo covers ("timeouts 0-1").
        #[unit = ""]
        pub detail: Option<String>,
    }
}
