//! The applications at both ends: real sockets that carry the scenario's flows. A sender
//! writes a known byte pattern (`pattern_byte`) and half-closes; the receiver reads to the
//! end and checks every byte, so the emulation itself is checked end to end. A sampler reads
//! `TCP_INFO` of every sending socket every 10 ms.

use crate::netns::Namespace;
use crate::shared::{connection_of_port, pattern_byte, receiver_endpoint, ReceiverOutcome, SenderOutcome, Shared, BASE_PORT, SENDER_ADDR};
use crate::tcpinfo::{self, STATE_FIN_WAIT2};
use rtolab_sim::SimTime;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;

/// How often blocking calls wake to check for the end of the run.
const POLL: Duration = Duration::from_millis(20);
/// The sampler's period (issue: every 10 ms).
pub const SAMPLE_PERIOD_NS: u64 = 10_000_000;
const PATTERN_LEN: usize = 251 * 256;

/// Settings of one sending socket.
#[derive(Clone, Copy, Debug)]
pub struct SendPlan {
    pub connection: u32,
    pub size: Option<u64>,
    pub cc: Option<&'static str>,
}

/// Sets an `int` socket option (setsockopt(2)).
pub fn set_int_option(socket: &Socket, level: i32, name: i32, value: i32) -> std::io::Result<()> {
    // SAFETY: an int option of the documented size on a live socket.
    let rc = unsafe {
        libc::setsockopt(socket.as_raw_fd(), level, name, &value as *const i32 as *const libc::c_void, std::mem::size_of::<i32>() as libc::socklen_t)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Connects without blocking past the end of the run.
fn connect(socket: &Socket, shared: &Shared) -> std::io::Result<bool> {
    socket.set_nonblocking(true)?;
    match socket.connect(&SockAddr::from(receiver_endpoint())) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => loop {
            if shared.stopping() {
                return Ok(false);
            }
            let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(socket.as_raw_fd()) };
            let mut fds = [nix::poll::PollFd::new(fd, nix::poll::PollFlags::POLLOUT)];
            let ready = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(POLL.as_millis() as u16)).map_err(std::io::Error::from)?;
            if ready > 0 {
                if let Some(e) = socket.take_error()? {
                    return Err(e);
                }
                break;
            }
        },
        Err(e) => return Err(e),
    }
    socket.set_nonblocking(false)?;
    Ok(true)
}

/// Opens connection `plan.connection` from the sender's namespace (the calling thread must
/// be in it), sends its bytes and waits until all are acknowledged or the run ends.
pub fn send(shared: &Shared, plan: SendPlan) -> SenderOutcome {
    let mut outcome = SenderOutcome { connect_at: shared.clock.now(), ..Default::default() };
    if let Err(e) = send_inner(shared, plan, &mut outcome) {
        outcome.error = Some(e.to_string());
    }
    outcome
}

fn send_inner(shared: &Shared, plan: SendPlan, outcome: &mut SenderOutcome) -> std::io::Result<()> {
    let k = plan.connection;
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    if let Some(cc) = plan.cc {
        socket.set_tcp_congestion(cc.as_bytes())?;
    }
    socket.set_reuse_address(true)?;
    socket.bind(&SockAddr::from(SocketAddrV4::new(SENDER_ADDR, BASE_PORT + k as u16)))?;
    outcome.connect_at = shared.clock.now();
    if !connect(&socket, shared)? {
        return Ok(());
    }
    outcome.established_at = Some(shared.clock.now());
    let socket = Arc::new(socket);
    shared.watched.lock().unwrap_or_else(|e| e.into_inner()).push((k, socket.clone()));
    socket.set_write_timeout(Some(POLL))?;
    let pattern: Vec<u8> = (0..PATTERN_LEN as u64).map(pattern_byte).collect();
    let mut stream: &Socket = &socket;
    while plan.size.is_none_or(|size| outcome.written < size) && !shared.stopping() {
        let offset = (outcome.written % 251) as usize;
        let want = plan.size.map(|s| (s - outcome.written).min(PATTERN_LEN as u64 - offset as u64) as usize).unwrap_or(PATTERN_LEN - offset);
        match stream.write(&pattern[offset..offset + want]) {
            Ok(n) => outcome.written += n as u64,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(e) => return Err(e),
        }
    }
    if plan.size.is_some_and(|s| outcome.written >= s) {
        socket.shutdown(std::net::Shutdown::Write)?;
        // Every byte and the FIN acknowledged: FIN_WAIT2 (or later, once the peer closed).
        while !shared.stopping() {
            let s = tcpinfo::read(&*socket, shared.clock.now())?;
            if s.state == STATE_FIN_WAIT2 || s.state == 6 || s.state == 7 {
                outcome.acked_at = Some(s.t);
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
    shared.watched.lock().unwrap_or_else(|e| e.into_inner()).retain(|(c, _)| *c != k);
    if let Ok(s) = tcpinfo::read(&*socket, shared.clock.now()) {
        shared.record_sample(k, s);
    }
    if outcome.acked_at.is_none() {
        socket.set_linger(Some(Duration::ZERO)).ok(); // the run is over: reset, do not linger
    }
    Ok(())
}

/// Accepts connections in the receiver's namespace (the calling thread must be in it) and
/// reads each on its own thread until the run ends.
pub fn receive(shared: Arc<Shared>, window_clamp: Option<u32>) -> std::io::Result<()> {
    let listener = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    listener.set_reuse_address(true)?;
    if let Some(clamp) = window_clamp {
        set_int_option(&listener, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, clamp as i32)?;
    }
    listener.bind(&SockAddr::from(receiver_endpoint()))?;
    listener.listen(4096)?;
    listener.set_nonblocking(true)?;
    let mut readers = Vec::new();
    while !shared.stop.load(std::sync::atomic::Ordering::Relaxed) {
        match listener.accept() {
            Ok((conn, peer)) => {
                let Some(k) = peer.as_socket_ipv4().and_then(|a| connection_of_port(a.port())) else { continue };
                let shared = shared.clone();
                readers.push(std::thread::spawn(move || read_to_end(&shared, conn, k)));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Err(e),
        }
    }
    for r in readers {
        r.join().ok();
    }
    Ok(())
}

fn read_to_end(shared: &Shared, conn: Socket, k: u32) {
    let mut out = ReceiverOutcome::default();
    conn.set_nonblocking(false).ok();
    conn.set_read_timeout(Some(POLL)).ok();
    let mut buf = vec![0u8; 1 << 16];
    let mut stream: &Socket = &conn;
    while !shared.stop.load(std::sync::atomic::Ordering::Relaxed) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if out.corrupt_at.is_none() {
                    if let Some(i) = buf[..n].iter().enumerate().position(|(i, &b)| b != pattern_byte(out.bytes + i as u64)) {
                        out.corrupt_at = Some(out.bytes + i as u64);
                    }
                }
                out.bytes += n as u64;
                out.last_byte_at = Some(shared.clock.now());
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(_) => break,
        }
    }
    shared.receivers.lock().unwrap_or_else(|e| e.into_inner()).insert(k, out);
}

/// Reads `TCP_INFO` of every watched socket every 10 ms until the run ends.
pub fn sample(shared: &Shared) {
    let mut next = SimTime(0);
    while shared.clock.sleep_until(next, &shared.stop) {
        let now = shared.clock.now();
        let watched: Vec<_> = shared.watched.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for (k, socket) in watched {
            if let Ok(s) = tcpinfo::read(&*socket, now) {
                shared.record_sample(k, s);
            }
        }
        next = SimTime(next.0 + SAMPLE_PERIOD_NS).max(SimTime(now.0 - now.0 % SAMPLE_PERIOD_NS));
    }
}

/// Runs `f` on a thread inside `ns`.
pub fn spawn_in<F>(ns: &Arc<Namespace>, f: F) -> std::thread::JoinHandle<()>
where
    F: FnOnce() + Send + 'static,
{
    let ns = ns.clone();
    std::thread::spawn(move || {
        if ns.enter().is_ok() {
            f()
        }
    })
}
