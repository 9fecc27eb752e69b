//! rtolab-emu: kernel TCP over rtolab's own link code, in real time.
//!
//! Two network namespaces (sender side, receiver side) are joined by TUN devices to a
//! forwarder that runs the scenario's network with the simulator's own fabric
//! (`rtolab_sim::fabric`: links, spikes, radio network, routes, event queue and dispatch).
//! Real sockets carry the scenario's flows, planned exactly as the simulator plans them
//! (`world::plan`): TCP connections, UDP datagram flows driven by the simulator's own sources
//! and sinks, and QUIC transfers run by quinn over UDP with the simulator's settings and
//! application protocol. The result has the simulator's tables, so a kernel run and a
//! simulated run compare column by column.

mod apps;
mod conn;
mod datagram_flow;
mod error;
mod forwarder;
pub mod kernel;
#[cfg(test)]
mod live_tests;
pub mod netns;
mod realtime;
mod report;
mod run;
mod shared;
mod stamp;
mod tcpinfo;
mod tun;
mod quic_apps;
mod quic_runtime;
mod udp_apps;
mod udp_check;
mod users;
mod wire;

pub use error::{EmuError, EmuResult};
pub use report::{EmuMeta, Emulation};
pub use run::{emulate, EmuOptions};
