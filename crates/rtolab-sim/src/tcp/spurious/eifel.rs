//! Eifel detection (RFC 3522, 3.2) with timestamps.
//!
//! (1) When the first retransmission of the episode is sent, store its timestamp in
//! RetransmitTS. (3) Wait for the first acceptable ACK (one that acknowledges new data).
//! (4) If that ACK echoes a timestamp smaller than RetransmitTS, it was triggered by an
//! original transmission: the retransmission was spurious. Otherwise it was not; either way
//! the detector is done.

#[derive(Clone, Copy, Debug, Default)]
pub struct EifelDetector {
    retransmit_ts: Option<u64>,
    done: bool,
}

impl EifelDetector {
    /// Step (1): only the first retransmission of the episode counts.
    pub fn on_retransmit(&mut self, ts_val: u64) {
        if self.retransmit_ts.is_none() {
            self.retransmit_ts = Some(ts_val);
        }
    }

    /// Steps (3)-(4) on an acceptable ACK: `Some(true)` when spurious, `Some(false)` when the
    /// retransmission was needed, `None` when undecided (no timestamp or nothing sent yet).
    pub fn on_acceptable_ack(&mut self, ts_ecr: u64) -> Option<bool> {
        let rts = self.retransmit_ts?;
        if self.done || ts_ecr == 0 {
            return None;
        }
        self.done = true;
        Some(ts_ecr < rts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_echo_is_spurious_and_decides_once() {
        let mut e = EifelDetector::default();
        assert_eq!(e.on_acceptable_ack(5), None); // nothing retransmitted yet
        e.on_retransmit(100);
        e.on_retransmit(300); // a later retransmission does not move RetransmitTS
        assert_eq!(e.on_acceptable_ack(99), Some(true));
        assert_eq!(e.on_acceptable_ack(50), None);
        let mut e = EifelDetector::default();
        e.on_retransmit(100);
        assert_eq!(e.on_acceptable_ack(100), Some(false)); // echoes the retransmission
    }
}
