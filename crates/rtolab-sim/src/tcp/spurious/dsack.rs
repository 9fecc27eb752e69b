//! DSACK-based detection (RFC 3708, 3): the sender counts the segments it retransmitted in
//! the episode; each DSACK block (RFC 2883) that reports one of them as a duplicate counts
//! it down. When every retransmission was reported, none was needed (Linux: `undo_retrans`
//! reaching 0 in `tcp_check_dsack`).
//!
//! Only duplicates at or above the episode's start (`marker`, SND.UNA then) count, so a
//! DSACK for an earlier episode cannot undo this one.

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

    pub fn on_retransmit(&mut self) {
        self.retransmitted += 1;
    }

    /// A DSACK block [start, end) covering `segments` segments; returns whether every
    /// retransmission of the episode has now been reported.
    pub fn on_dsack(&mut self, start: u64, segments: u64) -> bool {
        if start < self.marker || self.retransmitted == 0 {
            return false;
        }
        self.reported = (self.reported + segments).min(self.retransmitted);
        self.reported == self.retransmitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_retransmissions_reported_is_spurious() {
        let mut d = DsackDetector::new(1000);
        assert!(!d.on_dsack(1000, 1)); // nothing retransmitted yet
        d.on_retransmit();
        d.on_retransmit();
        assert!(!d.on_dsack(500, 1)); // below the marker: an older episode's duplicate
        assert!(!d.on_dsack(1000, 1));
        assert!(d.on_dsack(2000, 1));
    }
}
