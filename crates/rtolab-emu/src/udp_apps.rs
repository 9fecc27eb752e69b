//! The applications of datagram flows: real UDP sockets driven by the simulator's own source
//! and sink (`DatagramFlow`). A sender, one thread per flow in the sender's namespace, sleeps
//! until its source's next send time, wakes the source at that time and sends each datagram
//! it produced, stamped with its number and send time (`stamp`), from port `BASE_PORT + k`.
//! The receiver, one thread in the receiver's namespace, reads every flow's datagrams on one
//! socket (`DATAGRAM_PORT`) and hands each to its flow's sink at the time it read it.
//!
//! Both run under `SCHED_FIFO` (`realtime`): a source's schedule and a sink's arrival times
//! are what the flows table measures, so other work on the machine must not delay them.

use crate::apps::set_int_option;
use crate::realtime;
use crate::shared::{connection_of_port, datagram_endpoint, SenderOutcome, Shared, BASE_PORT, SENDER_ADDR};
use crate::stamp;
use rtolab_sim::SimTime;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::ErrorKind;
use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How often a blocked read wakes to check for the end of the run.
const POLL: Duration = Duration::from_millis(20);
/// How often a sender whose source has finished checks whether every datagram's fate is known.
const DONE_POLL: Duration = Duration::from_millis(1);
/// The receiving socket's buffer: far more than any link of a scenario releases at once, so
/// the receiving host never discards a datagram (it would be lost outside rtolab's links).
const RECEIVE_BUFFER: i32 = 32 << 20;

/// The sink's socket, bound in the receiver's namespace (the calling thread must be in it)
/// before any sender starts, so that no datagram finds the port closed.
pub fn bind_sink() -> std::io::Result<UdpSocket> {
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    if set_int_option(&socket, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, RECEIVE_BUFFER).is_err() {
        socket.set_recv_buffer_size(RECEIVE_BUFFER as usize)?;
    }
    socket.bind(&SockAddr::from(datagram_endpoint()))?;
    socket.set_read_timeout(Some(POLL))?;
    Ok(socket.into())
}

/// Reads datagrams until the run stops and hands each to its flow; then records how many
/// the receiving host's UDP discarded (the calling thread must be in the receiver's
/// namespace, where `socket` was bound).
pub fn receive(shared: &Shared, socket: UdpSocket) {
    realtime::request(realtime::APPLICATION_PRIORITY);
    let mut buf = vec![0u8; 1 << 16];
    while !shared.stop.load(Ordering::Relaxed) {
        match socket.recv_from(&mut buf) {
            Ok((n, from)) => {
                let now = shared.clock.now();
                if let Some(k) = connection_of_port(from.port()) {
                    shared.with_datagram_flow(k, |f| f.arrived(now, &buf[..n]));
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {}
            Err(_) => break,
        }
    }
    let discarded = std::fs::read_to_string("/proc/thread-self/net/snmp").ok().and_then(|t| udp_in_errors(&t)).unwrap_or(0);
    shared.udp_in_errors.store(discarded, Ordering::Relaxed);
}

/// `Udp: InErrors` from the text of /proc/net/snmp.
fn udp_in_errors(snmp: &str) -> Option<u64> {
    udp_counter(snmp, "InErrors")
}

/// The `Udp:` counter `name` from the text of /proc/net/snmp.
fn udp_counter(snmp: &str, name: &str) -> Option<u64> {
    let mut lines = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let (names, values) = (lines.next()?, lines.next()?);
    let i = names.split_whitespace().position(|n| n == name)?;
    values.split_whitespace().nth(i)?.parse().ok()
}

/// Datagrams a namespace's UDP discarded on receipt (`InErrors`, which includes
/// `RcvbufErrors`) or could not send (`SndbufErrors`), from the text of /proc/net/snmp.
pub fn host_discards(snmp: &str) -> u64 {
    ["InErrors", "SndbufErrors"].iter().filter_map(|name| udp_counter(snmp, name)).sum()
}

/// Flow `k`'s socket in the sender's namespace: from port `BASE_PORT + k` to the sink. The
/// kernel reports a datagram it could not send (`IP_RECVERR`) and never fragments one
/// (`IP_PMTUDISC_DO`; larger datagrams are refused before the run).
fn open(k: u32) -> std::io::Result<UdpSocket> {
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    set_int_option(&socket, libc::IPPROTO_IP, libc::IP_RECVERR, 1)?;
    set_int_option(&socket, libc::IPPROTO_IP, libc::IP_MTU_DISCOVER, libc::IP_PMTUDISC_DO)?;
    socket.bind(&SockAddr::from(SocketAddrV4::new(SENDER_ADDR, BASE_PORT + k as u16)))?;
    socket.connect(&SockAddr::from(datagram_endpoint()))?;
    Ok(socket.into())
}

/// Runs datagram flow `k`, which starts at `start`, until its source has sent everything
/// and every datagram's fate is known, or the run ends (the calling thread must be in the
/// sender's namespace). The outcome marks the flow done for the run's end (`connect_at` is
/// its start, `written` the payload it sent); a datagram the host failed to send is the
/// flow's `send_error`.
pub fn send(shared: &Shared, k: u32, start: SimTime) -> SenderOutcome {
    realtime::fine_timer_slack();
    realtime::request(realtime::APPLICATION_PRIORITY);
    let mut outcome = SenderOutcome { connect_at: start, ..Default::default() };
    let fail = |outcome: &mut SenderOutcome, message: String| {
        shared.with_datagram_flow(k, |f| {
            f.send_error.get_or_insert_with(|| message.clone());
        });
        outcome.error.get_or_insert(message);
    };
    let socket = match open(k) {
        Ok(s) => s,
        Err(e) => {
            fail(&mut outcome, format!("opening its socket: {e}"));
            return outcome;
        }
    };
    let inside = shared.with_datagram_flow(k, |f| f.counts(start)).unwrap_or(false);
    if !inside || !shared.clock.sleep_until(start, &shared.apps_stop) {
        return outcome;
    }
    shared.with_datagram_flow(k, |f| f.started = true);
    let (mut out, mut payload) = (Vec::new(), Vec::new());
    while let Some(t) = shared.with_datagram_flow(k, |f| f.next_send()).flatten() {
        if !shared.clock.sleep_until(t, &shared.apps_stop) {
            break;
        }
        shared.with_datagram_flow(k, |f| f.wake(t, &mut out));
        for d in out.drain(..) {
            payload.clear();
            payload.resize(d.len as usize, 0);
            stamp::write(&mut payload, d.seq, d.sent_at);
            match socket.send(&payload) {
                Ok(_) => outcome.written += d.len as u64,
                Err(e) => fail(&mut outcome, format!("sending datagram {}: {e}", d.seq)),
            }
        }
    }
    while !shared.stopping() && shared.with_datagram_flow(k, |f| f.source.finished() && f.end.is_none()).unwrap_or(false) {
        std::thread::sleep(DONE_POLL);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_receiving_hosts_discards_are_read_by_name() {
        let snmp = "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\nUdp: 4170 0 3 0 3\nUdpLite: InDatagrams NoPorts InErrors\nUdpLite: 0 0 9\n";
        assert_eq!(udp_in_errors(snmp), Some(3));
        assert_eq!(udp_in_errors("Ip: Forwarding\nIp: 1\n"), None);
        let snmp = "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\nUdp: 4170 5 3 0 3 2\n";
        assert_eq!(host_discards(snmp), 5);
    }
}
