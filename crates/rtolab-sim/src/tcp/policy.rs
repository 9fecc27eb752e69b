//! The sender's policies: the rules on which TCP stacks (and simulators) disagree, each a
//! small type named after what it does, chosen by the stack's profile (`profile.rs`) and
//! carried in `SenderConfig`. The sender asks a policy; it never asks which stack it is.
//!
//! | policy              | RFC reading                        | the other reading                          |
//! |---------------------|------------------------------------|--------------------------------------------|
//! | `DupAckRule`        | `Rfc6675` (SACK must be new)       | `Rfc5681` (every duplicate counts)         |
//! | `FastRetransmit`    | `Rfc6582` (threshold or IsLost)    | `NthDuplicate` (ns-2.35 `dupack_action`)   |
//! | `FlightSize`        | `Outstanding` (RFC 5681/6675)      | `PacketsInFlight` (Linux `tcp_packets_in_flight`) |
//! | `RttSampling`       | `TimedSegment` (RFC 6298/7323)     | `EveryAck` (Linux `tcp_ack_update_rtt`)    |
//! | `TimerRestart`      | `Rfc6298` (5.1)/(5.3)              | `AlsoOnHeadRetransmit` (Linux `tcp_xmit_retransmit_queue`) |
//! | `HandshakeEnd`      | `FirstData`                        | `PureAck` (real stacks)                    |

use schemars::JsonSchema;
use serde::Deserialize;

// Also the spec's `dupack`: the `schemars` descriptions are what `rtolab schema` shows, and
// the schema keeps the name it had as the spec's own enum.
/// Which ACKs count as duplicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "DupAckSpec")]
pub enum DupAckRule {
    /// RFC 5681 (2): same ACK number, no data, outstanding data (every such ACK counts).
    /// ns-2.35's `Agent/TCP/Newreno` (no SACK) counts this way.
    #[schemars(description = "Every ACK that repeats the ACK number without data (RFC 5681 2).")]
    Rfc5681,
    /// RFC 6675 (2) with SACK: additionally, the ACK must SACK data not SACKed before.
    #[schemars(description = "With SACK, only ACKs that SACK new data (RFC 6675 2).")]
    Rfc6675,
}

/// When duplicate ACKs start fast retransmit, and what goes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastRetransmit {
    /// RFC 5681 3.2 step 2 (DupThresh duplicates) or RFC 6675 5 (IsLost(SND.UNA)), not for
    /// duplicates of data sent before `recover` (RFC 6582 3.2 step 1) nor while go-back-N
    /// is still resending; with RACK, losses are marked by time alone (RFC 8985 6). Every
    /// stack but ns-2's.
    Rfc6582,
    /// ns-2.35's `TcpAgent::dupack_action` (`tcp.cc`) with `Sack1TcpAgent::recv`
    /// (`tcp-sack1.cc`): fast retransmit on exactly the DupThresh-th counted duplicate (no
    /// SACK-based IsLost trigger), only when `highest_ack_ > recover_` counted in packets
    /// (one segment past the recovery point); the fast retransmit restarts the timer and
    /// abandons the timed segment (`reset_rtx_timer(1, 0)`); the scoreboard is cleared on
    /// every new ACK outside fast recovery (`ClearScoreBoard()`), and after a timeout no
    /// SACK block is read until new data is acknowledged (`timeout_`). ns-2's agents.
    NthDuplicate,
}

impl FastRetransmit {
    /// Whether this duplicate ACK starts fast recovery. `dupacks` duplicates so far;
    /// `head_lost` tells RFC 6675's IsLost(SND.UNA) (asked only where the rule reads it).
    #[inline]
    pub fn starts_recovery(self, d: DupAckFacts, head_lost: impl FnOnce() -> bool) -> bool {
        match self {
            FastRetransmit::Rfc6582 => {
                let trigger = !d.rack && (d.dupacks >= d.dupthresh || head_lost());
                trigger && d.snd_una >= d.recover && d.snd_nxt == d.snd_max
            }
            FastRetransmit::NthDuplicate => d.dupacks == d.dupthresh && d.snd_una >= d.recover + d.mss,
        }
    }

    /// SACK blocks are read on a duplicate ACK after a timeout (ns-2 Sack1 reads none
    /// until new data is acknowledged).
    #[inline]
    pub fn reads_sack_after_timeout(self) -> bool {
        self == FastRetransmit::Rfc6582
    }

    /// Every new ACK outside fast recovery clears the scoreboard (ns-2 Sack1
    /// `ClearScoreBoard()`): a later duplicate counts if its blocks are new to the cleared
    /// board.
    #[inline]
    pub fn clears_scoreboard_on_new_ack(self) -> bool {
        self == FastRetransmit::NthDuplicate
    }

    /// The fast retransmit restarts the retransmission timer and abandons the timed segment
    /// (ns-2 `reset_rtx_timer(1, 0)`, `rtt_active_ = 0`).
    #[inline]
    pub fn restarts_timer(self) -> bool {
        self == FastRetransmit::NthDuplicate
    }
}

/// What `FastRetransmit::starts_recovery` reads of the sender, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct DupAckFacts {
    pub dupacks: u32,
    pub dupthresh: u32,
    /// RACK marks losses (RFC 8985 6), not the duplicate count.
    pub rack: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// RFC 6582 `recover`.
    pub recover: u64,
    pub mss: u64,
}

/// What counts as in flight, for the window outside fast recovery and around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlightSize {
    /// RFC 5681 FlightSize (SND.NXT − SND.UNA) outside recovery, RFC 6675 pipe only inside
    /// it; limited transmit (RFC 3042) is what lets duplicates send; entering recovery
    /// starts HighRxt afresh (the retransmitted marks are cleared). Every stack but Linux.
    Outstanding,
    /// Linux `tcp_packets_in_flight` at all times: SACKed and lost-marked segments leave
    /// the flight and retransmitted ones join it, so SACKs open the window before recovery
    /// starts (that is Linux's limited transmit); `tcp_enter_recovery` keeps
    /// `TCPCB_SACKED_RETRANS`; and with RACK, `tcp_time_to_recover` starts recovery while
    /// `lost_out` is not zero. Linux.
    PacketsInFlight,
}

impl FlightSize {
    /// SACKed and lost segments leave the flight outside fast recovery too.
    #[inline]
    pub fn excludes_sacked(self) -> bool {
        self == FlightSize::PacketsInFlight
    }

    /// RFC 3042 limited transmit is needed for duplicates to send new data (Linux's flight
    /// already makes the room).
    #[inline]
    pub fn needs_limited_transmit(self) -> bool {
        self == FlightSize::Outstanding
    }

    /// Segments retransmitted before fast recovery stay marked (and in flight) when it
    /// starts (Linux `tcp_enter_recovery`); otherwise RFC 6675's HighRxt starts afresh.
    #[inline]
    pub fn keeps_retransmitted_on_entry(self) -> bool {
        self == FlightSize::PacketsInFlight
    }

    /// Without SACK, duplicate ACKs count as SACKed segments (Linux `tcp_add_reno_sack`,
    /// `sacked_out` of a Reno connection) which the next cumulative ACK takes back out of
    /// what it delivered (`tcp_remove_reno_sacks`).
    #[inline]
    pub fn counts_duplicates_as_sacked(self) -> bool {
        self == FlightSize::PacketsInFlight
    }

    /// A segment still marked lost starts recovery on an ACK that marked nothing new (Linux
    /// `tcp_time_to_recover`: `lost_out != 0`); asked with RACK only.
    #[inline]
    pub fn marked_loss_starts_recovery(self) -> bool {
        self == FlightSize::PacketsInFlight
    }
}

/// Where RTT samples come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSampling {
    /// The echoed timestamp (RFC 7323 4.1), else one timed segment at a time, never a
    /// retransmitted one (RFC 6298 3, Karn's rule). Every stack but Linux.
    TimedSegment,
    /// One sample per ACK from the send times of the segments it delivers, cumulatively or
    /// by SACK (Linux `tcp_clean_rtx_queue`, `tcp_sacktag_one`, `tcp_ack_update_rtt`;
    /// `sender/rtt.rs`); needs per-segment send times. Linux.
    EveryAck,
}

impl RttSampling {
    /// Per-segment send times are kept for the samples.
    #[inline]
    pub fn from_send_times(self) -> bool {
        self == RttSampling::EveryAck
    }
}

/// When the retransmission timer restarts besides RFC 6298 (5.1) and (5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerRestart {
    /// Only RFC 6298 (5.1) (a send with the timer off) and (5.3) (an ACK of new data).
    Rfc6298,
    /// Also whenever the segment at SND.UNA is retransmitted, unless RACK's re-check holds
    /// the timer (Linux `tcp_xmit_retransmit_queue` re-arming the RTO for the head). Linux.
    AlsoOnHeadRetransmit,
}

impl TimerRestart {
    /// A retransmission of the head segment re-arms the RTO.
    #[inline]
    pub fn on_head_retransmit(self) -> bool {
        self == TimerRestart::AlsoOnHeadRetransmit
    }
}

/// How the three-way handshake ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeEnd {
    /// The first data segment completes it (ns-2's agents and the RFC-literal stacks).
    FirstData,
    /// A pure ACK before the first data segment, as real stacks send it (Linux
    /// `tcp_rcv_synsent_state_process` → `tcp_send_ack`); a packet of its own on the link
    /// (queue slot, `drop_packets`). Linux.
    PureAck,
}

impl HandshakeEnd {
    /// The SYN-ACK is answered with a pure ACK.
    #[inline]
    pub fn sends_pure_ack(self) -> bool {
        self == HandshakeEnd::PureAck
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(dupacks: u32) -> DupAckFacts {
        DupAckFacts { dupacks, dupthresh: 3, rack: false, snd_una: 10_000, snd_nxt: 20_000, snd_max: 20_000, recover: 9_000, mss: 1000 }
    }

    /// RFC 6582 with DupThresh 3: the third duplicate and every later one, or IsLost(SND.UNA)
    /// earlier; never while `recover` is above SND.UNA or go-back-N resends, nor with RACK.
    /// ns-2: the third duplicate only, and only one segment past `recover_`
    /// (SND.UNA 10000 ≥ 9000 + 1000).
    #[test]
    fn fast_retransmit_rules_by_hand() {
        let rfc = FastRetransmit::Rfc6582;
        let nth = FastRetransmit::NthDuplicate;
        assert!(!rfc.starts_recovery(facts(2), || false));
        assert!(rfc.starts_recovery(facts(2), || true));
        assert!(rfc.starts_recovery(facts(3), || false) && rfc.starts_recovery(facts(4), || false));
        assert!(!rfc.starts_recovery(DupAckFacts { recover: 10_001, ..facts(3) }, || true));
        assert!(!rfc.starts_recovery(DupAckFacts { snd_nxt: 15_000, ..facts(3) }, || true));
        assert!(!rfc.starts_recovery(DupAckFacts { rack: true, ..facts(3) }, || true));
        assert!(!nth.starts_recovery(facts(2), || true));
        assert!(nth.starts_recovery(facts(3), || false) && !nth.starts_recovery(facts(4), || false));
        assert!(!nth.starts_recovery(DupAckFacts { recover: 9_001, ..facts(3) }, || false));
        assert!(nth.starts_recovery(DupAckFacts { snd_nxt: 15_000, ..facts(3) }, || false));
    }

    /// Issue 25: the sender asks policies, never which stack it runs. No identifier in the
    /// shipped code of `tcp/sender/` (comments and `tests.rs` aside) names a stack.
    #[test]
    fn the_sender_names_no_stack() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tcp/sender");
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name == "tests.rs" || !name.ends_with(".rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
            for line in shipped.lines().map(|l| l.split("//").next().unwrap_or("")) {
                for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                    let w = word.to_ascii_lowercase();
                    if ["linux", "ns2", "ns3", "freebsd"].iter().any(|s| w.contains(s)) {
                        found.push(format!("{name}: {word}"));
                    }
                }
            }
        }
        assert_eq!(found, Vec::<String>::new(), "stack names in the sender; ask a policy (tcp/policy.rs) instead");
    }
}
