//! What the emulator cannot carry of a datagram flow or a QUIC transfer, refused before the
//! run with the field named: a payload too small for the stamp that tells the sink each
//! datagram's number and send time (`stamp::STAMP_BYTES`), or a datagram larger than the TUN
//! devices' MTU, which the sending kernel would cut into IP fragments (or, for QUIC, whose
//! sockets forbid fragmenting, refuse) where the simulator's links carry it whole.

use crate::error::{EmuError, EmuResult};
use crate::stamp::STAMP_BYTES;
use rtolab_sim::transport::datagram::IP_UDP_HEADER_BYTES;
use rtolab_sim::quic::settings::MIN_INITIAL_MTU;
use rtolab_sim::quic::QuicSpec;
use rtolab_sim::spec::Scenario;
use rtolab_sim::world::plan::PlannedFlow;

/// The largest UDP payload path MTU discovery probes for: quinn-proto 0.11.19's
/// `MtuDiscoveryConfig::default()` upper bound (config/transport.rs), which
/// `QuicSpec::transport` keeps.
pub const MTU_DISCOVERY_UPPER_BOUND: u32 = 1452;

/// Checks the datagram flows of a scenario's plan (`world::plan::plan`: the scenario's own
/// flows first, in order, so the i-th planned flow is `flows[i]`) against the devices' `mtu`.
pub fn refuse_unfit(flows: &[PlannedFlow], scenario_flows: usize, mtu: u32) -> EmuResult<()> {
    for (i, f) in flows.iter().enumerate() {
        let Some(plan) = &f.datagrams else {
            continue;
        };
        let path = || if i < scenario_flows { format!("flows[{i}].udp.size") } else { format!("flow {:?}", f.name) };
        if (plan.payload as usize) < STAMP_BYTES {
            return Err(EmuError::unsupported(
                path(),
                format!(
                    "a datagram of {} B cannot carry the emulator's {STAMP_BYTES}-byte stamp (sequence number and send time, which the sink measures delay from); expected at least {STAMP_BYTES} B",
                    plan.payload
                ),
            ));
        }
        let largest = mtu.saturating_sub(IP_UDP_HEADER_BYTES);
        if plan.payload > largest {
            return Err(EmuError::unsupported(
                path(),
                format!(
                    "a datagram of {} B exceeds the emulator's MTU of {mtu} B (the kernel would fragment it, the simulator's links carry it whole); expected at most {largest} B",
                    plan.payload
                ),
            ));
        }
    }
    Ok(())
}

/// Checks every QUIC table of `scenario` (its flows', then its generators') against the
/// devices' `mtu`: each datagram, `initial_mtu` bytes of UDP payload (RFC 9000 §14's 1200 by
/// default), must fit; with `mtu_discovery`, so must the largest probe, which the simulator's
/// links (no MTU) always carry.
pub fn refuse_unfit_quic(scenario: &Scenario, mtu: u32) -> EmuResult<()> {
    let largest = mtu.saturating_sub(IP_UDP_HEADER_BYTES);
    let flows = scenario.flows.iter().enumerate().filter_map(|(i, f)| Some((format!("flows[{i}].quic"), f.quic.as_ref()?)));
    let generators = scenario.generators.iter().enumerate().filter_map(|(i, g)| Some((format!("generators[{i}].quic"), g.quic()?)));
    for (path, q) in flows.chain(generators) {
        let q: &QuicSpec = q;
        let initial = q.initial_mtu.unwrap_or(MIN_INITIAL_MTU) as u32;
        if initial > largest {
            return Err(EmuError::unsupported(
                format!("{path}.initial_mtu"),
                format!("datagrams of {initial} B of UDP payload exceed the emulator's MTU of {mtu} B (the kernel would refuse them, the simulator's links carry them whole); expected at most {largest} B"),
            ));
        }
        if q.mtu_discovery && MTU_DISCOVERY_UPPER_BOUND > largest {
            return Err(EmuError::unsupported(
                format!("{path}.mtu_discovery"),
                format!("path MTU discovery probes up to {MTU_DISCOVERY_UPPER_BOUND} B of UDP payload, which the simulator's links carry and the emulator's MTU of {mtu} B (at most {largest} B) does not; expected false with this MTU"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtolab_sim::world::plan::plan;

    fn refusal(size: &str) -> Option<(String, String)> {
        let text = format!(
            "duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n[[flows]]\nname = \"t\"\nroute = [\"l\"]\n[[flows]]\nname = \"u\"\nroute = [\"l\"]\nudp = {{ rate = \"64kbps\", size = \"{size}\" }}\n"
        );
        let scenario = rtolab_sim::spec::parse_for_any_target(&text, "toml").expect("valid scenario");
        let (flows, _) = plan(&scenario, 1);
        match refuse_unfit(&flows, scenario.flows.len(), 1500) {
            Ok(()) => None,
            Err(EmuError::Unsupported { path, message }) => Some((path, message)),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn payloads_from_the_stamp_to_the_mtu_are_carried() {
        assert_eq!(refusal("12B"), None);
        assert_eq!(refusal("1472B"), None);
    }

    fn quic_refusal(quic: &str, mss: Option<u32>) -> Option<(String, String)> {
        let text = format!(
            "duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n[[flows]]\nname = \"t\"\nroute = [\"l\"]\n[[generators]]\nkind = \"burst\"\nflows = 1\ntotal = \"1kB\"\nroute = [\"l\"]\nquic = {{ {quic} }}\n"
        );
        let scenario = rtolab_sim::spec::parse_for_any_target(&text, "toml").expect("valid scenario");
        // A TUN MTU of mss + 40 (no timestamps), as `NsSettings::mtu` makes it.
        match refuse_unfit_quic(&scenario, mss.map_or(1500, |m| m + 40)) {
            Ok(()) => None,
            Err(EmuError::Unsupported { path, message }) => Some((path, message)),
            Err(e) => panic!("{e}"),
        }
    }

    /// 1200 B (the default) and 1472 B fill at most a 1500-byte MTU; 1473 B does not, nor
    /// 1200 B under a 1000-byte MSS; discovery needs 1452 + 28 B.
    #[test]
    fn quic_datagrams_must_fit_the_mtu() {
        assert_eq!(quic_refusal("", None), None);
        assert_eq!(quic_refusal("initial_mtu = 1472", None), None);
        assert_eq!(quic_refusal("mtu_discovery = true", None), None);
        let (path, message) = quic_refusal("initial_mtu = 1473", None).expect("refused");
        assert_eq!(path, "generators[0].quic.initial_mtu");
        assert!(message.contains("at most 1472 B"), "{message}");
        let (path, _) = quic_refusal("", Some(1000)).expect("refused");
        assert_eq!(path, "generators[0].quic.initial_mtu");
        let (path, _) = quic_refusal("mtu_discovery = true", Some(1420)).expect("refused");
        assert_eq!(path, "generators[0].quic.mtu_discovery");
    }

    #[test]
    fn smaller_and_larger_payloads_are_refused_by_field() {
        let (path, message) = refusal("11B").expect("refused");
        assert_eq!(path, "flows[1].udp.size");
        assert!(message.contains("at least 12 B"), "{message}");
        let (path, message) = refusal("1473B").expect("refused");
        assert_eq!(path, "flows[1].udp.size");
        assert!(message.contains("at most 1472 B"), "{message}");
    }
}
