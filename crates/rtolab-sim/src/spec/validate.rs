//! Semantic checks a type cannot express: names, ranges and cross-field rules.

use super::{BurstSpec, FlowSpec, GeneratorSpec, WebSpec, LinkSpec, QueueSpec, RedSpec, Scenario, SpecError, TcpSpec};
use crate::units::FlowSize;
use std::collections::HashSet;

type Check = Result<(), SpecError>;

fn fail(path: impl Into<String>, message: impl Into<String>) -> Check {
    Err(SpecError::new(path, message))
}

/// Validates a parsed scenario; the first problem found is returned.
pub fn validate(s: &Scenario) -> Check {
    if s.links.is_empty() {
        return fail("links", "expected at least one link");
    }
    let mut names = HashSet::new();
    for (i, l) in s.links.iter().enumerate() {
        if !names.insert(l.name.as_str()) {
            return fail(format!("links[{i}].name"), format!("duplicate link name {:?}", l.name));
        }
        link(l, &format!("links[{i}]"))?;
    }
    if s.flows.is_empty() && s.generators.is_empty() {
        return fail("flows", "expected at least one flow or generator");
    }
    let mut flow_names = HashSet::new();
    for (i, f) in s.flows.iter().enumerate() {
        let p = format!("flows[{i}]");
        if !flow_names.insert(f.name.as_str()) {
            return fail(format!("{p}.name"), format!("duplicate flow name {:?}", f.name));
        }
        flow(f, s, &p)?;
    }
    for (i, g) in s.generators.iter().enumerate() {
        generator(g, s, &format!("generators[{i}]"))?;
    }
    for (i, name) in s.output.pcap.iter().enumerate() {
        let link_name = name.strip_suffix(".forward").or(name.strip_suffix(".reverse")).unwrap_or(name);
        if !names.contains(link_name) {
            return fail(
                format!("output.pcap[{i}]"),
                format!("no link named {link_name:?}; expected \"LINK\", \"LINK.forward\" or \"LINK.reverse\""),
            );
        }
    }
    if s.limits.max_events == 0 {
        return fail("limits.max_events", "expected a positive number of events");
    }
    Ok(())
}

fn link(l: &LinkSpec, p: &str) -> Check {
    queue(&l.queue, &format!("{p}.queue"))?;
    if let Some(r) = &l.reverse {
        if let Some(q) = &r.queue {
            queue(q, &format!("{p}.reverse.queue"))?;
        }
    }
    if let Some(sp) = &l.spikes {
        match (&sp.interval, &sp.at) {
            (Some(_), Some(_)) => return fail(format!("{p}.spikes"), "give either `interval` or `at`, not both"),
            (None, None) => return fail(format!("{p}.spikes"), "expected `interval` (random spikes) or `at` (fixed start times)"),
            _ => {}
        }
    }
    Ok(())
}

fn queue(q: &QueueSpec, p: &str) -> Check {
    match q {
        QueueSpec::Droptail(_) => Ok(()),
        QueueSpec::Red(r) => red(r, p),
    }
}

fn red(r: &RedSpec, p: &str) -> Check {
    if !(r.q_weight > 0.0 && r.q_weight <= 1.0) {
        return fail(format!("{p}.q_weight"), format!("got {}, expected a weight in (0, 1]", r.q_weight));
    }
    if !(r.thresh >= 0.0 && r.maxthresh > r.thresh) {
        return fail(
            format!("{p}.maxthresh"),
            format!("got thresh = {}, maxthresh = {}; expected 0 <= thresh < maxthresh", r.thresh, r.maxthresh),
        );
    }
    match (r.max_p, r.linterm) {
        (Some(_), Some(_)) => fail(format!("{p}.linterm"), "give max_p or linterm (= 1/max_p), not both"),
        (Some(m), None) if !(m > 0.0 && m <= 1.0) => fail(format!("{p}.max_p"), format!("got {m}, expected a probability in (0, 1]")),
        (None, Some(l)) if l < 1.0 => fail(format!("{p}.linterm"), format!("got {l}, expected a number >= 1")),
        _ if r.mean_pktsize.0 == 0 => fail(format!("{p}.mean_pktsize"), "expected a positive size"),
        _ => Ok(()),
    }
}

fn route(r: &[String], s: &Scenario, p: &str) -> Check {
    if r.is_empty() {
        return fail(p, "expected at least one link name");
    }
    for (i, name) in r.iter().enumerate() {
        if !s.links.iter().any(|l| &l.name == name) {
            let known: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
            return fail(format!("{p}[{i}]"), format!("no link named {name:?}; links are {known:?}"));
        }
    }
    Ok(())
}

fn flow(f: &FlowSpec, s: &Scenario, p: &str) -> Check {
    route(&f.route, s, &format!("{p}.route"))?;
    tcp(&f.tcp, &format!("{p}.tcp"))?;
    if f.size == FlowSize::Infinite && s.duration.is_none() {
        return fail(format!("{p}.size"), "an infinite flow needs a `duration` for the run");
    }
    Ok(())
}

fn generator(g: &GeneratorSpec, s: &Scenario, p: &str) -> Check {
    match g {
        GeneratorSpec::Burst(BurstSpec { flows, total, route: r, tcp: t, .. }) => {
            if *flows == 0 {
                return fail(format!("{p}.flows"), "expected at least one flow");
            }
            if total.0 < *flows as u64 {
                return fail(format!("{p}.total"), format!("got {} B, expected at least one byte per flow", total.0));
            }
            route(r, s, &format!("{p}.route"))?;
            tcp(t, &format!("{p}.tcp"))
        }
        GeneratorSpec::Web(WebSpec { users, route: r, tcp: t, .. }) => {
            if *users == 0 {
                return fail(format!("{p}.users"), "expected at least one user");
            }
            if s.duration.is_none() {
                return fail(p.to_string(), "web users never stop: the run needs a `duration`");
            }
            route(r, s, &format!("{p}.route"))?;
            tcp(t, &format!("{p}.tcp"))
        }
    }
}

fn tcp(t: &TcpSpec, p: &str) -> Check {
    let mss = t.mss();
    if mss == 0 || mss > 65_495 {
        return fail(format!("{p}.mss"), format!("got {mss}, expected 1..=65495 bytes"));
    }
    if t.max_window == Some(0) {
        return fail(format!("{p}.max_window"), "got 0, expected at least one segment");
    }
    if t.dupthresh() == 0 {
        return fail(format!("{p}.dupthresh"), "got 0, expected at least 1");
    }
    if t.ack_every() == 0 {
        return fail(format!("{p}.ack_every"), "got 0, expected at least 1");
    }
    if matches!(t.recovery, Some(super::tcp::RecoverySpec::Sack | super::tcp::RecoverySpec::Prr)) && !t.sack_enabled() {
        return fail(format!("{p}.recovery"), "got a SACK-based recovery (\"sack\" or \"prr\") with sack = false; expected sack = true");
    }
    for (field, on) in [("rack", t.rack), ("tlp", t.tlp)] {
        if on == Some(true) && !t.sack_enabled() {
            return fail(format!("{p}.{field}"), "got true with sack = false; expected sack = true (RFC 8985 needs SACK)");
        }
    }
    // A stack's own detectors quietly need what they need; a list the user wrote must fit.
    let detect = if t.detect.is_some() { t.detectors() } else { Default::default() };
    if detect.eifel && !t.timestamps() {
        return fail(format!("{p}.detect"), "\"eifel\" needs timestamps; set timestamps = true or drop \"eifel\"");
    }
    if detect.dsack && !t.sack_enabled() {
        return fail(format!("{p}.detect"), "\"dsack\" needs SACK; set sack = true or drop \"dsack\"");
    }
    if t.iw_after_syn_loss == Some(0) {
        return fail(format!("{p}.iw_after_syn_loss"), "got 0, expected at least one segment");
    }
    if t.max_burst == Some(0) {
        return fail(format!("{p}.max_burst"), "got 0, expected at least one segment");
    }
    let rto = t.rto_config();
    if rto.min_rto > rto.max_rto {
        return fail(
            format!("{p}.min_rto"),
            format!("min_rto = {} exceeds max_rto = {}; expected min_rto <= max_rto", rto.min_rto, rto.max_rto),
        );
    }
    if rto.initial_rto.as_nanos() == 0 {
        return fail(format!("{p}.initial_rto"), "expected a positive initial RTO");
    }
    for (name, v) in [("alpha", rto.alpha), ("beta", rto.beta)] {
        if !(v > 0.0 && v <= 1.0) {
            return fail(format!("{p}.{name}"), format!("got {v}, expected a gain in (0, 1]"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::spec::from_toml;

    fn spec(extra_link: &str, flow: &str) -> String {
        format!(
            "duration = \"10s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n{extra_link}\n[[flows]]\nname = \"f\"\n{flow}\n"
        )
    }

    #[test]
    fn route_to_missing_link() {
        let e = from_toml(&spec("", "route = [\"l\", \"nope\"]")).unwrap_err();
        assert_eq!(e.path, "flows[0].route[1]");
        assert!(e.message.contains("no link named \"nope\""), "{e}");
    }

    #[test]
    fn min_rto_above_max_rto() {
        let e = from_toml(&spec("", "route = [\"l\"]\ntcp = { min_rto = \"2s\", max_rto = \"1s\" }")).unwrap_err();
        assert_eq!(e.path, "flows[0].tcp.min_rto");
    }

    #[test]
    fn zero_mss() {
        let e = from_toml(&spec("", "route = [\"l\"]\ntcp = { mss = 0 }")).unwrap_err();
        assert_eq!(e.path, "flows[0].tcp.mss");
    }

    #[test]
    fn infinite_flow_without_duration() {
        let text = spec("", "route = [\"l\"]").replace("duration = \"10s\"\n", "");
        let e = from_toml(&text).unwrap_err();
        assert_eq!(e.path, "flows[0].size");
        assert!(e.message.contains("needs a `duration`"));
    }

    #[test]
    fn zero_rate() {
        let e = from_toml(&spec("", "route = [\"l\"]").replace("1Mbps", "0Mbps")).unwrap_err();
        assert_eq!(e.path, "links[0].rate");
    }

    #[test]
    fn red_thresholds_in_order() {
        let q = "queue = { kind = \"red\", limit = \"50p\", thresh = 10, maxthresh = 5 }";
        let e = from_toml(&spec(q, "route = [\"l\"]")).unwrap_err();
        assert_eq!(e.path, "links[0].queue.maxthresh");
    }
}
