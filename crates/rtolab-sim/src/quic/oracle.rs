//! The oracle of one QUIC end's loss recovery: it knows each datagram's fate in the network
//! (which the end cannot) and judges the end's probe timeouts and loss declarations by it.
//!
//! - A PTO (RFC 9002 §6.2) fired at `t` is *spurious* when no packet it waited for had been
//!   lost: every datagram the end had sent before `t` that the network dropped carried only
//!   packets the end had already declared lost by `t`. Before the end's handshake completed
//!   its Initial and Handshake packets count; after, only 1-RTT packets (the end discards
//!   the others' keys and stops waiting for them, RFC 9001 §4.9).
//! - A declared loss (RFC 9002 §6.1) is *spurious* when the datagram carrying the packet
//!   reached the peer.
//!
//! A PTO whose waited-for packets are still in flight when the run ends counts as spurious
//! only if none of them was dropped by then; a declared loss whose datagram is still in flight
//! counts as genuine.

use super::qlog_tap::Space;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    InFlight,
    Arrived,
    Dropped,
}

/// One datagram the end sent: its time and its packets (`packets[first..first + count]`).
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: SimTime,
    first: u32,
    count: u16,
    fate: Fate,
}

const NONE: u32 = u32::MAX;

/// One end's record and the verdicts it gives.
#[derive(Debug, Default)]
pub struct Oracle {
    datagrams: Vec<Sent>,
    packets: Vec<(Space, u64)>,
    /// Per space, by packet number: the datagram that carried it (`NONE` for a number skipped).
    carried_by: [Vec<u32>; 3],
    /// When the end declared each packet it declared lost (few of those sent: a map).
    lost_at: std::collections::HashMap<(Space, u64), SimTime>,
    /// Declared losses, in order, with when.
    declared: Vec<(Space, u64, SimTime)>,
    /// Datagrams the network dropped, in the order sent.
    dropped: Vec<u32>,
    /// The times the end's PTO fired.
    ptos: Vec<SimTime>,
    connected_at: Option<SimTime>,
}

/// What the oracle concludes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdicts {
    pub ptos: u64,
    pub spurious_ptos: u64,
    pub declared_lost: u64,
    pub spurious_declared_lost: u64,
}

impl Oracle {
    /// The end sent a datagram at `at` carrying `packets`: its index (the order it was sent).
    pub fn sent(&mut self, at: SimTime, packets: &[(Space, u64)]) -> u32 {
        let index = self.datagrams.len() as u32;
        for &(space, pn) in packets {
            let by = &mut self.carried_by[space.index()];
            let pn = pn as usize;
            if by.len() <= pn {
                by.resize(pn + 1, NONE);
            }
            by[pn] = index;
        }
        self.datagrams.push(Sent { at, first: self.packets.len() as u32, count: packets.len() as u16, fate: Fate::InFlight });
        self.packets.extend_from_slice(packets);
        index
    }

    /// Datagram `index` reached the peer.
    pub fn arrived(&mut self, index: u32) {
        self.datagrams[index as usize].fate = Fate::Arrived;
    }

    /// The network dropped datagram `index`.
    pub fn dropped(&mut self, index: u32) {
        self.datagrams[index as usize].fate = Fate::Dropped;
        self.dropped.push(index);
    }

    /// The end declared packet `pn` of `space` lost at `now`.
    pub fn lost(&mut self, now: SimTime, space: Space, pn: u64) {
        self.lost_at.entry((space, pn)).or_insert(now);
        self.declared.push((space, pn, now));
    }

    /// The end's PTO fired at `now`.
    pub fn pto_fired(&mut self, now: SimTime) {
        self.ptos.push(now);
    }

    /// The end's handshake completed at `now`.
    pub fn connected(&mut self, now: SimTime) {
        self.connected_at.get_or_insert(now);
    }

    fn declared_by(&self, space: Space, pn: u64, t: SimTime) -> bool {
        self.lost_at.get(&(space, pn)).is_some_and(|&at| at <= t)
    }

    /// Whether the PTO fired at `t` waited for a packet the network dropped.
    fn genuine(&self, t: SimTime) -> bool {
        let handshake_over = self.connected_at.is_some_and(|c| c <= t);
        self.dropped.iter().map(|&d| self.datagrams[d as usize]).filter(|d| d.at < t).any(|d| {
            self.packets[d.first as usize..d.first as usize + d.count as usize]
                .iter()
                .any(|&(space, pn)| (space == Space::Data || !handshake_over) && !self.declared_by(space, pn, t))
        })
    }

    /// Each PTO's time and whether it was spurious.
    pub fn pto_verdicts(&self) -> impl Iterator<Item = (SimTime, bool)> + '_ {
        self.ptos.iter().map(|&t| (t, !self.genuine(t)))
    }

    /// Whether the declared loss of `pn` in `space` was spurious (its datagram arrived).
    pub fn loss_spurious(&self, space: Space, pn: u64) -> bool {
        let d = self.carried_by[space.index()].get(pn as usize).copied().unwrap_or(NONE);
        d != NONE && self.datagrams[d as usize].fate == Fate::Arrived
    }

    /// Each declared loss, in order, with whether it was spurious.
    pub fn loss_verdicts(&self) -> impl Iterator<Item = ((Space, u64), bool)> + '_ {
        self.declared.iter().map(|&(s, pn, _)| ((s, pn), self.loss_spurious(s, pn)))
    }

    /// PTOs and declared losses so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.ptos.len(), self.declared.len())
    }

    /// PTO `i`: when it fired and whether it was spurious.
    pub fn pto(&self, i: usize) -> (SimTime, bool) {
        let t = self.ptos[i];
        (t, !self.genuine(t))
    }

    /// Declared loss `i`: when, its packet number, and whether it was spurious.
    pub fn declared(&self, i: usize) -> (SimTime, u64, bool) {
        let (s, pn, t) = self.declared[i];
        (t, pn, self.loss_spurious(s, pn))
    }

    pub fn verdicts(&self) -> Verdicts {
        Verdicts {
            ptos: self.ptos.len() as u64,
            spurious_ptos: self.pto_verdicts().filter(|(_, s)| *s).count() as u64,
            declared_lost: self.declared.len() as u64,
            spurious_declared_lost: self.loss_verdicts().filter(|(_, s)| *s).count() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn a_pto_is_spurious_when_every_packet_it_waited_for_arrived() {
        let mut o = Oracle::default();
        o.connected(t(0));
        let a = o.sent(t(1), &[(Space::Data, 0)]);
        let b = o.sent(t(2), &[(Space::Data, 1)]);
        o.pto_fired(t(100)); // both held in a spike, both arrive later
        o.arrived(a);
        o.arrived(b);
        assert_eq!(o.verdicts(), Verdicts { ptos: 1, spurious_ptos: 1, declared_lost: 0, spurious_declared_lost: 0 });
    }

    #[test]
    fn a_pto_is_genuine_while_a_dropped_packet_is_undeclared_and_a_declared_one_no_longer_counts() {
        let mut o = Oracle::default();
        o.connected(t(0));
        let a = o.sent(t(1), &[(Space::Data, 0)]);
        let b = o.sent(t(2), &[(Space::Data, 1)]);
        o.dropped(a);
        o.arrived(b);
        o.pto_fired(t(50)); // waited for packet 0, which was dropped: genuine
        o.lost(t(60), Space::Data, 0);
        let c = o.sent(t(61), &[(Space::Data, 2)]);
        o.arrived(c);
        o.pto_fired(t(200)); // packet 0 already declared lost; everything else arrived: spurious
        let v: Vec<bool> = o.pto_verdicts().map(|(_, s)| s).collect();
        assert_eq!(v, vec![false, true]);
        assert_eq!(o.verdicts().spurious_declared_lost, 0);
    }

    #[test]
    fn a_loss_is_spurious_when_its_datagram_arrived() {
        let mut o = Oracle::default();
        let a = o.sent(t(1), &[(Space::Initial, 0), (Space::Handshake, 0)]);
        o.lost(t(5), Space::Handshake, 0);
        o.arrived(a);
        assert_eq!(o.verdicts(), Verdicts { ptos: 0, spurious_ptos: 0, declared_lost: 1, spurious_declared_lost: 1 });
        // Handshake packets stop counting for PTOs once the handshake is over.
        let b = o.sent(t(6), &[(Space::Handshake, 1)]);
        o.dropped(b);
        o.connected(t(7));
        o.pto_fired(t(8));
        assert_eq!(o.pto_verdicts().next(), Some((t(8), true)));
    }
}
