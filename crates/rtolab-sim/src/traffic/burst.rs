//! `kind = "burst"`: flows that start together and share a number of bytes (paper 002's
//! bursts), each start offset by an optional random jitter.

use super::kind::{GeneratorKind, Traffic};
use super::planned::{start_time, Origin, PlannedFlow};
use crate::rng::stream;
use crate::quic::QuicSpec;
use crate::tcp::settings::TcpSpec;
use crate::time::SimDuration;
use crate::units::{Bytes, Duration, DurationRv, RvSampler};
use schemars::JsonSchema;
use serde::Deserialize;

/// `flows` simultaneous flows that share `total` bytes equally.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstSpec {
    /// The generator's name, and the prefix of its flows' names (default "burst<index>").
    pub name: Option<String>,
    /// How many flows start together.
    pub flows: u32,
    /// Bytes the flows share equally, e.g. "180kB".
    pub total: Bytes,
    /// When the burst starts (default 0 s).
    pub start: Option<Duration>,
    /// Random offset added to each flow's start (drawn per flow from the generator's stream).
    pub jitter: Option<DurationRv>,
    /// Links crossed by data, in order; ACKs return over the same links reversed.
    pub route: Vec<String>,
    /// The mobile user sends: the route names the radio network first, data leaves over the
    /// user's dedicated uplink and the radio's wired path, ACKs come back through the shared
    /// channel. Default false (a route into the radio ends at a mobile receiver).
    #[serde(default)]
    pub uplink: bool,
    /// The flows' TCP (default rtolab's own settings, no `stack`).
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// The flows run QUIC instead (`quic = { cc = "cubic" }`); exclusive with `tcp`.
    #[serde(default)]
    pub quic: Option<QuicSpec>,
}

impl GeneratorKind for BurstSpec {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn route(&self) -> (&[String], bool) {
        (&self.route, self.uplink)
    }
    fn tcp(&self) -> Option<&TcpSpec> {
        match self.quic {
            Some(_) => None,
            None => Some(self.tcp.as_ref().unwrap_or(TcpSpec::none_given())),
        }
    }
    fn quic(&self) -> Option<&QuicSpec> {
        self.quic.as_ref()
    }
    fn check(&self, _has_duration: bool) -> Result<(), (String, String)> {
        if self.tcp.is_some() && self.quic.is_some() {
            return Err(("quic".into(), "the generator has both `tcp` and `quic`; expected at most one".into()));
        }
        if self.flows == 0 {
            return Err(("flows".into(), "expected at least one flow".into()));
        }
        if self.total.0 < self.flows as u64 {
            return Err(("total".into(), format!("got {} B, expected at least one byte per flow", self.total.0)));
        }
        Ok(())
    }
    /// Flow k of n gets total/n bytes, one more for the first total mod n; its start is the
    /// burst's plus a draw of `jitter` from the generator's stream, drawn in flow order.
    fn plan(&self, _kind: &'static str, name: String, seed: u64) -> Traffic<'_> {
        let n = self.flows as u64;
        let (share, extra) = (self.total.0 / n, self.total.0 % n);
        let mut jitter = self.jitter.as_ref().map(|j| RvSampler::new(j.0.clone()));
        let mut rng = stream(seed, &format!("generators/{name}"), "jitter");
        let start = start_time(self.start);
        let flows = (0..n)
            .map(|k| {
                let offset = jitter.as_mut().map_or(SimDuration::ZERO, |j| SimDuration::from_secs_f64(j.sample(&mut rng)));
                PlannedFlow {
                    name: format!("{name}.{k}"),
                    origin: Origin::Burst(name.clone()),
                    start: start + offset,
                    size: Some(share + u64::from(k < extra)),
                    route: &self.route,
                    uplink: self.uplink,
                    tcp: self.tcp.as_ref().unwrap_or(TcpSpec::none_given()),
                    datagrams: None,
                    quic: self.quic.as_ref(),
                }
            })
            .collect();
        Traffic::Flows(flows)
    }
}
