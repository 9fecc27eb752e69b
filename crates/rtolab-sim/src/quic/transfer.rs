//! A QUIC transfer as the world sees it: a client and a server (`QuicEnd`), the datagrams
//! between them with the end that sent each (the world sends the server's forward along the
//! flow's route, as a TCP sender's, and the client's the reverse way, as ACKs), and when it
//! ended.
//!
//! Invariant: once the transfer has ended neither end is driven again; datagrams still in
//! the network only tell the oracles their fate.

use super::end::{end_draws, QuicDatagram, QuicEnd, Role};
use super::oracle::Verdicts;
use super::settings::QuicSpec;
use crate::time::SimTime;
use crate::transport::Endpoint;

pub struct QuicTransfer {
    pub client: QuicEnd,
    pub server: QuicEnd,
    scratch: Vec<QuicDatagram>,
}

/// A datagram leaving an end, with the end that sent it.
pub type Outgoing = (Role, QuicDatagram);

impl QuicTransfer {
    /// Flow `name`'s transfer of `size` bytes (`None`: unbounded) under `seed`; the server
    /// keeps its recovery metrics when `record`.
    pub fn new(spec: &QuicSpec, name: &str, size: Option<u64>, seed: u64, record: bool) -> Self {
        QuicTransfer {
            client: QuicEnd::client(spec, size, end_draws(seed, name, Role::Client)),
            server: QuicEnd::server(spec, end_draws(seed, name, Role::Server), record),
            scratch: Vec::new(),
        }
    }

    /// The client connects at `now`.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Outgoing>) {
        self.client.connect(now, &mut self.scratch);
        out.extend(self.scratch.drain(..).map(|d| (Role::Client, d)));
        self.retire_if_ended();
    }

    /// Once the transfer has ended, both connections go (`QuicEnd::retire`).
    fn retire_if_ended(&mut self) {
        if self.ended().is_some() {
            self.client.retire();
            self.server.retire();
        }
    }

    /// Datagram `d` that `from` sent reached the other end.
    pub fn deliver(&mut self, now: SimTime, from: Role, d: &QuicDatagram, out: &mut Vec<Outgoing>) {
        let (sender, receiver) = match from {
            Role::Server => (&mut self.server, &mut self.client),
            Role::Client => (&mut self.client, &mut self.server),
        };
        sender.oracle.arrived(d.index);
        if receiver.done_at().or(receiver.failure.as_ref().map(|f| f.0)).is_some() || sender.failure.is_some() || sender.done_at().is_some() {
            return;
        }
        receiver.receive(now, d, &mut self.scratch);
        let role = receiver.role();
        out.extend(self.scratch.drain(..).map(|d| (role, d)));
        self.retire_if_ended();
    }

    /// The network dropped datagram `index` that `from` sent.
    pub fn dropped(&mut self, from: Role, index: u32) {
        match from {
            Role::Server => self.server.oracle.dropped(index),
            Role::Client => self.client.oracle.dropped(index),
        }
    }

    /// Wakes each end whose timer has come.
    pub fn wake(&mut self, now: SimTime, out: &mut Vec<Outgoing>) {
        if self.ended().is_some() {
            return;
        }
        for end in [&mut self.client, &mut self.server] {
            if end.next_wakeup().is_some_and(|t| t <= now) {
                end.wake(now, &mut self.scratch);
                let role = end.role();
                out.extend(self.scratch.drain(..).map(|d| (role, d)));
            }
        }
        self.retire_if_ended();
    }

    /// When either end next wants waking; `None` once the transfer has ended.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        if self.ended().is_some() {
            return None;
        }
        [self.client.next_wakeup(), self.server.next_wakeup()].into_iter().flatten().min()
    }

    /// When the client had the whole response.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.client.done_at()
    }

    /// Why and when the connection failed before the transfer was done.
    pub fn failure(&self) -> Option<&(SimTime, String)> {
        self.client.failure.as_ref().or(self.server.failure.as_ref())
    }

    /// When the transfer ended: complete, or failed.
    pub fn ended(&self) -> Option<SimTime> {
        self.completed_at().or(self.failure().map(|f| f.0))
    }

    /// The oracle's verdicts, (client, server).
    pub fn verdicts(&self) -> (Verdicts, Verdicts) {
        (self.client.oracle.verdicts(), self.server.oracle.verdicts())
    }

    /// Congestion events at both ends (quinn-proto's own count).
    pub fn congestion_events(&self) -> u64 {
        [&self.client, &self.server].iter().filter_map(|e| e.stats()).map(|s| s.path.congestion_events).sum()
    }
}
