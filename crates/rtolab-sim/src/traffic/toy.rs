//! A toy generator, registered under `cfg(test)` only: the proof that a new kind of traffic
//! is this one file plus one line in `registry.rs`. `count` TCP flows of `size` bytes, one
//! every `every`, over `route`.

use super::kind::{GeneratorKind, Traffic};
use super::planned::{Origin, PlannedFlow};
use crate::tcp::settings::TcpSpec;
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToySpec {
    pub name: Option<String>,
    pub count: u32,
    pub size: Bytes,
    pub every: Duration,
    pub route: Vec<String>,
    #[serde(default)]
    pub tcp: TcpSpec,
}

impl GeneratorKind for ToySpec {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn route(&self) -> (&[String], bool) {
        (&self.route, false)
    }
    fn tcp(&self) -> Option<&TcpSpec> {
        Some(&self.tcp)
    }
    fn check(&self, _has_duration: bool) -> Result<(), (String, String)> {
        if self.count == 0 {
            return Err(("count".into(), "expected at least one flow".into()));
        }
        Ok(())
    }
    fn plan(&self, kind: &'static str, name: String, _seed: u64) -> Traffic<'_> {
        let flows = (0..self.count)
            .map(|k| PlannedFlow {
                name: format!("{name}.{k}"),
                origin: Origin::Planned { kind, generator: name.clone() },
                start: SimTime::ZERO + SimDuration(self.every.sim().as_nanos() * k as u64),
                size: Some(self.size.0),
                route: &self.route,
                uplink: false,
                tcp: &self.tcp,
                datagrams: None,
                quic: None,
            })
            .collect();
        Traffic::Flows(flows)
    }
}

#[cfg(test)]
mod tests {
    use crate::results::FlowKind;
    use crate::spec::from_toml;

    /// The toy kind is written, checked and run like any other: three 10 kB flows 1 s apart,
    /// each finished, named and typed as the toy's; a bad count names its field.
    #[test]
    fn a_registered_toy_kind_runs_end_to_end() {
        let text = |count: u32| {
            format!(
                "[[links]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[generators]]\nkind = \"toy\"\ncount = {count}\nsize = \"10kB\"\nevery = \"1s\"\nroute = [\"l\"]\n"
            )
        };
        let r = crate::run(&from_toml(&text(3)).unwrap(), None).unwrap();
        let names: Vec<&str> = r.flows.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["toy0.0", "toy0.1", "toy0.2"]);
        assert!(r.flows.iter().all(|f| f.kind == FlowKind::Generator("toy") && f.bytes == 10_000 && f.end_s.is_some()));
        assert!((r.flows[2].start_s - 2.0).abs() < 1e-12);
        assert_eq!(from_toml(&text(0)).unwrap_err().path, "generators[0].count");
    }
}
