//! One end of a simulated QUIC transfer: quinn-proto's `Endpoint` and `Connection`, driven on
//! simulated time as quinn-proto's own test harness drives them (`handle`, `handle_event`,
//! `handle_timeout`, `poll_transmit`, `poll_timeout`), with the transfer's application
//! (`quic::app`) on top.
//!
//! Invariant: every call into the library runs inside `draws::with_draws` with this end's
//! stream, so a seed fixes every byte the end sends; every datagram it sends is recorded in
//! its oracle with the packets quinn-proto's qlog says it carried.

use super::app::{on_event, App};
use super::draws::{self, with_draws, SeededCids, CID_LEN};
use super::oracle::Oracle;
use super::qlog_tap::{Metrics, Report, Space, Tap};
use super::settings::QuicSpec;
use super::{clock, tls};
use crate::time::SimTime;
use crate::transport::Endpoint as TransportEndpoint;
use bytes::BytesMut;
use quinn_proto::{ClientConfig, Connection, ConnectionHandle, ConnectionId, DatagramEvent, Endpoint, EndpointConfig, ServerConfig};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;

/// The two ends' addresses (those of rtolab's pcaps for datagram flows).
pub const CLIENT_ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 4, 0, 1), 50_000));
pub const SERVER_ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 3, 0, 1), 443));

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

/// A datagram between the ends: its UDP payload, and its number among those its sender sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuicDatagram {
    pub bytes: Vec<u8>,
    pub index: u32,
}

pub struct QuicEnd {
    role: Role,
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    /// The client's configuration until it connects.
    client_config: Option<ClientConfig>,
    draws: Xoshiro256PlusPlus,
    tap: Tap,
    reports: Vec<Report>,
    /// Packets of the datagram being built.
    packets: Vec<(Space, u64)>,
    pub oracle: Oracle,
    app: App,
    timeout: Option<SimTime>,
    buf: Vec<u8>,
    pto_count: u32,
    /// Recovery metrics as they changed (when `record`).
    pub samples: Vec<(SimTime, Metrics)>,
    record: bool,
    /// Why the connection ended without the transfer, and when.
    pub failure: Option<(SimTime, String)>,
    /// The connection's statistics when it was retired (`retire`).
    retired: Option<quinn_proto::ConnectionStats>,
}

/// HMAC key for stateless resets (RFC 9000 §10.3) and the key of address-validation tokens:
/// fixed (they never leave a run) so that nothing reads the operating system's generator.
const RESET_KEY: [u8; 64] = [0x5a; 64];
const TOKEN_KEY: [u8; 64] = [0xa5; 64];

/// Token times: fixed (no token is ever sent, `validation_token.sent(0)`).
struct FixedTime;
impl quinn_proto::TimeSource for FixedTime {
    fn now(&self) -> std::time::SystemTime {
        std::time::UNIX_EPOCH
    }
}

impl QuicEnd {
    fn new(role: Role, spec: &QuicSpec, mut draws: Xoshiro256PlusPlus, app: App, record: bool) -> Self {
        let (tap, qlog) = Tap::new(clock::at(SimTime::ZERO));
        let mut transport = spec.transport();
        transport.qlog_stream(Some(qlog));
        let transport = Arc::new(transport);
        let cid_seed: u64 = draws.random();
        let mut endpoint_config = EndpointConfig::new(Arc::new(ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &RESET_KEY)));
        endpoint_config.cid_generator(move || Box::new(SeededCids::new(cid_seed)));
        let rng_seed = draws::seed_bytes(&mut draws);
        let (server_config, client_config) = match role {
            Role::Server => {
                let key = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&TOKEN_KEY);
                let mut c = ServerConfig::new(tls::server(), Arc::new(key));
                c.transport_config(transport);
                c.validation_token.sent(0);
                c.migration(false);
                c.time_source(Arc::new(FixedTime));
                (Some(Arc::new(c)), None)
            }
            Role::Client => {
                let mut c = ClientConfig::new(tls::client());
                c.transport_config(transport);
                let mut initial = [0u8; CID_LEN];
                draws.fill(&mut initial);
                let initial = ConnectionId::new(&initial);
                c.initial_dst_cid_provider(Arc::new(move || initial));
                (None, Some(c))
            }
        };
        let endpoint = Endpoint::new(Arc::new(endpoint_config), server_config, spec.mtu_discovery, Some(rng_seed));
        QuicEnd {
            role,
            endpoint,
            conn: None,
            client_config,
            draws,
            tap,
            reports: Vec::new(),
            packets: Vec::new(),
            oracle: Oracle::default(),
            app,
            timeout: None,
            buf: Vec::new(),
            pto_count: 0,
            samples: Vec::new(),
            record,
            failure: None,
            retired: None,
        }
    }

    /// The client of a transfer of `size` bytes (`None`: unbounded), its randomness from `draws`.
    pub fn client(spec: &QuicSpec, size: Option<u64>, draws: Xoshiro256PlusPlus) -> Self {
        QuicEnd::new(Role::Client, spec, draws, App::client(size), false)
    }

    /// The server, recording its recovery metrics when `record`.
    pub fn server(spec: &QuicSpec, draws: Xoshiro256PlusPlus, record: bool) -> Self {
        QuicEnd::new(Role::Server, spec, draws, App::server(), record)
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// When the client had read the whole transfer.
    pub fn done_at(&self) -> Option<SimTime> {
        self.app.done_at()
    }

    /// Bytes the client has read.
    pub fn received(&self) -> u64 {
        self.app.received()
    }

    /// The connection's own statistics (sent and lost packets, congestion events), live or
    /// as they were when it was retired.
    pub fn stats(&self) -> Option<quinn_proto::ConnectionStats> {
        self.conn.as_ref().map(|(_, c)| c.stats()).or(self.retired)
    }

    /// Drops the connection (its buffers and recovery state) once its transfer has ended,
    /// keeping its statistics: a run of many transfers holds only what its tables need.
    /// Invariant: a retired end is never driven again.
    pub fn retire(&mut self) {
        if let Some((_, conn)) = self.conn.take() {
            self.retired = Some(conn.stats());
        }
        self.timeout = None;
        self.buf = Vec::new();
        self.reports = Vec::new();
    }

    /// The client opens the connection at `now`.
    pub fn connect(&mut self, now: SimTime, out: &mut Vec<QuicDatagram>) {
        self.with_own_draws(|end| {
            let config = end.client_config.take().expect("a client connects once");
            match end.endpoint.connect(clock::at(now), config, SERVER_ADDR, tls::SERVER_NAME) {
                Ok(conn) => end.conn = Some(conn),
                Err(e) => end.failure = Some((now, format!("could not connect: {e}"))),
            }
            end.drive(now, out);
        });
    }

    fn with_own_draws<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let mut draws = self.draws.clone();
        let result = with_draws(&mut draws, || f(self));
        self.draws = draws;
        result
    }

    /// Runs the application, then sends what the connection has to send, and notes its
    /// next timeout.
    fn drive(&mut self, now: SimTime, out: &mut Vec<QuicDatagram>) {
        let instant = clock::at(now);
        let Some((ch, conn)) = &mut self.conn else {
            return;
        };
        loop {
            let mut busy = false;
            while let Some(event) = conn.poll_endpoint_events() {
                busy = true;
                if let Some(answer) = self.endpoint.handle_event(*ch, event) {
                    conn.handle_event(answer);
                }
            }
            while let Some(event) = conn.poll() {
                busy = true;
                if let Some(failure) = on_event(&mut self.app, &mut self.oracle, conn, now, event) {
                    self.failure.get_or_insert((now, failure));
                }
            }
            if !busy {
                break;
            }
        }
        self.tap.drain(&mut self.reports);
        take_reports(&mut self.reports, &mut self.packets, &mut self.oracle, &mut self.pto_count, self.record.then_some(&mut self.samples), now);
        loop {
            self.buf.clear();
            let Some(transmit) = conn.poll_transmit(instant, 1, &mut self.buf) else {
                break;
            };
            self.tap.drain(&mut self.reports);
            take_reports(&mut self.reports, &mut self.packets, &mut self.oracle, &mut self.pto_count, self.record.then_some(&mut self.samples), now);
            let index = self.oracle.sent(now, &self.packets);
            self.packets.clear();
            out.push(QuicDatagram { bytes: self.buf[..transmit.size].to_vec(), index });
        }
        self.tap.drain(&mut self.reports);
        take_reports(&mut self.reports, &mut self.packets, &mut self.oracle, &mut self.pto_count, self.record.then_some(&mut self.samples), now);
        self.timeout = conn.poll_timeout().map(clock::to_sim);
    }

    /// A datagram sent without a connection (a stateless answer): it carries no packet the
    /// end waits for.
    fn send_stateless(&mut self, now: SimTime, len: usize, out: &mut Vec<QuicDatagram>) {
        let index = self.oracle.sent(now, &[]);
        out.push(QuicDatagram { bytes: self.buf[..len].to_vec(), index });
    }
}

/// Files the library's reports: packets sent go to the datagram being built, losses and PTOs
/// to the oracle (a PTO is a rise of the library's own `pto_count`), metrics to `samples`.
fn take_reports(reports: &mut Vec<Report>, packets: &mut Vec<(Space, u64)>, oracle: &mut Oracle, pto_count: &mut u32, mut samples: Option<&mut Vec<(SimTime, Metrics)>>, now: SimTime) {
    for report in reports.drain(..) {
        match report {
            Report::Sent(space, pn) => packets.push((space, pn)),
            Report::Received(..) => {}
            Report::Lost(space, pn) => oracle.lost(now, space, pn),
            Report::Metrics(m) => {
                if let Some(count) = m.pto_count {
                    for _ in *pto_count..count {
                        oracle.pto_fired(now);
                    }
                    *pto_count = count;
                }
                if let Some(s) = samples.as_deref_mut() {
                    s.push((now, m));
                }
            }
        }
    }
}

impl TransportEndpoint for QuicEnd {
    type Unit = QuicDatagram;

    fn receive(&mut self, now: SimTime, unit: &QuicDatagram, out: &mut Vec<QuicDatagram>) {
        self.with_own_draws(|end| {
            let from = match end.role {
                Role::Client => SERVER_ADDR,
                Role::Server => CLIENT_ADDR,
            };
            let instant = clock::at(now);
            end.buf.clear();
            match end.endpoint.handle(instant, from, None, None, BytesMut::from(&unit.bytes[..]), &mut end.buf) {
                Some(DatagramEvent::NewConnection(incoming)) => {
                    if end.conn.is_some() {
                        end.endpoint.ignore(incoming);
                    } else {
                        match end.endpoint.accept(incoming, instant, &mut end.buf, None) {
                            Ok(conn) => end.conn = Some(conn),
                            Err(e) => {
                                if let Some(t) = e.response {
                                    end.send_stateless(now, t.size, out);
                                }
                                end.failure.get_or_insert((now, format!("could not accept: {}", e.cause)));
                            }
                        }
                    }
                }
                Some(DatagramEvent::ConnectionEvent(ch, event)) => {
                    if let Some((mine, conn)) = &mut end.conn {
                        if *mine == ch {
                            conn.handle_event(event);
                        }
                    }
                }
                Some(DatagramEvent::Response(t)) => end.send_stateless(now, t.size, out),
                None => {}
            }
            end.drive(now, out);
        });
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<QuicDatagram>) {
        self.with_own_draws(|end| {
            if let Some((_, conn)) = &mut end.conn {
                conn.handle_timeout(clock::at(now));
            }
            end.drive(now, out);
        });
    }

    fn next_wakeup(&self) -> Option<SimTime> {
        self.timeout
    }
}

/// The stream of one end of flow `name` under `seed`.
pub fn end_draws(seed: u64, name: &str, role: Role) -> Xoshiro256PlusPlus {
    let purpose = match role {
        Role::Client => "quic-client",
        Role::Server => "quic-server",
    };
    Xoshiro256PlusPlus::from_rng(&mut crate::rng::stream(seed, name, purpose))
}
