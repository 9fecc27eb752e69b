//! What a user writes for a UDP flow: `[[flows]] … udp = { rate = "1Mbps", size = "1200B" }`.

use crate::units::{Bytes, DurationRv, Rate};
use schemars::JsonSchema;
use serde::Deserialize;

/// The largest payload of one IPv4 UDP datagram: 65 535 − 20 (IPv4) − 8 (UDP) bytes.
pub const MAX_UDP_PAYLOAD: u64 = 65_507;

/// A constant-bit-rate UDP source (`UdpSource`): datagrams of `size` payload bytes at `rate`
/// payload bits per second, from the flow's `start` until the flow's `size` in bytes is sent
/// or the run ends, switched on and off by `on` and `off` if given.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Payload bits per second while on, e.g. "1Mbps" (as ns-3's OnOffApplication counts its
    /// DataRate; each datagram adds 28 bytes of IPv4 and UDP headers on the wire).
    pub rate: Rate,
    /// Each datagram's payload, e.g. "1200B" (1 to 65 507 bytes).
    pub size: Bytes,
    /// How long each on period lasts, e.g. "exp(1s)"; with `off`. The source starts on.
    pub on: Option<DurationRv>,
    /// How long each off period lasts, e.g. "exp(1s)"; with `on`.
    pub off: Option<DurationRv>,
}
