//! A cell of the HS-DSCH: its backlogged users, its TTI clock and its counters.

use super::buffer::SharedBuffer;
use crate::net::PacketId;
use crate::results::CellRow;
use crate::time::{SimDuration, SimTime};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Counters of one cell over a run.
#[derive(Clone, Debug, Default)]
pub struct CellStats {
    pub ttis_busy: u64,
    pub blocks_sent: u64,
    pub blocks_lost: u64,
    /// Bytes of IP packets carried by intact blocks (padding excluded).
    pub bytes: u64,
    /// Sum over busy TTIs of the number of backlogged users.
    pub user_ttis: u64,
    /// Sum over busy TTIs of the number of users served.
    pub served_ttis: u64,
    /// Sum over served blocks of the user's SIR in dB.
    pub sir_db_sum: f64,
    /// Packets refused by a full user buffer or a full shared cell buffer.
    pub buffer_drops: u64,
    /// Packets dropped from a buffer because its user moved on to a new transfer.
    pub flushed: u64,
}

pub struct Cell {
    /// Attached users with data to send or a damaged block to repeat, in arrival order.
    pub active: Vec<u32>,
    /// The pending TTI event of this cell, if any (one at a time).
    pub next_tti: Option<SimTime>,
    /// The start of the last TTI in which this cell transmitted.
    pub last_tx: Option<SimTime>,
    /// Packets reassembled in the TTI under way, handed to their users when it ends.
    pub delivering: Vec<PacketId>,
    /// Block-error draws.
    pub rng: Xoshiro256PlusPlus,
    /// What the attached users' buffers hold, against the cell's shared limit.
    pub shared: SharedBuffer,
    pub stats: CellStats,
}

impl Cell {
    pub fn new(rng: Xoshiro256PlusPlus, shared: SharedBuffer) -> Self {
        Cell { active: Vec::new(), next_tti: None, last_tx: None, delivering: Vec::new(), rng, shared, stats: CellStats::default() }
    }

    /// Whether this cell sends in the TTI that starts at `t` (it did already, or its pending
    /// TTI at `t` has users to serve), for the interference it causes.
    pub fn transmits_at(&self, t: SimTime) -> bool {
        self.last_tx == Some(t) || (self.next_tti == Some(t) && !self.active.is_empty())
    }

    /// The table row of this cell for a run that lasted until `end`.
    pub fn report(&self, cell: u32, name: String, tti: SimDuration, end: SimTime) -> CellRow {
        let s = &self.stats;
        let run_s = end.as_secs_f64();
        let ttis = (run_s / tti.as_secs_f64()).max(1.0);
        let per = |num: f64, den: u64| (den > 0).then(|| num / den as f64);
        CellRow {
            cell: cell.into(),
            name,
            ttis_busy: s.ttis_busy,
            busy_share: s.ttis_busy as f64 / ttis,
            blocks_sent: s.blocks_sent,
            blocks_lost: s.blocks_lost,
            bytes: s.bytes,
            throughput_bps: if run_s > 0.0 { s.bytes as f64 * 8.0 / run_s } else { 0.0 },
            mean_users: s.user_ttis as f64 / ttis,
            mean_served: per(s.served_ttis as f64, s.ttis_busy),
            mean_sir_db: per(s.sir_db_sum, s.blocks_sent),
            buffer_drops: s.buffer_drops,
            flushed: s.flushed,
        }
    }
}
