//! Builds the result tables at the end of a run.

use super::Simulation;
use crate::fabric::Parts;
use crate::results::{FlowRow, RunMeta, RunResult};
use crate::time::SimTime;

impl Simulation {
    pub(super) fn report(self, end: SimTime) -> RunResult {
        let Simulation { net, world: mut w } = self;
        let Parts { links: mut links_dirs, mut radio, captures, events: queue, packets } = net.into_parts();
        let flows = w
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let s = &f.sender.stats;
                let finished = f.sender.completed_at();
                let until = finished.unwrap_or(end);
                let elapsed = until.since(f.start).as_secs_f64();
                let rate = |bytes: u64| (f.started && elapsed > 0.0).then(|| bytes as f64 * 8.0 / elapsed);
                let mean = |sum: f64, n: u64| (n > 0).then(|| sum / n as f64);
                let (kind, generator) = f.origin.kind_and_generator();
                FlowRow {
                    flow: i as u64,
                    name: f.name.clone(),
                    kind,
                    generator,
                    start_s: f.start.as_secs_f64(),
                    end_s: finished.map(|t| t.as_secs_f64()),
                    completion_s: finished.map(|t| t.since(f.start).as_secs_f64()),
                    size: f.size,
                    bytes: f.check.delivered,
                    goodput_bps: rate(f.check.delivered),
                    throughput_bps: rate(s.payload_bytes_sent),
                    segments_sent: s.segments_sent,
                    retransmits: s.retransmits,
                    retransmitted_bytes: s.retransmitted_bytes,
                    timeouts: s.timeouts,
                    spurious_timeouts: f.oracle.spurious(),
                    spurious_detected: s.spurious_detected,
                    spurious_detected_correct: f.oracle.detected_correctly(),
                    undos: s.undos,
                    dsacks: s.dsacks_received,
                    syn_timeouts: s.syn_timeouts,
                    spurious_syn_timeouts: f.oracle.spurious_syn(),
                    fast_retransmits: s.fast_retransmits,
                    duplicate_bytes: f.receiver.stats.duplicate_bytes,
                    icmp_drop: s.icmp_drop_received,
                    icmp_defer: s.icmp_defer_received,
                    icmp_early_timeouts: s.icmp_cases[1],
                    icmp_shrinks: s.icmp_cases[2],
                    icmp_extensions: s.icmp_extensions,
                    mean_rto_s: mean(s.rto_sum_s, s.rto_samples),
                    mean_rtt_s: mean(s.rtt_sum_s, s.rtt_samples),
                    rtt_samples: Some(s.rtt_samples),
                    timeout_idle_s: Some(s.timeout_idle_s),
                }
            })
            .collect();

        let events = match w.events.take() {
            Some(log) => log.into_rows(&w.flows, &links_dirs.iter().map(|l| l.cfg.name()).collect::<Vec<_>>()),
            None => Vec::new(),
        };
        let n_flows = w.flows.len() as u32;
        let mut entities: Vec<String> = w.flows.iter().map(|f| f.name.clone()).collect();
        let mut links = Vec::with_capacity(links_dirs.len());
        for (d, l) in links_dirs.iter_mut().enumerate().take(w.reported_links) {
            l.finish(end);
            entities.push(l.cfg.name());
            l.take_series(n_flows + d as u32, &mut w.series);
            links.push(l.report(end));
        }
        if let Some(radio) = &mut radio {
            let first = entities.len() as u32;
            entities.extend(radio.series_entities());
            radio.take_series(first, &mut w.series);
        }
        w.series.entities = entities;
        let meta = RunMeta {
            scenario: w.scenario_name.clone(),
            seed: w.seed,
            sim_time_s: end.as_secs_f64(),
            events: queue.processed(),
            data_packets: w.data_packets,
            peak_live_packets: packets.capacity() as u64,
        };
        let pcaps = captures.into_files();
        let cells = radio.as_ref().map(|r| r.report(end)).unwrap_or_default();
        RunResult { flows, links, cells, series: w.series, events, meta, pcaps }
    }
}
