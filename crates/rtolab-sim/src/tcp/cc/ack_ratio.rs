//! The delayed-ACK ratio of BIC (`net/ipv4/tcp_bic.c`) and of CUBIC up to module 2.1
//! (Linux 2.6.24's `tcp_cubic.c`): `delayed_ack`, 16 × the moving average (gain 1/16) of
//! segments per ACK, taken in Open only (`bictcp_acked`), from 2; `bictcp_update` scales
//! `cnt` by 16/`delayed_ack`. Its integer update d ← d + n − ⌊d/16⌋ rests anywhere with
//! ⌊d/16⌋ = n: one segment per ACK leaves it at 31 (32 − 2 + 1), not 16. `bic.rs` and
//! `cubic_2_6_24.rs` hold one each.

use crate::tcp::state::LossState;

/// `ACK_RATIO_SHIFT`: `delayed_ack` holds segments per ACK × 16.
const ACK_RATIO_SHIFT: u32 = 4;
/// `delayed_ack` after `bictcp_reset`: two segments per ACK.
const INITIAL_DELAYED_ACK: u32 = 2 << ACK_RATIO_SHIFT;

/// `delayed_ack` and the loss state `bictcp_acked` reads it in.
#[derive(Clone, Debug)]
pub(super) struct AckRatio {
    /// Segments per ACK × 16, averaged (`delayed_ack`).
    pub(super) delayed_ack: u32,
    /// The loss state the next ACK finds (the kernel's `icsk_ca_state` as `bictcp_acked`
    /// sees it, before that ACK moves it).
    pub(super) ca_state: LossState,
    /// Fast recovery ended during the current ACK: the state after it is Open.
    recovery_ended: bool,
}

impl AckRatio {
    pub(super) fn new() -> Self {
        AckRatio { delayed_ack: INITIAL_DELAYED_ACK, ca_state: LossState::Open, recovery_ended: false }
    }

    /// `bictcp_acked` with the segments an ACK acknowledged cumulatively: in Open,
    /// d ← d + n − ⌊d/16⌋ (u32, wrapping as the kernel's).
    pub(super) fn count(&mut self, segments: u32) {
        if self.ca_state == LossState::Open {
            self.delayed_ack = self.delayed_ack.wrapping_add(segments).wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
        }
    }

    /// The ACK is through: the next one finds `state`, the sender's loss state after it,
    /// or Open if fast recovery ended during it.
    pub(super) fn ack_done(&mut self, state: LossState) {
        self.ca_state = if std::mem::take(&mut self.recovery_ended) { LossState::Open } else { state };
    }

    /// `bictcp_update`'s last step: cnt·16/`delayed_ack`, at least 1.
    pub(super) fn scale(&self, cnt: u32) -> u32 {
        ((cnt << ACK_RATIO_SHIFT) / self.delayed_ack.max(1)).max(1)
    }

    /// `CA_EVENT_COMPLETE_CWR` (neither module has a `cwnd_event`): the next ACK finds Open.
    pub(super) fn recovery_exit(&mut self) {
        self.recovery_ended = true;
    }

    /// `tcp_enter_loss`'s `tcp_set_ca_state(TCP_CA_Loss)`: `bictcp_reset`'s `delayed_ack`,
    /// and the next ACK finds Loss.
    pub(super) fn enter_loss(&mut self) {
        self.delayed_ack = INITIAL_DELAYED_ACK;
        self.ca_state = LossState::Loss { point: 0 };
    }
}
