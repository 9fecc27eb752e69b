//! The kernel's two window reductions around a module's `ssthresh` hook, for the modules
//! that have one of their own (BIC, CUBIC, Linux 2.6.24's CUBIC): written once here, as the
//! kernel writes them once in `tcp_input.c` and calls each module's hook.

use super::CongestionControl;

/// A Linux module with its own `ssthresh` hook (`bictcp_recalc_ssthresh`,
/// `cubictcp_recalc_ssthresh`) and a state that a timeout resets (`*_state(TCP_CA_Loss)`).
pub(super) trait SsthreshHook: CongestionControl {
    /// The module's `ssthresh` hook, in segments.
    fn ssthresh_hook(&mut self) -> u32;
    /// The module's state reset on entering Loss.
    fn reset_state(&mut self);

    /// Entering Recovery (`tcp_init_cwnd_reduction`): the reduction begins from the current
    /// window, and ssthresh is the hook's.
    fn reduce_for_recovery(&mut self) {
        self.core_mut().begin_reduction();
        let ssthresh = self.ssthresh_hook();
        self.core_mut().set_ssthresh_packets(ssthresh);
    }

    /// Entering Loss (`tcp_enter_loss`): ssthresh from the hook when the sender reduces
    /// (`first_timeout`; not on a repeated timeout without progress), cwnd one segment, then
    /// the module's reset.
    fn reduce_for_loss(&mut self, first_timeout: bool) {
        if first_timeout {
            let ssthresh = self.ssthresh_hook();
            self.core_mut().set_ssthresh_packets(ssthresh);
        }
        self.core_mut().loss_window();
        self.reset_state();
    }
}
