//! Packet conservation: counts of where packets went, checked against what the network
//! still holds when the run ends (issue 13 §6).
//!
//! Invariants checked at the end of every run:
//! - whole run: packets allocated = delivered (freed at the end of their route) + dropped
//!   (freed where a link refused or lost them) + live in the arena, and the live packets are
//!   exactly the ones the link directions hold;
//! - per link direction: packets offered = packets that left its far end + packets it
//!   dropped + `LinkDir::packets_inside()` (its queue, ARQ buffer, transmitter and wire,
//!   counted by the elements themselves, so a packet an element forgets or emits twice shows);
//! - the radio network likewise: packets offered to base stations = handed to users +
//!   dropped (full buffer, or flushed when a user moved on) + `RadioNetwork::packets_inside()`;
//! - per flow: data packets sent = arrived at the receiver + dropped + data packets of the
//!   flow still live in the arena.
//!
//! Counting costs a few u64 increments per packet and hop; the check runs once. The fabric
//! keeps the network's counts (`Ledger`); a host that checks its flows keeps each flow's
//! `FlowCount` beside the flow and passes them to `Ledger::check`.

use super::Carried;
use crate::net::{LinkDir, PacketArena};

/// Fates of the packets through one link direction.
#[derive(Clone, Copy, Debug, Default)]
struct DirCount {
    offered: u64,
    left: u64,
    dropped: u64,
}

/// Fates of one flow's data packets (forward segments with payload). Each flow keeps its own
/// (`FlowRuntime::ledger`, beside what a packet of the flow touches anyway), so counting
/// touches no table as large as the number of flows.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCount {
    sent: u64,
    arrived: u64,
    dropped: u64,
}

impl FlowCount {
    /// Packet `p` of the flow was allocated.
    #[inline]
    pub fn allocated<P: Carried>(&mut self, p: &P) {
        if p.is_data() {
            self.sent += 1;
        }
    }

    /// Packet `p` of the flow reached its endpoint.
    #[inline]
    pub fn delivered<P: Carried>(&mut self, p: &P) {
        if p.is_data() {
            self.arrived += 1;
        }
    }

    /// Packet `p` of the flow was dropped.
    #[inline]
    pub fn dropped<P: Carried>(&mut self, p: &P) {
        if p.is_data() {
            self.dropped += 1;
        }
    }
}

#[derive(Debug, Default)]
pub struct Ledger {
    allocated: u64,
    delivered: u64,
    dropped: u64,
    dirs: Vec<DirCount>,
    /// The radio network's base-station buffers, as one place.
    radio: DirCount,
}

impl Ledger {
    pub fn new(dirs: usize) -> Self {
        Ledger { dirs: vec![DirCount::default(); dirs], ..Default::default() }
    }

    /// A packet was allocated (by an endpoint or, for a control message, an element).
    #[inline]
    pub fn allocated(&mut self) {
        self.allocated += 1;
    }

    /// A packet was handed to its endpoint and freed.
    #[inline]
    pub fn delivered(&mut self) {
        self.delivered += 1;
    }

    /// A packet was dropped and freed.
    #[inline]
    pub fn dropped(&mut self) {
        self.dropped += 1;
    }

    /// Link direction `dir` was offered a packet.
    #[inline]
    pub fn offered_to(&mut self, dir: usize) {
        self.dirs[dir].offered += 1;
    }

    /// `n` packets left link direction `dir` at its far end.
    #[inline]
    pub fn left(&mut self, dir: usize, n: usize) {
        self.dirs[dir].left += n as u64;
    }

    /// Link direction `dir` refused, lost or discarded `n` packets.
    #[inline]
    pub fn dropped_at(&mut self, dir: usize, n: usize) {
        self.dirs[dir].dropped += n as u64;
    }

    /// A packet reached a base station of the radio network.
    #[inline]
    pub fn offered_to_radio(&mut self) {
        self.radio.offered += 1;
    }

    /// `n` packets reached their mobile users.
    #[inline]
    pub fn left_radio(&mut self, n: usize) {
        self.radio.left += n as u64;
    }

    /// The radio network dropped `n` packets.
    #[inline]
    pub fn dropped_in_radio(&mut self, n: usize) {
        self.radio.dropped += n as u64;
    }

    /// Checks every conservation law at the end of the run; `Err((scope, message))` names
    /// the first one broken (`scope` is a flow's name or `"(network)"`). `radio_inside` is
    /// what the radio network holds (0 without one); `flows[i]` is TCP flow i's count, and
    /// `flows[datagram_base + j]` datagram flow j's (`FlowId::slot`).
    pub fn check<P: Carried>(
        &self,
        links: &[LinkDir],
        radio_inside: usize,
        arena: &PacketArena<P>,
        flows: &[FlowCount],
        datagram_base: usize,
        flow_name: impl Fn(usize) -> String,
    ) -> Result<(), (String, String)> {
        let network = |m: String| Err(("(network)".to_string(), m));
        let live = arena.live() as u64;
        if self.allocated != self.delivered + self.dropped + live {
            return network(format!(
                "packet conservation: {} allocated != {} delivered + {} dropped + {} live",
                self.allocated, self.delivered, self.dropped, live
            ));
        }
        let mut inside_total = 0;
        for (d, (c, link)) in self.dirs.iter().zip(links).enumerate() {
            let inside = link.packets_inside() as u64;
            inside_total += inside;
            if c.offered != c.left + c.dropped + inside {
                return network(format!(
                    "packet conservation on link direction {} ({d}): {} offered != {} left + {} dropped + {} inside",
                    link.cfg.name(), c.offered, c.left, c.dropped, inside
                ));
            }
        }
        let r = &self.radio;
        if r.offered != r.left + r.dropped + radio_inside as u64 {
            return network(format!(
                "packet conservation in the radio network: {} offered != {} handed to users + {} dropped + {} inside",
                r.offered, r.left, r.dropped, radio_inside
            ));
        }
        inside_total += radio_inside as u64;
        if inside_total != live {
            return network(format!("packet conservation: the links hold {inside_total} packets but {live} are live"));
        }
        let mut in_flight = vec![0u64; flows.len()];
        arena.for_each_live(|p| {
            if p.is_data() {
                let f = p.flow();
                in_flight[if f.is_datagram() { datagram_base + f.slot() } else { f.index() }] += 1;
            }
        });
        for (i, &n) in in_flight.iter().enumerate() {
            let c = flows[i];
            if c.sent != c.arrived + c.dropped + n {
                return Err((
                    flow_name(i),
                    format!("data packet conservation: {} sent != {} arrived + {} dropped + {} in flight", c.sent, c.arrived, c.dropped, n),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{FlowId, IcmpSignal, Packet};
    use crate::time::SimTime;

    fn control_packet() -> Packet {
        Packet::control(FlowId(0), 0, IcmpSignal::Drop, SimTime::ZERO)
    }

    fn check(l: &Ledger, arena: &PacketArena<Packet>) -> Result<(), String> {
        l.check(&[], 0, arena, &[], 0, |i| format!("f{i}")).map_err(|(_, m)| m)
    }

    /// The check after one packet was allocated, delivered and freed; `also_dropped` counts
    /// it dropped as well.
    fn check_one_delivered(also_dropped: bool) -> Result<(), String> {
        let (mut l, mut arena) = (Ledger::new(0), PacketArena::default());
        let p = control_packet();
        let mut flow = FlowCount::default();
        l.allocated();
        flow.allocated(&p);
        let id = arena.alloc(p.clone());
        l.delivered();
        flow.delivered(&p);
        if also_dropped {
            l.dropped();
            flow.dropped(&p);
        }
        arena.free(id);
        check(&l, &arena)
    }

    #[test]
    fn delivered_packet_balances() {
        assert_eq!(check_one_delivered(false), Ok(()));
    }

    #[test]
    fn packet_counted_twice_breaks_the_balance() {
        assert_eq!(check_one_delivered(true), Err("packet conservation: 1 allocated != 1 delivered + 1 dropped + 0 live".into()));
    }

    #[test]
    fn live_packet_no_link_holds_is_reported() {
        let (mut l, mut arena) = (Ledger::new(0), PacketArena::default());
        let p = control_packet();
        l.allocated();
        FlowCount::default().allocated(&p);
        arena.alloc(p);
        assert_eq!(check(&l, &arena), Err("packet conservation: the links hold 0 packets but 1 are live".into()));
    }
}
