//! The responses to a spurious verdict: what comes back once a detector declared the
//! running episode spurious. The sender calls `respond` and nothing else; it has counted
//! the verdict and lowered `recover` already (`TcpSender::on_spurious`).

use super::{Episode, EpisodeKind};
use crate::tcp::cc::{AnyCc, CongestionControl};
use crate::tcp::recovery::{AnyRecovery, LossRecovery};
use crate::tcp::rto::RtoEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::state::LossState;
use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::Deserialize;

// One enum for the scenario schema (`spec`'s `response`) and for the sender
// (`SenderConfig::response`, read by `respond`); the doc comment is the schema's description,
// and the schema keeps the name it had as the spec's own enum.
/// What happens once a timeout is found spurious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
#[schemars(rename = "ResponseSpec")]
pub enum Response {
    /// Count the verdict only.
    None,
    /// The Eifel response, RFC 4015.
    Rfc4015,
    /// Linux: restore cwnd and ssthresh, clear the back-off.
    Undo,
    /// ns-2 `spurious_response_ 1`: cwnd = the flight before the ACK, ssthresh restored.
    #[serde(rename = "ns2-1")]
    Ns2One,
    /// ns-2 `spurious_response_ 2`: cwnd = the reduced ssthresh, ssthresh restored.
    #[serde(rename = "ns2-2")]
    Ns2Two,
    /// ns-2 `spurious_response_ 3`: cwnd = 1, ssthresh restored.
    #[serde(rename = "ns2-3")]
    Ns2Three,
}

/// The parts of the sender a response may read and change.
pub struct SenderParts<'a> {
    pub cc: &'a mut AnyCc,
    pub rto: &'a mut RtoEstimator,
    pub recovery: &'a mut AnyRecovery,
    pub scoreboard: &'a mut Scoreboard,
    pub state: &'a mut LossState,
    pub snd_nxt: &'a mut u64,
    /// RFC 6582 `recover`.
    pub recover: &'a mut u64,
    /// Set when the response chose this ACK's window: the controller skips its growth.
    pub growth_done: &'a mut bool,
    pub snd_una: u64,
    pub snd_max: u64,
    pub rwnd: u64,
    pub mss: u64,
    pub initial_window: u64,
}

impl SenderParts<'_> {
    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Leaves Recovery or Loss for Open and stops resending: the data thought lost was not.
    fn resume_open(&mut self) {
        if self.state.is_recovery() {
            self.recovery.on_exit();
        }
        if self.state.is_recovery() || self.state.is_loss() {
            *self.state = LossState::Open;
        }
        *self.snd_nxt = self.snd_max;
        *self.recover = self.snd_una;
        self.scoreboard.clear_retransmitted();
        self.scoreboard.clear_lost();
    }
}

/// Applies `response` to the spurious episode `ep`; `acked` and `sample` come from the ACK
/// that revealed it (0 and none when no ACK of new data did). Returns whether anything was
/// undone (the sender counts it in `undos`).
pub fn respond(response: Response, ep: &Episode, s: &mut SenderParts, acked: u64, sample: Option<SimDuration>) -> bool {
    match response {
        Response::None => return false,
        Response::Undo => undo(ep, s),
        // RFC 4015 covers timeouts only.
        Response::Rfc4015 if ep.kind != EpisodeKind::Timeout => return false,
        Response::Rfc4015 => rfc4015(ep, s, acked, sample),
        // ns-2's `spurious_timeout()` covers timeouts only, too; applied to a fast
        // recovery it would leave Recovery with ssthresh restored, possibly to its
        // initial "infinite" value, and the recovery's exit would set cwnd to it.
        Response::Ns2One | Response::Ns2Two | Response::Ns2Three if ep.kind != EpisodeKind::Timeout => return false,
        Response::Ns2One | Response::Ns2Two | Response::Ns2Three => ns2(ep, s, response, acked),
    }
    true
}

/// Linux: `tcp_undo_cwnd_reduction` restores cwnd and ssthresh to no less than before
/// the reduction. The RTO keeps its back-off: `tcp_try_undo_loss` clears only the count of
/// timeouts (`icsk_retransmits`); the back-off goes with the next RTT sample
/// (`tcp_ack_update_rtt`), which with timestamps is the undoing ACK's own (kernel 6.18: a
/// timeout undone by F-RTO without timestamps fires next after the backed-off RTO).
fn undo(ep: &Episode, s: &mut SenderParts) {
    if s.state.is_recovery() {
        // Deflate first: window inflation (RFC 5681 3.2 step 4) must not survive the undo.
        let ssthresh = s.cc.ssthresh();
        s.cc.set_recovery_cwnd(ssthresh);
    }
    s.cc.undo(&ep.prior);
    s.resume_open();
    // `tcp_try_keep_open` after the undo (`tcp_fastretrans_alert` falls through to
    // `tcp_try_to_open`): SACKed segments still out leave the sender in Disorder.
    if *s.state == LossState::Open && s.scoreboard.sacked_segments() > 0 {
        *s.state = LossState::Disorder;
    }
}

/// The Eifel response, RFC 4015 3.2, for timeouts: detected while still in Loss
/// (SPUR_TO), resume with new data (SND.NXT = SND.MAX); detected later (LATE_SPUR_TO,
/// e.g. by DSACK) leave SND.NXT alone. Then cwnd = FlightSize + min(bytes_acked, IW),
/// ssthresh = pipe_prev = max(FlightSize, ssthresh) saved at the timeout; and, with a new
/// RTT sample R, SRTT = max(SRTT_prev, R), RTTVAR = max(RTTVAR_prev, R/2) and the RTO
/// recomputed from them (which drops the back-off).
fn rfc4015(ep: &Episode, s: &mut SenderParts, acked: u64, sample: Option<SimDuration>) {
    if s.state.is_loss() {
        s.resume_open();
    }
    let iw = s.initial_window;
    let cwnd = s.flight() + acked.min(iw);
    s.cc.set_cwnd(cwnd);
    *s.growth_done = true; // the response sets this ACK's window
    s.cc.set_ssthresh(ep.pipe_prev.max(2 * s.mss));
    if let (Some(r), Some(srtt_prev)) = (sample, ep.srtt_prev) {
        let g = s.rto.config().granularity;
        s.rto.reinitialise((srtt_prev + g + g).max(r), ep.rttvar_prev.max(SimDuration(r.as_nanos() / 2)));
    }
}

/// ns-2 `TcpAgent::spurious_timeout()`: cwnd by `spurious_response_` (1: `t_seqno_ −
/// prev_highest_ack_`, the flight before the ACK that revealed it, `acked` bytes ago; 2:
/// the reduced ssthresh; 3: one segment), then ssthresh = `pipe_prev_` = max(window(),
/// ssthresh) before the timeout, and `recover_ = highest_ack_ − 1`, one packet below
/// SND.UNA, so that fast retransmit is possible at once. SND.NXT is left where it is.
fn ns2(ep: &Episode, s: &mut SenderParts, mode: Response, acked: u64) {
    let mss = s.mss;
    let cwnd = match mode {
        Response::Ns2Two => s.cc.ssthresh(),
        Response::Ns2Three => mss,
        _ => s.snd_nxt.saturating_sub(s.snd_una.saturating_sub(acked)),
    };
    let prior_window = ep.prior.cwnd().min(s.rwnd);
    s.cc.set_cwnd(cwnd);
    s.cc.set_ssthresh(prior_window.max(ep.prior.ssthresh()));
    *s.recover = s.snd_una.saturating_sub(mss);
    if s.state.is_loss() {
        *s.state = LossState::Open;
    }
}
