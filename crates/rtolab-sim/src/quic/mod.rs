//! QUIC (RFC 9000, with RFC 9001's TLS and RFC 9002's loss recovery) as a transport of the
//! simulator: the real library, quinn-proto 0.11.19, embedded and driven on simulated time.
//!
//! - `clock`: simulated time as the `Instant`s the library reads.
//! - `draws`, `tls`: every random draw from the flow's own stream, so that a seed fixes
//!   every byte on the wire.
//! - `settings`: what a user writes (`quic = { … }`) and the transport configuration it is.
//! - `qlog_tap`: the library's own qlog, read back as it is written.
//! - `end`, `app`, `transfer`: the two ends, the transfer's application protocol on top of
//!   each, and the transfer between them.
//! - `oracle`: spurious PTOs and spurious loss declarations, judged by the network's record.

pub mod app;
pub mod clock;
pub mod draws;
pub mod end;
pub mod oracle;
pub mod qlog_tap;
pub mod settings;
pub mod tls;
pub mod transfer;

#[cfg(test)]
mod tests;

pub use end::{QuicDatagram, QuicEnd, Role};
pub use oracle::Verdicts;
pub use settings::{QuicCc, QuicSpec};
pub use transfer::{Outgoing, QuicTransfer};
