//! Every random draw a QUIC connection makes, from its flow's own stream.
//!
//! quinn-proto seeds its own generator from `EndpointConfig::rng_seed` and takes connection
//! IDs from the generator it is given; rustls draws through its provider's `SecureRandom`
//! and, for its key shares, through the key-exchange groups it is given. Those two are
//! process-wide (`&'static`), so they read the stream of the end being driven: the host puts
//! that end's stream in place (`with_draws`) around every call into the library, and takes it
//! back after. Invariant: outside `with_draws` nothing can draw, and a draw there fails
//! (rustls reports it) rather than reading the operating system's randomness.

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustls::crypto::{ActiveKeyExchange, GetRandomFailed, SecureRandom, SharedSecret, SupportedKxGroup};
use rustls::{Error, NamedGroup, PeerMisbehaved};
use std::cell::RefCell;

thread_local! {
    static CURRENT: RefCell<Option<Xoshiro256PlusPlus>> = const { RefCell::new(None) };
}

/// Runs `f` with `draws` as the stream every draw of the TLS stack reads; `draws` has
/// advanced by what `f` drew when it returns. Calls nest (the outer stream is restored).
pub fn with_draws<R>(draws: &mut Xoshiro256PlusPlus, f: impl FnOnce() -> R) -> R {
    let outer = CURRENT.with(|c| c.replace(Some(draws.clone())));
    let result = f();
    let mine = CURRENT.with(|c| c.replace(outer));
    *draws = mine.expect("the stream put in place is still there");
    result
}

/// Fills `buf` from the stream in place; fails outside `with_draws`.
fn fill(buf: &mut [u8]) -> Result<(), GetRandomFailed> {
    CURRENT.with(|c| match c.borrow_mut().as_mut() {
        Some(rng) => {
            rng.fill_bytes(buf);
            Ok(())
        }
        None => Err(GetRandomFailed),
    })
}

/// A 32-byte seed for quinn-proto's own generator (`EndpointConfig::rng_seed`).
pub fn seed_bytes(rng: &mut Xoshiro256PlusPlus) -> [u8; 32] {
    rng.random()
}

/// rustls's source of randomness (client and server randoms, session identifiers): the
/// stream of the end being driven.
#[derive(Debug)]
pub struct FlowRandom;

impl SecureRandom for FlowRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        fill(buf)
    }
}

/// X25519 (RFC 7748 §6.1) whose private scalar comes from the stream of the end being
/// driven, so that a seed fixes the key shares and with them every secret of the handshake.
/// ring's own X25519 draws from the operating system and cannot be given a generator.
#[derive(Debug)]
pub struct SeededX25519;

impl SupportedKxGroup for SeededX25519 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, Error> {
        let mut scalar = [0u8; 32];
        fill(&mut scalar).map_err(|_| Error::FailedToGetRandomBytes)?;
        let secret = x25519_dalek::StaticSecret::from(scalar);
        let public = x25519_dalek::PublicKey::from(&secret);
        Ok(Box::new(KeyShare { secret, public }))
    }

    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

struct KeyShare {
    secret: x25519_dalek::StaticSecret,
    public: x25519_dalek::PublicKey,
}

impl ActiveKeyExchange for KeyShare {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, Error> {
        let peer: [u8; 32] = peer_pub_key.try_into().map_err(|_| Error::from(PeerMisbehaved::InvalidKeyShare))?;
        let shared = self.secret.diffie_hellman(&x25519_dalek::PublicKey::from(peer));
        // RFC 8446 §7.4.2: an all-zero X25519 result is refused.
        if !shared.was_contributory() {
            return Err(PeerMisbehaved::InvalidKeyShare.into());
        }
        Ok(SharedSecret::from(&shared.as_bytes()[..]))
    }

    fn pub_key(&self) -> &[u8] {
        self.public.as_bytes()
    }

    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

/// Connection IDs (RFC 9000 §5.1) from a stream of their own, seeded from the end's.
pub struct SeededCids {
    rng: Xoshiro256PlusPlus,
}

/// quinn-proto's default length of the connection IDs it issues.
pub const CID_LEN: usize = 8;

impl SeededCids {
    pub fn new(seed: u64) -> Self {
        SeededCids { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }
    }
}

impl quinn_proto::ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> quinn_proto::ConnectionId {
        let mut bytes = [0u8; CID_LEN];
        self.rng.fill_bytes(&mut bytes);
        quinn_proto::ConnectionId::new(&bytes)
    }

    fn cid_len(&self) -> usize {
        CID_LEN
    }

    fn cid_lifetime(&self) -> Option<std::time::Duration> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_stream_put_in_place_and_fail_outside() {
        let mut buf = [0u8; 16];
        assert!(fill(&mut buf).is_err());
        let mut a = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut b = Xoshiro256PlusPlus::seed_from_u64(1);
        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
        with_draws(&mut a, || fill(&mut x)).unwrap();
        with_draws(&mut b, || fill(&mut y)).unwrap();
        assert_eq!(x, y);
        // The stream advanced: the next draw differs from the first.
        let mut z = [0u8; 16];
        with_draws(&mut a, || fill(&mut z)).unwrap();
        assert_ne!(x, z);
    }

    #[test]
    fn seeded_key_exchange_agrees_and_repeats() {
        let mut a = Xoshiro256PlusPlus::seed_from_u64(3);
        let client = with_draws(&mut a, || SeededX25519.start()).unwrap();
        let mut b = Xoshiro256PlusPlus::seed_from_u64(4);
        let server = with_draws(&mut b, || SeededX25519.start()).unwrap();
        let (cp, sp) = (client.pub_key().to_vec(), server.pub_key().to_vec());
        let s1 = client.complete(&sp).unwrap();
        let s2 = server.complete(&cp).unwrap();
        assert_eq!(s1.secret_bytes(), s2.secret_bytes());
        let mut a2 = Xoshiro256PlusPlus::seed_from_u64(3);
        let again = with_draws(&mut a2, || SeededX25519.start()).unwrap();
        assert_eq!(again.pub_key(), &cp[..]);
    }
}
