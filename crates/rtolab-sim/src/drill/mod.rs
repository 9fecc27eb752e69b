//! One TCP socket of a stack profile driven packet by packet, for `rtolab drill`: the
//! simulated back end of a packetdrill-style interpreter. The interpreter (Python,
//! `rtolab.drill`) injects the peer's packets and the application's system calls at script
//! times and compares what the socket sends with the script's expectations.
//!
//! The socket speaks in the wire's terms (`wire`): sequence numbers relative to each side's
//! initial sequence number, as packetdrill writes them (the SYN takes number 0, data starts
//! at 1), options as they appear on the wire, timestamps on a 1 ms clock; it translates to
//! and from the simulator's `Segment`s (data offsets from 0, timestamps in ns).

pub mod info;
pub mod push;
pub mod socket;
pub mod wire;

pub use info::TcpInfo;
pub use socket::{DrillError, DrillSocket};
pub use wire::{WireOption, WireSegment};
