//! DSACK-based detection (RFC 3708, 3): the sender counts the segments it retransmitted in
//! the episode; each DSACK block (RFC 2883) that reports one of them as a duplicate counts
//! it down. When every retransmission was reported, none was needed (Linux: `undo_retrans`
//! reaching 0 in `tcp_check_dsack`).
//!
//! Only duplicates at or above the episode's start (`marker`, SND.UNA then) count, so a
//! DSACK for an earlier episode cannot undo this one. Retransmissions still in flight when
//! the episode begins count as its own (Linux `tcp_init_undo`: `undo_retrans = retrans_out`).

use super::{AckReading, Detector, DsackBlock, EpisodeStart, Needs, Proof, Register, Verdict};

#[derive(Clone, Copy, Debug, Default)]
pub struct DsackDetector {
    marker: u64,
    retransmitted: u64,
    reported: u64,
}

impl DsackDetector {
    pub fn new(marker: u64) -> Self {
        DsackDetector { marker, retransmitted: 0, reported: 0 }
    }
}

impl Register for DsackDetector {
    const NEEDS: Needs = Needs { sack: true, dsack: true, ..Needs::NOTHING };
    const READS_ACKS: AckReading = AckReading::Never;

    fn start(at: &EpisodeStart) -> Self {
        DsackDetector { retransmitted: at.retransmissions_in_flight, ..DsackDetector::new(at.snd_una) }
    }
}

impl Detector for DsackDetector {
    fn on_retransmit(&mut self, _ts_val: u64) {
        self.retransmitted += 1;
    }

    /// Spurious once every retransmission of the episode has been reported; no ACK of new
    /// data revealed it, so the response gets no RTT sample.
    fn on_dsack(&mut self, block: &DsackBlock) -> Verdict {
        if block.start < self.marker || self.retransmitted == 0 {
            return Verdict::Undecided;
        }
        self.reported = (self.reported + block.segments).min(self.retransmitted);
        if self.reported == self.retransmitted {
            Verdict::Spurious(Proof { rtt_sample: false, ends_loss: false })
        } else {
            Verdict::Undecided
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(start: u64) -> DsackBlock {
        DsackBlock { start, end: start + 1, segments: 1 }
    }

    #[test]
    fn all_retransmissions_reported_is_spurious() {
        let mut d = DsackDetector::new(1000);
        assert_eq!(d.on_dsack(&block(1000)), Verdict::Undecided); // nothing retransmitted yet
        d.on_retransmit(0);
        d.on_retransmit(0);
        assert_eq!(d.on_dsack(&block(500)), Verdict::Undecided); // below the marker: an older episode's duplicate
        assert_eq!(d.on_dsack(&block(1000)), Verdict::Undecided);
        assert!(matches!(d.on_dsack(&block(2000)), Verdict::Spurious(_)));
    }
}
