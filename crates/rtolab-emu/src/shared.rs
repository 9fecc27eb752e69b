//! State shared by the emulator's threads: the clock, the connection registry, the sockets
//! under observation, what the applications report, the datagram flows and the QUIC
//! transfers.
//!
//! Connection `k` (a TCP connection, a datagram flow or a QUIC transfer, whose server is the
//! sending side) binds source port `BASE_PORT + k` in the sender's namespace, so the
//! forwarder maps any packet to its connection from the port alone.

use crate::datagram_flow::DatagramFlow;
use crate::quic_apps::QuicOutcome;
use crate::tcpinfo::Sample;
use rtolab_sim::world::Origin;
use rtolab_sim::SimTime;
use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

pub const BASE_PORT: u16 = 10_000;
pub const MAX_CONNECTIONS: usize = 50_000;
pub const LISTEN_PORT: u16 = 5001;
/// Where every datagram flow's sink listens (RTP's port, RFC 3551 §8, as in the simulator's
/// pcaps).
pub const DATAGRAM_PORT: u16 = 5004;
pub const SENDER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
pub const RECEIVER_ADDR: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);

pub fn receiver_endpoint() -> SocketAddrV4 {
    SocketAddrV4::new(RECEIVER_ADDR, LISTEN_PORT)
}

pub fn datagram_endpoint() -> SocketAddrV4 {
    SocketAddrV4::new(RECEIVER_ADDR, DATAGRAM_PORT)
}

/// The connection a port belongs to, if it is one of ours.
pub fn connection_of_port(port: u16) -> Option<u32> {
    let k = port.checked_sub(BASE_PORT)? as usize;
    (k < MAX_CONNECTIONS).then_some(k as u32)
}

/// Time since the emulation started, from the monotonic clock, as simulator time.
#[derive(Clone, Copy)]
pub struct Clock(Instant);

impl Clock {
    pub fn start() -> Self {
        Clock(Instant::now())
    }
    pub fn now(&self) -> SimTime {
        SimTime(self.0.elapsed().as_nanos() as u64)
    }
    /// Sleeps until `t` or until `stop` is set (checked every 20 ms); false if stopped.
    pub fn sleep_until(&self, t: SimTime, stop: &AtomicBool) -> bool {
        loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = self.now();
            if now >= t {
                return true;
            }
            std::thread::sleep(Duration::from_nanos((t.0 - now.0).min(20_000_000)));
        }
    }
}

/// A connection as planned: what the forwarder and the report need to know about it.
#[derive(Clone, Debug)]
pub struct ConnMeta {
    pub name: String,
    pub origin: Origin,
    /// Index into the forwarder's routes.
    pub route: u32,
    pub size: Option<u64>,
    pub cc: Option<&'static str>,
}

/// A QUIC transfer of the run: what rtolab's links dropped of it (the forwarder's part) and
/// its outcome once it ended (the application's).
#[derive(Debug, Default)]
pub struct QuicFlow {
    /// When it was planned to start (the client's connect).
    pub start: SimTime,
    /// When each datagram the links dropped, in either direction, had entered the forwarder.
    pub drops: Vec<SimTime>,
    pub outcome: Option<QuicOutcome>,
}

impl QuicFlow {
    /// Datagrams dropped that had entered the network before `end` (the simulator stops
    /// both ends when the transfer ends; what they send later is not the transfer's).
    pub fn lost_before(&self, end: SimTime) -> u64 {
        self.drops.iter().filter(|&&t| t < end).count() as u64
    }
}

/// What the sending application saw.
#[derive(Clone, Debug, Default)]
pub struct SenderOutcome {
    pub connect_at: SimTime,
    pub established_at: Option<SimTime>,
    /// When the kernel had every byte and the FIN acknowledged (FIN_WAIT2).
    pub acked_at: Option<SimTime>,
    pub written: u64,
    pub error: Option<String>,
}

/// What the receiving application read.
#[derive(Clone, Debug, Default)]
pub struct ReceiverOutcome {
    pub bytes: u64,
    pub last_byte_at: Option<SimTime>,
    /// Offset of the first byte that differed from the sender's pattern.
    pub corrupt_at: Option<u64>,
}

/// The byte the sender writes at stream offset `i` (the receiver checks every one).
pub fn pattern_byte(i: u64) -> u8 {
    (i % 251) as u8
}

pub struct Shared {
    pub clock: Clock,
    /// Set to end the run; every thread polls it.
    pub stop: AtomicBool,
    /// Applications stop (infinite flows end, web users stop fetching).
    pub apps_stop: AtomicBool,
    conns: RwLock<Vec<ConnMeta>>,
    /// Sockets the sampler reads every 10 ms.
    pub watched: Mutex<Vec<(u32, Arc<socket2::Socket>)>>,
    pub samples: Mutex<HashMap<u32, Vec<Sample>>>,
    pub senders: Mutex<HashMap<u32, SenderOutcome>>,
    pub receivers: Mutex<HashMap<u32, ReceiverOutcome>>,
    /// Datagram flows by connection; the sender, the receiver and the forwarder each fill in
    /// their part.
    pub datagram_flows: Mutex<HashMap<u32, DatagramFlow>>,
    /// QUIC transfers by connection.
    pub quic_flows: Mutex<HashMap<u32, QuicFlow>>,
    /// Datagrams the receiving host's UDP discarded (`Udp: InErrors` of its namespace, a
    /// full receive buffer): lost outside rtolab's links.
    pub udp_in_errors: AtomicU64,
}

impl Shared {
    pub fn new(clock: Clock) -> Self {
        Shared {
            clock,
            stop: AtomicBool::new(false),
            apps_stop: AtomicBool::new(false),
            conns: RwLock::new(Vec::new()),
            watched: Mutex::new(Vec::new()),
            samples: Mutex::new(HashMap::new()),
            senders: Mutex::new(HashMap::new()),
            receivers: Mutex::new(HashMap::new()),
            datagram_flows: Mutex::new(HashMap::new()),
            quic_flows: Mutex::new(HashMap::new()),
            udp_in_errors: AtomicU64::new(0),
        }
    }

    /// Registers a connection and returns its index, or `None` when the port range is used up.
    pub fn add_connection(&self, meta: ConnMeta) -> Option<u32> {
        let mut conns = self.conns.write().unwrap_or_else(|e| e.into_inner());
        (conns.len() < MAX_CONNECTIONS).then(|| {
            conns.push(meta);
            (conns.len() - 1) as u32
        })
    }

    pub fn connection(&self, k: u32) -> Option<ConnMeta> {
        self.conns.read().unwrap_or_else(|e| e.into_inner()).get(k as usize).cloned()
    }

    pub fn connections(&self) -> Vec<ConnMeta> {
        self.conns.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn record_sample(&self, k: u32, s: Sample) {
        self.samples.lock().unwrap_or_else(|e| e.into_inner()).entry(k).or_default().push(s);
    }

    /// Runs `f` on datagram flow `k`, if `k` is one.
    pub fn with_datagram_flow<T>(&self, k: u32, f: impl FnOnce(&mut DatagramFlow) -> T) -> Option<T> {
        self.datagram_flows.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&k).map(f)
    }

    /// Runs `f` on QUIC transfer `k`, if `k` is one.
    pub fn with_quic_flow<T>(&self, k: u32, f: impl FnOnce(&mut QuicFlow) -> T) -> Option<T> {
        self.quic_flows.lock().unwrap_or_else(|e| e.into_inner()).get_mut(&k).map(f)
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.apps_stop.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drops of datagrams that entered before the end count; those sent at or after it (the
    /// ends closing) do not.
    #[test]
    fn a_quic_flow_counts_the_drops_before_its_end() {
        let q = QuicFlow { drops: vec![SimTime(10), SimTime(20), SimTime(30)], ..Default::default() };
        assert_eq!(q.lost_before(SimTime(20)), 1);
        assert_eq!(q.lost_before(SimTime(31)), 3);
    }
}
