//! What the kernel is told, from a scenario's TCP settings.
//!
//! Only the fields a scenario sets are mapped; an unset field leaves the kernel's default
//! (the kernel *is* the `linux` stack). A set field the kernel cannot honour is an error
//! naming it. Namespace-wide settings (sysctls, route options) must agree across flows;
//! congestion control is per socket (`TCP_CONGESTION`) and may differ.
//!
//! Sources: Documentation/networking/ip-sysctl.rst (tcp_sack, tcp_dsack, tcp_timestamps,
//! tcp_frto, tcp_reordering, tcp_rto_max_ms, tcp_recovery, tcp_early_retrans), ip-route(8)
//! (initcwnd, rto_min, quickack), tcp(7) (TCP_CONGESTION, TCP_WINDOW_CLAMP).

use crate::error::{EmuError, EmuResult};
use rtolab_sim::spec::{DetectSpec, DupAckRule, RecoveryKind, Scenario, TcpSpec};
use rtolab_sim::tcp::spurious::DetectorName;
use rtolab_sim::tcp::profile::Stack;
use serde::Serialize;

/// Bytes of the TCP timestamp option as Linux pads it (RFC 7323: 10 + 2 NOPs).
const TIMESTAMP_OPTION: u32 = 12;
/// IPv4 + TCP headers without options.
const HEADERS: u32 = 40;

/// Settings for the two namespaces. `None` keeps the kernel's default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NsSettings {
    pub sack: Option<bool>,
    pub dsack: Option<bool>,
    pub timestamps: Option<bool>,
    /// `tcp_frto`: 2 enables F-RTO (RFC 5682, SACK-enhanced when SACK is on), 0 disables it.
    pub frto: Option<u8>,
    /// `tcp_reordering`: the initial duplicate-ACK threshold.
    pub reordering: Option<u32>,
    /// `tcp_rto_max_ms` (Linux ≥ 6.15).
    pub rto_max_ms: Option<u32>,
    /// `tcp_recovery`: 1 turns RACK on, 0 off.
    pub rack: Option<bool>,
    /// `tcp_early_retrans`: 3 sends tail loss probes, 0 does not.
    pub tlp: Option<bool>,
    /// Route `initcwnd`, in segments.
    pub initcwnd: Option<u32>,
    /// Route `rto_min`, in ms.
    pub rto_min_ms: Option<u32>,
    /// Route `quickack` at the receiver: no delayed ACKs.
    pub quickack: bool,
    /// Payload bytes per segment.
    pub mss: Option<u32>,
    /// `TCP_WINDOW_CLAMP` of the receiving sockets, in bytes.
    pub window_clamp: Option<u32>,
}

impl NsSettings {
    /// Timestamps as the connection will run them (kernel default: on).
    pub fn timestamps_on(&self) -> bool {
        self.timestamps.unwrap_or(true)
    }

    /// MTU of both TUN devices: the one whose MSS gives `mss` payload bytes per segment.
    pub fn mtu(&self) -> u32 {
        match self.mss {
            Some(mss) => mss + HEADERS + if self.timestamps_on() { TIMESTAMP_OPTION } else { 0 },
            None => 1500,
        }
    }

    /// Payload bytes per full segment.
    pub fn payload_mss(&self) -> u32 {
        self.mtu() - HEADERS - if self.timestamps_on() { TIMESTAMP_OPTION } else { 0 }
    }

    /// `(sysctl under net/ipv4, value, the field that asked for it)` for the sender's
    /// namespace (`sender`) or the receiver's.
    pub fn sysctls(&self, sender: bool) -> Vec<(&'static str, String, &'static str)> {
        let mut out = Vec::new();
        let flag = |b: bool| if b { "1" } else { "0" }.to_string();
        if let Some(b) = self.sack {
            out.push(("tcp_sack", flag(b), "sack"));
        }
        if let Some(b) = self.dsack {
            out.push(("tcp_dsack", flag(b), "dsack"));
        }
        if let Some(b) = self.timestamps {
            out.push(("tcp_timestamps", flag(b), "timestamps"));
        }
        if sender {
            if let Some(f) = self.frto {
                out.push(("tcp_frto", f.to_string(), "detect"));
            }
            if let Some(r) = self.reordering {
                out.push(("tcp_reordering", r.to_string(), "dupthresh"));
            }
            if let Some(ms) = self.rto_max_ms {
                out.push(("tcp_rto_max_ms", ms.to_string(), "max_rto"));
            }
            if let Some(b) = self.rack {
                out.push(("tcp_recovery", flag(b), "rack"));
            }
            if let Some(b) = self.tlp {
                out.push(("tcp_early_retrans", if b { "3" } else { "0" }.to_string(), "tlp"));
            }
        }
        out
    }
}

/// The kernel's congestion-control module for a flow, if the spec names one.
pub fn congestion_control(t: &TcpSpec) -> Option<&'static str> {
    t.cc.map(|c| c.kind.kernel_name())
}

/// Namespace settings for `scenario`, or the first field the kernel cannot honour.
pub fn settings(s: &Scenario) -> EmuResult<NsSettings> {
    let mut agreed: Option<(String, NsSettings)> = None;
    for (path, t) in s.tcp_tables() {
        let mine = settings_of(t, &path)?;
        match &agreed {
            None => agreed = Some((path, mine)),
            Some((first, theirs)) if *theirs != mine => {
                return Err(EmuError::unsupported(
                    path,
                    format!("differs from {first} in a setting the kernel applies per namespace (sysctl or route); every flow must agree on all but `cc`"),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(agreed.map(|(_, s)| s).unwrap_or_default())
}

fn refuse<T>(path: &str, field: &str, message: &str) -> EmuResult<T> {
    Err(EmuError::unsupported(format!("{path}.{field}"), message))
}

/// Fields the kernel has no knob for, or values it lacks: each setting's `kernel` entry in
/// `rtolab_sim::tcp::settings` says which (`TcpSpec::kernel_refusal`); the stack is checked
/// first.
fn fixed_behaviour(t: &TcpSpec, p: &str) -> EmuResult<()> {
    if t.stack.is_some_and(|s| s != Stack::Linux) {
        return refuse(
            p,
            "stack",
            "the emulator runs the kernel's own TCP; expected \"linux\" or no stack (compare other stacks with `rtolab compare --stack`)",
        );
    }
    match t.kernel_refusal() {
        Some((field, why)) => refuse(p, field, why),
        None => Ok(()),
    }
}

fn settings_of(t: &TcpSpec, p: &str) -> EmuResult<NsSettings> {
    fixed_behaviour(t, p)?;
    let mut ns = NsSettings { sack: t.sack, dsack: t.dsack, timestamps: t.timestamps, ..Default::default() };
    let sack_on = ns.sack.unwrap_or(true);
    if t.recovery == Some(RecoveryKind::NewReno) && sack_on {
        return refuse(p, "recovery", "with SACK on the kernel recovers with SACK; set sack = false for NewReno");
    }
    if let Some(dupack) = t.dupack {
        let kernel = if sack_on { DupAckRule::Rfc6675 } else { DupAckRule::Rfc5681 };
        if dupack != kernel {
            return refuse(p, "dupack", "the kernel counts SACKed segments with SACK on (\"rfc6675\") and duplicate ACKs without (\"rfc5681\")");
        }
    }
    if let Some(detect) = &t.detect {
        detectors(detect, t, &mut ns, p)?;
    }
    ns.reordering = t.dupthresh;
    ns.rack = t.rack;
    ns.tlp = t.tlp;
    if let Some(d) = t.max_rto {
        let ms = d.sim().as_nanos() / 1_000_000;
        if !(1_000..=120_000).contains(&ms) {
            return refuse(p, "max_rto", "the kernel's tcp_rto_max_ms takes 1 s to 120 s");
        }
        ns.rto_max_ms = Some(ms as u32);
    }
    if let Some(d) = t.min_rto {
        let ms = d.sim().as_nanos() / 1_000_000;
        if ms == 0 {
            return refuse(p, "min_rto", "the kernel's rto_min route option is in whole milliseconds; expected at least 1 ms");
        }
        ns.rto_min_ms = Some(ms as u32);
    }
    ns.quickack = t.delayed_ack == Some(false);
    ns.mss = t.mss;
    let mss = ns.payload_mss();
    ns.initcwnd = t.iw.map(|iw| (iw.bytes(mss) / mss as u64) as u32);
    ns.window_clamp = t.max_window.map(|segments| segments * mss);
    Ok(ns)
}

/// The detectors the kernel has, by the names `detect` lists them under: its F-RTO is
/// `frto-linux`, and `frto` (RFC 5682's) is taken to mean it too.
const KERNEL_DETECTORS: [&str; 4] = ["eifel", "frto", "frto-linux", "dsack"];

/// Honours a detector list: F-RTO is `tcp_frto`; the kernel's timestamp (Eifel-like) and
/// DSACK undo cannot be switched off, so leaving them out of the list turns timestamps or
/// DSACK off, which an explicit `true` contradicts.
fn detectors(detect: &DetectSpec, t: &TcpSpec, ns: &mut NsSettings, p: &str) -> EmuResult<()> {
    let listed: &[DetectorName] = match detect {
        DetectSpec::None(_) => &[],
        DetectSpec::List(l) => l,
    };
    if let Some(d) = listed.iter().find(|d| !KERNEL_DETECTORS.contains(&d.name())) {
        return refuse(p, "detect", &format!("the kernel has no \"{}\" detector (it has \"eifel\" by timestamps, \"frto-linux\" (or \"frto\") and \"dsack\")", d.name()));
    }
    let has = |name: &str| listed.iter().any(|d| d.name() == name);
    ns.frto = Some(if has("frto") || has("frto-linux") { 2 } else { 0 });
    if !has("eifel") {
        if t.timestamps == Some(true) {
            return refuse(p, "detect", "with timestamps on the kernel always detects spurious timeouts by them; add \"eifel\" or set timestamps = false");
        }
        ns.timestamps = Some(false);
    }
    if has("dsack") {
        if t.dsack == Some(false) {
            return refuse(p, "detect", "\"dsack\" needs dsack = true");
        }
    } else {
        if t.dsack == Some(true) {
            return refuse(p, "detect", "with DSACK on the kernel always undoes on DSACKs; add \"dsack\" or set dsack = false");
        }
        ns.dsack = Some(false);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(tcp: &str) -> Scenario {
        let text = format!(
            "[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n[[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"10kB\"\ntcp = {{ {tcp} }}\n"
        );
        rtolab_sim::spec::parse_for_any_target(&text, "toml").expect("valid scenario")
    }

    fn error_path(tcp: &str) -> String {
        match settings(&scenario(tcp)) {
            Err(EmuError::Unsupported { path, .. }) => path,
            other => panic!("expected an unsupported field, got {other:?}"),
        }
    }

    /// Nothing set: the kernel keeps every default (1500-byte MTU: 1448 payload bytes with
    /// timestamps, as Linux over Ethernet).
    #[test]
    fn unset_fields_keep_kernel_defaults() {
        let ns = settings(&scenario("")).unwrap();
        assert_eq!(ns, NsSettings::default());
        assert_eq!((ns.mtu(), ns.payload_mss()), (1500, 1448));
        assert!(ns.sysctls(true).is_empty());
    }

    /// Fields with a kernel knob map to it: IW 10 of 1000-byte segments is initcwnd 10 on a
    /// 1052-byte MTU (1000 + 40 + 12); F-RTO only turns timestamps and DSACK undo off.
    #[test]
    fn settable_fields_map_to_sysctls_and_routes() {
        let ns =
            settings(&scenario("mss = 1000, iw = 10, min_rto = \"200ms\", detect = [\"frto\"], dupthresh = 5, delayed_ack = false, cc = \"cubic\"")).unwrap();
        assert_eq!(ns.initcwnd, Some(10));
        assert_eq!(ns.rto_min_ms, Some(200));
        assert_eq!((ns.frto, ns.timestamps, ns.dsack), (Some(2), Some(false), Some(false)));
        assert_eq!((ns.mtu(), ns.payload_mss()), (1040, 1000));
        assert!(ns.quickack);
        let sender: Vec<_> = ns.sysctls(true).into_iter().map(|(k, v, _)| format!("{k}={v}")).collect();
        assert_eq!(sender, ["tcp_dsack=0", "tcp_timestamps=0", "tcp_frto=2", "tcp_reordering=5"]);
        assert_eq!(ns.sysctls(false).len(), 2);
        let rfc3390 = settings(&scenario("iw = \"rfc3390\"")).unwrap();
        assert_eq!(rfc3390.initcwnd, Some(3)); // min(4·1448, max(2·1448, 4380)) = 4380 → 3 segments
    }

    /// Each field without a kernel knob is refused by name, never silently ignored.
    #[test]
    fn fields_the_kernel_cannot_honour_are_named() {
        for (tcp, field) in [
            ("stack = \"ns2-sack1\"", "stack"),
            ("recovery = \"reno\"", "recovery"),
            ("recovery = \"rate-halving\"", "recovery"),
            ("cc = \"cubic-2.6.24\"", "cc"),
            ("cc = \"bic\", ack_counting = true", "ack_counting"),
            ("sack = true, recovery = \"newreno\"", "recovery"),
            ("response = \"rfc4015\"", "response"),
            ("max_burst = 4", "max_burst"),
            ("ack_every = 1", "ack_every"),
            ("delack_timeout = \"100ms\"", "delack_timeout"),
            ("rto = \"rfc6298\"", "rto"),
            ("initial_rto = \"3s\"", "initial_rto"),
            ("handshake = false", "handshake"),
            ("timestamps = true, detect = [\"frto\"]", "detect"),
            ("max_rto = \"500s\"", "max_rto"),
        ] {
            assert_eq!(error_path(tcp), format!("flows[0].tcp.{field}"), "{tcp}");
        }
    }

    #[test]
    fn namespace_settings_must_agree_across_flows() {
        let text = "duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
            [[flows]]\nname = \"a\"\nroute = [\"l\"]\ntcp = { sack = true, cc = \"reno\" }\n\
            [[flows]]\nname = \"b\"\nroute = [\"l\"]\ntcp = { sack = true, cc = \"cubic\" }\n\
            [[generators]]\nkind = \"burst\"\nflows = 2\ntotal = \"10kB\"\nroute = [\"l\"]\ntcp = { sack = false }\n";
        let s = rtolab_sim::spec::parse_for_any_target(text, "toml").unwrap();
        match settings(&s) {
            Err(EmuError::Unsupported { path, message }) => {
                assert_eq!(path, "generators[0].tcp");
                assert!(message.contains("flows[0].tcp"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
