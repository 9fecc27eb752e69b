//! QUIC transfers over real sockets: quinn (the library, over quinn-proto 0.11.19 as the
//! simulator embeds it) on a current-thread tokio runtime with timers of the kernel's
//! resolution (`quic_runtime`), its server's UDP socket in the
//! sender's namespace on port `BASE_PORT + k` (so the forwarder carries its datagrams forward
//! along the flow's route, as a TCP sender's) and its client's in the receiver's namespace
//! (its datagrams go the reverse way, as ACKs). The application protocol is the simulator's
//! (`rtolab_sim::quic::app`): the client opens one bidirectional stream, writes the size it
//! wants as 8 bytes big-endian (`u64::MAX`: unbounded) and finishes; the server reads the
//! request to its end, writes that many zeros and finishes; the transfer is complete when
//! the client has read the stream's end.
//!
//! Both ends run `QuicSpec::transport()`, so they have the simulator's settings (path MTU
//! discovery off unless asked for, GSO off), each with its own qlog stream read back through
//! `quic::qlog_tap`: a PTO is a rise of the library's `pto_count`, a declared loss a
//! `recovery:packet_lost` record, as the simulator counts them (`quic::end::take_reports`).
//!
//! The server's recovery metrics (cwnd, ssthresh, smoothed RTT, RTT variance), when a series
//! wants them, are its qlog's `recovery:metrics_updated` records, timed when the watcher
//! reads them (every `POLL`, and at the end).
//!
//! Invariant: the outcome's counts and statistics are taken at the instant the client read
//! the stream's end (or the run stopped), as the simulator stops driving both ends then.

use crate::apps::set_int_option;
use crate::realtime;
use crate::shared::{Shared, BASE_PORT, RECEIVER_ADDR, SENDER_ADDR};
use crate::quic_runtime::PreciseRuntime;
use quinn::{ConnectionStats, Endpoint, EndpointConfig};
use rtolab_sim::quic::qlog_tap::{Metrics, Report, Tap};
use rtolab_sim::quic::tls;
use rtolab_sim::quic::QuicSpec;
use rtolab_sim::SimTime;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::net::{SocketAddrV4, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The request's value for an unbounded transfer, and what the server writes: the
/// simulator's protocol (`quic::app`).
pub use rtolab_sim::quic::app::{UNBOUNDED, ZEROS};
/// How often the transfer's watcher checks for the end of the run.
const POLL: Duration = Duration::from_millis(5);
/// Each end's socket buffers: far more than a link of a scenario holds, so that neither host
/// drops a datagram outside rtolab's links (checked after the run, `Udp: InErrors`).
const SOCKET_BUFFER: i32 = 32 << 20;

/// A transfer's two sockets, bound before it starts: the server's in the sender's namespace,
/// the client's in the receiver's.
pub struct Sockets {
    pub server: UdpSocket,
    pub client: UdpSocket,
}

fn socket(at: SocketAddrV4) -> std::io::Result<UdpSocket> {
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    for option in [libc::SO_RCVBUFFORCE, libc::SO_SNDBUFFORCE] {
        set_int_option(&socket, libc::SOL_SOCKET, option, SOCKET_BUFFER)?;
    }
    socket.bind(&SockAddr::from(at))?;
    Ok(socket.into())
}

/// Connection `k`'s server socket (the calling thread must be in the sender's namespace).
pub fn server_socket(k: u32) -> std::io::Result<UdpSocket> {
    socket(SocketAddrV4::new(SENDER_ADDR, BASE_PORT + k as u16))
}

/// A client socket on a port the kernel picks (the calling thread must be in the receiver's
/// namespace); the forwarder maps its datagrams by the server's port.
pub fn client_socket() -> std::io::Result<UdpSocket> {
    socket(SocketAddrV4::new(RECEIVER_ADDR, 0))
}

/// PTOs and declared losses of one end, from its qlog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// The library's `pto_count` as last reported (it falls back to 0 on an ACK).
    pto_count: u32,
    pub ptos: u64,
    pub declared_lost: u64,
}

impl Tally {
    /// Files `reports`, in the order the library wrote them: each rise of `pto_count` by n is
    /// n PTOs (RFC 9002 §6.2: the count rises by one per PTO and resets on an acknowledgement).
    pub fn take(&mut self, reports: impl IntoIterator<Item = Report>) {
        for report in reports {
            match report {
                Report::Lost(..) => self.declared_lost += 1,
                Report::Metrics(m) => {
                    if let Some(count) = m.pto_count {
                        self.ptos += count.saturating_sub(self.pto_count) as u64;
                        self.pto_count = count;
                    }
                }
                Report::Sent(..) | Report::Received(..) => {}
            }
        }
    }
}

/// One QUIC transfer as the report needs it.
#[derive(Clone, Debug, Default)]
pub struct QuicOutcome {
    /// When the client connected.
    pub start: SimTime,
    /// When the client had read the stream's end, with every byte asked for.
    pub done_at: Option<SimTime>,
    /// When the transfer ended without completing (the connection failed), and why.
    pub failure: Option<(SimTime, String)>,
    /// Bytes the client read.
    pub received: u64,
    /// Offset of the first byte the client read that was not the server's zero.
    pub corrupt_at: Option<u64>,
    pub client: Option<ConnectionStats>,
    pub server: Option<ConnectionStats>,
    /// Client, server.
    pub tallies: [Tally; 2],
    /// Why the transfer could not be set up (an error of the emulator, not of the network).
    pub setup_error: Option<String>,
    /// The server's recovery metrics as they changed, when recorded.
    pub metrics: Vec<(SimTime, Metrics)>,
}

impl QuicOutcome {
    /// When the transfer ended: complete, or failed.
    pub fn ended(&self) -> Option<SimTime> {
        self.done_at.or(self.failure.as_ref().map(|f| f.0))
    }
}

/// The two ends' connections and qlog taps while the transfer runs.
struct Watch {
    taps: [Tap; 2],
    conns: [Option<quinn::Connection>; 2],
    outcome: QuicOutcome,
    /// The counts are final (the transfer ended or the run stopped).
    sealed: bool,
    /// Keep the server's metrics.
    record: bool,
}

impl Watch {
    /// Files what the taps hold at `now`: the tallies, and the server's metrics when recorded.
    fn drain(&mut self, now: SimTime) {
        if self.sealed {
            return;
        }
        for (i, tap) in self.taps.iter_mut().enumerate() {
            let mut reports = Vec::new();
            tap.drain(&mut reports);
            if i == 1 && self.record {
                self.outcome.metrics.extend(reports.iter().filter_map(|r| match r {
                    Report::Metrics(m) => Some((now, *m)),
                    _ => None,
                }));
            }
            self.outcome.tallies[i].take(reports);
        }
    }

    /// Takes the final counts and statistics at `now`; later calls change nothing.
    fn seal(&mut self, now: SimTime) {
        self.drain(now);
        if !self.sealed {
            self.sealed = true;
            self.outcome.client = self.conns[0].as_ref().map(quinn::Connection::stats);
            self.outcome.server = self.conns[1].as_ref().map(quinn::Connection::stats);
        }
    }
}

fn lock(w: &Mutex<Watch>) -> std::sync::MutexGuard<'_, Watch> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs one transfer of `size` bytes (`None`: unbounded) with `spec`'s settings over
/// `sockets`, from now until it ends or the run stops, and returns its outcome, with the
/// server's metrics when `record`. The calling thread asks for the applications' real-time
/// priority: the client's read of the last byte is what the flows table measures.
pub fn run(shared: &Arc<Shared>, spec: &QuicSpec, size: Option<u64>, sockets: Sockets, record: bool) -> QuicOutcome {
    realtime::fine_timer_slack();
    realtime::request(realtime::APPLICATION_PRIORITY);
    let start = shared.clock.now();
    let setup_failed = |e: String| QuicOutcome { start, setup_error: Some(e), ..Default::default() };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return setup_failed(format!("starting the QUIC runtime: {e}")),
    };
    runtime.block_on(transfer(shared.clone(), spec, size.unwrap_or(UNBOUNDED), sockets, record)).unwrap_or_else(setup_failed)
}

async fn transfer(shared: Arc<Shared>, spec: &QuicSpec, size: u64, sockets: Sockets, record: bool) -> Result<QuicOutcome, String> {
    let qlog_start = std::time::Instant::now();
    let (client_tap, client_qlog) = Tap::new(qlog_start);
    let (server_tap, server_qlog) = Tap::new(qlog_start);
    let runtime = Arc::new(PreciseRuntime);
    let server_address = sockets.server.local_addr().map_err(|e| format!("the server's address: {e}"))?;

    let mut transport = spec.transport();
    transport.qlog_stream(Some(server_qlog));
    let mut server_config = quinn::ServerConfig::with_crypto(tls::os_server());
    server_config.transport_config(Arc::new(transport));
    server_config.migration(false);
    let server = Endpoint::new(EndpointConfig::default(), Some(server_config), sockets.server, runtime.clone()).map_err(|e| format!("the server's endpoint: {e}"))?;

    let mut transport = spec.transport();
    transport.qlog_stream(Some(client_qlog));
    let mut client_config = quinn::ClientConfig::new(tls::os_client());
    client_config.transport_config(Arc::new(transport));
    let client = Endpoint::new(EndpointConfig::default(), None, sockets.client, runtime).map_err(|e| format!("the client's endpoint: {e}"))?;

    let start = shared.clock.now();
    let watch = Arc::new(Mutex::new(Watch { taps: [client_tap, server_tap], conns: [None, None], outcome: QuicOutcome { start, ..Default::default() }, sealed: false, record }));
    let connecting = client.connect_with(client_config, server_address, tls::SERVER_NAME).map_err(|e| format!("connecting: {e}"))?;
    let serving = tokio::spawn(serve(server.clone(), watch.clone()));
    let fetching = tokio::spawn(fetch(connecting, size, shared.clone(), watch.clone()));
    // The server's task ends before the client's only when it gave up (it waits for the
    // client to close the connection otherwise).
    while !fetching.is_finished() && !serving.is_finished() && !shared.stopping() {
        tokio::time::sleep(POLL).await;
        lock(&watch).drain(shared.clock.now());
    }
    // A server that gave up, or whose connection closed, ends a transfer the client still
    // waits on.
    let server_error = match serving.is_finished() {
        true => match serving.await {
            Ok(Err(e)) => Some(e),
            Ok(Ok(())) => Some("the connection closed before the transfer ended".to_string()),
            Err(_) => None,
        },
        false => {
            serving.abort();
            None
        }
    };
    {
        let now = shared.clock.now();
        let mut w = lock(&watch);
        if let (None, Some(e)) = (w.outcome.ended(), server_error) {
            w.outcome.failure = Some((now, e));
        }
        w.seal(now);
    }
    fetching.abort();
    client.close(0u32.into(), b"done");
    server.close(0u32.into(), b"done");
    let outcome = lock(&watch).outcome.clone();
    Ok(outcome)
}

/// The server: accepts one connection, reads the request, sends the response and keeps the
/// connection until the client closes it.
async fn serve(endpoint: Endpoint, watch: Arc<Mutex<Watch>>) -> Result<(), String> {
    let incoming = endpoint.accept().await.ok_or("the server's endpoint closed")?;
    let conn = incoming.await.map_err(|e| format!("the server's handshake: {e}"))?;
    lock(&watch).conns[1] = Some(conn.clone());
    let (mut send, mut recv) = conn.accept_bi().await.map_err(|e| format!("the server's stream: {e}"))?;
    let request = recv.read_to_end(8).await.map_err(|e| format!("the request: {e}"))?;
    let request: [u8; 8] = request.as_slice().try_into().map_err(|_| format!("a request of {} bytes, expected 8", request.len()))?;
    let mut left = u64::from_be_bytes(request);
    while left > 0 {
        let n = left.min(ZEROS.len() as u64) as usize;
        send.write_all(&ZEROS[..n]).await.map_err(|e| format!("the response: {e}"))?;
        if left != UNBOUNDED {
            left -= n as u64;
        }
    }
    send.finish().map_err(|e| format!("finishing the response: {e}"))?;
    conn.closed().await;
    Ok(())
}

/// The client: asks for `size` bytes, reads them (checking each is the server's zero) to the
/// stream's end, and seals the watch at that instant.
async fn fetch(connecting: quinn::Connecting, size: u64, shared: Arc<Shared>, watch: Arc<Mutex<Watch>>) {
    let failed = |watch: &Mutex<Watch>, e: String| {
        let now = shared.clock.now();
        let mut w = lock(watch);
        w.outcome.failure.get_or_insert((now, e));
        w.seal(now);
    };
    let conn = match connecting.await {
        Ok(c) => c,
        Err(e) => return failed(&watch, format!("connection lost: {e}")),
    };
    lock(&watch).conns[0] = Some(conn.clone());
    let (mut send, mut recv) = match conn.open_bi().await {
        Ok(s) => s,
        Err(e) => return failed(&watch, format!("connection lost: {e}")),
    };
    if let Err(e) = send.write_all(&size.to_be_bytes()).await {
        return failed(&watch, format!("the request could not be written: {e}"));
    }
    let _ = send.finish();
    let mut received = 0u64;
    loop {
        match recv.read_chunk(usize::MAX, true).await {
            Ok(Some(chunk)) => {
                let mut w = lock(&watch);
                if w.outcome.corrupt_at.is_none() {
                    w.outcome.corrupt_at = chunk.bytes.iter().position(|&b| b != 0).map(|i| received + i as u64);
                }
                received += chunk.bytes.len() as u64;
                w.outcome.received = received;
            }
            Ok(None) => {
                let now = shared.clock.now();
                let mut w = lock(&watch);
                if received == size {
                    w.outcome.done_at = Some(now);
                } else {
                    w.outcome.failure.get_or_insert((now, format!("the response ended after {received} of {size} bytes")));
                }
                w.seal(now);
                return;
            }
            Err(e) => return failed(&watch, format!("the response could not be read: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtolab_sim::quic::qlog_tap::{Metrics, Space};

    fn pto(count: u32) -> Report {
        Report::Metrics(Metrics { pto_count: Some(count), ..Metrics::default() })
    }

    /// PTO counts 1, 2, back to 0 on an ACK, then 1 again: three PTOs; metrics without a
    /// count and packets sent change nothing; each loss record is one declared loss.
    #[test]
    fn ptos_are_the_rises_of_the_librarys_count() {
        let mut t = Tally::default();
        t.take([pto(1), Report::Sent(Space::Data, 4), pto(2), Report::Metrics(Metrics { smoothed_rtt_s: Some(0.04), ..Metrics::default() })]);
        assert_eq!((t.ptos, t.declared_lost), (2, 0));
        t.take([pto(0), Report::Lost(Space::Data, 3), Report::Lost(Space::Data, 5), pto(1)]);
        assert_eq!((t.ptos, t.declared_lost), (3, 2));
        // A count reported again unchanged (qlog sends only changes, but a jump of two
        // between reports is two PTOs).
        t.take([pto(3)]);
        assert_eq!(t.ptos, 5);
    }

    #[test]
    fn an_outcome_ends_at_completion_or_failure() {
        let ms = |x: u64| SimTime(x * 1_000_000);
        let mut o = QuicOutcome { start: ms(1), ..Default::default() };
        assert_eq!(o.ended(), None);
        o.failure = Some((ms(9), "lost".into()));
        assert_eq!(o.ended(), Some(ms(9)));
        o.done_at = Some(ms(5));
        assert_eq!(o.ended(), Some(ms(5)));
    }
}
