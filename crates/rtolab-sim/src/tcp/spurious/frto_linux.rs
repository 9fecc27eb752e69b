//! F-RTO as Linux runs it (`net/ipv4/tcp_input.c`, 6.x: `tcp_enter_loss` arms `tp->frto`,
//! `tcp_process_loss` reads the ACKs). It follows RFC 5682's SACK-enhanced algorithm (3.1)
//! for SACK and non-SACK connections alike, with three differences from `frto.rs`:
//!
//! - **Arming** (`tcp_enter_loss`): `frto = sysctl_tcp_frto && (new_recovery ||
//!   icsk_retransmits)`, where `new_recovery` is a state below Recovery. So a timeout in fast
//!   recovery, or in RTO recovery after SND.UNA advanced, recovers conventionally; but a
//!   timeout that repeats one without progress arms F-RTO again (RFC 5682 3.2's "recurring
//!   timeouts on the same SND.UNA").
//! - **Undo on the first proof** (`tcp_process_loss`, step 3b): any ACK, first or later,
//!   that newly acknowledges or SACKs a never-retransmitted segment below `high_seq`
//!   (`FLAG_ORIG_SACK_ACKED`) undoes the timeout at once (`tcp_try_undo_loss(sk, true)`),
//!   even one that covers the whole window.
//! - **Step 2 and 3a**: after the first ACK that advances SND.UNA short of `high_seq`, new
//!   data is sent (`REXMIT_NEW`) if there is any and the peer's window allows, else the
//!   recovery is conventional; once new data went out, a duplicate ACK or a SACK of anything
//!   (`FLAG_DATA_SACKED || num_dupack`) shows the loss was real. No cwnd cap is applied:
//!   conventional recovery continues from the window the timeout set.
//!
//! An ACK that reaches `high_seq` without such proof ends RTO recovery as the sender does
//! for any timeout (`tcp_try_undo_recovery`); the detector only lets go.

use super::frto::Step;
use super::{AcceptableAck, AckReading, Detector, DuplicateAck, EpisodeStart, Needs, Proof, Register, TimeoutFacts, Verdict};

#[derive(Clone, Copy, Debug)]
pub struct LinuxFrto {
    step: Step,
}

impl LinuxFrto {
    fn disarm(&mut self, verdict: Verdict) -> Verdict {
        self.step = Step::Idle;
        verdict
    }
}

/// Step 3b's proof: the undo ends RTO recovery (`tcp_try_undo_loss` sets Open); the ACK's
/// RTT sample does not feed the response.
const PROOF: Proof = Proof { rtt_sample: false, ends_loss: true };

impl Register for LinuxFrto {
    const NEEDS: Needs = Needs::NOTHING;
    const READS_ACKS: AckReading = AckReading::WhileHolding;

    fn start(_: &EpisodeStart) -> Self {
        LinuxFrto { step: Step::Idle }
    }
}

impl Detector for LinuxFrto {
    fn on_timeout(&mut self, at: &TimeoutFacts) -> bool {
        let new_recovery = !at.in_fast_recovery && !at.in_rto_recovery;
        self.step = if new_recovery || at.repeats_without_progress { Step::AwaitFirst } else { Step::Idle };
        self.step != Step::Idle
    }

    fn holds_recovery(&self) -> bool {
        self.step != Step::Idle
    }

    fn release(&mut self) {
        self.step = Step::Idle;
    }

    fn on_acceptable_ack(&mut self, ack: &AcceptableAck) -> Verdict {
        match self.step {
            Step::Idle => Verdict::Undecided,
            _ if ack.acks_never_resent => self.disarm(Verdict::Spurious(PROOF)),
            _ if ack.covers_recover => self.disarm(Verdict::GoBack { cwnd_cap: None }),
            Step::AwaitSecond if ack.beyond_recover => self.disarm(Verdict::GoBack { cwnd_cap: None }),
            Step::AwaitSecond => Verdict::Undecided,
            Step::AwaitFirst => {
                self.step = Step::AwaitSecond;
                Verdict::SendNew { segments: 2 }
            }
        }
    }

    fn on_duplicate_ack(&mut self, dup: &DuplicateAck) -> Verdict {
        match self.step {
            Step::Idle => Verdict::Undecided,
            _ if dup.new_sack_below_recover => self.disarm(Verdict::Spurious(PROOF)),
            Step::AwaitSecond => self.disarm(Verdict::GoBack { cwnd_cap: None }),
            Step::AwaitFirst => Verdict::Undecided,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acks_never_resent: bool, covers_recover: bool) -> AcceptableAck {
        AcceptableAck { ts_ecr: 0, acked: 1000, covers_retransmission: true, covers_recover, beyond_recover: false, acks_never_resent }
    }

    const FIRST: TimeoutFacts = TimeoutFacts { repeated: false, in_fast_recovery: false, in_rto_recovery: false, repeats_without_progress: false };
    const DUP: DuplicateAck = DuplicateAck { new_sack_below_recover: false, sacked_above_recover: false };

    #[test]
    fn the_first_ack_of_never_resent_data_undoes_even_one_that_covers_the_window() {
        let mut f = LinuxFrto::start(&EpisodeStart { snd_una: 0, sack: true, retransmissions_in_flight: 0, retrans_stamp: None });
        assert!(f.on_timeout(&FIRST));
        assert_eq!(f.on_acceptable_ack(&ack(true, true)), Verdict::Spurious(PROOF));
        assert!(!f.holds_recovery());
    }

    #[test]
    fn new_data_then_a_duplicate_is_a_real_loss_and_no_new_data_reverts_at_once() {
        let mut f = LinuxFrto::start(&EpisodeStart { snd_una: 0, sack: false, retransmissions_in_flight: 0, retrans_stamp: None });
        f.on_timeout(&FIRST);
        assert_eq!(f.on_duplicate_ack(&DUP), Verdict::Undecided, "before new data a duplicate changes nothing");
        assert_eq!(f.on_acceptable_ack(&ack(false, false)), Verdict::SendNew { segments: 2 });
        assert_eq!(f.on_duplicate_ack(&DUP), Verdict::GoBack { cwnd_cap: None });
        f.on_timeout(&FIRST);
        assert_eq!(f.on_acceptable_ack(&ack(false, true)), Verdict::GoBack { cwnd_cap: None });
    }

    #[test]
    fn a_repeated_timeout_rearms_only_without_progress() {
        let mut f = LinuxFrto::start(&EpisodeStart { snd_una: 0, sack: true, retransmissions_in_flight: 0, retrans_stamp: None });
        assert!(f.on_timeout(&TimeoutFacts { repeated: true, in_fast_recovery: false, in_rto_recovery: true, repeats_without_progress: true }));
        assert!(!f.on_timeout(&TimeoutFacts { repeated: true, in_fast_recovery: false, in_rto_recovery: true, repeats_without_progress: false }));
        assert!(!f.on_timeout(&TimeoutFacts { repeated: true, in_fast_recovery: true, in_rto_recovery: false, repeats_without_progress: false }));
    }
}
