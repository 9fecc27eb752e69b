//! The HSDPA radio access network at run time: the cells, the mobile users, and the TTI of
//! each cell (paper 000, Sec. 3.1).
//!
//! Engine rule: one pending TTI event per cell, on the common 2 ms grid, and only while the
//! cell has users to serve or packets to hand over; an idle cell schedules nothing (it still
//! interferes through its common channels, which need no event). A TTI costs O(backlogged
//! users of the cell × cells) (gains from every base station).
//!
//! One TTI of cell c starting at t: the packets reassembled in the previous TTI reach their
//! users; the scheduler orders the backlogged users; the first k of them (at most
//! `users_per_tti`) share the TTI by code multiplexing, k chosen by `radio.multiplex`
//! (`Multiplex::users`: by default further users join while those chosen cannot fill their
//! blocks); each chosen user's SIR follows from the k users sharing the cell's HS-DSCH
//! power, the cells that transmit at t and the common channels of those that do not; its
//! block from link adaptation on its 1/k of the codes (`LinkAdaptation::block_sharing_codes`)
//! or, with `multiplex_split = "power"`, the whole block of its SIR (`MultiplexSplit::block`);
//! the block carries the user's bytes in order, from several packets or, with
//! `concatenation = false`, from the head packet alone; a damaged block (uniform draw at the
//! block error rate) leaves the buffer as it was and the user goes first next TTI.

use super::buffer::{SharedBuffer, UeBuffer};
use super::cell::Cell;
use super::geometry::Layout;
use super::link_adaptation::LinkAdaptation;
use super::mobility::Mobility;
use super::multiplex::{Multiplex, MultiplexSplit};
use super::scheduler::{proportional_fair::update_average, rank, Candidate};
use super::shadowing::Shadowing;
use super::sir::{db, Interference};
use super::ue::Ue;
use crate::engine::{Event, EventQueue};
use crate::net::{DirId, Offer, PacketId};
use crate::results::{CellRow, SeriesTable};
use crate::rng::stream;
use super::radio_spec::{RadioSpec, SchedulerKind};
use crate::results::SeriesMetric;
use crate::time::{SimDuration, SimTime};
use crate::units::RvSampler;
use rand::Rng;

pub struct RadioNetwork {
    pub name: String,
    layout: Layout,
    tti: SimDuration,
    exponent: f64,
    interference: Interference,
    adaptation: LinkAdaptation,
    users_per_tti: usize,
    multiplex: Multiplex,
    multiplex_split: MultiplexSplit,
    /// A block may carry parts of several packets (else the head packet's alone).
    concatenation: bool,
    scheduler: SchedulerKind,
    pf_window_ttis: f64,
    cells: Vec<Cell>,
    ues: Vec<Ue>,
    /// User u's dedicated uplink is the direction `first_uplink + u`.
    first_uplink: DirId,
    /// Scratch: this TTI's candidates.
    candidates: Vec<Candidate>,
    /// Per-user series asked for (`sir`, `rate`), and what they recorded: (time, user,
    /// metric, value).
    record: RadioRecording,
    recorded: Vec<(SimTime, u32, SeriesMetric, f64)>,
}

/// Which per-user series a radio network records.
#[derive(Clone, Copy, Debug, Default)]
pub struct RadioRecording {
    pub sir: bool,
    pub rate: bool,
}

impl RadioNetwork {
    /// The network of a validated `spec` with `ues` users whose uplinks are the directions
    /// `first_uplink`, `first_uplink + 1`, …
    pub fn new(spec: &RadioSpec, ues: usize, first_uplink: DirId, seed: u64, record: RadioRecording) -> Self {
        let layout = Layout::hexagonal(spec.cells, spec.radius.0).expect("validated: 1, 7 or 19 cells and a positive radius");
        let n = layout.cells();
        let cells = (0..n)
            .map(|c| Cell::new(stream(seed, &format!("radio/{}/cell{c}", spec.name), "block-errors"), SharedBuffer::new(spec.cell_buffer)))
            .collect();
        let ues = (0..ues)
            .map(|u| {
                let mut rng = stream(seed, &format!("radio/{}/ue{u}", spec.name), "movement-and-shadowing");
                let mut speed = RvSampler::new(spec.speed.0.clone());
                let v = speed.sample(&mut rng);
                let mobility = Mobility::place(&layout, &mut rng, v, SimTime::ZERO);
                let shadowing = Shadowing::new(n, spec.shadowing_db, spec.decorrelation.0, &mut rng);
                let cell = layout.nearest_cell(mobility.position(&layout, SimTime::ZERO)) as u32;
                Ue {
                    mobility,
                    shadowing,
                    shadow_at: SimTime::ZERO,
                    gains: vec![0.0; n],
                    gains_stale: true,
                    cell,
                    buffer: UeBuffer::new(spec.buffer),
                    retransmit: false,
                    active: false,
                    last_served: 0,
                    average: 0.0,
                    speed,
                    rng,
                }
            })
            .collect();
        let tti = spec.tti.sim();
        RadioNetwork {
            name: spec.name.clone(),
            layout,
            tti,
            exponent: spec.path_loss_exponent,
            interference: Interference {
                common: spec.common_power.0,
                noise: spec.edge_snr_db.map_or(0.0, |snr| Interference::noise_at(spec.radius.0, spec.path_loss_exponent, snr)),
                ..Interference::shares(spec.self_interference.0, spec.own_cell_interference.0)
            },
            adaptation: LinkAdaptation::new(&spec.mcs, spec.bler.0, spec.bler_low.0),
            users_per_tti: spec.users_per_tti as usize,
            multiplex: spec.multiplex,
            multiplex_split: spec.multiplex_split,
            concatenation: spec.concatenation,
            scheduler: spec.scheduler,
            pf_window_ttis: spec.pf_window.sim().as_nanos() as f64 / tti.as_nanos() as f64,
            cells,
            ues,
            first_uplink,
            candidates: Vec::new(),
            record,
            recorded: Vec::new(),
        }
    }

    /// The first hop of user `ue`'s ACKs.
    pub fn uplink(&self, ue: u32) -> DirId {
        DirId(self.first_uplink.0 + ue)
    }

    /// A new transfer of user `ue` begins: it jumps to a new position and attaches to the
    /// nearest base station. Packets left in its old buffer are pushed onto `flushed`.
    pub fn relocate(&mut self, now: SimTime, ue: u32, flushed: &mut Vec<PacketId>) {
        let u = &mut self.ues[ue as usize];
        let old = u.cell as usize;
        let before = flushed.len();
        let bytes = u.buffer.queued_bytes();
        flushed.extend(u.buffer.flush());
        let packets = (flushed.len() - before) as u64;
        self.cells[old].shared.remove(packets, bytes);
        self.cells[old].stats.flushed += packets;
        if u.active {
            u.active = false;
            self.cells[old].active.retain(|&x| x != ue);
        }
        u.cell = u.relocate(&self.layout, now);
    }

    /// A packet for user `ue` reaches its base station.
    pub fn offer(&mut self, now: SimTime, ue: u32, id: PacketId, bytes: u32, events: &mut EventQueue) -> Offer {
        let u = &mut self.ues[ue as usize];
        let c = u.cell as usize;
        if !self.cells[c].shared.fits(bytes) || !u.buffer.offer(id, bytes) {
            self.cells[c].stats.buffer_drops += 1;
            return Offer::Dropped;
        }
        self.cells[c].shared.add(bytes);
        if !u.active {
            u.active = true;
            self.cells[c].active.push(ue);
        }
        self.wake(now, c, events);
        Offer::Accepted
    }

    /// Schedules cell `c`'s next TTI on the grid if none is pending: the boundary at or
    /// after `now`, unless the cell already transmitted in the TTI starting there.
    fn wake(&mut self, now: SimTime, c: usize, events: &mut EventQueue) {
        let cell = &mut self.cells[c];
        if cell.next_tti.is_some() {
            return;
        }
        let tti = self.tti.as_nanos();
        let mut t = SimTime(now.0.div_ceil(tti) * tti);
        if cell.last_tx == Some(t) {
            t += self.tti;
        }
        cell.next_tti = Some(t);
        events.schedule(t, Event::Tti(c as u32));
    }

    /// Cell `c`'s TTI starting at `now`. Packets that reach their users are pushed onto
    /// `delivered`.
    pub fn on_tti(&mut self, now: SimTime, c: usize, events: &mut EventQueue, delivered: &mut Vec<PacketId>) {
        delivered.append(&mut self.cells[c].delivering);
        self.cells[c].next_tti = None;
        if !self.cells[c].active.is_empty() {
            self.transmit(now, c);
        }
        let cell = &self.cells[c];
        if !cell.active.is_empty() || !cell.delivering.is_empty() {
            let t = now + self.tti;
            self.cells[c].next_tti = Some(t);
            events.schedule(t, Event::Tti(c as u32));
        }
    }

    fn transmit(&mut self, now: SimTime, c: usize) {
        let tti_index = now.0 / self.tti.as_nanos() + 1;
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        for &ue in &self.cells[c].active {
            let u = &mut self.ues[ue as usize];
            u.update_gains(&self.layout, self.exponent, now);
            let cells = &self.cells;
            let sir = self.interference.sir(&u.gains, c, 1, |b| cells[b].transmits_at(now));
            let block = self.adaptation.block_at_ratio(sir);
            candidates.push(Candidate { ue, sir, block_bytes: block.bytes, retransmit: u.retransmit, last_served: u.last_served, average: u.average });
        }
        rank(self.scheduler, &mut candidates, self.users_per_tti);
        let (ues, concatenation) = (&self.ues, self.concatenation);
        let k = self.multiplex.users(&candidates, self.users_per_tti, |x| ues[x.ue as usize].buffer.sendable(concatenation));
        self.cells[c].last_tx = Some(now);
        let stats_users = self.cells[c].active.len() as u64;
        for x in &candidates[..k] {
            let u = &mut self.ues[x.ue as usize];
            let cells = &self.cells;
            let shared = self.interference.sir(&u.gains, c, k as u32, |b| cells[b].transmits_at(now));
            let (block, sir) = self.multiplex_split.block(&self.adaptation, shared, k as u32);
            let cell = &mut self.cells[c];
            let damaged = cell.rng.random::<f64>() < block.error_rate;
            cell.stats.blocks_sent += 1;
            cell.stats.sir_db_sum += db(sir);
            u.last_served = tti_index;
            u.retransmit = damaged;
            let taken = if damaged {
                cell.stats.blocks_lost += 1;
                0
            } else {
                let (packets, bytes) = (u.buffer.len(), u.buffer.queued_bytes());
                let taken = if self.concatenation {
                    u.buffer.take(block.bytes, &mut cell.delivering)
                } else {
                    u.buffer.take_head(block.bytes, &mut cell.delivering)
                };
                cell.shared.remove((packets - u.buffer.len()) as u64, bytes - u.buffer.queued_bytes());
                taken
            };
            cell.stats.bytes += taken as u64;
            u.average = update_average(u.average, taken, self.pf_window_ttis);
            if self.record.sir {
                self.recorded.push((now, x.ue, SeriesMetric::Sir, db(sir)));
            }
            if self.record.rate {
                self.recorded.push((now, x.ue, SeriesMetric::Rate, taken as f64 * 8.0 / self.tti.as_secs_f64()));
            }
        }
        // Proportional fair's average: the users left out of this TTI received nothing.
        let served = &candidates[..k];
        for &ue in &self.cells[c].active {
            if !served.iter().any(|x| x.ue == ue) {
                let u = &mut self.ues[ue as usize];
                u.average = update_average(u.average, 0, self.pf_window_ttis);
            }
        }
        let cell = &mut self.cells[c];
        cell.stats.ttis_busy += 1;
        cell.stats.user_ttis += stats_users;
        cell.stats.served_ttis += k as u64;
        let ues = &mut self.ues;
        cell.active.retain(|&ue| {
            let u = &mut ues[ue as usize];
            u.active = !u.buffer.is_empty();
            u.active
        });
        self.candidates = candidates;
    }

    /// Packets the network holds: queued at base stations or being handed over.
    pub fn packets_inside(&self) -> usize {
        debug_assert_eq!(
            self.cells.iter().map(|c| c.shared.packets()).sum::<u64>(),
            self.ues.iter().map(|u| u.buffer.len() as u64).sum::<u64>(),
            "the cells' shared buffers count every queued packet"
        );
        self.ues.iter().map(|u| u.buffer.len()).sum::<usize>() + self.cells.iter().map(|c| c.delivering.len()).sum::<usize>()
    }

    /// The entity names of the per-user series ("hsdpa.ue0", …), none unless one was asked
    /// for.
    pub fn series_entities(&self) -> Vec<String> {
        if !(self.record.sir || self.record.rate) {
            return Vec::new();
        }
        (0..self.ues.len()).map(|u| format!("{}.ue{u}", self.name)).collect()
    }

    /// Moves the recorded per-user series into `series`, user u as entity `first + u`.
    pub fn take_series(&mut self, first: u32, series: &mut SeriesTable) {
        for (t, ue, metric, value) in self.recorded.drain(..) {
            series.push(t.as_secs_f64(), first + ue, metric, value);
        }
    }

    /// One row per cell for a run that lasted until `end`.
    pub fn report(&self, end: SimTime) -> Vec<CellRow> {
        self.cells.iter().enumerate().map(|(c, cell)| cell.report(c as u32, format!("{}.cell{c}", self.name), self.tti, end)).collect()
    }
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
