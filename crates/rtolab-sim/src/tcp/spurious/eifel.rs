//! Eifel detection (RFC 3522, 3.2) with timestamps.
//!
//! (1) When the first retransmission of the episode is sent, store its timestamp in
//! RetransmitTS. (3) Wait for the first acceptable ACK (one that acknowledges new data).
//! (4) If that ACK echoes a timestamp smaller than RetransmitTS, it was triggered by an
//! original transmission: the retransmission was spurious. Otherwise it was not; either way
//! the detector is done.

use super::{AcceptableAck, Detector, EpisodeStart, Needs, Proof, Register, Verdict};

#[derive(Clone, Copy, Debug, Default)]
pub struct EifelDetector {
    retransmit_ts: Option<u64>,
    done: bool,
}

impl Register for EifelDetector {
    const NEEDS: Needs = Needs { timestamps: true, ..Needs::NOTHING };

    /// Under Linux's bookkeeping an earlier retransmission still out is the first one
    /// (`tcp_packet_delayed` reads `tp->retrans_stamp`, set by the oldest outstanding one).
    fn start(at: &EpisodeStart) -> Self {
        EifelDetector { retransmit_ts: at.retrans_stamp, done: false }
    }
}

impl Detector for EifelDetector {
    /// Step (1): only the first retransmission of the episode counts.
    fn on_retransmit(&mut self, ts_val: u64) {
        if self.retransmit_ts.is_none() {
            self.retransmit_ts = Some(ts_val);
        }
    }

    /// Steps (3)-(4) on an acceptable ACK: spurious when it echoes a timestamp older than
    /// RetransmitTS, genuine otherwise; undecided without a timestamp or before anything
    /// was resent. The ACK's RTT sample is valid for the response (RFC 4015 3.2).
    fn on_acceptable_ack(&mut self, ack: &AcceptableAck) -> Verdict {
        let Some(rts) = self.retransmit_ts else {
            return Verdict::Undecided;
        };
        if self.done || ack.ts_ecr == 0 {
            return Verdict::Undecided;
        }
        self.done = true;
        if ack.ts_ecr < rts {
            Verdict::Spurious(Proof { rtt_sample: true, ends_loss: false })
        } else {
            Verdict::Genuine
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(ts_ecr: u64) -> AcceptableAck {
        AcceptableAck { ts_ecr, acked: 1, covers_retransmission: true, covers_recover: false, beyond_recover: false, acks_never_resent: false }
    }

    #[test]
    fn older_echo_is_spurious_and_decides_once() {
        let spurious = Verdict::Spurious(Proof { rtt_sample: true, ends_loss: false });
        let mut e = EifelDetector::default();
        assert_eq!(e.on_acceptable_ack(&ack(5)), Verdict::Undecided); // nothing retransmitted yet
        e.on_retransmit(100);
        e.on_retransmit(300); // a later retransmission does not move RetransmitTS
        assert_eq!(e.on_acceptable_ack(&ack(99)), spurious);
        assert_eq!(e.on_acceptable_ack(&ack(50)), Verdict::Undecided);
        let mut e = EifelDetector::default();
        e.on_retransmit(100);
        assert_eq!(e.on_acceptable_ack(&ack(100)), Verdict::Genuine); // echoes the retransmission
    }

    /// A recovery that begins while a retransmission of an earlier one (TSval 100) is still
    /// out: an ACK echoing that retransmission (150 > 100) is no proof, although it is older
    /// than this episode's own first retransmission (TSval 200); Linux compares with
    /// `tp->retrans_stamp`, the older one.
    #[test]
    fn an_outstanding_earlier_retransmission_is_the_reference() {
        let at = EpisodeStart { snd_una: 0, sack: true, retransmissions_in_flight: 1, retrans_stamp: Some(100) };
        let mut e = EifelDetector::start(&at);
        e.on_retransmit(200);
        assert_eq!(e.on_acceptable_ack(&ack(150)), Verdict::Genuine);
        let mut e = EifelDetector::start(&EpisodeStart { retrans_stamp: None, ..at });
        e.on_retransmit(200);
        assert!(matches!(e.on_acceptable_ack(&ack(150)), Verdict::Spurious(_)), "RFC 3522 alone takes its own first one");
    }
}
