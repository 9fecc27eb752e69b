//! The world's event log (`output.events`): rows kept compact while the run goes (flow and
//! link direction by index), named and completed with the oracle's verdicts at the end.
//!
//! Invariant: a kind not asked for records nothing, and a run without `output.events` has
//! no log at all (`World::events` is `None`: one branch per hook).

use super::datagram_flow::{DatagramFlow, Ends};
use super::flow::{FlowRuntime, Verdict};
use crate::fabric::DropSite;
use crate::net::{DirId, FlowId};
use crate::results::{EventKind, EventRow};
use crate::time::SimTime;

/// What an `EventRow` says, with the flow and the place by index.
#[derive(Clone, Debug)]
struct Entry {
    at: SimTime,
    kind: EventKind,
    /// The connection (`FlowId`) and the flows table's row it was working for then (its own,
    /// or a session's latest file).
    flow: Option<(FlowId, u32)>,
    /// A link direction; `None` with `radio` for the radio network.
    dir: Option<DirId>,
    radio: bool,
    seq: Option<u64>,
    cwnd: [Option<u64>; 2],
    ssthresh: [Option<u64>; 2],
    /// A timeout's number in its flow, to read the oracle's verdict at the end.
    timeout: Option<u64>,
    /// A QUIC PTO's or declared loss's end (true: the server) and number at that end.
    quic: Option<(bool, u32)>,
    undone: bool,
    detail: Option<String>,
}

impl Entry {
    fn new(at: SimTime, kind: EventKind) -> Self {
        Entry { at, kind, flow: None, dir: None, radio: false, seq: None, cwnd: [None; 2], ssthresh: [None; 2], timeout: None, quic: None, undone: false, detail: None }
    }
}

/// An unset slow-start threshold (the senders keep a huge value) is a null.
fn threshold(ssthresh: u64) -> Option<u64> {
    (ssthresh < u64::MAX / 8).then_some(ssthresh)
}

fn timeouts_detail(first: u64, last: u64) -> String {
    if first == last {
        format!("timeout {first}")
    } else {
        format!("timeouts {first}-{last}")
    }
}

/// The log of one run.
#[derive(Debug, Default)]
pub struct EventLog {
    wanted: [bool; EventKind::ALL.len()],
    entries: Vec<Entry>,
    /// Per flow: the end of the highest data byte sent, which tells a retransmission (a
    /// segment starting below it) as the sender counts one (`seq < snd_max`).
    sent_to: Vec<u64>,
}

impl EventLog {
    /// A log of `kinds`, or none when `kinds` is empty.
    pub fn new(kinds: &[EventKind]) -> Option<Box<Self>> {
        if kinds.is_empty() {
            return None;
        }
        let mut log = EventLog::default();
        for k in kinds {
            log.wanted[*k as usize] = true;
        }
        Some(Box::new(log))
    }

    fn wants(&self, kind: EventKind) -> bool {
        self.wanted[kind as usize]
    }

    /// Timeout `id` of flow `f` expired at `now` with SND.UNA at `seq`: (cwnd, ssthresh)
    /// `before` the timeout reduced them and `after` the sender handled it.
    pub fn timeout(&mut self, now: SimTime, f: (FlowId, u32), id: u64, seq: u64, before: (u64, u64), after: (u64, u64)) {
        if self.wants(EventKind::Timeout) {
            let mut e = Entry::new(now, EventKind::Timeout);
            (e.flow, e.seq, e.timeout) = (Some(f), Some(seq), Some(id));
            e.cwnd = [Some(before.0), Some(after.0)];
            e.ssthresh = [threshold(before.1), threshold(after.1)];
            self.entries.push(e);
        }
    }

    /// The sender of flow `f` declared its timeouts `first..=last` spurious.
    pub fn detected(&mut self, now: SimTime, f: (FlowId, u32), first: u64, last: u64, window: (u64, u64)) {
        if self.wants(EventKind::Spurious) {
            let mut e = Entry::new(now, EventKind::Spurious);
            e.flow = Some(f);
            e.cwnd[1] = Some(window.0);
            e.ssthresh[1] = threshold(window.1);
            e.detail = Some(timeouts_detail(first, last));
            self.entries.push(e);
        }
    }

    /// The sender of flow `f` undid a reduction: of its timeouts `timeouts`, or of a fast
    /// retransmit when none.
    pub fn undone(&mut self, now: SimTime, f: (FlowId, u32), timeouts: Option<(u64, u64)>, before: (u64, u64), after: (u64, u64)) {
        if let Some((first, last)) = timeouts {
            for e in self.entries.iter_mut().rev().filter(|e| e.flow.is_some_and(|(g, _)| g == f.0) && e.timeout.is_some_and(|id| (first..=last).contains(&id))) {
                e.undone = true;
            }
        }
        if self.wants(EventKind::Undo) {
            let mut e = Entry::new(now, EventKind::Undo);
            e.flow = Some(f);
            e.cwnd = [Some(before.0), Some(after.0)];
            e.ssthresh = [threshold(before.1), threshold(after.1)];
            e.detail = Some(timeouts.map_or_else(|| "fast retransmit".to_string(), |(a, b)| timeouts_detail(a, b)));
            self.entries.push(e);
        }
    }

    /// Flow `f`'s sender sent data `[seq, end)` (on the wire) at `now`.
    #[inline]
    pub fn data_sent(&mut self, now: SimTime, f: (FlowId, u32), seq: u64, end: u64) {
        if !self.wants(EventKind::Retransmit) {
            return;
        }
        let i = f.0.index();
        if self.sent_to.len() <= i {
            self.sent_to.resize(i + 1, 0);
        }
        if seq < self.sent_to[i] {
            let mut e = Entry::new(now, EventKind::Retransmit);
            (e.flow, e.seq) = (Some(f), Some(seq));
            self.entries.push(e);
        }
        self.sent_to[i] = self.sent_to[i].max(end);
    }

    /// The network dropped a packet of flow `f` (a segment at `seq`, if it carried one).
    pub fn dropped(&mut self, now: SimTime, f: (FlowId, u32), site: DropSite, seq: Option<u64>) {
        if self.wants(EventKind::Drop) {
            let mut e = Entry::new(now, EventKind::Drop);
            (e.flow, e.seq, e.dir, e.radio) = (Some(f), seq, site.dir(), site.dir().is_none());
            e.detail = Some(site.cause().to_string());
            self.entries.push(e);
        }
    }

    /// QUIC flow `f`'s end (`server` or client) fired its PTO number `index` at `at`.
    pub fn pto(&mut self, at: SimTime, f: (FlowId, u32), server: bool, index: u32) {
        if self.wants(EventKind::Pto) {
            let mut e = Entry::new(at, EventKind::Pto);
            (e.flow, e.quic) = (Some(f), Some((server, index)));
            e.detail = Some(if server { "server" } else { "client" }.to_string());
            self.entries.push(e);
        }
    }

    /// QUIC flow `f`'s end declared packet `pn` lost at `at`, its declared loss `index`.
    pub fn lost(&mut self, at: SimTime, f: (FlowId, u32), server: bool, index: u32, pn: u64) {
        if self.wants(EventKind::Lost) {
            let mut e = Entry::new(at, EventKind::Lost);
            (e.flow, e.quic, e.seq) = (Some(f), Some((server, index)), Some(pn));
            e.detail = Some(if server { "server" } else { "client" }.to_string());
            self.entries.push(e);
        }
    }

    /// A spike began or ended on `dirs`.
    pub fn spike(&mut self, now: SimTime, dirs: &[DirId], started: bool) {
        if self.wants(EventKind::Spike) {
            for &d in dirs {
                let mut e = Entry::new(now, EventKind::Spike);
                e.dir = Some(d);
                e.detail = Some(if started { "start" } else { "end" }.to_string());
                self.entries.push(e);
            }
        }
    }

    /// The rows, in the order the events happened, each flow named after its row of the flows
    /// table (`row_names`) and each link direction after `dir_names`, timeouts with the
    /// oracle's verdict (of the connection, `flows`) and the sender's detection.
    pub fn into_rows(self, flows: &[FlowRuntime], datagram_flows: &[DatagramFlow], row_names: &[String], dir_names: &[String]) -> Vec<EventRow> {
        self.entries
            .into_iter()
            .map(|e| {
                let flow = e.flow.filter(|(f, _)| !f.is_datagram()).map(|(f, _)| &flows[f.index()]);
                let (oracle, detected, undone) = match (flow, e.timeout) {
                    (Some(flow), Some(id)) => {
                        let verdict = match flow.oracle.verdicts()[id as usize] {
                            Verdict::Spurious => "spurious",
                            Verdict::Genuine | Verdict::Pending => "genuine",
                        };
                        (Some(verdict.to_string()), Some(flow.oracle.was_detected(id)), Some(e.undone))
                    }
                    _ => (None, None, None),
                };
                let oracle = oracle.or_else(|| {
                    let ((f, _), (server, i)) = (e.flow?, e.quic?);
                    let Ends::Quic(t) = &datagram_flows[f.slot()].ends else { return None };
                    let end = if server { &t.server } else { &t.client };
                    let spurious = match e.kind {
                        EventKind::Pto => end.oracle.pto(i as usize).1,
                        _ => end.oracle.declared(i as usize).2,
                    };
                    Some(if spurious { "spurious" } else { "genuine" }.to_string())
                });
                EventRow {
                    time_s: e.at.as_secs_f64(),
                    kind: e.kind,
                    flow: e.flow.map(|(_, row)| row_names[row as usize].clone()),
                    link: e.dir.map(|d| dir_names[d.index()].clone()).or_else(|| e.radio.then(|| "hsdpa".to_string())),
                    seq: e.seq,
                    cwnd_before: e.cwnd[0],
                    cwnd_after: e.cwnd[1],
                    ssthresh_before: e.ssthresh[0],
                    ssthresh_after: e.ssthresh[1],
                    oracle,
                    detected,
                    undone,
                    detail: e.detail,
                }
            })
            .collect()
    }
}
