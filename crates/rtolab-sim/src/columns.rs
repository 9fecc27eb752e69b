//! Result tables as typed columns, so bindings can hand them over without a Python object
//! per cell. Optional values carry a validity mask (1 = present).

use crate::results::{CellRow, FlowRow, LinkRow};

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
    OptF64(Vec<f64>, Vec<u8>),
    OptU64(Vec<u64>, Vec<u8>),
    OptStr(Vec<Option<String>>),
}

/// A table: named columns of equal length, in display order.
pub type Table = Vec<(&'static str, Column)>;

fn f64s<T>(rows: &[T], f: impl Fn(&T) -> f64) -> Column {
    Column::F64(rows.iter().map(f).collect())
}
fn u64s<T>(rows: &[T], f: impl Fn(&T) -> u64) -> Column {
    Column::U64(rows.iter().map(f).collect())
}
fn strs<T>(rows: &[T], f: impl Fn(&T) -> &str) -> Column {
    Column::Str(rows.iter().map(|r| f(r).to_string()).collect())
}
fn opt_f64s<T>(rows: &[T], f: impl Fn(&T) -> Option<f64>) -> Column {
    Column::OptF64(rows.iter().map(|r| f(r).unwrap_or(f64::NAN)).collect(), rows.iter().map(|r| f(r).is_some() as u8).collect())
}
fn opt_u64s<T>(rows: &[T], f: impl Fn(&T) -> Option<u64>) -> Column {
    Column::OptU64(rows.iter().map(|r| f(r).unwrap_or(0)).collect(), rows.iter().map(|r| f(r).is_some() as u8).collect())
}

/// The `flows` table, columns in the order of `FlowRow`.
pub fn flows_table(rows: &[FlowRow]) -> Table {
    vec![
        ("flow", u64s(rows, |r| r.flow as u64)),
        ("name", strs(rows, |r| &r.name)),
        ("kind", strs(rows, |r| &r.kind)),
        ("generator", Column::OptStr(rows.iter().map(|r| r.generator.clone()).collect())),
        ("start_s", f64s(rows, |r| r.start_s)),
        ("end_s", opt_f64s(rows, |r| r.end_s)),
        ("size", opt_u64s(rows, |r| r.size)),
        ("bytes", u64s(rows, |r| r.bytes)),
        ("goodput_bps", opt_f64s(rows, |r| r.goodput_bps)),
        ("throughput_bps", opt_f64s(rows, |r| r.throughput_bps)),
        ("segments_sent", u64s(rows, |r| r.segments_sent)),
        ("retransmits", u64s(rows, |r| r.retransmits)),
        ("retransmitted_bytes", u64s(rows, |r| r.retransmitted_bytes)),
        ("timeouts", u64s(rows, |r| r.timeouts)),
        ("spurious_timeouts", u64s(rows, |r| r.spurious_timeouts)),
        ("spurious_detected", u64s(rows, |r| r.spurious_detected)),
        ("spurious_detected_correct", u64s(rows, |r| r.spurious_detected_correct)),
        ("undos", u64s(rows, |r| r.undos)),
        ("dsacks", u64s(rows, |r| r.dsacks)),
        ("syn_timeouts", u64s(rows, |r| r.syn_timeouts)),
        ("spurious_syn_timeouts", u64s(rows, |r| r.spurious_syn_timeouts)),
        ("fast_retransmits", u64s(rows, |r| r.fast_retransmits)),
        ("duplicate_bytes", u64s(rows, |r| r.duplicate_bytes)),
        ("icmp_drop", u64s(rows, |r| r.icmp_drop)),
        ("icmp_defer", u64s(rows, |r| r.icmp_defer)),
        ("icmp_early_timeouts", u64s(rows, |r| r.icmp_early_timeouts)),
        ("icmp_shrinks", u64s(rows, |r| r.icmp_shrinks)),
        ("icmp_extensions", u64s(rows, |r| r.icmp_extensions)),
        ("mean_rto_s", opt_f64s(rows, |r| r.mean_rto_s)),
        ("mean_rtt_s", opt_f64s(rows, |r| r.mean_rtt_s)),
    ]
}

/// The `links` table, one row per link direction.
pub fn links_table(rows: &[LinkRow]) -> Table {
    vec![
        ("link", strs(rows, |r| &r.link)),
        ("direction", strs(rows, |r| &r.direction)),
        ("rate_bps", f64s(rows, |r| r.rate_bps)),
        ("delay_s", f64s(rows, |r| r.delay_s)),
        ("packets_sent", u64s(rows, |r| r.packets_sent)),
        ("bytes_sent", u64s(rows, |r| r.bytes_sent)),
        ("drops", u64s(rows, |r| r.drops)),
        ("queue_drops", u64s(rows, |r| r.queue_drops)),
        ("red_drops", u64s(rows, |r| r.red_drops)),
        ("loss_drops", u64s(rows, |r| r.loss_drops)),
        ("channel_losses", u64s(rows, |r| r.channel_losses)),
        ("bad_share", opt_f64s(rows, |r| r.bad_share)),
        ("arq_attempts", u64s(rows, |r| r.arq_attempts)),
        ("arq_successes", u64s(rows, |r| r.arq_successes)),
        ("arq_discards", u64s(rows, |r| r.arq_discards)),
        ("arq_flushes", u64s(rows, |r| r.arq_flushes)),
        ("icmp_drop", u64s(rows, |r| r.icmp_drop)),
        ("icmp_defer", u64s(rows, |r| r.icmp_defer)),
        ("utilisation", f64s(rows, |r| r.utilisation)),
        ("mean_queue", f64s(rows, |r| r.mean_queue)),
        ("max_queue", u64s(rows, |r| r.max_queue)),
        ("max_queue_bytes", u64s(rows, |r| r.max_queue_bytes)),
        ("spikes", u64s(rows, |r| r.spikes)),
        ("spike_time_s", f64s(rows, |r| r.spike_time_s)),
    ]
}

/// The `cells` table, one row per cell of the radio network (empty without one).
pub fn cells_table(rows: &[CellRow]) -> Table {
    vec![
        ("cell", u64s(rows, |r| r.cell as u64)),
        ("name", strs(rows, |r| &r.name)),
        ("ttis_busy", u64s(rows, |r| r.ttis_busy)),
        ("busy_share", f64s(rows, |r| r.busy_share)),
        ("blocks_sent", u64s(rows, |r| r.blocks_sent)),
        ("blocks_lost", u64s(rows, |r| r.blocks_lost)),
        ("bytes", u64s(rows, |r| r.bytes)),
        ("throughput_bps", f64s(rows, |r| r.throughput_bps)),
        ("mean_users", f64s(rows, |r| r.mean_users)),
        ("mean_served", opt_f64s(rows, |r| r.mean_served)),
        ("mean_sir_db", opt_f64s(rows, |r| r.mean_sir_db)),
        ("buffer_drops", u64s(rows, |r| r.buffer_drops)),
        ("flushed", u64s(rows, |r| r.flushed)),
    ]
}
