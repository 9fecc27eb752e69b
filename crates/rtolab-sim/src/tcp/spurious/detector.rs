//! The interface between the sender and a spurious-timeout detector, and the registry that
//! names the detectors.
//!
//! A detector is built when a loss episode begins (`Register::start`) and lives in the
//! episode (`Episode::detectors`) until the episode is decided or replaced. The sender feeds
//! every detector of the running episode the events it sees, in registry order, and acts on
//! the `Verdict` each returns:
//!
//! - `on_retransmit`: a segment of the episode was sent again, with its timestamp value;
//! - `on_timeout`: the episode's timeout fired; a detector may take over what is sent next
//!   (the sender then resends only SND.UNA and asks the detector on each ACK);
//! - `on_acceptable_ack`: an ACK of new data (`AcceptableAck`: its timestamp echo, what it
//!   acknowledged, whether it covers the retransmission and the recovery point);
//! - `on_duplicate_ack`: a duplicate ACK while the timeout's recovery runs (`DuplicateAck`);
//! - `on_dsack`: a DSACK block (RFC 2883) from the receiver.
//!
//! The sender never names a detector: which ones run comes from the configuration
//! (`Detectors`, a set of `DetectorName`s), and what they ask comes back as a `Verdict`.

use super::DetectorName;

/// What a detector concludes from an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing yet.
    Undecided,
    /// The retransmission was needed. This detector is done (it is shown no more ACKs);
    /// the others go on watching.
    Genuine,
    /// The episode was spurious; the response (`responses.rs`) applies.
    Spurious(Proof),
    /// For a detector that took over after a timeout: send up to `segments` new segments,
    /// whatever cwnd says; if there are none, go back as for `GoBack { cwnd_cap: None }`.
    SendNew { segments: u32 },
    /// For a detector that took over after a timeout: the timeout was genuine; hand the
    /// recovery back (conventional go-back-N from SND.UNA), cwnd at most `cwnd_cap`
    /// segments.
    GoBack { cwnd_cap: Option<u64> },
}

/// How a spurious verdict was reached, as far as the sender's reaction depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The RTT sample of the ACK that revealed it may feed the response (RFC 4015 3.2).
    pub rtt_sample: bool,
    /// The verdict itself ends RTO recovery before the response runs: Loss becomes Open and
    /// `recover` drops to SND.UNA (RFC 5682 2.1 step 3b).
    pub ends_loss: bool,
}

/// An ACK that acknowledges new data (RFC 3522 3.2's "acceptable ACK").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcceptableAck {
    /// The echoed timestamp (TSecr), 0 without timestamps.
    pub ts_ecr: u64,
    /// Bytes newly acknowledged cumulatively.
    pub acked: u64,
    /// The whole segment resent first in the episode (at SND.UNA) is acknowledged.
    pub covers_retransmission: bool,
    /// Everything up to the recovery point (`recover`, SND.MAX at the timeout) is.
    pub covers_recover: bool,
    /// Data above the recovery point (sent after the timeout) is acknowledged or SACKed.
    pub beyond_recover: bool,
    /// It acknowledges or SACKs, for the first time, a segment below the recovery point that
    /// was never retransmitted in the episode (Linux `FLAG_ORIG_SACK_ACKED`, set in
    /// `tcp_clean_rtx_queue` and `tcp_sacktag_one` for data up to `high_seq`).
    pub acks_never_resent: bool,
}

/// A duplicate ACK while the timeout's recovery runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DuplicateAck {
    /// It SACKs data below the recovery point (sent before the timeout) for the first time.
    pub new_sack_below_recover: bool,
    /// It SACKs data above the recovery point (sent after the timeout).
    pub sacked_above_recover: bool,
}

/// A DSACK block [start, end) covering `segments` segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DsackBlock {
    pub start: u64,
    pub end: u64,
    pub segments: u64,
}

/// The sender's state when a retransmission timer fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeoutFacts {
    /// A timeout while an earlier one's or a fast recovery is under way (`recover` ≥
    /// SND.UNA): RFC 5682 2.1 step 1 then recovers conventionally.
    pub repeated: bool,
    /// The sender was in fast recovery.
    pub in_fast_recovery: bool,
    /// The sender was in RTO recovery (an earlier timeout's).
    pub in_rto_recovery: bool,
    /// The sender was in RTO recovery and SND.UNA has not advanced since the previous
    /// timeout (Linux: `icsk_retransmits` > 0, which `tcp_ack` clears when SND.UNA advances).
    pub repeats_without_progress: bool,
}

/// What a detector knows when its episode begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpisodeStart {
    /// SND.UNA at the start of the episode.
    pub snd_una: u64,
    /// The connection uses SACK.
    pub sack: bool,
    /// Retransmissions still in flight when it begins, not SACKed nor marked lost (Linux
    /// `retrans_out`, which `tcp_init_undo` takes as `undo_retrans`): after a timeout's
    /// go-back-N or a loss probe, an undo by DSACK needs them reported too.
    pub retransmissions_in_flight: u64,
    /// The timestamp of the earliest retransmission still outstanding from an earlier
    /// episode, which Linux keeps across recoveries (`tp->retrans_stamp`, cleared only once
    /// no retransmission is out, `tcp_try_to_open`); `None` for a stack whose episodes each
    /// time their own first retransmission (RFC 3522).
    pub retrans_stamp: Option<u64>,
}

/// What a detector needs of the connection to run at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// TCP timestamps (RFC 7323).
    pub timestamps: bool,
    /// SACK (RFC 2018).
    pub sack: bool,
    /// DSACK blocks from the receiver (RFC 2883): the receiver is told to send them.
    pub dsack: bool,
}

impl Needs {
    pub const NOTHING: Needs = Needs { timestamps: false, sack: false, dsack: false };

    /// Whether a connection with these options can run the detector.
    pub fn met_by(self, timestamps: bool, sack: bool) -> bool {
        (!self.timestamps || timestamps) && (!self.sack || sack)
    }
}

/// A spurious-timeout detector: sees an episode's events and returns verdicts. Every event
/// has a default that ignores it.
pub trait Detector {
    /// A segment of the episode was retransmitted; `ts_val` is its timestamp value.
    fn on_retransmit(&mut self, _ts_val: u64) {}

    /// The episode's retransmission timer fired (`at`: what the sender was doing). Returns
    /// whether this detector takes over what is sent after it: the sender then resends only
    /// SND.UNA and keeps SND.NXT at SND.MAX until the detector answers `SendNew`, `GoBack`
    /// or `Spurious`.
    fn on_timeout(&mut self, _at: &TimeoutFacts) -> bool {
        false
    }

    /// Whether the detector holds what is sent after a timeout (see `on_timeout`). The
    /// sender then counts every duplicate ACK (RFC 5682 3.1 step 3a reads them all).
    fn holds_recovery(&self) -> bool {
        false
    }

    /// The sender takes back what is sent after a timeout: it went back to SND.UNA, RTO
    /// recovery ended, or the episode was decided.
    fn release(&mut self) {}

    fn on_acceptable_ack(&mut self, _ack: &AcceptableAck) -> Verdict {
        Verdict::Undecided
    }

    /// Called only while the sender is in the Loss state (after a timeout).
    fn on_duplicate_ack(&mut self, _dup: &DuplicateAck) -> Verdict {
        Verdict::Undecided
    }

    fn on_dsack(&mut self, _block: &DsackBlock) -> Verdict {
        Verdict::Undecided
    }
}

/// Which ACKs a detector reads: every ACK of an undecided episode passes through the
/// sender, so the episode asks only the detectors that listen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckReading {
    /// None (`on_acceptable_ack` and `on_duplicate_ack` keep their defaults).
    Never,
    /// Every ACK until the detector answers `Genuine`.
    Always,
    /// Only while it holds what is sent after a timeout (`on_timeout` returned `true`).
    WhileHolding,
}

/// How the registry builds a detector.
pub trait Register: Detector + Sized {
    /// What the connection must offer (a stack's default detector that needs more is left
    /// out; a detector the user lists is refused by validation).
    const NEEDS: Needs;
    /// Which ACKs it reads.
    const READS_ACKS: AckReading = AckReading::Always;
    /// A fresh detector for an episode that begins now.
    fn start(at: &EpisodeStart) -> Self;
}

/// Declares the registered detectors: their configuration names (`DetectorName`, read by
/// the spec as `detect = [...]`), the enum that holds one of them (`AnyDetector`, static
/// dispatch) and its `Detector` implementation. Used once, in `spurious/mod.rs`; an entry
/// may carry doc comments and one `#[cfg(...)]`.
macro_rules! register_detectors {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $kind:ident = $name:literal => $ty:ty, )*) => {
        /// A spurious-timeout detector.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
        pub enum DetectorName {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? #[serde(rename = $name)] $kind, )*
        }

        impl DetectorName {
            /// Every registered detector, in the order the sender consults them.
            #[allow(clippy::vec_init_then_push)] // one push per entry, each may carry a cfg
            pub fn all() -> Vec<DetectorName> {
                let mut all = Vec::new();
                $( $(#[cfg($cfg)])? all.push(DetectorName::$kind); )*
                all
            }

            /// The name the configuration uses.
            pub fn name(self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? DetectorName::$kind => $name, )*
                }
            }

            pub fn reads_acks(self) -> $crate::tcp::spurious::AckReading {
                match self {
                    $( $(#[cfg($cfg)])? DetectorName::$kind => <$ty as $crate::tcp::spurious::Register>::READS_ACKS, )*
                }
            }

            pub fn needs(self) -> $crate::tcp::spurious::Needs {
                match self {
                    $( $(#[cfg($cfg)])? DetectorName::$kind => <$ty as $crate::tcp::spurious::Register>::NEEDS, )*
                }
            }

            /// Position in the registry (the bit in `Detectors`).
            pub(crate) fn index(self) -> u32 {
                self as u32
            }

            pub(crate) fn from_index(i: u32) -> Option<DetectorName> {
                match i {
                    $( $(#[cfg($cfg)])? i if i == DetectorName::$kind as u32 => Some(DetectorName::$kind), )*
                    _ => None,
                }
            }
        }

        /// One registered detector (enum dispatch: no allocation, no indirect call).
        #[derive(Clone, Debug)]
        pub enum AnyDetector {
            $( $(#[cfg($cfg)])? $kind($ty), )*
        }

        impl AnyDetector {
            pub fn start(name: DetectorName, at: &$crate::tcp::spurious::EpisodeStart) -> Self {
                match name {
                    $( $(#[cfg($cfg)])? DetectorName::$kind => AnyDetector::$kind(<$ty as $crate::tcp::spurious::Register>::start(at)), )*
                }
            }
        }

        impl $crate::tcp::spurious::Detector for AnyDetector {
            fn on_retransmit(&mut self, ts_val: u64) {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.on_retransmit(ts_val), )*
                }
            }
            fn on_timeout(&mut self, at: &$crate::tcp::spurious::TimeoutFacts) -> bool {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => $crate::tcp::spurious::Detector::on_timeout(d, at), )*
                }
            }
            fn holds_recovery(&self) -> bool {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.holds_recovery(), )*
                }
            }
            fn release(&mut self) {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.release(), )*
                }
            }
            fn on_acceptable_ack(&mut self, ack: &$crate::tcp::spurious::AcceptableAck) -> $crate::tcp::spurious::Verdict {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.on_acceptable_ack(ack), )*
                }
            }
            fn on_duplicate_ack(&mut self, dup: &$crate::tcp::spurious::DuplicateAck) -> $crate::tcp::spurious::Verdict {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.on_duplicate_ack(dup), )*
                }
            }
            fn on_dsack(&mut self, block: &$crate::tcp::spurious::DsackBlock) -> $crate::tcp::spurious::Verdict {
                match self {
                    $( $(#[cfg($cfg)])? AnyDetector::$kind(d) => d.on_dsack(block), )*
                }
            }
        }
    };
}
pub(crate) use register_detectors;

/// A set of registered detectors: the configuration's `detect`. The sender consults them in
/// registry order, whatever order they were listed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detectors(u32);

impl Detectors {
    pub const NONE: Detectors = Detectors(0);

    pub fn of(names: &[DetectorName]) -> Self {
        Detectors(names.iter().fold(0, |bits, n| bits | 1 << n.index()))
    }

    pub fn contains(self, name: DetectorName) -> bool {
        self.0 & 1 << name.index() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members, in registry order (no allocation: it runs at every episode's start).
    pub fn iter(self) -> impl Iterator<Item = DetectorName> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            DetectorName::from_index(i)
        })
    }

    /// The members `keep` accepts.
    pub fn filter(self, keep: impl Fn(DetectorName) -> bool) -> Self {
        Detectors(self.iter().filter(|&n| keep(n)).fold(0, |bits, n| bits | 1 << n.index()))
    }

    /// Whether any member needs what `need` picks out.
    pub fn any_needs(self, need: impl Fn(Needs) -> bool) -> bool {
        self.iter().any(|n| need(n.needs()))
    }
}
