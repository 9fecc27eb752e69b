//! The HSDPA radio network end to end: a lone user's rate against link adaptation and the
//! block error rate, conservation and determinism with many web users, the spurious-timeout
//! share rising with load, and bad input naming its field.

use rtolab_sim::results::{LinkDirection};
use crate::common::{flow, run};
use rtolab_sim::spec::{from_toml, SeriesMetric};
use rtolab_sim::RunResult;

/// One cell with no shadowing and one user's flow through it, for `duration`: `radio` is
/// spliced into `[radio]`, `flow` into the flow (its name and what else it sets).
fn one_cell(duration: &str, radio: &str, flow: &str) -> String {
    format!("duration = \"{duration}\"\n[radio]\ncells = 1\nshadowing_db = 0\n{radio}\n[[flows]]\nroute = [\"hsdpa\"]\n{flow}\n")
}

/// One cell, no shadowing, one bulk user: alone, with 20 % of the power on common channels
/// (the default), its SIR is 0.8 / (α · (0.8 + 0.2)) = 8, i.e. 9.03 dB (self-interference
/// only), so every block is Table 1's 1800 B (≥ 7.5 dB) and 10 % arrive damaged.
fn lone_user() -> String {
    one_cell("20s", "", "name = \"bulk\"\ntcp = { cc = \"newreno\", sack = true, mss = 1460, max_window = 200 }")
}

/// The lone user's cell: 10 % of blocks damaged (within 4 standard errors of a binomial over
/// the blocks sent), every block served alone at 10 · log10(8) = 9.0309 dB, and a radio goodput of at most
/// 0.9 · 7.2 Mbit/s = 6.48 Mbit/s; TCP over 25 ms wired, 10 ms uplink keeps the cell busy
/// most of the time, so the flow's goodput is close to that cap (above 80 % of it).
#[test]
fn lone_user_gets_table_1_top_rate_less_block_errors() {
    let r = run(&lone_user());
    assert_eq!(r.cells.len(), 1);
    let c = &r.cells[0];
    let lost = c.blocks_lost as f64 / c.blocks_sent as f64;
    let se = (0.1 * 0.9 / c.blocks_sent as f64).sqrt();
    assert!((lost - 0.1).abs() < 4.0 * se, "damaged share {lost} over {} blocks", c.blocks_sent);
    assert_eq!(c.mean_served, Some(1.0));
    assert!((c.mean_sir_db.unwrap() - 10.0 * 8f64.log10()).abs() < 1e-9, "{:?}", c.mean_sir_db);
    let cap = 0.9 * 1800.0 * 8.0 / 0.002;
    assert!(c.throughput_bps <= cap * 1.02, "{} above the cap {cap}", c.throughput_bps);
    let goodput = flow(&r, "bulk").goodput_bps.unwrap();
    assert!(goodput > 0.8 * cap && goodput < cap, "goodput {goodput} vs cap {cap}");
}

/// One cell, one mobile user sending a bulk flow (paper 004's uplink): data leaves over the
/// dedicated 384 kbit/s uplink, ACKs return through the shared channel.
fn uplink_bulk() -> String {
    one_cell("60s", "", "name = \"up\"\nuplink = true\ntcp = { stack = \"linux\", cc = \"reno\" }")
}

/// The uplink is the bottleneck: goodput is its rate times the payload share of a packet,
/// 384 kbit/s · 1448/1500 = 370.7 kbit/s, less the handshake and slow start (at most 3 %
/// of 60 s). Every delivered segment crossed the wired path away from the cells
/// (`hsdpa.wired.reverse`), and nothing more than was sent; the ACKs, 52 B each, one per
/// two segments delivered at least (RFC 5681 4.2), are the only traffic of the shared channel.
#[test]
fn uplink_bulk_flow_fills_the_dedicated_channel() {
    let r = run(&uplink_bulk());
    let up = flow(&r, "up");
    let cap = 384e3 * 1448.0 / 1500.0;
    let goodput = up.goodput_bps.unwrap();
    assert!(goodput > 0.97 * cap && goodput <= cap, "goodput {goodput} vs the uplink's {cap}");
    let away = r.links.iter().find(|l| l.link == "hsdpa.wired" && l.direction == LinkDirection::Reverse).expect("wired path in the links table");
    let delivered = up.bytes.div_ceil(1448);
    assert!(
        away.packets_sent >= delivered && away.packets_sent <= up.segments_sent + 1,
        "{} packets on the wired path: {delivered} delivered, {} sent",
        away.packets_sent,
        up.segments_sent
    );
    let cell = &r.cells[0];
    assert!(cell.blocks_sent > 0 && cell.bytes >= 52 * (delivered / 2), "{:?}", cell);
}

/// A constant jitter of 20 ms on every user's uplink adds 20 ms to a downlink flow's RTT
/// (its ACKs cross the uplink): 10 kB fit in the initial window, so every RTT sample moves by
/// 20 ms, a multiple of the 2 ms TTI (the same TTI phase), and so does the mean (± 0.1 ms).
#[test]
fn uplink_jitter_delays_the_acks_of_downlink_flows() {
    let text = |jitter: &str| {
        let uplink = format!("uplink = {{ rate = \"384kbps\", delay = \"10ms\"{jitter} }}");
        one_cell("30s", &uplink, "name = \"down\"\nsize = \"10kB\"\ntcp = { stack = \"linux\", cc = \"reno\" }")
    };
    let plain = flow(&run(&text("")), "down").mean_rtt_s.unwrap();
    let jittered = flow(&run(&text(", jitter = \"20ms\"")), "down").mean_rtt_s.unwrap();
    assert!((jittered - plain - 0.020).abs() < 1e-4, "mean RTT {plain} s without jitter, {jittered} s with 20 ms");
}

/// Per-user series on request: the lone user's SIR is 9.03 dB (10 · log10(8)) in every TTI
/// it is served, and
/// its rate series adds up to the bytes the cell carried (rate · 2 ms / 8 per TTI), 0 for
/// the damaged blocks (10 % of them, within 4 standard errors).
#[test]
fn per_user_sir_and_rate_series_match_the_cell() {
    let r = run(&format!("{}[output]\nseries = [\"sir\", \"rate\"]\n", lone_user()));
    let ue = r.series.entities.iter().position(|e| e == "hsdpa.ue0").expect("the user is a series entity") as u32;
    let of = |m: SeriesMetric| -> Vec<f64> {
        (0..r.series.len()).filter(|&i| r.series.entity[i] == ue && r.series.metric[i] == m).map(|i| r.series.value[i]).collect()
    };
    let (sir, rate) = (of(SeriesMetric::Sir), of(SeriesMetric::Rate));
    let cell = &r.cells[0];
    assert_eq!(sir.len() as u64, cell.blocks_sent);
    assert!(sir.iter().all(|&s| (s - 10.0 * 8f64.log10()).abs() < 1e-9));
    let carried: f64 = rate.iter().map(|&b| b * 0.002 / 8.0).sum();
    assert!((carried - cell.bytes as f64).abs() < 1e-6 * cell.bytes as f64, "{carried} vs {}", cell.bytes);
    let zeros = rate.iter().filter(|&&b| b == 0.0).count() as f64 / rate.len() as f64;
    assert!((zeros - 0.1).abs() < 4.0 * (0.09 / rate.len() as f64).sqrt(), "{zeros}");
}

/// Paper 000's set-up in small: seven cells, web users with Pareto files (mean 25 kB,
/// shape 1.1) and exponential think times (mean 1.5 s), ns-2.35's SACK agent (the paper
/// ran ns-2.27) with a minimum RTO.
fn web_users(users: u32, scheduler: &str, min_rto: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[radio]
scheduler = "{scheduler}"
[[generators]]
kind = "web"
users = {users}
size = "pareto(mean=25000B, shape=1.1)"
think = "exp(1.5s)"
route = ["hsdpa"]
tcp = {{ stack = "ns2-sack1", min_rto = "{min_rto}" }}
"#
    )
}

/// Same spec and seed, same tables; every finished transfer delivered its bytes exactly
/// once and in order (checked during the run), and packets are conserved (checked at the
/// end), with users moving between transfers and buffers flushed.
#[test]
fn web_users_are_deterministic_and_conserve_packets() {
    let text = web_users(40, "rr", "200ms", "30s");
    let (a, b) = (run(&text), run(&text));
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.cells, b.cells);
    assert_eq!(a.cells.len(), 7);
    let finished = a.flows.iter().filter(|f| f.end_s.is_some()).count();
    assert!(finished > 200, "{finished} transfers finished");
    assert!(a.cells.iter().all(|c| c.ttis_busy > 0), "every cell served someone");
}

/// A cell's shared buffer is the sum of its users' buffers: for a lone user, a shared
/// limit of 8 packets behaves exactly as a per-user limit of 8 (same drops, same flow), and
/// with 150 web users in seven cells a shared limit of 20 packets refuses more packets than
/// per-user limits of 20 alone (packets are conserved in both: checked during the run).
#[test]
fn a_cell_buffer_limits_what_its_users_queue_together() {
    let bulk = |radio: &str| run(&one_cell("20s", radio, "name = \"bulk\"\ntcp = { cc = \"newreno\", sack = true, mss = 1460, max_window = 200 }"));
    let (shared, own) = (bulk("cell_buffer = 8"), bulk("buffer = 8"));
    assert!(own.cells[0].buffer_drops > 0, "the lone user's window overflows 8 packets");
    assert_eq!((&shared.flows, &shared.cells), (&own.flows, &own.cells));
    let drops = |r: &RunResult| r.cells.iter().map(|c| c.buffer_drops).sum::<u64>();
    let web = web_users(150, "rr", "200ms", "30s");
    let per_user = run(&web.replace("[radio]", "[radio]\nbuffer = 20"));
    let per_cell = run(&web.replace("[radio]", "[radio]\nbuffer = 20\ncell_buffer = 20"));
    assert!(drops(&per_cell) > drops(&per_user), "{} drops with a shared 20-packet buffer, {} without", drops(&per_cell), drops(&per_user));
}

fn spurious_share(r: &RunResult) -> f64 {
    let done: Vec<_> = r.flows.iter().filter(|f| f.end_s.is_some()).collect();
    done.iter().filter(|f| f.spurious_timeouts > 0).count() as f64 / done.len() as f64
}

/// Paper 000, Figure 2: the share of flows with a spurious timeout grows with the load.
/// Round robin, minRTO 0: 20 users hardly queue behind each other (no spurious timeout),
/// 300 users load the cells heavily (about 15 % of transfers have one; 5 % is the bar).
#[test]
fn spurious_timeouts_rise_with_load() {
    let low = spurious_share(&run(&web_users(20, "rr", "0s", "40s")));
    let high = spurious_share(&run(&web_users(300, "rr", "0s", "40s")));
    assert!(low < 0.01 && high > 0.05, "share with a spurious timeout: {low} at 20 users, {high} at 300");
}

fn error_of(radio: &str, route: &str) -> String {
    let text = format!("duration = \"5s\"\n[radio]\n{radio}\n[[flows]]\nname = \"f\"\nroute = {route}\nsize = \"10kB\"\n");
    from_toml(&text).expect_err("must be refused").path
}

/// Issue 12 §5: each malformed radio setting is refused naming its field.
#[test]
fn bad_radio_network_settings_name_the_field() {
    let cases = [
        ("cells = 0", "radio.cells"),
        ("cells = 5", "radio.cells"),
        ("radius = \"-500m\"", "radio.radius"),
        ("bler = 1.5", "radio.bler"),
        ("bler_low = -0.1", "radio.bler_low"),
        ("scheduler = \"fifo\"", "radio.scheduler"),
        ("users_per_tti = 16", "radio.users_per_tti"),
        ("users_per_tti = 4\ncodes = 3", "radio.users_per_tti"),
        ("speed = \"3mph\"", "radio.speed"),
        ("mcs = [{ sir_db = 0, size = \"720B\" }, { sir_db = -3.5, size = \"360B\" }]", "radio.mcs[1]"),
        ("tti = \"0ms\"", "radio.tti"),
        ("common_power = 1", "radio.common_power"),
        ("common_power = -0.2", "radio.common_power"),
        ("edge_snr_db = nan", "radio.edge_snr_db"),
        ("colour = 3", "radio.colour"),
    ];
    for (radio, path) in cases {
        assert_eq!(error_of(radio, "[\"hsdpa\"]"), path, "{radio}");
    }
    let text = "duration = \"5s\"\n[radio]\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nname = \"f\"\nroute = [\"hsdpa\", \"l\"]\nsize = \"10kB\"\n";
    assert_eq!(from_toml(text).expect_err("radio not last").path, "flows[0].route[0]");
    let uplink_through = text.replace("route = [\"hsdpa\", \"l\"]", "route = [\"l\", \"hsdpa\"]\nuplink = true");
    assert_eq!(from_toml(&uplink_through).expect_err("uplink must start at the radio").path, "flows[0].uplink");
    let web_uplink = "duration = \"5s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[generators]]\nkind = \"web\"\nusers = 1\nsize = \"1kB\"\nthink = \"1s\"\nroute = [\"l\"]\nuplink = true\n";
    assert_eq!(from_toml(web_uplink).expect_err("no radio to send from").path, "generators[0].uplink");
}
