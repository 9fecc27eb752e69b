//! F-RTO (RFC 5682): after a timeout, retransmit only the first unacknowledged segment and
//! then send new data; if the ACKs that follow acknowledge data that was never
//! retransmitted, the timeout was spurious.
//!
//! Basic algorithm (RFC 5682, 2.1):
//! 1. On the timeout, retransmit the first unacknowledged segment and store SND.MAX in
//!    `recover` — unless already in RTO recovery with `recover` ≥ SND.UNA (a repeated
//!    timeout): then recover conventionally.
//! 2. First ACK after the timeout: (a) a duplicate ACK, or one that acknowledges `recover`,
//!    or one that does not acknowledge all the retransmitted data → revert to conventional
//!    recovery (go-back-N). (b) Otherwise send up to two new segments and go to step 3; with
//!    no new data to send, revert (the RECOMMENDED choice).
//! 3. Second ACK: (a) a duplicate ACK → cwnd ≤ 3·SMSS, conventional recovery.
//!    (b) an ACK of new data → the timeout was spurious.
//!
//! SACK-enhanced algorithm (RFC 5682, 3.1): in step 2, duplicate ACKs only update the
//! scoreboard; an ACK covering `recover` reverts with cwnd ≤ 2·SMSS. In step 3, an ACK that
//! (S)ACKs only the new data above `recover`, or a duplicate that SACKs nothing new below it,
//! reverts with cwnd ≤ 3·SMSS; an ACK that acknowledges or SACKs pre-timeout data below
//! `recover` for the first time declares the timeout spurious.

use super::{AcceptableAck, AckReading, Detector, DuplicateAck, EpisodeStart, Needs, Proof, Register, TimeoutFacts, Verdict};

/// Which form of the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoVariant {
    Basic,
    Sack,
}

/// What F-RTO reads of an ACK that arrived while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoAck {
    /// SND.UNA advanced. `covers_retransmission`: the whole retransmitted segment is
    /// acknowledged; `covers_recover`: everything up to `recover` is; `beyond_recover`: data
    /// above `recover` (sent after the timeout) is acknowledged or SACKed too.
    New { covers_retransmission: bool, covers_recover: bool, beyond_recover: bool },
    /// A duplicate ACK; `new_sack_below_recover`: it SACKs pre-timeout data for the first
    /// time; `sacked_above_recover`: it SACKs data sent after the timeout.
    Dup { new_sack_below_recover: bool, sacked_above_recover: bool },
}

/// What F-RTO concludes (`Verdict` for the sender: `Wait` is undecided, `SendNew` asks
/// for two new segments, `Revert` is `GoBack`, `Spurious` ends RTO recovery first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrtoAction {
    /// Keep waiting.
    Wait,
    /// Step 2b: send up to two new segments (revert if there are none).
    SendNew,
    /// Conventional RTO recovery: go back to SND.UNA, with cwnd at most `cwnd_cap` segments.
    Revert { cwnd_cap: Option<u64> },
    /// Step 3b: the timeout was spurious.
    Spurious,
}

/// Where F-RTO stands after a timeout (shared with Linux's form, `frto_linux.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Not armed (Linux `tp->frto == 0`).
    Idle,
    /// Armed; no new data sent since the timeout (step 2).
    AwaitFirst,
    /// New data was sent after SND.UNA advanced (step 3; Linux `after(snd_nxt, high_seq)`).
    AwaitSecond,
}

#[derive(Clone, Copy, Debug)]
pub struct Frto {
    variant: FrtoVariant,
    step: Step,
}

impl Frto {
    pub fn new(variant: FrtoVariant) -> Self {
        Frto { variant, step: Step::Idle }
    }

    pub fn running(&self) -> bool {
        self.step != Step::Idle
    }

    /// Step 1. `repeated`: already in RTO recovery with `recover` ≥ SND.UNA. Returns
    /// whether F-RTO runs (the sender then must not go back to SND.UNA).
    pub fn on_timeout(&mut self, repeated: bool) -> bool {
        self.step = if repeated { Step::Idle } else { Step::AwaitFirst };
        self.running()
    }

    /// Ends the algorithm (a revert, a verdict, or the end of the episode).
    pub fn stop(&mut self) {
        self.step = Step::Idle;
    }

    pub fn on_ack(&mut self, ack: FrtoAck) -> FrtoAction {
        use FrtoAck::{Dup, New};
        use FrtoVariant::{Basic, Sack};
        let action = match (self.step, ack, self.variant) {
            (Step::Idle, _, _) => return FrtoAction::Wait,
            // Step 2.
            (Step::AwaitFirst, Dup { .. }, Sack) => return FrtoAction::Wait,
            (Step::AwaitFirst, Dup { .. }, Basic) => FrtoAction::Revert { cwnd_cap: None },
            (Step::AwaitFirst, New { covers_recover: true, .. }, Sack) => FrtoAction::Revert { cwnd_cap: Some(2) },
            (Step::AwaitFirst, New { covers_recover: true, .. } | New { covers_retransmission: false, .. }, _) => {
                FrtoAction::Revert { cwnd_cap: None }
            }
            (Step::AwaitFirst, New { .. }, _) => {
                self.step = Step::AwaitSecond;
                return FrtoAction::SendNew;
            }
            // Step 3.
            (Step::AwaitSecond, New { beyond_recover: true, .. }, Sack) => FrtoAction::Revert { cwnd_cap: Some(3) },
            (Step::AwaitSecond, New { .. }, _) => FrtoAction::Spurious,
            (Step::AwaitSecond, Dup { sacked_above_recover: true, .. }, Sack) => FrtoAction::Revert { cwnd_cap: Some(3) },
            (Step::AwaitSecond, Dup { new_sack_below_recover: true, .. }, Sack) => FrtoAction::Spurious,
            (Step::AwaitSecond, Dup { .. }, _) => FrtoAction::Revert { cwnd_cap: Some(3) },
        };
        self.step = Step::Idle;
        action
    }
}

impl Register for Frto {
    const NEEDS: Needs = Needs::NOTHING;
    const READS_ACKS: AckReading = AckReading::WhileHolding;

    /// The SACK-enhanced algorithm (RFC 5682 3.1) on a SACK connection, the basic one else.
    fn start(at: &EpisodeStart) -> Self {
        Frto::new(if at.sack { FrtoVariant::Sack } else { FrtoVariant::Basic })
    }
}

impl From<FrtoAction> for Verdict {
    fn from(action: FrtoAction) -> Verdict {
        match action {
            FrtoAction::Wait => Verdict::Undecided,
            // Step 2b: "transmit up to two new (previously unsent) segments".
            FrtoAction::SendNew => Verdict::SendNew { segments: 2 },
            FrtoAction::Revert { cwnd_cap } => Verdict::GoBack { cwnd_cap },
            // Step 3b: the sender leaves RTO recovery (new data goes on, nothing is resent)
            // before the response; the verdict comes from ACKs of never-resent data, so no
            // RTT sample goes with it.
            FrtoAction::Spurious => Verdict::Spurious(Proof { rtt_sample: false, ends_loss: true }),
        }
    }
}

/// F-RTO holds what is sent after a timeout from step 1 until it reverts or decides.
impl Detector for Frto {
    fn on_timeout(&mut self, at: &TimeoutFacts) -> bool {
        Frto::on_timeout(self, at.repeated)
    }

    fn holds_recovery(&self) -> bool {
        self.running()
    }

    fn release(&mut self) {
        self.stop();
    }

    fn on_acceptable_ack(&mut self, ack: &AcceptableAck) -> Verdict {
        self.on_ack(FrtoAck::New {
            covers_retransmission: ack.covers_retransmission,
            covers_recover: ack.covers_recover,
            beyond_recover: ack.beyond_recover,
        })
        .into()
    }

    fn on_duplicate_ack(&mut self, dup: &DuplicateAck) -> Verdict {
        self.on_ack(FrtoAck::Dup { new_sack_below_recover: dup.new_sack_below_recover, sacked_above_recover: dup.sacked_above_recover })
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: FrtoAck = FrtoAck::New { covers_retransmission: true, covers_recover: false, beyond_recover: false };
    const DUP_NEW_SACK: FrtoAck = FrtoAck::Dup { new_sack_below_recover: true, sacked_above_recover: false };
    const DUP: FrtoAck = FrtoAck::Dup { new_sack_below_recover: false, sacked_above_recover: false };

    #[test]
    fn two_new_acks_declare_spurious() {
        let mut f = Frto::new(FrtoVariant::Basic);
        assert!(f.on_timeout(false));
        assert_eq!(f.on_ack(NEW), FrtoAction::SendNew);
        assert_eq!(f.on_ack(NEW), FrtoAction::Spurious);
        assert!(!f.running());
    }

    #[test]
    fn basic_reverts_on_a_first_duplicate_and_sack_waits() {
        let mut f = Frto::new(FrtoVariant::Basic);
        f.on_timeout(false);
        assert_eq!(f.on_ack(DUP_NEW_SACK), FrtoAction::Revert { cwnd_cap: None });
        let mut f = Frto::new(FrtoVariant::Sack);
        f.on_timeout(false);
        assert_eq!(f.on_ack(DUP_NEW_SACK), FrtoAction::Wait);
        assert_eq!(f.on_ack(NEW), FrtoAction::SendNew);
        assert_eq!(f.on_ack(DUP), FrtoAction::Revert { cwnd_cap: Some(3) });
        // SACK 3b: a duplicate that SACKs pre-timeout data is proof enough.
        let mut f = Frto::new(FrtoVariant::Sack);
        f.on_timeout(false);
        f.on_ack(NEW);
        assert_eq!(f.on_ack(DUP_NEW_SACK), FrtoAction::Spurious);
        // 3a: SACK of the new segments sent in step 2b (above `recover`) reverts.
        let mut f = Frto::new(FrtoVariant::Sack);
        f.on_timeout(false);
        f.on_ack(NEW);
        let above = FrtoAck::Dup { new_sack_below_recover: true, sacked_above_recover: true };
        assert_eq!(f.on_ack(above), FrtoAction::Revert { cwnd_cap: Some(3) });
    }

    #[test]
    fn acking_recover_or_a_repeated_timeout_is_conventional() {
        let mut f = Frto::new(FrtoVariant::Basic);
        f.on_timeout(false);
        let all = FrtoAck::New { covers_retransmission: true, covers_recover: true, beyond_recover: false };
        assert_eq!(f.on_ack(all), FrtoAction::Revert { cwnd_cap: None });
        assert!(!f.on_timeout(true));
    }
}
