//! A flow at run time: its two TCP endpoints, its route, its timers, and the simulator's own
//! bookkeeping that TCP cannot see (the spurious-timeout oracle and the delivery invariant).

use super::configs::SenderConfigs;
use super::session::Session;
use crate::traffic::Origin;
use crate::fabric::ledger::FlowCount;
use crate::intervals::IntervalSet;
use crate::rng::stream;
use crate::spec::TcpSpec;
use crate::tcp::jiffies::JIFFY;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::{SimDuration, SimTime};
use rand::Rng;

/// The oracle's word on one timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pending,
    Spurious,
    Genuine,
}

/// A timeout whose verdict waits for the copies that were in the network when it fired.
#[derive(Clone, Copy, Debug)]
struct PendingTimeout {
    id: u64,
    seq: u64,
    fired_at: SimTime,
    /// Data packets of the flow sent before `fired_at` still in the network.
    earlier_in_flight: u64,
}

/// Decides whether each timeout was spurious: some copy of the retransmitted segment sent
/// before the timer fired reached the receiver (before or after the expiry). A timeout is
/// genuine once no earlier packet of the flow is left in the network without such a copy
/// having arrived; one still undecided at the end of the run counts as genuine.
///
/// Invariant: `in_flight` counts the flow's data packets between `data_sent` and their
/// arrival or drop; `log.verdicts[id]` and `log.detected[id]` describe timeout `id`.
///
/// Layout: `repr(C)`, what every data packet reads or updates (80 bytes); what only
/// timeouts, the handshake and the report touch is boxed (`TimeoutLog`), so that it takes
/// no room in the flow's hot cache lines.
#[derive(Debug, Default)]
#[repr(C)]
pub struct SpuriousOracle {
    in_flight: u64,
    /// The last instant a data packet was sent and how many were sent then (those do not
    /// count as earlier than a timeout at that instant).
    last_sent: (SimTime, u64),
    arrived: IntervalSet,
    pending: Vec<PendingTimeout>,
    log: Box<TimeoutLog>,
}

/// The oracle's records of timeouts and of the handshake.
#[derive(Debug, Default)]
struct TimeoutLog {
    verdicts: Vec<Verdict>,
    detected: Vec<bool>,
    spurious: u64,
    syn: SynOracle,
    spurious_syn: u64,
}

/// The handshake, judged the same way.
#[derive(Debug, Default)]
struct SynOracle {
    in_flight: u64,
    arrived: bool,
    /// (fired_at, earlier SYNs in flight).
    pending: Vec<(SimTime, u64)>,
}

impl SpuriousOracle {
    pub fn data_sent(&mut self, now: SimTime) {
        self.in_flight += 1;
        self.last_sent = if self.last_sent.0 == now { (now, self.last_sent.1 + 1) } else { (now, 1) };
    }

    /// A data packet [seq, end) sent at `sent_at` reached the receiver.
    pub fn data_arrived(&mut self, seq: u64, end: u64, sent_at: SimTime) {
        self.in_flight -= 1;
        self.arrived.insert(seq, end);
        self.resolve(sent_at, |p| seq <= p.seq && p.seq < end);
    }

    pub fn data_dropped(&mut self, sent_at: SimTime) {
        self.in_flight -= 1;
        self.resolve(sent_at, |_| false);
    }

    /// A packet sent at `sent_at` left the network; `covers` says whether it was a copy of
    /// a pending timeout's segment that arrived.
    #[inline]
    fn resolve(&mut self, sent_at: SimTime, covers: impl Fn(&PendingTimeout) -> bool) {
        if !self.pending.is_empty() {
            self.resolve_pending(sent_at, covers);
        }
    }

    /// `resolve` with timeouts pending (rarely: between a timeout and its verdict).
    #[inline(never)]
    fn resolve_pending(&mut self, sent_at: SimTime, covers: impl Fn(&PendingTimeout) -> bool) {
        let mut i = 0;
        while i < self.pending.len() {
            let p = &mut self.pending[i];
            if sent_at >= p.fired_at {
                i += 1;
                continue;
            }
            let verdict = if covers(p) {
                Verdict::Spurious
            } else {
                p.earlier_in_flight -= 1;
                if p.earlier_in_flight > 0 {
                    i += 1;
                    continue;
                }
                Verdict::Genuine
            };
            let id = p.id;
            self.pending.swap_remove(i);
            self.set_verdict(id, verdict);
        }
    }

    fn set_verdict(&mut self, id: u64, verdict: Verdict) {
        self.log.verdicts[id as usize] = verdict;
        if verdict == Verdict::Spurious {
            self.log.spurious += 1;
        }
    }

    /// Timeouts found spurious.
    pub fn spurious(&self) -> u64 {
        self.log.spurious
    }

    /// SYN timeouts found spurious.
    pub fn spurious_syn(&self) -> u64 {
        self.log.spurious_syn
    }

    /// Timeout `id` fired at `now` for the segment at `seq`, before its retransmission left.
    pub fn timeout(&mut self, id: u64, seq: u64, now: SimTime) {
        debug_assert_eq!(id as usize, self.log.verdicts.len());
        self.log.verdicts.push(Verdict::Pending);
        self.log.detected.push(false);
        let same_instant = if self.last_sent.0 == now { self.last_sent.1 } else { 0 };
        let earlier = self.in_flight.saturating_sub(same_instant);
        if self.arrived.contains(seq) {
            self.set_verdict(id, Verdict::Spurious);
        } else if earlier == 0 {
            self.set_verdict(id, Verdict::Genuine);
        } else {
            self.pending.push(PendingTimeout { id, seq, fired_at: now, earlier_in_flight: earlier });
        }
    }

    /// The sender declared timeouts `first..=last` spurious.
    pub fn detected(&mut self, first: u64, last: u64) {
        for id in first..=last {
            if let Some(d) = self.log.detected.get_mut(id as usize) {
                *d = true;
            }
        }
    }

    /// Whether the sender declared timeout `id` spurious.
    pub fn was_detected(&self, id: u64) -> bool {
        self.log.detected.get(id as usize).copied().unwrap_or(false)
    }

    /// Timeouts the sender declared spurious that the oracle also found spurious.
    pub fn detected_correctly(&self) -> u64 {
        self.log.detected.iter().zip(&self.log.verdicts).filter(|(&d, &v)| d && v == Verdict::Spurious).count() as u64
    }

    pub fn verdicts(&self) -> &[Verdict] {
        &self.log.verdicts
    }

    pub fn syn_sent(&mut self) {
        self.log.syn.in_flight += 1;
    }

    pub fn syn_arrived(&mut self, sent_at: SimTime) {
        let log = &mut *self.log;
        log.syn.in_flight -= 1;
        log.syn.arrived = true;
        let before = log.syn.pending.len();
        log.syn.pending.retain(|&(fired, _)| sent_at >= fired);
        log.spurious_syn += (before - log.syn.pending.len()) as u64;
    }

    pub fn syn_dropped(&mut self, sent_at: SimTime) {
        let syn = &mut self.log.syn;
        syn.in_flight -= 1;
        for p in syn.pending.iter_mut().filter(|p| sent_at < p.0) {
            p.1 -= 1;
        }
        syn.pending.retain(|p| p.1 > 0);
    }

    pub fn syn_timeout(&mut self, now: SimTime) {
        let log = &mut *self.log;
        if log.syn.arrived {
            log.spurious_syn += 1;
        } else if log.syn.in_flight > 0 {
            log.syn.pending.push((now, log.syn.in_flight));
        }
    }

    pub fn prune_below(&mut self, snd_una: u64) {
        self.arrived.prune_below(snd_una);
    }
}

/// Checks that the receiving application gets every byte exactly once and in order, and only
/// bytes that physically arrived in some packet.
///
/// Invariant: `limit` is the flow's size, `u64::MAX` for an unbounded flow (no delivery
/// ends beyond it). Layout: `repr(C)`, the counters before the set.
#[derive(Debug)]
#[repr(C)]
pub struct DeliveryCheck {
    pub delivered: u64,
    limit: u64,
    seen: IntervalSet,
}

impl DeliveryCheck {
    /// The check of a flow of `size` bytes (`None`: unbounded).
    pub fn new(size: Option<u64>) -> Self {
        DeliveryCheck { delivered: 0, limit: size.unwrap_or(u64::MAX), seen: IntervalSet::default() }
    }

    /// The stream now ends at `limit` bytes (a session's connection, after each write).
    pub fn allow(&mut self, limit: u64) {
        self.limit = limit;
    }

    pub fn packet_arrived(&mut self, seq: u64, end: u64) {
        self.seen.insert(seq, end);
    }

    #[inline]
    pub fn delivered(&mut self, start: u64, end: u64) -> Result<(), String> {
        if start != self.delivered || !self.seen.covers(start, end) || end > self.limit {
            return Err(self.refusal(start, end));
        }
        self.delivered = end;
        self.seen.prune_below(end);
        Ok(())
    }

    /// Why `delivered(start, end)` is refused: the first of its checks that fails.
    #[cold]
    #[inline(never)]
    fn refusal(&self, start: u64, end: u64) -> String {
        if start != self.delivered {
            format!("delivery of [{start}, {end}) after {} bytes: not in order", self.delivered)
        } else if !self.seen.covers(start, end) {
            format!("delivery of [{start}, {end}) includes bytes that never arrived")
        } else {
            format!("delivery up to {end} beyond the flow's {} bytes", self.limit)
        }
    }
}

/// The flow's route is the network's (`fabric::FlowRoute`, held by the fabric).
///
/// Layout: `repr(C, align(64))`, in declaration order, cache line by cache line. With
/// thousands of flows a flow's state is out of cache whenever one of its packets arrives, so
/// the lines a packet touches are the cost that grows (offsets checked by a test below):
/// - line 0: the flags, the timers' generations, the ledger's counts and the oracle's
///   counters (every packet reaching an endpoint, and every send);
/// - lines 1–2: the oracle's set of arrived data and the delivery check (every data packet);
/// - line 3: the timers' deadlines (every packet whose endpoint re-arms its timer);
/// - then the receiver and the sender, each starting on a line of its own (`align(64)`),
///   hot fields first; last, what only the report and the series read.
#[repr(C, align(64))]
pub struct FlowRuntime {
    pub started: bool,
    /// `session` is set: the one test every segment the sender emits or reads makes, on the
    /// line it touches anyway (the map itself is on a later one).
    pub per_session: bool,
    /// Per side (sender, receiver): generation and time of the pending timer event.
    pub timer_generation: [u32; 2],
    /// The flow's line of the packet ledger (`fabric::ledger`).
    pub ledger: FlowCount,
    pub oracle: SpuriousOracle,
    pub check: DeliveryCheck,
    pub timer_at: [Option<SimTime>; 2],
    pub receiver: TcpReceiver,
    pub sender: TcpSender,
    /// Both ends' segments take ns-2's sizes on the wire (`ResolvedTcp::ns2_sizes`).
    pub ns2_sizes: bool,
    /// The flows table's row the flow's series and events go to: its own, or, for a session,
    /// its latest file's.
    pub row: u32,
    /// A connection that carries a web user's files (`WebConnection::PerSession`): its map
    /// between the sender's sequence numbers and the wire's, read by every segment the
    /// sender emits or reads, and its files. Set exactly when `per_session` is.
    pub session: Option<Box<Session>>,
    pub size: Option<u64>,
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// Last recorded series values (cwnd, ssthresh, srtt, rto).
    pub last_series: [f64; 5],
    /// The sender's RTT sample count when the `rtt` series last recorded.
    pub recorded_rtt_samples: u64,
}

impl FlowRuntime {
    /// A flow with `tcp` resolved for its size; a stack with ns-2's coarse clock gets the
    /// clock's phase from the flow's own random stream (ns-2 draws `boot_time_` uniformly
    /// in one tick). A stack on the kernel's timer wheel gets the jiffies clock's reading at
    /// the scenario's start, uniform over 2^32 jiffies (so uniform within every level's
    /// granularity of the wheel, up to 8^8 jiffies) and drawn once per run: one kernel's
    /// clock, as in `rtolab emulate`, where every socket shares the host's jiffies and their
    /// reading at the start is whatever the host's uptime makes it.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        origin: Origin,
        start: SimTime,
        size: Option<u64>,
        tcp: &TcpSpec,
        seed: u64,
        configs: &mut SenderConfigs,
    ) -> Self {
        let mut resolved = tcp.resolve(size);
        if let Some(clock) = &mut resolved.sender.rto.ns2 {
            let tick = clock.tick.as_nanos().max(1);
            clock.boot = SimDuration(stream(seed, &format!("flows/{name}"), "ns2-clock").random_range(0..tick));
        }
        if resolved.sender.wheel.is_some() || resolved.receiver.wheel.is_some() {
            let phase = SimDuration(stream(seed, "kernel", "jiffies").random_range(0..JIFFY.as_nanos() << 32));
            for wheel in [&mut resolved.sender.wheel, &mut resolved.receiver.wheel].into_iter().flatten() {
                wheel.phase = phase;
            }
        }
        FlowRuntime {
            name,
            origin,
            start,
            size,
            ns2_sizes: resolved.ns2_sizes,
            sender: TcpSender::new(configs.share(resolved.sender)),
            receiver: TcpReceiver::new(resolved.receiver),
            timer_generation: [0; 2],
            timer_at: [None; 2],
            ledger: FlowCount::default(),
            oracle: SpuriousOracle::default(),
            check: DeliveryCheck::new(size),
            started: false,
            last_series: [f64::NAN; 5],
            recorded_rtt_samples: 0,
            session: None,
            per_session: false,
            row: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime(SimDuration::from_millis(ms).as_nanos())
    }

    /// Copies sent before a timeout decide it: one arriving makes it spurious, all of them
    /// gone without one makes it genuine; a copy sent at or after the expiry never counts.
    #[test]
    fn oracle_resolves_timeouts_by_any_earlier_copy() {
        let mut o = SpuriousOracle::default();
        for _ in 0..3 {
            o.data_sent(t(0)); // segments 0, 100, 200 sent at 0 ms
        }
        o.data_arrived(0, 100, t(0));
        o.timeout(0, 0, t(300)); // already arrived: spurious
        o.timeout(1, 100, t(300)); // 2 earlier packets in flight: pending
        o.data_sent(t(300)); // the retransmission of 100, sent at 300 ms
        o.data_arrived(100, 200, t(300)); // sent at the expiry: does not decide
        assert_eq!(o.verdicts(), &[Verdict::Spurious, Verdict::Pending]);
        o.data_arrived(100, 200, t(0)); // the original arrives late: spurious
        assert_eq!(o.spurious(), 2);
        o.timeout(2, 200, t(400)); // one earlier packet (200) in flight
        o.data_dropped(t(0));
        assert_eq!(o.verdicts()[2], Verdict::Genuine);
    }

    /// A backed-off timeout after a retransmission that did arrive is spurious (the first
    /// copy was lost).
    #[test]
    fn oracle_counts_a_delivered_retransmission() {
        let mut o = SpuriousOracle::default();
        o.data_sent(t(0));
        o.timeout(0, 0, t(200));
        o.data_sent(t(200)); // retransmission at 200 ms
        o.data_dropped(t(0)); // the original was lost: timeout 0 genuine
        o.timeout(1, 0, t(600)); // the retransmission is still in flight
        o.data_arrived(0, 100, t(200));
        assert_eq!(o.verdicts(), &[Verdict::Genuine, Verdict::Spurious]);
        o.detected(1, 1);
        assert_eq!(o.detected_correctly(), 1);
    }

    #[test]
    fn oracle_judges_syn_timeouts_by_earlier_syns() {
        let mut o = SpuriousOracle::default();
        o.syn_sent();
        o.syn_timeout(t(1000)); // first SYN still queued
        o.syn_sent();
        o.syn_timeout(t(3000));
        o.syn_arrived(t(0));
        assert_eq!(o.spurious_syn(), 2);
        let mut o = SpuriousOracle::default();
        o.syn_sent();
        o.syn_dropped(t(0));
        o.syn_timeout(t(1000));
        assert_eq!(o.spurious_syn(), 0);
    }

    /// The cache lines the layout comment of `FlowRuntime` names.
    #[test]
    fn flow_runtime_hot_fields_by_line() {
        use std::mem::offset_of;
        let line = |offset: usize, size: usize| (offset / 64, (offset + size - 1) / 64);
        assert_eq!(std::mem::align_of::<FlowRuntime>(), 64);
        let oracle = offset_of!(FlowRuntime, oracle);
        assert_eq!(line(0, oracle + offset_of!(SpuriousOracle, arrived)), (0, 0));
        assert_eq!(line(oracle + offset_of!(SpuriousOracle, arrived), 64), (1, 1));
        let check = offset_of!(FlowRuntime, check);
        assert_eq!((line(oracle + offset_of!(SpuriousOracle, log), 8).0, line(check, std::mem::size_of::<DeliveryCheck>())), (2, (2, 2)));
        assert_eq!(line(offset_of!(FlowRuntime, timer_generation), 8), (0, 0));
        assert_eq!(line(offset_of!(FlowRuntime, per_session), 1), (0, 0));
        assert_eq!(line(offset_of!(FlowRuntime, timer_at), std::mem::size_of::<[Option<SimTime>; 2]>()), (3, 3));
        assert_eq!(offset_of!(FlowRuntime, receiver) % 64, 0);
        assert_eq!(offset_of!(FlowRuntime, sender) % 64, 0);
    }

    #[test]
    fn delivery_check_rejects_gaps_and_phantoms() {
        let mut c = DeliveryCheck::new(Some(300));
        c.packet_arrived(0, 100);
        assert!(c.delivered(0, 100).is_ok());
        assert!(c.delivered(150, 200).is_err()); // gap
        assert!(c.delivered(100, 200).is_err()); // never arrived
        c.packet_arrived(100, 300);
        assert!(c.delivered(100, 300).is_ok());
        c.packet_arrived(300, 400);
        assert!(c.delivered(300, 400).is_err()); // beyond size
    }
}
