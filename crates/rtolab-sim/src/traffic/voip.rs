//! `kind = "voip"`: voice calls, one per user, for the whole run. A call sends one RTP
//! packet per 20 ms speech frame of its codec while its speaker talks, nothing while silent
//! (talk spurts and silences after ITU-T P.59's conversational model), and is scored by the
//! E-model (ITU-T G.107) from what reached the listener within the playout delay.

use super::kind::{GeneratorKind, Traffic};
use super::planned::{start_time, DatagramPlan, Origin, PlannedFlow};
use crate::rng::stream;
use crate::tcp::settings::TcpSpec;
use crate::time::SimDuration;
use crate::units::{Duration, DurationRv, RandomVar};
use crate::voice::codec::Codec;
use rand::Rng;
use schemars::JsonSchema;
use serde::Deserialize;

/// P.59's mean talk spurt, 1.004 s (ITU-T P.59, Table 1: the one-way talk spurt's mean),
/// and its mean pause, 1.587 s: the defaults of `talk` and `silence`, drawn exponentially.
pub const P59_TALK_S: f64 = 1.004;
pub const P59_SILENCE_S: f64 = 1.587;

/// `users` calls from `start` to the end of the run over `route`, one flow row each.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoipSpec {
    /// The generator's name, and the prefix of its calls' names (default "voip<index>").
    pub name: Option<String>,
    /// How many calls (one caller each; over the radio network, each a mobile user); 0
    /// switches the generator off.
    pub users: u32,
    /// Links crossed by the voice, in order.
    pub route: Vec<String>,
    /// The mobile users speak (the route names the radio network first; the voice leaves over
    /// their uplinks). Default false: they listen.
    #[serde(default)]
    pub uplink: bool,
    /// When the calls start (default 0 s); each call's frames are offset by its own uniform
    /// phase within one frame interval, so calls do not send in lockstep.
    pub start: Option<Duration>,
    /// "g711" (default) or "amr-12.2".
    #[serde(default)]
    pub codec: Codec,
    /// How long each talk spurt lasts (default "exp(1.004s)", P.59's mean).
    #[serde(default = "default_talk")]
    pub talk: DurationRv,
    /// How long each silence lasts (default "exp(1.587s)", P.59's mean).
    #[serde(default = "default_silence")]
    pub silence: DurationRv,
    /// A packet that arrives later than this after it was sent misses its playout and is
    /// lost to the listener (default "150ms").
    #[serde(default = "default_playout")]
    pub playout: Duration,
}

fn default_talk() -> DurationRv {
    DurationRv(RandomVar::Exp { mean: P59_TALK_S })
}

fn default_silence() -> DurationRv {
    DurationRv(RandomVar::Exp { mean: P59_SILENCE_S })
}

fn default_playout() -> Duration {
    Duration(SimDuration::from_millis(150))
}

impl GeneratorKind for VoipSpec {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn route(&self) -> (&[String], bool) {
        (&self.route, self.uplink)
    }
    fn tcp(&self) -> Option<&TcpSpec> {
        None
    }
    fn check(&self, has_duration: bool) -> Result<(), (String, String)> {
        if !self.talk.0.mean().is_some_and(|m| m > 0.0) {
            return Err(("talk".into(), "expected talk spurts of a positive mean length (a caller who never talks sends nothing)".into()));
        }
        if self.playout.sim() == SimDuration::ZERO {
            return Err(("playout".into(), "got 0 s, expected a positive playout delay".into()));
        }
        if !has_duration {
            return Err((String::new(), "calls last the whole run: the run needs a `duration`".into()));
        }
        Ok(())
    }
    /// Call u ("NAME.uU") starts at `start` plus a uniform phase in one frame interval drawn
    /// from the generator's stream in call order; it sends `codec`'s RTP packets (RTP header
    /// and frame) at one per frame interval while talking.
    fn plan(&self, kind: &'static str, name: String, seed: u64) -> Traffic<'_> {
        let frame = self.codec.frame_interval();
        let payload = self.codec.datagram_payload_bytes();
        let plan = DatagramPlan {
            rate_bps: payload as f64 * 8.0 / frame.as_secs_f64(),
            payload,
            on_off: Some((self.talk.0.clone(), self.silence.0.clone())),
            playout: Some(self.playout.sim()),
            codec: Some(self.codec),
        };
        let mut rng = stream(seed, &format!("generators/{name}"), "phase");
        let start = start_time(self.start);
        let calls = (0..self.users)
            .map(|u| PlannedFlow {
                name: format!("{name}.u{u}"),
                origin: Origin::Planned { kind, generator: name.clone() },
                start: start + SimDuration(rng.random_range(0..frame.as_nanos())),
                size: None,
                route: &self.route,
                uplink: self.uplink,
                tcp: TcpSpec::none_given(),
                datagrams: Some(plan.clone()),
                quic: None,
            })
            .collect();
        Traffic::Flows(calls)
    }
}
