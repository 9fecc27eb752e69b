//! A toy channel for the registry's test (registered under `cfg(test)` only): every `n`-th
//! transmission is lost, `loss = { kind = "every-nth", n = 3 }`.

use super::{ChannelContext, FieldError, LossModel, LossModelKind};
use crate::time::SimTime;
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::Deserialize;

/// Loses every `n`-th transmission (a toy).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EveryNthSpec {
    /// Must be "every-nth".
    pub kind: LossModelKind,
    /// The period, in transmissions (at least 1).
    pub n: u64,
}

pub struct EveryNth {
    n: u64,
    sent: u64,
}

impl LossModel for EveryNth {
    type Spec = EveryNthSpec;

    const TABLE: &'static str = "an every-n-th table";

    fn validate(spec: &EveryNthSpec) -> Result<(), FieldError> {
        match spec.n {
            0 => Err(FieldError::new("n", "got 0, expected a period of at least 1 transmission")),
            _ => Ok(()),
        }
    }

    fn new(spec: &EveryNthSpec, _: &ChannelContext) -> Self {
        EveryNth { n: spec.n, sent: 0 }
    }

    fn lost(&mut self, _start: SimTime, _end: SimTime, _bytes: u32, _rng: &mut Xoshiro256PlusPlus) -> bool {
        self.sent += 1;
        self.sent.is_multiple_of(self.n)
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{from_toml, json_schema};

    fn scenario(loss: &str) -> String {
        format!(
            "[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\nloss = {loss}\nreverse = {{ loss = 0 }}\n\
             [[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"100kB\"\n"
        )
    }

    /// The toy plugs in through its registry entry alone: a spec names it, its own check
    /// refuses a bad table by field path, the schema lists its table, and a run's link loses
    /// exactly every third packet it sends.
    #[test]
    fn a_registered_toy_channel_runs_on_a_link() {
        let s = from_toml(&scenario("{ kind = \"every-nth\", n = 3 }")).unwrap();
        let r = crate::run(&s, None).unwrap();
        let fwd = &r.links[0];
        assert!(fwd.packets_sent > 70, "{}", fwd.packets_sent);
        assert_eq!(fwd.channel_losses, fwd.packets_sent / 3);
        assert_eq!(r.flows[0].bytes, 100_000);

        let e = from_toml(&scenario("{ kind = \"every-nth\", n = 0 }")).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("links[0].loss.n", "got 0, expected a period of at least 1 transmission"));
        let e = from_toml(&scenario("{ kind = \"every-nth\", n = 3, mean_loss = 0.1 }")).unwrap_err();
        assert_eq!(e.path, "links[0].loss.mean_loss");
        let e = from_toml(&scenario("{ kind = \"markov\" }")).unwrap_err();
        assert_eq!(e.path, "links[0].loss.kind");
        assert!(e.message.contains("expected `gilbert-elliott` or `every-nth`"), "{e}");

        let schema = json_schema();
        assert!(schema.contains("\"$ref\": \"#/$defs/EveryNthSpec\""), "the schema's `loss` lists the toy's table");
        assert!(schema.contains("a Gilbert–Elliott channel table, or an every-n-th table"));
    }
}
