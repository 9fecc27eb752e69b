//! The two ends against each other through `transport::exchange` alone, on a lossless path.

use super::end::{end_draws, QuicDatagram, QuicEnd, Role};
use super::settings::QuicSpec;
use crate::time::{SimDuration, SimTime};
use crate::transport::exchange;

fn pair(size: u64, seed: u64) -> (QuicEnd, QuicEnd, Vec<QuicDatagram>) {
    let spec = QuicSpec::default();
    let mut client = QuicEnd::client(&spec, Some(size), end_draws(seed, "f", Role::Client));
    let server = QuicEnd::server(&spec, end_draws(seed, "f", Role::Server), false);
    let mut first = Vec::new();
    client.connect(SimTime::ZERO, &mut first);
    (client, server, first)
}

#[test]
fn a_transfer_completes_over_a_lossless_path_and_repeats_byte_for_byte() {
    let delay = SimDuration::from_millis(10);
    let (mut c, mut s, first) = pair(100_000, 7);
    assert_eq!(first.len(), 1, "the client's first flight is one Initial datagram");
    assert!(first[0].bytes.len() >= 1200, "RFC 9000 §14.1: a client's Initial is padded to 1200 bytes");
    let (at_c, at_s) = exchange(&mut c, &mut s, first, delay, SimTime::ZERO + SimDuration::from_secs(5));
    let done = c.done_at().expect("the transfer completes");
    assert_eq!(c.received(), 100_000);
    // 1 RTT of handshake, half an RTT for the request, then the data: at least 1.5 RTT.
    assert!(done.as_secs_f64() >= 0.030, "done at {done:?}");
    assert_eq!(c.oracle.verdicts().ptos + s.oracle.verdicts().ptos, 0, "nothing to probe on a lossless path");

    let (mut c2, mut s2, first2) = pair(100_000, 7);
    let (at_c2, at_s2) = exchange(&mut c2, &mut s2, first2, delay, SimTime::ZERO + SimDuration::from_secs(5));
    assert_eq!(at_c, at_c2, "same seed, same bytes (ciphertext included)");
    assert_eq!(at_s, at_s2);

    let (mut c3, mut s3, first3) = pair(100_000, 8);
    let (at_c3, _) = exchange(&mut c3, &mut s3, first3, delay, SimTime::ZERO + SimDuration::from_secs(5));
    assert_ne!(at_c.first().map(|x| &x.1.bytes), at_c3.first().map(|x| &x.1.bytes), "another seed, other bytes");
}
