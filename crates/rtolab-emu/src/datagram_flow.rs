//! A datagram flow of the emulation while it runs: the simulator's own source and sink
//! (`DatagramPlan::source`, `DatagramPlan::sink`), driven from the sender's and the
//! receiver's namespaces, and the drops of rtolab's links, which the forwarder reports.
//!
//! Invariant (the simulator's `world::datagram_flow::DatagramFlow`): `source.sent` =
//! `sink.received` + `lost` + the datagrams still in the network or the hosts; nothing at or
//! after `horizon` (the run's `duration`) is counted, as the simulator stops there; `end` is
//! set at the first moment the source has sent everything and every datagram is accounted
//! for, and never moves.

use rtolab_sim::transport::{Datagram, Endpoint, UdpSink, UdpSource};
use rtolab_sim::voice::codec::Codec;
use rtolab_sim::SimTime;

pub struct DatagramFlow {
    /// When the flow starts (its source's first send time).
    pub start: SimTime,
    pub source: UdpSource,
    pub sink: UdpSink,
    /// Datagrams rtolab's links dropped.
    pub lost: u64,
    /// A call's codec, which scores its row; `None` for a plain UDP flow.
    pub codec: Option<Codec>,
    /// The sender reached the flow's start before the run ended.
    pub started: bool,
    /// When the fate of its last datagram was known (a bounded flow).
    pub end: Option<SimTime>,
    horizon: Option<SimTime>,
    /// The highest sequence number received, to extend the stamps' 32 bits.
    highest_seq: u64,
    /// `(arrival, one-way delay in s)` of each datagram received, when the `delay` series
    /// is wanted.
    pub delays: Option<Vec<(SimTime, f64)>>,
    /// Why the sending host failed to send a datagram the source produced, if it did.
    pub send_error: Option<String>,
}

impl DatagramFlow {
    pub fn new(start: SimTime, source: UdpSource, sink: UdpSink, codec: Option<Codec>, horizon: Option<SimTime>, record_delay: bool) -> Self {
        DatagramFlow {
            start,
            source,
            sink,
            lost: 0,
            codec,
            started: false,
            end: None,
            horizon,
            highest_seq: 0,
            delays: record_delay.then(Vec::new),
            send_error: None,
        }
    }

    /// Whether what happens at `t` is inside the run.
    pub fn counts(&self, t: SimTime) -> bool {
        self.horizon.is_none_or(|h| t < h)
    }

    /// The time of the source's next datagram, if it is inside the run.
    pub fn next_send(&self) -> Option<SimTime> {
        self.source.next_wakeup().filter(|&t| self.counts(t))
    }

    /// Wakes the source at `t` (the time `next_send` named); what it sends goes to `out`.
    pub fn wake(&mut self, t: SimTime, out: &mut Vec<Datagram>) {
        self.source.wake(t, out);
        self.check_done(t);
    }

    /// A datagram with `payload` reached the receiving application at `now`; false if its
    /// payload carries no stamp (not one of ours).
    pub fn arrived(&mut self, now: SimTime, payload: &[u8]) -> bool {
        let Some((seq, sent_at)) = crate::stamp::read(payload, self.highest_seq) else {
            return false;
        };
        if !self.counts(now) {
            return true;
        }
        self.highest_seq = self.highest_seq.max(seq);
        let d = Datagram { seq, len: payload.len() as u32, sent_at };
        let mut replies = Vec::new();
        self.sink.receive(now, &d, &mut replies);
        if let Some(delays) = &mut self.delays {
            delays.push((now, now.since(sent_at).as_secs_f64()));
        }
        self.check_done(now);
        true
    }

    /// rtolab's links dropped one of its datagrams at `now`.
    pub fn dropped(&mut self, now: SimTime) {
        if self.counts(now) {
            self.lost += 1;
            self.check_done(now);
        }
    }

    fn check_done(&mut self, now: SimTime) {
        if self.end.is_none() && self.source.all_accounted(self.sink.received, self.lost) {
            self.end = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stamp;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    fn payload(d: &Datagram) -> Vec<u8> {
        let mut p = vec![0u8; d.len as usize];
        stamp::write(&mut p, d.seq, d.sent_at);
        p
    }

    /// Three datagrams of 100 bytes (300 B at 80 kbit/s: 10 ms apart): one dropped, two
    /// arriving 40 ms after they left; the flow ends when the last fate is known.
    #[test]
    fn a_bounded_flow_ends_when_every_datagram_is_accounted_for() {
        let mut f = DatagramFlow::new(SimTime::ZERO, UdpSource::new(80_000.0, 100, Some(300), SimTime::ZERO, None), UdpSink::new(None), None, None, true);
        let mut sent = Vec::new();
        while let Some(t) = f.next_send() {
            f.wake(t, &mut sent);
        }
        assert_eq!(sent.iter().map(|d| d.sent_at).collect::<Vec<_>>(), vec![ms(0), ms(10), ms(20)]);
        assert!(f.arrived(ms(40), &payload(&sent[0])));
        f.dropped(ms(10));
        assert_eq!(f.end, None);
        assert!(f.arrived(ms(60), &payload(&sent[2])));
        assert_eq!((f.sink.received, f.lost, f.end), (2, 1, Some(ms(60))));
        assert_eq!(f.sink.delay_mean_s(), Some(0.040));
        assert_eq!(f.delays.as_ref().map(Vec::len), Some(2));
        assert!(!f.arrived(ms(70), &[0u8; 4]));
    }

    /// Nothing is sent, received or dropped at or after the horizon.
    #[test]
    fn nothing_counts_after_the_horizon() {
        let mut f = DatagramFlow::new(SimTime::ZERO, UdpSource::new(80_000.0, 100, None, SimTime::ZERO, None), UdpSink::new(None), None, Some(ms(25)), false);
        let mut sent = Vec::new();
        while let Some(t) = f.next_send() {
            f.wake(t, &mut sent);
        }
        assert_eq!(sent.len(), 3);
        f.dropped(ms(25));
        assert!(f.arrived(ms(30), &payload(&sent[0])));
        assert_eq!((f.sink.received, f.lost, f.end), (0, 0, None));
    }
}
