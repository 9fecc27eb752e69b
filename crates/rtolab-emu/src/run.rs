//! One emulation from start to end: check the machine and the spec, build the namespaces
//! and devices, start the forwarder, the applications and the sampler, wait for the end of
//! the run (every flow done, `duration`, an interrupt, or the wall-clock limit), stop
//! everything, remove the namespaces, and report.

use crate::apps::{self, SendPlan};
use crate::datagram_flow::DatagramFlow;
use crate::users;
use crate::error::{EmuError, EmuResult};
use crate::forwarder::Forwarder;
use crate::kernel::{self, NsSettings};
use crate::netns::{self, ip, Namespace};
use crate::report::{self, ConnOutcome, EmuMeta, Emulation};
use crate::quic_apps::{self, QuicOutcome};
use crate::shared::{Clock, ConnMeta, QuicFlow, Shared, RECEIVER_ADDR, SENDER_ADDR};
use crate::tun;
use crate::udp_apps;
use crate::udp_check;
use rtolab_sim::build::links::{captures, link_dirs, reported_links, route_dirs, spike_processes, LinkRecording};
use rtolab_sim::build::radio;
use rtolab_sim::fabric::FlowRoute;
use rtolab_sim::spec::{GeneratorSpec, Scenario, SeriesMetric, WebConnection};
use rtolab_sim::world::plan::plan;
use rtolab_sim::SimTime;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const TUN_NAME: &str = "rtolab0";
/// Linux's CONFIG_DEFAULT_TCP_CONG: what a flow without `cc` runs, set per socket whatever
/// this host's default is (a namespace default may only name an allowed module).
const DEFAULT_CC: &str = "cubic";

#[derive(Clone, Debug)]
pub struct EmuOptions {
    /// Wall-clock limit of a run without `duration` (with one: duration + this much).
    pub wall_limit_s: f64,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions { wall_limit_s: 300.0 }
    }
}

fn available_congestion_controls() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").map(|s| s.split_whitespace().map(String::from).collect()).unwrap_or_default()
}

/// Each `cc` must be a module the kernel has (loading it is the kernel's business: a
/// privileged `TCP_CONGESTION` autoloads `tcp_NAME` where modules exist).
fn check_congestion_controls(scenario: &Scenario) -> EmuResult<()> {
    let mut available = available_congestion_controls();
    for (path, t) in scenario.tcp_tables() {
        let Some(cc) = kernel::congestion_control(t) else {
            continue;
        };
        if !available.iter().any(|a| a == cc) {
            std::process::Command::new("modprobe").arg(format!("tcp_{cc}")).output().ok();
            available = available_congestion_controls();
        }
        if !available.iter().any(|a| a == cc) {
            return Err(EmuError::unsupported(
                format!("{path}.cc"),
                format!("this kernel has no {cc:?} congestion control (available: {})", available.join(" ")),
            ));
        }
    }
    Ok(())
}

fn configure(ns: &Namespace, settings: &NsSettings, sender: bool) -> EmuResult<()> {
    ip(&["-n", &ns.name, "link", "set", "lo", "up"])?;
    for key in ["ipv6/conf/all/disable_ipv6", "ipv6/conf/default/disable_ipv6"] {
        ns.sysctl(key, "1").ok(); // absent when the kernel has no IPv6
    }
    // Connections stay independent, as in the simulator: no cached ssthresh or RTT.
    ns.sysctl("ipv4/tcp_no_metrics_save", "1")?;
    for (key, value, field) in settings.sysctls(sender) {
        ns.sysctl(&format!("ipv4/{key}"), &value)
            .map_err(|_| EmuError::unsupported(format!("tcp.{field}"), format!("this kernel has no net.ipv4.{key}, which the setting needs")))?;
    }
    Ok(())
}

fn address_device(ns: &Namespace, settings: &NsSettings, sender: bool) -> EmuResult<()> {
    let (me, peer) = if sender { (SENDER_ADDR, RECEIVER_ADDR) } else { (RECEIVER_ADDR, SENDER_ADDR) };
    let mtu = settings.mtu().to_string();
    ip(&["-n", &ns.name, "link", "set", TUN_NAME, "mtu", &mtu, "up"])?;
    ip(&["-n", &ns.name, "addr", "add", &me.to_string(), "peer", &format!("{peer}/32"), "dev", TUN_NAME])?;
    let mut route = vec!["-n".to_string(), ns.name.clone(), "route".into(), "replace".into(), format!("{peer}/32"), "dev".into(), TUN_NAME.into()];
    if sender {
        if let Some(n) = settings.initcwnd {
            route.extend(["initcwnd".into(), n.to_string()]);
        }
        if let Some(ms) = settings.rto_min_ms {
            route.extend(["rto_min".into(), format!("{ms}ms")]);
        }
    } else if settings.quickack {
        route.extend(["quickack".into(), "1".into()]);
    }
    ip(&route.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The threads of a run; dropping it stops and joins them all.
struct Threads {
    shared: Arc<Shared>,
    senders: Vec<JoinHandle<()>>,
    others: Vec<JoinHandle<()>>,
    forwarder: Option<JoinHandle<EmuResult<crate::forwarder::ForwarderReport>>>,
}

impl Threads {
    fn stop_apps(&mut self) {
        self.shared.apps_stop.store(true, Ordering::Relaxed);
        for h in self.senders.drain(..) {
            h.join().ok();
        }
    }

    fn stop_all(&mut self) -> Option<EmuResult<crate::forwarder::ForwarderReport>> {
        self.stop_apps();
        self.shared.stop.store(true, Ordering::Relaxed);
        for h in self.others.drain(..) {
            h.join().ok();
        }
        self.forwarder.take().map(|h| h.join().unwrap_or_else(|_| Err(EmuError::system("forwarder", std::io::Error::other("panicked")))))
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// A web generator whose users keep one connection per session (`connection =
/// "per-session"`) is the simulator's only: each user here is a thread that opens a kernel
/// connection per file.
fn refuse_per_session(scenario: &Scenario) -> EmuResult<()> {
    for (i, g) in scenario.generators.iter().enumerate() {
        if matches!(g, GeneratorSpec::Web(w) if w.connection == WebConnection::PerSession) {
            return Err(EmuError::unsupported(
                format!("generators[{i}].connection"),
                "\"per-session\" is the simulator's only: the emulator opens a kernel connection per file; use \"per-file\"",
            ));
        }
    }
    Ok(())
}

/// Runs `scenario` over the kernel's TCP and UDP, and QUIC through quinn over real UDP
/// sockets (`quic_apps`). `interrupt` set by the caller (Ctrl-C) ends the
/// run early with `EmuError::Interrupted`, after cleaning up.
pub fn emulate(scenario: &Scenario, seed: Option<u64>, opts: &EmuOptions, interrupt: &AtomicBool) -> EmuResult<Emulation> {
    let seed = seed.or(scenario.seed).unwrap_or(1);
    if !scenario.output.events.is_empty() {
        return Err(EmuError::unsupported("output.events", "the event log is the simulator's: the kernel's TCP does not tell the emulator of its timeouts one by one"));
    }
    refuse_per_session(scenario)?;
    let settings = kernel::settings(scenario)?;
    udp_check::refuse_unfit(&plan(scenario, seed).0, scenario.flows.len(), settings.mtu())?;
    udp_check::refuse_unfit_quic(scenario, settings.mtu())?;
    netns::check_machine()?;
    check_congestion_controls(scenario)?;
    let stale = netns::remove_stale();
    let wall = std::time::Instant::now();
    let senders = Arc::new(Namespace::create("snd")?);
    let receivers = Arc::new(Namespace::create("rcv")?);
    configure(&senders, &settings, true)?;
    configure(&receivers, &settings, false)?;
    let tun_s = senders.run(|| tun::create(TUN_NAME))?;
    let tun_r = receivers.run(|| tun::create(TUN_NAME))?;
    address_device(&senders, &settings, true)?;
    address_device(&receivers, &settings, false)?;

    let series_wanted = scenario.output.series.clone();
    let record = LinkRecording::of(&series_wanted);
    let mut links = link_dirs(scenario, seed, record);
    let spikes = spike_processes(scenario, seed);
    let (flows, webs) = plan(scenario, seed);
    // Every flow and web user whose route reaches the radio network is a mobile user, in the
    // simulator's order (flows, then web users), with a route of its own.
    let ues = flows.iter().filter(|f| scenario.reaches_radio(f.route, f.uplink)).count()
        + webs.iter().filter(|w| scenario.reaches_radio(w.route, w.uplink)).map(|w| w.users.len()).sum::<usize>();
    let radio = radio::build(scenario, ues, &mut links, seed, record);
    let caps = captures(scenario, &links);
    let mut next_ue = 0u32;
    let mut route_of = |path: &[String], uplink: bool| {
        let (forward, reverse) = route_dirs(scenario, path, uplink);
        let mut route = FlowRoute::new(forward, reverse);
        if let Some(radio) = radio.as_ref().filter(|_| scenario.reaches_radio(path, uplink)) {
            route.reach_mobile(next_ue, radio.uplink(next_ue), uplink);
            next_ue += 1;
        }
        route
    };
    let mut routes = Vec::new();
    let shared = Arc::new(Shared::new(Clock::start()));
    let mut static_plans = Vec::new();
    // A datagram flow drives the simulator's own source and sink, made from its plan as the
    // simulator makes them; nothing at or after `duration` counts, as in the simulator.
    let mut datagram_starts = Vec::new();
    let mut quic_plans = Vec::new();
    let horizon = scenario.duration.map(|d| SimTime::ZERO + d.sim());
    for f in &flows {
        routes.push(route_of(f.route, f.uplink));
        let cc = (f.datagrams.is_none() && f.quic.is_none()).then(|| kernel::congestion_control(f.tcp).unwrap_or(DEFAULT_CC));
        let meta = ConnMeta { name: f.name.clone(), origin: f.origin.clone(), route: routes.len() as u32 - 1, size: f.size, cc };
        let k = shared.add_connection(meta).ok_or_else(|| EmuError::unsupported("flows", "more than 50 000 connections"))?;
        if let Some(spec) = f.quic {
            shared.quic_flows.lock().unwrap_or_else(|e| e.into_inner()).insert(k, QuicFlow { start: f.start, ..Default::default() });
            quic_plans.push((k, f.start, spec.clone(), f.size));
            continue;
        }
        match &f.datagrams {
            Some(p) => {
                let source = p.source(&f.name, f.size, f.start, seed);
                let flow = DatagramFlow::new(f.start, source, p.sink(), p.codec, horizon, series_wanted.contains(&SeriesMetric::Delay));
                shared.datagram_flows.lock().unwrap_or_else(|e| e.into_inner()).insert(k, flow);
                datagram_starts.push((k, f.start));
            }
            None => static_plans.push((k, f.start, SendPlan { connection: k, size: f.size, cc })),
        }
    }
    // A route per web user when its users are mobile (each has its own uplink), else one per
    // generator.
    let mut web_routes: Vec<Vec<u32>> = Vec::new();
    for w in &webs {
        let own = scenario.reaches_radio(w.route, w.uplink);
        let shared_route = (!own).then(|| {
            routes.push(route_of(w.route, w.uplink));
            routes.len() as u32 - 1
        });
        web_routes.push(
            (0..w.users.len())
                .map(|_| {
                    shared_route.unwrap_or_else(|| {
                        routes.push(route_of(w.route, w.uplink));
                        routes.len() as u32 - 1
                    })
                })
                .collect(),
        );
    }
    let forwarder = Forwarder::new([tun_s, tun_r], links, spikes, routes, radio, caps, shared.clone(), series_wanted.contains(&SeriesMetric::Delay));
    let mut threads = Threads { shared: shared.clone(), senders: Vec::new(), others: Vec::new(), forwarder: None };
    threads.forwarder = Some(std::thread::spawn(move || forwarder.run()));
    let clamp = settings.window_clamp;
    let sh = shared.clone();
    threads.others.push(apps::spawn_in(&receivers, move || {
        apps::receive(sh, clamp).ok();
    }));
    let sh = shared.clone();
    threads.others.push(std::thread::spawn(move || apps::sample(&sh)));
    for (k, start, send_plan) in static_plans {
        let sh = shared.clone();
        threads.senders.push(apps::spawn_in(&senders, move || {
            if sh.clock.sleep_until(start, &sh.apps_stop) {
                let out = apps::send(&sh, send_plan);
                sh.senders.lock().unwrap_or_else(|e| e.into_inner()).insert(k, out);
            }
        }));
    }
    if !datagram_starts.is_empty() {
        // Bound before any datagram is sent, so that none finds the port closed.
        let sink = receivers.run(|| udp_apps::bind_sink().map_err(|e| EmuError::system("binding the datagram flows' socket", e)))?;
        let sh = shared.clone();
        threads.others.push(apps::spawn_in(&receivers, move || udp_apps::receive(&sh, sink)));
    }
    for (k, start) in datagram_starts {
        let sh = shared.clone();
        threads.senders.push(apps::spawn_in(&senders, move || {
            let out = udp_apps::send(&sh, k, start);
            sh.senders.lock().unwrap_or_else(|e| e.into_inner()).insert(k, out);
        }));
    }
    if !quic_plans.is_empty() || webs.iter().any(|w| w.quic.is_some()) {
        // The TLS configurations (a certificate signed on first use) are made before any
        // transfer starts, so that none pays for them.
        rtolab_sim::quic::tls::os_server();
        rtolab_sim::quic::tls::os_client();
    }
    // Every static transfer's sockets are bound before any starts: the server's in the
    // sender's namespace on its connection's port, the client's in the receiver's.
    let ks: Vec<u32> = quic_plans.iter().map(|p| p.0).collect();
    let quic_record = [SeriesMetric::Cwnd, SeriesMetric::Ssthresh, SeriesMetric::Srtt, SeriesMetric::Rttvar].iter().any(|m| series_wanted.contains(m));
    let servers = senders.run(|| ks.iter().map(|&k| quic_apps::server_socket(k)).collect::<Result<Vec<_>, _>>().map_err(|e| EmuError::system("binding a QUIC server's socket", e)))?;
    let clients = receivers.run(|| ks.iter().map(|_| quic_apps::client_socket()).collect::<Result<Vec<_>, _>>().map_err(|e| EmuError::system("binding a QUIC client's socket", e)))?;
    for ((k, start, spec, size), (server, client)) in quic_plans.into_iter().zip(servers.into_iter().zip(clients)) {
        let sh = shared.clone();
        threads.senders.push(std::thread::spawn(move || {
            if sh.clock.sleep_until(start, &sh.apps_stop) {
                let outcome = quic_apps::run(&sh, &spec, size, quic_apps::Sockets { server, client }, quic_record);
                sh.with_quic_flow(k, |q| q.outcome = Some(outcome.clone()));
                sh.senders.lock().unwrap_or_else(|e| e.into_inner()).insert(k, crate::shared::SenderOutcome { connect_at: outcome.start, ..Default::default() });
            }
        }));
    }
    let n_static = flows.len();
    let has_web = webs.iter().any(|w| !w.users.is_empty());
    for (w, user_routes) in webs.into_iter().zip(web_routes) {
        let cc = w.quic.is_none().then(|| kernel::congestion_control(w.tcp).unwrap_or(DEFAULT_CC));
        for (u, (behaviour, route)) in w.users.into_iter().zip(user_routes).enumerate() {
            let sh = shared.clone();
            let quic = w.quic.map(|spec| (spec.clone(), receivers.clone(), quic_record));
            let place = users::UserPlace { generator: w.name.clone(), user: u as u32, route, cc, start: w.start, quic };
            threads.senders.push(apps::spawn_in(&senders, move || users::drive(&sh, place, behaviour)));
        }
    }

    let duration = scenario.duration.map(|d| SimTime::ZERO + d.sim());
    let limit = duration.map(|d| d.as_secs_f64()).unwrap_or(0.0) + opts.wall_limit_s;
    let outcome = loop {
        std::thread::sleep(Duration::from_millis(5));
        let now = shared.clock.now();
        if interrupt.load(Ordering::Relaxed) {
            break Err(EmuError::Interrupted);
        }
        if duration.is_some_and(|d| now >= d) {
            break Ok(duration.unwrap_or(now));
        }
        let done = shared.senders.lock().unwrap_or_else(|e| e.into_inner()).len();
        if duration.is_none() && !has_web && done == n_static {
            break Ok(now);
        }
        if now.as_secs_f64() > limit {
            break Err(EmuError::WallClock { limit_s: limit });
        }
    };
    threads.stop_apps();
    // Let the receivers read what was acknowledged before the forwarder stops.
    let deadline = shared.clock.now() + rtolab_sim::SimDuration::from_millis(2_000);
    while shared.clock.now() < deadline {
        let acked: Vec<u32> = shared.senders.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|(_, s)| s.acked_at.is_some()).map(|(k, _)| *k).collect();
        let read = shared.receivers.lock().unwrap_or_else(|e| e.into_inner());
        if acked.iter().all(|k| read.contains_key(k)) {
            break;
        }
        drop(read);
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut fwd = threads.stop_all().unwrap_or_else(|| Err(EmuError::system("forwarder", std::io::Error::other("not started"))))?;
    let end = outcome?;
    // A QUIC datagram either host discarded (a full socket buffer) or failed to send was lost
    // outside rtolab's links.
    let host_discards: u64 = if shared.quic_flows.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
        0
    } else {
        [&senders, &receivers].iter().filter_map(|ns| ns.read_proc_net("snmp").ok()).map(|t| udp_apps::host_discards(&t)).sum()
    };
    let tcpext_sender = senders.read_proc_net("netstat").map(|t| report::tcpext(&t)).unwrap_or_default();
    let tcpext_receiver = receivers.read_proc_net("netstat").map(|t| report::tcpext(&t)).unwrap_or_default();
    drop(threads);
    drop(senders);
    drop(receivers);

    let conns = shared.connections();
    let sender_out = std::mem::take(&mut *shared.senders.lock().unwrap_or_else(|e| e.into_inner()));
    let receiver_out = std::mem::take(&mut *shared.receivers.lock().unwrap_or_else(|e| e.into_inner()));
    let samples = std::mem::take(&mut *shared.samples.lock().unwrap_or_else(|e| e.into_inner()));
    let mut rows = Vec::with_capacity(conns.len());
    let mut series = std::mem::take(&mut fwd.series);
    let mut data_packets = 0;
    let mut congestion_control = BTreeMap::new();
    let datagram_flows = std::mem::take(&mut *shared.datagram_flows.lock().unwrap_or_else(|e| e.into_inner()));
    let quic_flows = std::mem::take(&mut *shared.quic_flows.lock().unwrap_or_else(|e| e.into_inner()));
    for (k, meta) in conns.iter().enumerate() {
        let k = k as u32;
        if let Some(q) = quic_flows.get(&k) {
            // A transfer the run ended before it started has the simulator's row of one that
            // never started: no bytes, no end.
            let outcome = q.outcome.clone().unwrap_or(QuicOutcome { start: q.start, ..Default::default() });
            if let Some(e) = &outcome.setup_error {
                return Err(EmuError::system(format!("QUIC transfer {:?}", meta.name), std::io::Error::other(e.clone())));
            }
            if let Some(at) = outcome.corrupt_at {
                return Err(EmuError::Invariant { flow: meta.name.clone(), message: format!("byte {at} of the QUIC response reached the client altered") });
            }
            data_packets += outcome.server.as_ref().map_or(0, |s| s.udp_tx.datagrams);
            report::quic_series(&mut series, k, &outcome, &series_wanted);
            let lost = q.lost_before(outcome.ended().unwrap_or(end));
            rows.push(report::quic_row(k, &meta.name, &meta.origin, meta.size, &outcome, lost, end));
            continue;
        }
        if let Some(f) = datagram_flows.get(&k) {
            if let Some(e) = &f.send_error {
                return Err(EmuError::Invariant { flow: meta.name.clone(), message: format!("the sending host lost a datagram outside rtolab's links: {e}") });
            }
            report::datagram_series(&mut series, k, f);
            data_packets += f.source.sent;
            rows.push(report::datagram_row(k, &meta.name, &meta.origin, meta.size, f, end));
            continue;
        }
        let s = samples.get(&k).map(Vec::as_slice).unwrap_or(&[]);
        report::sample_series(&mut series, k, s, &series_wanted);
        let track = fwd.conns.get_mut(k as usize).and_then(|c| c.as_mut());
        data_packets += track.as_ref().map(|t| t.data_segments).unwrap_or(0);
        let receiver = receiver_out.get(&k);
        if let Some(bad) = receiver.and_then(|r| r.corrupt_at) {
            return Err(EmuError::Invariant { flow: meta.name.clone(), message: format!("byte {bad} reached the application altered") });
        }
        let outcome = ConnOutcome { k, track, sender: sender_out.get(&k), receiver, samples: s };
        let row = report::flow_row(&meta.name, &meta.origin, meta.size, outcome, end);
        if let (Some(size), Some(_)) = (meta.size, row.end_s) {
            if receiver.is_some_and(|r| r.bytes != size) {
                return Err(EmuError::Invariant {
                    flow: meta.name.clone(),
                    message: format!("{} of {size} bytes read although all were acknowledged", row.bytes),
                });
            }
        }
        congestion_control.insert(meta.name.clone(), meta.cc.unwrap_or(DEFAULT_CC).to_string());
        rows.push(row);
    }
    if host_discards > 0 {
        let names: Vec<&str> = conns.iter().enumerate().filter(|(k, _)| quic_flows.contains_key(&(*k as u32))).map(|(_, m)| m.name.as_str()).collect();
        return Err(EmuError::Invariant {
            flow: names.join(", "),
            message: format!("the hosts discarded or failed to send {host_discards} UDP datagrams (Udp InErrors, SndbufErrors), lost outside rtolab's links"),
        });
    }
    let discarded = shared.udp_in_errors.load(Ordering::Relaxed);
    if discarded > 0 {
        let names: Vec<&str> = conns.iter().enumerate().filter(|(k, _)| datagram_flows.contains_key(&(*k as u32))).map(|(_, m)| m.name.as_str()).collect();
        return Err(EmuError::Invariant {
            flow: names.join(", "),
            message: format!("the receiving host discarded {discarded} datagrams (Udp InErrors), lost outside rtolab's links"),
        });
    }
    let (accuracy, latency, late_packets, released) = report::accuracy(&fwd);
    let foreign_packets = fwd.accuracy.foreign_packets;
    let result = report::run_result(scenario, seed, rows, series, &mut fwd, reported_links(scenario), end, data_packets);
    let meta = EmuMeta {
        kernel: nix::sys::utsname::uname().map(|u| u.release().to_string_lossy().into_owned()).unwrap_or_default(),
        wall_s: wall.elapsed().as_secs_f64(),
        settings,
        congestion_control,
        accuracy,
        added_latency_median_us: latency[0],
        added_latency_p99_us: latency[1],
        added_latency_max_us: latency[2],
        late_packets,
        forwarder_realtime: fwd.accuracy.realtime,
        released_packets: released,
        foreign_packets,
        tcpext_sender,
        tcpext_receiver,
        stale_namespaces_removed: stale,
    };
    Ok(Emulation { result, meta })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_session_web_users_are_refused_by_field() {
        let text = |connection: &str| {
            format!("duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n[[generators]]\nkind = \"burst\"\nflows = 1\ntotal = \"1kB\"\nroute = [\"l\"]\n[[generators]]\nkind = \"web\"\nusers = 1\nsize = \"1kB\"\nthink = \"1s\"\nroute = [\"l\"]\n{connection}")
        };
        let parse = |t: String| rtolab_sim::spec::parse_for_any_target(&t, "toml").expect("valid scenario");
        match refuse_per_session(&parse(text("connection = \"per-session\"\n"))) {
            Err(EmuError::Unsupported { path, message }) => {
                assert_eq!(path, "generators[1].connection");
                assert!(message.contains("per-file"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(refuse_per_session(&parse(text(""))).is_ok());
        assert!(refuse_per_session(&parse(text("connection = \"per-file\"\n"))).is_ok());
    }
}
