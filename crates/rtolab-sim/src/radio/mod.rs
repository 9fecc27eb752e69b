//! The HSDPA radio access network (paper 000, Sec. 3.1): hexagonal cells with wrap-around,
//! mobile users, path loss and shadowing, SIR, link adaptation, per-user buffers and the
//! schedulers of the shared channel, one TTI event per cell.

pub mod buffer;
pub mod cell;
pub mod geometry;
pub mod link_adaptation;
pub mod mobility;
pub mod multiplex;
pub mod network;
pub mod radio_spec;
pub mod scheduler;
pub mod shadowing;
pub mod sir;
pub mod ue;

pub use network::{RadioNetwork, RadioRecording};
pub use radio_spec::{default_mcs, HopSpec, McsSpec, Multiplex, MultiplexSplit, RadioSpec, SchedulerKind};
