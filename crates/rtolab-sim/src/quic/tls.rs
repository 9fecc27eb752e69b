//! The TLS 1.3 (RFC 8446, carried in QUIC as RFC 9001 says) of every QUIC connection: one
//! server identity, and per side one configuration for the simulator (`server`, `client`)
//! and one for real sockets (`os_server`, `os_client`, the emulator's), made once per process
//! and shared.
//!
//! Invariant: nothing in the simulator's configurations depends on the process or the clock,
//! so every process makes the same certificate and every simulated handshake's bytes follow
//! from its ends' streams alone (`quic::draws`): the server's key is fixed, Ed25519 signatures
//! are deterministic (RFC 8032 §5.1.6), rcgen derives the serial number from the key, and the
//! key shares and randoms come from the flow's streams. The `os_` configurations differ only in
//! where those randoms and key shares come from (the operating system, through ring).

use super::draws::{FlowRandom, SeededX25519};
use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::sync::{Arc, OnceLock};

/// The server's name in its certificate, and the name the client asks for.
pub const SERVER_NAME: &str = "server.rtolab";
/// The application protocol both ends name (RFC 7301; RFC 9001 §8.1 requires one).
pub const ALPN: &[u8] = b"rtolab-transfer";

/// The server key's 32-byte secret (RFC 8032 §5.1.5). Fixed: the simulated server proves
/// nothing to anyone; what matters is that its handshake costs what a real one does.
const KEY_SECRET: [u8; 32] = *b"rtolab's simulated server key 1.";

/// The key as PKCS #8 (RFC 5958 OneAsymmetricKey, with RFC 8410 §7's Ed25519 algorithm
/// identifier 1.3.101.112 and the secret as an OCTET STRING inside the privateKey OCTET STRING).
fn pkcs8(secret: &[u8; 32]) -> Vec<u8> {
    let mut der = vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
    der.extend_from_slice(secret);
    der
}

struct Identity {
    certificate: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

fn identity() -> &'static Identity {
    static IDENTITY: OnceLock<Identity> = OnceLock::new();
    IDENTITY.get_or_init(|| {
        let key = PrivatePkcs8KeyDer::from(pkcs8(&KEY_SECRET));
        let pair = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&key, &rcgen::PKCS_ED25519).expect("a well-formed Ed25519 key");
        let params = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).expect("a valid DNS name");
        let certificate = params.self_signed(&pair).expect("an Ed25519 self-signature").der().clone();
        Identity { certificate, key }
    })
}

/// ring's cipher suites and signature algorithms, with the key exchange and the randomness
/// drawn from the driven end's stream.
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    let mut p = rustls::crypto::ring::default_provider();
    p.kx_groups = vec![&SeededX25519];
    p.secure_random = &FlowRandom;
    Arc::new(p)
}

/// The server side on `provider`: the fixed identity, TLS 1.3 only, no session tickets (each
/// transfer is a new connection with a full handshake, as each TCP transfer opens with a SYN).
fn server_on(provider: Arc<rustls::crypto::CryptoProvider>) -> Arc<QuicServerConfig> {
    let id = identity();
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring offers TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![id.certificate.clone()], PrivateKeyDer::Pkcs8(id.key.clone_key()))
        .expect("the identity's key matches its certificate");
    tls.send_tls13_tickets = 0;
    tls.alpn_protocols = vec![ALPN.to_vec()];
    Arc::new(QuicServerConfig::try_from(tls).expect("a TLS 1.3 configuration QUIC accepts"))
}

/// The client side on `provider`: trusts exactly the server's certificate, resumes nothing.
fn client_on(provider: Arc<rustls::crypto::CryptoProvider>) -> Arc<QuicClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(identity().certificate.clone()).expect("the server's certificate as a trust anchor");
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring offers TLS 1.3")
        .with_root_certificates(roots)
        .with_no_client_auth();
    tls.resumption = rustls::client::Resumption::disabled();
    tls.alpn_protocols = vec![ALPN.to_vec()];
    Arc::new(QuicClientConfig::try_from(tls).expect("a TLS 1.3 configuration QUIC accepts"))
}

/// The simulated server: its randomness and key shares from the driven end's stream, so it
/// works only inside `draws::with_draws`.
pub fn server() -> Arc<QuicServerConfig> {
    static SERVER: OnceLock<Arc<QuicServerConfig>> = OnceLock::new();
    SERVER.get_or_init(|| server_on(provider())).clone()
}

/// The simulated client, drawing as `server` does.
pub fn client() -> Arc<QuicClientConfig> {
    static CLIENT: OnceLock<Arc<QuicClientConfig>> = OnceLock::new();
    CLIENT.get_or_init(|| client_on(provider())).clone()
}

/// The same server on ring's own provider, whose randomness and key shares come from the
/// operating system: for real sockets in real time (the emulator), where no seed is wanted
/// and `draws::with_draws` is never entered. Same identity, versions and ALPN as `server`.
pub fn os_server() -> Arc<QuicServerConfig> {
    static SERVER: OnceLock<Arc<QuicServerConfig>> = OnceLock::new();
    SERVER.get_or_init(|| server_on(Arc::new(rustls::crypto::ring::default_provider()))).clone()
}

/// The client that trusts `os_server`, on ring's own provider.
pub fn os_client() -> Arc<QuicClientConfig> {
    static CLIENT: OnceLock<Arc<QuicClientConfig>> = OnceLock::new();
    CLIENT.get_or_init(|| client_on(Arc::new(rustls::crypto::ring::default_provider()))).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_certificate_is_the_same_every_time() {
        // Made twice from scratch: rcgen's serial comes from the key, Ed25519 signs
        // deterministically, so the bytes agree.
        let key = PrivatePkcs8KeyDer::from(pkcs8(&KEY_SECRET));
        let pair = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(&key, &rcgen::PKCS_ED25519).unwrap();
        let again = rcgen::CertificateParams::new(vec![SERVER_NAME.to_string()]).unwrap().self_signed(&pair).unwrap();
        assert_eq!(again.der(), &identity().certificate);
    }
}
