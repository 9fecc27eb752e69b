//! TCP: sans-IO sender and receiver, the RTO estimator, the SACK scoreboard and congestion
//! control.

pub mod cc;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod segment;
pub mod sender;

pub use receiver::{ReceiverConfig, ReceiverStats, TcpReceiver};
pub use rto::{RtoConfig, RtoEstimator, RtoFloor};
pub use segment::Segment;
pub use sender::{Phase, RecoveryKind, SenderConfig, SenderNote, SenderStats, TcpSender};
