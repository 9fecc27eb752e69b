use super::*;
use crate::rng::stream;
use crate::units::RandomVar;

fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

/// Everything a source sends up to `until`, waking it whenever it asks.
fn drain(s: &mut UdpSource, until: SimTime) -> Vec<Datagram> {
    let mut out = Vec::new();
    while let Some(t) = s.next_wakeup().filter(|&t| t <= until) {
        s.wake(t, &mut out);
    }
    out
}

/// 1 Mbit/s of 1250-byte payloads is one datagram every 10 ms (1250·8/10⁶ s); 125 kB is
/// exactly 100 of them, the last at 990 ms, and then the source is done.
#[test]
fn cbr_spacing_and_size() {
    let mut s = UdpSource::new(1e6, 1250, Some(125_000), ms(5), None);
    let sent = drain(&mut s, ms(10_000));
    assert_eq!(sent.len(), 100);
    assert!(sent.iter().enumerate().all(|(k, d)| d.seq == k as u64 && d.len == 1250 && d.sent_at == ms(5 + 10 * k as u64)));
    assert!(s.finished() && s.next_wakeup().is_none());
    assert_eq!((s.sent, s.bytes_sent), (100, 125_000));
}

/// A size that is not a multiple of the payload ends with a short datagram; size 0 sends
/// nothing.
#[test]
fn last_datagram_is_short() {
    let mut s = UdpSource::new(1e6, 1250, Some(1300), ms(0), None);
    let lens: Vec<u32> = drain(&mut s, ms(1000)).iter().map(|d| d.len).collect();
    assert_eq!(lens, vec![1250, 50]);
    assert!(UdpSource::new(1e6, 1250, Some(0), ms(0), None).next_wakeup().is_none());
}

/// A rate whose interval is not a whole number of nanoseconds keeps its long-run spacing:
/// 1200-byte payloads at 7 Mbit/s are 1.371428… ms apart, and datagram 7000 leaves at
/// 7000·9600/7e6 s = 9.6 s exactly.
#[test]
fn spacing_does_not_drift() {
    let mut s = UdpSource::new(7e6, 1200, None, ms(0), None);
    let sent = drain(&mut s, ms(9_600));
    assert_eq!(sent.len(), 7001);
    assert_eq!(sent[7000].sent_at, ms(9_600));
}

/// On 50 ms, off 50 ms, one datagram every 10 ms: 0–40 ms, then 100–140 ms, and so on; a
/// datagram due exactly at the end of an on period is not sent.
#[test]
fn on_off_periods_gate_the_source() {
    let on_off = OnOff { on: RvSampler::new(RandomVar::Const(0.05)), off: RvSampler::new(RandomVar::Const(0.05)), rng: stream(1, "t", "on-off") };
    let mut s = UdpSource::new(1e6, 1250, None, ms(0), Some(on_off));
    let times: Vec<u64> = drain(&mut s, ms(250)).iter().map(|d| d.sent_at.0 / 1_000_000).collect();
    assert_eq!(times, vec![0, 10, 20, 30, 40, 100, 110, 120, 130, 140, 200, 210, 220, 230, 240]);
}

/// Exponential on and off periods of mean 1 s: the long-run share of time on is 1/2, so the
/// rate is half the peak. Over 2000 s (about 1000 cycles; the on-share's standard error is
/// about 0.7/√1000·½ ≈ 1.1 %), within 5 %; seed fixed.
#[test]
fn exponential_on_off_halves_the_mean_rate() {
    let exp = || RvSampler::new(RandomVar::Exp { mean: 1.0 });
    let on_off = OnOff { on: exp(), off: exp(), rng: stream(7, "t", "on-off") };
    let mut s = UdpSource::new(80_000.0, 100, None, ms(0), Some(on_off));
    let n = drain(&mut s, ms(2_000_000)).len() as f64;
    let peak = 2000.0 * 100.0;
    assert!((n / peak - 0.5).abs() < 0.025, "{}", n / peak);
}

/// Over a lossless 40 ms path every datagram arrives after exactly 40 ms: mean and 99th
/// percentile 40 ms, no jitter, none late with a 150 ms playout, all late with 30 ms.
#[test]
fn sink_measures_a_fixed_path() {
    for (playout, late) in [(150, 0), (30, 50)] {
        let mut source = UdpSource::new(1e6, 1250, Some(62_500), ms(0), None);
        let mut sink = UdpSink::new(Some(SimDuration::from_millis(playout)));
        let first = drain(&mut source, ms(0));
        super::super::exchange(&mut source, &mut sink, first, SimDuration::from_millis(40), ms(10_000));
        assert_eq!((sink.received, sink.late, sink.bytes), (50, late, 62_500));
        assert_eq!(sink.bytes_in_time, if late == 0 { 62_500 } else { 0 });
        assert_eq!(sink.delay_mean_s(), Some(0.040));
        assert_eq!(sink.delay_p99_s(), Some(0.040));
        assert_eq!(sink.jitter_s(), Some(0.0));
    }
}

/// The 99th percentile by nearest rank: of delays 1..=200 ms it is the 198th smallest.
#[test]
fn p99_is_the_nearest_rank() {
    let mut sink = UdpSink::new(None);
    for k in (1..=200u64).rev() {
        sink.receive(ms(1000 + k), &Datagram { seq: k, len: 1, sent_at: ms(1000) }, &mut Vec::new());
    }
    assert_eq!(sink.delay_p99_s(), Some(0.198));
    assert!(UdpSink::new(None).delay_p99_s().is_none());
}

/// TCP's endpoints fit `Endpoint` as they are: a 100 kB transfer over a 20 ms path, driven by
/// `exchange` alone, delivers every byte and the sender completes.
#[test]
fn tcp_endpoints_run_through_the_interface() {
    use crate::spec::TcpSpec;
    use crate::tcp::{TcpReceiver, TcpSender};
    let resolved = TcpSpec::default().resolve(Some(100_000));
    let mut sender = TcpSender::new(resolved.sender);
    let mut receiver = TcpReceiver::new(resolved.receiver);
    let mut first = Vec::new();
    sender.open(SimTime::ZERO, &mut first);
    super::super::exchange(&mut sender, &mut receiver, first, SimDuration::from_millis(20), ms(60_000));
    assert_eq!(receiver.delivered(), 100_000);
    assert!(sender.completed_at().is_some());
}

/// A source woken exactly when it asks sends every datagram at its own send time, never
/// one dated in the past: on 30 ms, off 5 ms, one datagram every 10 ms (the off period is
/// shorter than the gap to the next send, so the source must wake at the period's end, 30 ms,
/// to start the next period at 35 ms).
#[test]
fn on_off_never_sends_in_the_past() {
    let on_off = OnOff { on: RvSampler::new(RandomVar::Const(0.03)), off: RvSampler::new(RandomVar::Const(0.005)), rng: stream(1, "t", "on-off") };
    let mut s = UdpSource::new(400_000.0, 500, None, ms(0), Some(on_off));
    let mut sent = Vec::new();
    while let Some(t) = s.next_wakeup().filter(|&t| t <= ms(100)) {
        let mut out = Vec::new();
        s.wake(t, &mut out);
        assert!(out.iter().all(|d| d.sent_at == t), "at {t:?}: {out:?}");
        sent.extend(out.iter().map(|d| d.sent_at.0 / 1_000_000));
    }
    assert_eq!(sent, vec![0, 10, 20, 35, 45, 55, 70, 80, 90]);
}
