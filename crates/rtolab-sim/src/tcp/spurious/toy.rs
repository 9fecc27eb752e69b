//! A toy detector for the registry's test (registered under `cfg(test)` only): every
//! timeout is spurious, declared on the first acceptable ACK after it.

use super::{AcceptableAck, Detector, EpisodeStart, Needs, Proof, Register, TimeoutFacts, Verdict};

#[derive(Clone, Copy, Debug, Default)]
pub struct EveryTimeout {
    timed_out: bool,
}

impl Register for EveryTimeout {
    const NEEDS: Needs = Needs::NOTHING;

    fn start(_: &EpisodeStart) -> Self {
        EveryTimeout::default()
    }
}

impl Detector for EveryTimeout {
    fn on_timeout(&mut self, _at: &TimeoutFacts) -> bool {
        self.timed_out = true;
        false
    }

    fn on_acceptable_ack(&mut self, _ack: &AcceptableAck) -> Verdict {
        if self.timed_out {
            Verdict::Spurious(Proof { rtt_sample: false, ends_loss: false })
        } else {
            Verdict::Undecided
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::TcpSpec;
    use crate::tcp::segment::{FLAG_ACK, FLAG_SYN};
    use crate::tcp::spurious::{DetectorName, Detectors, Response};
    use crate::tcp::{LossState, Segment, SenderNote, TcpSender};
    use crate::time::{SimDuration, SimTime};

    /// The toy plugs in through its registry entry alone: the configuration names it, the
    /// sender starts it with the episode, tells it of the timeout and acts on its verdict
    /// (counted, then the undo response) without knowing it.
    #[test]
    fn a_registered_toy_detector_runs_in_the_sender() {
        let mut cfg = TcpSpec::default().resolve(Some(100_000)).sender;
        cfg.mss = 1000;
        cfg.initial_window = 4000;
        cfg.timestamps = false;
        cfg.detect = Detectors::of(&[DetectorName::Toy]);
        cfg.response = Response::Undo;
        let mut s = TcpSender::new(cfg);
        let mut out = vec![];
        let at = |ms: u64| SimTime(SimDuration::from_millis(ms).as_nanos());
        s.open(SimTime::ZERO, &mut out);
        s.on_segment(at(100), &Segment { flags: FLAG_SYN | FLAG_ACK, wnd: 1 << 30, ..Default::default() }, &mut out);
        let cwnd = s.cwnd();
        let t = s.next_wakeup().expect("the initial window is out");
        s.on_timer(t, &mut out);
        assert_eq!(s.state(), LossState::Loss { point: 4000 });
        assert_eq!(s.cwnd(), 1000);
        let ack = Segment { flags: FLAG_ACK, ack: 1000, wnd: 1 << 30, ..Default::default() };
        s.on_segment(t + SimDuration::from_millis(10), &ack, &mut out);
        assert_eq!((s.stats.spurious_detected, s.stats.undos), (1, 1));
        assert_eq!(s.state(), LossState::Open);
        assert!(s.cwnd() >= cwnd, "the undo gives the window back");
        assert!(s.drain_notes().any(|n| n == SenderNote::SpuriousDetected { first: 0, last: 0 }));
        // And the spec reads the name from the registry.
        assert_eq!(DetectorName::Toy.name(), "toy");
        assert!(DetectorName::all().contains(&DetectorName::Toy));
    }
}
