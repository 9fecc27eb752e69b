//! The radio network's TTI under the readings of paper 000's code multiplexing and radio
//! blocks (`radio.multiplex`, `radio.multiplex_split`, `radio.concatenation`): hand-computed
//! TTIs in one cell, then paper 000's seven cells with 150 web users under each reading.

use super::*;
use crate::net::Offer;
use crate::spec::from_toml;

/// One cell without shadowing or block errors, with `ues` users and `radio` spliced into the
/// `[radio]` table. With no other cell and 20 % of the power on common channels a user's SIR
/// alone is 0.8 / (0.1 · (0.8 + 0.2)) = 8 (9.03 dB) wherever it stands, Table 1's 1800 B.
fn one_cell(radio: &str, ues: usize) -> RadioNetwork {
    let spec: RadioSpec = toml::from_str(&format!("cells = 1\nshadowing_db = 0\nbler = 0\n{radio}")).expect("a radio table");
    RadioNetwork::new(&spec, ues, DirId(0), 1, RadioRecording::default())
}

/// Queues packets of `sizes` for every user of `net` (user u's ids from 100 · u) and returns
/// the network with the events its offers scheduled.
fn backlogged(mut net: RadioNetwork, sizes: &[&[u32]]) -> (RadioNetwork, EventQueue) {
    let mut events = EventQueue::default();
    for (ue, packets) in sizes.iter().enumerate() {
        for (i, &bytes) in packets.iter().enumerate() {
            let offer = net.offer(SimTime::ZERO, ue as u32, PacketId(100 * ue as u32 + i as u32), bytes, &mut events);
            assert_eq!(offer, Offer::Accepted);
        }
    }
    (net, events)
}

/// Runs cell 0's TTI number `n` (starting at n · 2 ms) and returns the bytes each user's
/// block carried.
fn tti(net: &mut RadioNetwork, events: &mut EventQueue, n: u64) -> Vec<u64> {
    let before: Vec<u64> = net.ues.iter().map(|u| u.buffer.backlog()).collect();
    net.on_tti(SimTime(n * 2_000_000), 0, events, &mut Vec::new());
    net.ues.iter().zip(before).map(|(u, b)| b - u.buffer.backlog()).collect()
}

/// Two users with 3000 B each. Under `"fill"` the first (round robin's tie goes to user 0)
/// fills its 1800 B block alone. Under `"backlogged"` both are served: each at the 2-user SIR
/// S = 0.8/2 = 0.4 against 0.1 · (0.4 + 0.2) + 0.4 · 0.8 · 1/2 = 0.22, i.e. 1.81818
/// (2.5964 dB); sharing the codes, 2 · 1.81818 = 5.6067 dB reaches the 1080 B row, so each
/// carries 1080 / 2 = 540 B; sharing the power alone, 2.5964 dB reaches the 720 B row, and
/// each carries all 720 B.
#[test]
fn backlogged_serves_two_users_even_when_the_first_fills_its_block() {
    let two = [&[1500, 1500][..], &[1500, 1500]];
    let run = |radio: &str| {
        let (mut net, mut events) = backlogged(one_cell(radio, 2), &two);
        let carried = tti(&mut net, &mut events, 0);
        (carried, net.report(SimTime(2_000_000))[0].mean_served)
    };
    assert_eq!(run(""), (vec![1800, 0], Some(1.0)));
    assert_eq!(run("multiplex = \"fill\""), (vec![1800, 0], Some(1.0)));
    assert_eq!(run("multiplex = \"backlogged\""), (vec![540, 540], Some(2.0)));
    assert_eq!(run("multiplex = \"backlogged\"\nmultiplex_split = \"power\""), (vec![720, 720], Some(2.0)));
}

/// Three backlogged users at the 3-user SIR 1.02564 (0.1100 dB,
/// `sir::tests::code_multiplexing_with_common_channels`): sharing the codes, 3 · 1.02564 =
/// 4.8812 dB reaches the 1080 B row, 360 B each, and the cell records 4.8812 dB; sharing the
/// power alone, 0.11 dB reaches the 720 B row, 720 B each, recorded at 0.1100 dB.
#[test]
fn power_split_gives_each_user_the_whole_block_of_its_row() {
    let three = [&[1500, 1500][..], &[1500, 1500], &[1500, 1500]];
    let run = |radio: &str| {
        let (mut net, mut events) = backlogged(one_cell(&format!("multiplex = \"backlogged\"\n{radio}"), 3), &three);
        let carried = tti(&mut net, &mut events, 0);
        (carried, net.report(SimTime(2_000_000))[0].mean_sir_db.unwrap())
    };
    let (codes, codes_db) = run("");
    assert_eq!(codes, vec![360, 360, 360]);
    assert!((codes_db - 4.8812).abs() < 1e-4, "{codes_db}");
    let (power, power_db) = run("multiplex_split = \"power\"");
    assert_eq!(power, vec![720, 720, 720]);
    assert!((power_db - 0.1100).abs() < 1e-4, "{power_db}");
    assert_eq!(run("multiplex_split = \"codes-and-power\"").0, codes);
}

/// A lone user with [1040, 40] and 1800 B blocks: with concatenation one block carries both
/// (1080 B) and both packets reach the user; without, the first block carries 1040 B (packet
/// 0 alone, 760 B of padding) and the second the 40 B.
#[test]
fn without_concatenation_a_lone_user_gets_one_packet_per_block() {
    let packets = [&[1040, 40][..]];
    let (mut on, mut events) = backlogged(one_cell("", 1), &packets);
    assert_eq!(tti(&mut on, &mut events, 0), vec![1080]);
    assert_eq!(on.cells[0].delivering, vec![PacketId(0), PacketId(1)]);
    let (mut off, mut events) = backlogged(one_cell("concatenation = false", 1), &packets);
    assert_eq!(tti(&mut off, &mut events, 0), vec![1040]);
    assert_eq!(off.cells[0].delivering, vec![PacketId(0)]);
    assert_eq!(tti(&mut off, &mut events, 1), vec![40]);
    let cell = &off.report(SimTime(4_000_000))[0];
    assert_eq!((cell.blocks_sent, cell.bytes), (2, 1080));
}

/// Under `"fill"` without concatenation the test is what the chosen can put in their blocks:
/// user 0 has 2080 B but its head packet is 1040 B < 1800 B, so user 1 joins (k = 2, 540 B
/// each: user 0 sends 540 B of its head packet); with concatenation its backlog fills the
/// block alone (1800 B). A 2000 B head packet fills the block either way.
#[test]
fn fill_without_concatenation_counts_the_head_packet() {
    let short_head = [&[1040, 1040][..], &[1500, 1500]];
    let run = |radio: &str, sizes: &[&[u32]]| {
        let (mut net, mut events) = backlogged(one_cell(radio, 2), sizes);
        tti(&mut net, &mut events, 0)
    };
    assert_eq!(run("", &short_head), vec![1800, 0]);
    assert_eq!(run("concatenation = false", &short_head), vec![540, 540]);
    assert_eq!(run("concatenation = false", &[&[2000, 40], &[1500]]), vec![1800, 0]);
}

/// Paper 000's system (seven cells, 150 web users, round robin, SACK with a 200 ms minimum
/// RTO) for 10 s.
fn web_150(radio: &str) -> crate::RunResult {
    let text = format!(
        "duration = \"10s\"\n[radio]\n{radio}\n[[generators]]\nkind = \"web\"\nusers = 150\nsize = \"pareto(mean=25000B, shape=1.1)\"\nthink = \"exp(1.5s)\"\nroute = [\"hsdpa\"]\ntcp = {{ stack = \"ns2-sack1\", min_rto = \"200ms\" }}\n"
    );
    let scenario = from_toml(&text).unwrap_or_else(|e| panic!("{radio:?}: {e}"));
    let r = crate::run(&scenario, None).unwrap_or_else(|e| panic!("{radio:?}: {e}"));
    assert_eq!(r.cells.len(), 7);
    let finished = r.flows.iter().filter(|f| f.end_s.is_some()).count();
    assert!(finished > 100, "{radio:?}: {finished} transfers finished");
    for f in r.flows.iter().filter(|f| f.end_s.is_some()) {
        assert_eq!(Some(f.bytes), f.size, "{radio:?}: transfer {} delivered {} B", f.name, f.bytes);
    }
    r
}

/// Users served per busy TTI and bytes per intact block, over the seven cells.
fn per_tti(r: &crate::RunResult) -> (f64, f64) {
    let sum = |f: fn(&crate::results::CellRow) -> u64| r.cells.iter().map(f).sum::<u64>() as f64;
    let served = r.cells.iter().map(|c| c.mean_served.unwrap_or(0.0) * c.ttis_busy as f64).sum::<f64>();
    (served / sum(|c| c.ttis_busy), sum(|c| c.bytes) / sum(|c| c.blocks_sent - c.blocks_lost))
}

/// Every reading runs paper 000's system (transfers finish with their bytes, packets are
/// conserved: `run` checks both), the defaults written out give the tables of the defaults
/// left out, and each reading moves what it should: more users per TTI when every
/// backlogged user shares it, larger blocks when each keeps a whole block, smaller ones when
/// a block carries one packet.
#[test]
fn every_reading_runs_paper_000s_system() {
    let default = web_150("");
    let written = web_150("multiplex = \"fill\"\nmultiplex_split = \"codes-and-power\"\nconcatenation = true");
    assert_eq!((&written.flows, &written.cells), (&default.flows, &default.cells));
    let (served, block) = per_tti(&default);
    let (backlogged, _) = per_tti(&web_150("multiplex = \"backlogged\""));
    assert!(backlogged > served, "{backlogged} users per TTI with \"backlogged\", {served} with \"fill\"");
    let (_, whole) = per_tti(&web_150("multiplex_split = \"power\""));
    assert!(whole > block, "{whole} B per block with \"power\", {block} B with \"codes-and-power\"");
    let (_, single) = per_tti(&web_150("concatenation = false"));
    assert!(single < block, "{single} B per block without concatenation, {block} B with");
    web_150("multiplex = \"backlogged\"\nmultiplex_split = \"power\"\nconcatenation = false");
}

/// A bad reading is refused naming its field.
#[test]
fn bad_multiplexing_settings_name_the_field() {
    let cases = [
        ("multiplex = \"all\"", "radio.multiplex"),
        ("multiplex = 3", "radio.multiplex"),
        ("multiplex_split = \"none\"", "radio.multiplex_split"),
        ("multiplex_split = \"codes\"", "radio.multiplex_split"),
        ("concatenation = \"no\"", "radio.concatenation"),
    ];
    for (radio, path) in cases {
        let text = format!("duration = \"5s\"\n[radio]\n{radio}\n[[flows]]\nname = \"f\"\nroute = [\"hsdpa\"]\nsize = \"10kB\"\n");
        assert_eq!(from_toml(&text).expect_err("must be refused").path, path, "{radio}");
    }
}
