//! TCP: sans-IO sender and receiver, and the sender's parts: congestion control (`cc/`),
//! loss recovery (`recovery/`), spurious-timeout detection (`spurious/`), the RTO (`rto.rs`,
//! `rto_linux.rs`, `rto_ns2.rs`), the ICMP-feedback adaptive timer (`icmp_rto.rs`), the SACK
//! scoreboard, the policies on which stacks differ (`policy.rs`) and the named stacks
//! (`profile.rs`), each setting declared once in `settings.rs`.

pub mod cc;
pub mod icmp_rto;
pub mod icmp_signal;
pub mod initial_window;
pub mod minmax;
pub mod pacing;
pub(crate) mod jiffies;
pub mod policy;
pub mod profile;
pub mod quickack;
pub mod rack;
pub mod rate;
pub mod receive_window;
pub mod receiver;
pub mod recovery;
pub mod resolve;
pub mod rto;
mod rto_linux;
mod rto_ns2;
pub mod scoreboard;
pub mod segment;
pub mod setting;
pub mod settings;
pub mod sender;
pub mod spurious;
pub mod state;

pub use receiver::{ReceiverConfig, ReceiverStats, TcpReceiver};
pub use recovery::RecoveryKind;
pub use rto::{RtoConfig, RtoEstimator, RtoFloor, SynFallback};
pub use rto_linux::Round;
pub use rto_ns2::Ns2Clock;
pub use segment::Segment;
pub use policy::DupAckRule;
pub use sender::{Phase, SenderConfig, SenderNote, SenderStats, SharedSenderConfig, TcpSender};
pub use state::LossState;
