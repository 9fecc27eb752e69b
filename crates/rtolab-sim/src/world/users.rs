//! Generators' users at run time: each user's place in the run (its group, its count of
//! files, its mobile, its connection) around the behaviour its generator gave it
//! (`traffic::User`), and what every connection of a group gets.

use crate::net::{DirId, FlowId};
use crate::quic::QuicSpec;
use crate::spec::TcpSpec;
use crate::time::SimTime;
use crate::traffic::User;

/// A generator with users, at run time.
pub struct UserGroup {
    pub name: String,
    /// The route's directions, data and ACKs (without a mobile user's own uplink).
    pub forward: Vec<DirId>,
    pub reverse: Vec<DirId>,
    pub tcp: TcpSpec,
    /// Its files go over QUIC connections of these settings instead.
    pub quic: Option<QuicSpec>,
    pub start: SimTime,
    /// Its mobile users send.
    pub uplink: bool,
    /// Each user's files share one connection.
    pub one_connection: bool,
}

/// One user.
pub struct UserSlot {
    /// Index into the world's user groups.
    pub group: u32,
    /// Its number within its group.
    pub user: u32,
    pub files: u32,
    /// The mobile user it is, when its route reaches the radio network.
    pub ue: Option<u32>,
    /// Its connection once open, when its group keeps one per user.
    pub connection: Option<FlowId>,
    pub behaviour: Box<dyn User + Send>,
}
