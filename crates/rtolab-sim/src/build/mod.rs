//! Turns a scenario into the network's run-time parts: link directions, spike processes,
//! routes, captures (`links`) and the radio network with its hops (`radio`). The simulator
//! (`world`) and the real-time emulator (`rtolab-emu`) both build here, so a link or a radio
//! user behaves the same in either. This layer reads `spec`; the parts it builds (`net`,
//! `radio`) never do.

pub mod links;
pub mod radio;
