//! A flow at run time: its two TCP endpoints, its route, its timers, and the simulator's own
//! bookkeeping that TCP cannot see (the spurious-timeout oracle and the delivery invariant).

use crate::intervals::IntervalSet;
use crate::spec::{CcKind, TcpSpec};
use crate::tcp::{ReceiverConfig, RecoveryKind, SenderConfig, TcpReceiver, TcpSender};
use crate::time::SimTime;

/// Decides whether each timeout was spurious: the segment it retransmitted had its first
/// copy reach the receiver. Resolved when the first copy arrives or is dropped; a timeout
/// whose first copy is still in flight at the end of the run counts as not spurious.
///
/// Invariant: records below the sender's SND.UNA are pruned; timeouts only ever retransmit
/// SND.UNA, so nothing pruned is asked about again.
#[derive(Debug, Default)]
pub struct SpuriousOracle {
    arrived: IntervalSet,
    lost: IntervalSet,
    pending: Vec<u64>,
    pub spurious: u64,
    /// The handshake, judged the same way: a SYN timeout is spurious when the first SYN
    /// reached the receiver. `None` while the first SYN is in flight.
    syn_arrived: Option<bool>,
    syn_pending: u64,
    pub spurious_syn: u64,
}

impl SpuriousOracle {
    pub fn first_copy_arrived(&mut self, seq: u64, end: u64) {
        self.arrived.insert(seq, end);
        let before = self.pending.len();
        self.pending.retain(|&s| !(seq <= s && s < end));
        self.spurious += (before - self.pending.len()) as u64;
    }

    pub fn first_copy_lost(&mut self, seq: u64, end: u64) {
        self.lost.insert(seq, end);
        self.pending.retain(|&s| !(seq <= s && s < end));
    }

    pub fn timeout(&mut self, seq: u64) {
        if self.arrived.contains(seq) {
            self.spurious += 1;
        } else if !self.lost.contains(seq) {
            self.pending.push(seq);
        }
    }

    pub fn first_syn_arrived(&mut self) {
        self.syn_arrived = Some(true);
        self.spurious_syn += std::mem::take(&mut self.syn_pending);
    }

    pub fn first_syn_lost(&mut self) {
        self.syn_arrived = Some(false);
        self.syn_pending = 0;
    }

    pub fn syn_timeout(&mut self) {
        match self.syn_arrived {
            Some(true) => self.spurious_syn += 1,
            Some(false) => {}
            None => self.syn_pending += 1,
        }
    }

    pub fn prune_below(&mut self, snd_una: u64) {
        self.arrived.prune_below(snd_una);
        self.lost.prune_below(snd_una);
    }
}

/// Checks that the receiving application gets every byte exactly once and in order, and only
/// bytes that physically arrived in some packet.
#[derive(Debug, Default)]
pub struct DeliveryCheck {
    seen: IntervalSet,
    pub delivered: u64,
}

impl DeliveryCheck {
    pub fn packet_arrived(&mut self, seq: u64, end: u64) {
        self.seen.insert(seq, end);
    }

    pub fn delivered(&mut self, start: u64, end: u64, size: Option<u64>) -> Result<(), String> {
        if start != self.delivered {
            return Err(format!("delivery of [{start}, {end}) after {} bytes: not in order", self.delivered));
        }
        if !self.seen.covers(start, end) {
            return Err(format!("delivery of [{start}, {end}) includes bytes that never arrived"));
        }
        if size.is_some_and(|s| end > s) {
            return Err(format!("delivery up to {end} beyond the flow's {} bytes", size.unwrap_or(0)));
        }
        self.delivered = end;
        self.seen.prune_below(end);
        Ok(())
    }
}

/// Where a flow came from.
#[derive(Clone, Debug)]
pub enum Origin {
    Static,
    Burst(String),
    /// `user` indexes the simulation's web users; `generator` is the generator's name.
    Web { user: u32, generator: String },
}

pub struct FlowRuntime {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    pub size: Option<u64>,
    pub forward: Vec<u32>,
    pub reverse: Vec<u32>,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// Per side (sender, receiver): generation and time of the pending timer event.
    pub timer_generation: [u32; 2],
    pub timer_at: [Option<SimTime>; 2],
    /// Highest byte sent so far (for the first-copy oracle).
    pub highest_sent: u64,
    pub syn_sent: bool,
    pub oracle: SpuriousOracle,
    pub check: DeliveryCheck,
    pub started: bool,
    /// Last recorded series values (cwnd, ssthresh, srtt, rto).
    pub last_series: [f64; 4],
}

impl FlowRuntime {
    pub fn new(name: String, origin: Origin, start: SimTime, size: Option<u64>, forward: Vec<u32>, reverse: Vec<u32>, tcp: &TcpSpec) -> Self {
        let recovery = match (tcp.sack, tcp.cc) {
            (true, _) => RecoveryKind::Sack,
            (false, CcKind::Reno) => RecoveryKind::Reno,
            (false, CcKind::Newreno) => RecoveryKind::NewReno,
        };
        let sender = TcpSender::new(SenderConfig {
            mss: tcp.mss,
            initial_window: tcp.iw.bytes(tcp.mss),
            cc: tcp.cc,
            recovery,
            limited_transmit: tcp.limited_transmit,
            dupthresh: tcp.dupthresh,
            timestamps: tcp.timestamps,
            rto: tcp.rto_config(),
            size,
        });
        let receiver = TcpReceiver::new(ReceiverConfig {
            mss: tcp.mss,
            sack: tcp.sack,
            timestamps: tcp.timestamps,
            delayed_ack: tcp.delayed_ack,
            ack_every: tcp.ack_every,
            delack_timeout: tcp.delack_timeout.sim(),
            window: tcp.max_window.map(|w| w as u64 * tcp.mss as u64).unwrap_or(u64::MAX / 4),
        });
        FlowRuntime {
            name,
            origin,
            start,
            size,
            forward,
            reverse,
            sender,
            receiver,
            timer_generation: [0; 2],
            timer_at: [None; 2],
            highest_sent: 0,
            syn_sent: false,
            oracle: SpuriousOracle::default(),
            check: DeliveryCheck::default(),
            started: false,
            last_series: [f64::NAN; 4],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_resolves_timeouts_by_the_first_copy() {
        let mut o = SpuriousOracle::default();
        o.first_copy_arrived(0, 100);
        o.timeout(0); // already arrived: spurious
        o.timeout(100); // in flight: pending
        o.timeout(200); // in flight: pending
        o.first_copy_arrived(100, 200);
        o.first_copy_lost(200, 300);
        assert_eq!(o.spurious, 2);
        assert!(o.pending.is_empty());
        o.first_copy_lost(300, 400);
        o.timeout(300); // lost before the timeout: genuine
        assert_eq!(o.spurious, 2);
    }

    #[test]
    fn oracle_judges_syn_timeouts_by_the_first_syn() {
        let mut o = SpuriousOracle::default();
        o.syn_timeout(); // first SYN still queued
        o.syn_timeout();
        o.first_syn_arrived();
        assert_eq!(o.spurious_syn, 2);
        let mut o = SpuriousOracle::default();
        o.first_syn_lost();
        o.syn_timeout();
        assert_eq!(o.spurious_syn, 0);
    }

    #[test]
    fn delivery_check_rejects_gaps_and_phantoms() {
        let mut c = DeliveryCheck::default();
        c.packet_arrived(0, 100);
        assert!(c.delivered(0, 100, Some(300)).is_ok());
        assert!(c.delivered(150, 200, Some(300)).is_err()); // gap
        assert!(c.delivered(100, 200, Some(300)).is_err()); // never arrived
        c.packet_arrived(100, 300);
        assert!(c.delivered(100, 300, Some(300)).is_ok());
        c.packet_arrived(300, 400);
        assert!(c.delivered(300, 400, Some(300)).is_err()); // beyond size
    }
}
