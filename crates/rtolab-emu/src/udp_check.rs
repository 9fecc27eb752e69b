//! What the emulator cannot carry of a datagram flow, refused before the run with the field
//! named: a payload too small for the stamp that tells the sink each datagram's number and
//! send time (`stamp::STAMP_BYTES`), or a datagram larger than the TUN devices' MTU, which
//! the sending kernel would cut into IP fragments where the simulator's links carry it
//! whole.

use crate::error::{EmuError, EmuResult};
use crate::stamp::STAMP_BYTES;
use rtolab_sim::transport::datagram::IP_UDP_HEADER_BYTES;
use rtolab_sim::world::plan::PlannedFlow;

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
