//! Which segments carry PSH, as Linux 6.x sets it on a socket that `write`s (checked against
//! kernel 6.18 on the TUN device of `rtolab drill --kernel`).
//!
//! Linux builds what the application writes into buffers (skbs) and sends each buffer, or a
//! piece of it, as one packet of one or more MSS segments (a TSO/GSO packet). PSH comes from
//! two places:
//!
//! 1. `__tcp_transmit_skb` (`tcp_output.c`) sets PSH on every packet of more than one segment
//!    (`tcp_skb_pcount(skb) > 1`: "Force a PSH flag on all (GSO) packets to expedite GRO
//!    flush at receiver"). When such a packet is cut into MSS segments (`tcp_gso_segment`, or
//!    a NIC's TSO) only its last segment keeps PSH; so, in MSS segments, PSH is on the last
//!    segment of every packet of two or more.
//! 2. A one-segment packet carries PSH when the buffer it ends carries it: `tcp_sendmsg_locked`
//!    (`tcp.c`) marks the buffer that ends a write (`tcp_push` → `tcp_mark_push`), and, within
//!    a write, a buffer that fills to the size goal when more than half the largest window
//!    the peer offered has been written since the last mark (`forced_push`:
//!    `write_seq > pushed_seq + max_window / 2`). The next write clears the mark when it
//!    appends to that buffer (`if (!copied) tcp_flags &= ~TCPHDR_PSH`), which it does when
//!    the buffer is unsent and shorter than the size goal (`tcp_xmit_size_goal`:
//!    `tcp_bound_to_half_wnd(gso_max_size)`, whole segments, at least one). Splitting a
//!    buffer (`tso_fragment`, `tcp_fragment`: "PSH and FIN should only be set in the second
//!    packet") leaves the mark on the piece that ends where the buffer ended, so a mark is a
//!    sequence number, and a retransmitted one-segment packet carries PSH when it ends there.
//!
//! How many segments a packet has (`tcp_write_xmit`): at most `min(max(cwnd / 2, 1), cwnd −
//! in_flight)` (`tcp_cwnd_test`) and at most `tcp_tso_segs` = `tcp_tso_autosize`:
//! `max((pacing_rate >> 10) + (gso_max_size >> (min_rtt_us >> 9)), …) / mss`, capped at
//! `gso_max_size`, at least `tcp_min_tso_segs` (2), where `tcp_update_pacing_rate` sets
//! `pacing_rate = mss · cwnd / srtt · ratio` with ratio `tcp_pacing_ss_ratio` (200 %) while
//! `cwnd < ssthresh / 2`, else `tcp_pacing_ca_ratio` (120 %); no RTT sample: no division
//! (the cap). The packet also ends where the peer's window or the data does
//! (`tcp_mss_split_point`); `tcp_grow_skb` lets a packet of new data reach into the next
//! buffer, so buffer edges do not cut it. A retransmission goes from the buffer it is in
//! (`__tcp_retransmit_skb`: at most `min(cwnd − in_flight, tcp_tso_segs)` segments, cut at
//! the buffer's end by `tcp_fragment`); sent buffers are the packets first sent, cut again
//! at SACK edges (`tcp_match_skb_to_sack` → `tcp_fragment`) and where retransmissions cut
//! them.
//!
//! Approximations: the segments one event sends are the kernel's one `tcp_write_xmit` (the
//! sender has already kept them within cwnd and the window, so a packet is
//! `min(max(cwnd / 2, 1), tcp_tso_segs)` segments of new data, or `tcp_tso_segs` of
//! retransmitted data in one buffer); `max(cwnd, packets_out)` in the pacing rate is cwnd;
//! min_rtt is `tcp_min_rtt` (it only matters below 3 ms, where `gso_max_size >> r` is
//! a segment or more); a write is accepted whole (no send-buffer limit, which would also
//! mark PSH, `wait_for_space`); buffers merged by SACK shifting or retransmit collapsing
//! (`tcp_shift_skb_data`, `tcp_retrans_try_collapse`) keep their edges here.

use std::collections::BTreeSet;

use crate::tcp::Segment;
use crate::time::SimDuration;

/// The device's largest GSO packet (`GSO_LEGACY_MAX_SIZE`, `sk_gso_max_size` on a TUN
/// device and most NICs).
pub const GSO_MAX_SIZE: u64 = 65_536;
/// `net.ipv4.tcp_min_tso_segs`'s default.
pub const MIN_TSO_SEGS: u64 = 2;
/// `net.ipv4.tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`'s defaults, in percent.
pub const PACING_SS_RATIO: u64 = 200;
pub const PACING_CA_RATIO: u64 = 120;
/// `sk_pacing_shift`'s default: a TSO packet of about 1 ms at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `net.ipv4.tcp_tso_rtt_log`'s default.
const TSO_RTT_LOG: u32 = 9;
/// `TCP_MSS_DEFAULT`: below this largest window `tcp_bound_to_half_wnd` does not halve.
const MSS_DEFAULT: u64 = 536;

/// The sender's state that sizes packets, read after the event that sends them.
#[derive(Clone, Copy, Debug)]
pub struct Sizing {
    /// Bytes.
    pub mss: u64,
    /// Segments.
    pub cwnd: u64,
    /// Bytes (`u64::MAX`-like when infinite).
    pub ssthresh: u64,
    pub srtt: Option<SimDuration>,
    pub min_rtt: Option<SimDuration>,
}

impl Sizing {
    /// `sk_pacing_rate` in bytes per second (`tcp_update_pacing_rate`).
    pub fn pacing_rate(&self) -> u64 {
        let ratio = if self.cwnd < self.ssthresh / self.mss.max(1) / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
        let per_rtt = self.mss * self.cwnd * ratio / 100;
        match self.srtt.map(|s| s.as_nanos() / 1000).filter(|&us| us > 0) {
            Some(us) => (per_rtt as u128 * 1_000_000 / us as u128).min(u64::MAX as u128) as u64,
            None => u64::MAX,
        }
    }

    /// `tcp_tso_segs` → `tcp_tso_autosize`: segments a packet may have at this pacing rate.
    pub fn tso_segs(&self) -> u64 {
        let mut bytes = self.pacing_rate() >> PACING_SHIFT;
        let r = self.min_rtt.map_or(0, |m| m.as_nanos() / 1000) >> TSO_RTT_LOG;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
        }
        (bytes.min(GSO_MAX_SIZE) / self.mss.max(1)).max(MIN_TSO_SEGS)
    }

    /// Segments a packet of new data may have (`tcp_cwnd_test`'s half cwnd, `tcp_tso_segs`).
    pub fn new_data_segs(&self) -> u64 {
        (self.cwnd >> 1).max(1).min(self.tso_segs())
    }
}

/// The buffers (skbs) of one connection, as far as PSH needs them; offsets are the sender's
/// data offsets (sequence number − 1).
#[derive(Debug, Default)]
pub struct PushState {
    /// Ends of buffers that carry PSH.
    marks: BTreeSet<u64>,
    /// Edges of the buffers already sent (the retransmission queue).
    edges: BTreeSet<u64>,
    /// Where the last buffer of the write queue starts.
    tail_start: u64,
    /// `tp->pushed_seq`: the data written when PSH was last marked.
    pushed: u64,
    /// `tp->max_window`: the largest window the peer offered, bytes.
    pub max_window: u64,
    /// The end of the data sent so far.
    sent_max: u64,
}

impl PushState {
    /// The connection is established; the peer's window (bytes) in the ACK that completed
    /// the handshake is the first `max_window` (`tcp_create_openreq_child`).
    pub fn new(window: u64) -> Self {
        PushState { max_window: window, edges: BTreeSet::from([0]), ..Default::default() }
    }

    /// The peer's ACK: its window (bytes) and SACK blocks (data offsets).
    pub fn on_ack(&mut self, window: u64, sack: &[(u64, u64)]) {
        self.max_window = self.max_window.max(window);
        for &(l, r) in sack {
            for e in [l, r] {
                if e < self.sent_max {
                    self.edges.insert(e);
                }
            }
        }
    }

    /// `tcp_xmit_size_goal`: the bytes a buffer is filled to.
    pub fn size_goal(&self, mss: u64) -> u64 {
        let cutoff = if self.max_window > MSS_DEFAULT { self.max_window >> 1 } else { self.max_window };
        let goal = if cutoff > 0 && GSO_MAX_SIZE > cutoff { cutoff.max(68 - 20) } else { GSO_MAX_SIZE };
        (goal / mss * mss).max(mss)
    }

    /// The application writes `bytes` after `end` bytes, `sent` of which have been sent
    /// (`tcp_sendmsg_locked`): which buffer ends it marks PSH. Buffers are filled to
    /// `size_goal`, and no further than a packet of `tso_segs` segments: kernel 6.18 marks a
    /// forced push at the end of a 2-segment buffer (a 200000-byte write after 2000 bytes,
    /// `max_window` 32896: PSH on the 1-segment packet ending at 20001, the first 2000-byte
    /// buffer end past 2001 + 16448), where buffers of the half window (16000) would put it
    /// at 34001.
    pub fn on_write(&mut self, end: u64, sent: u64, bytes: u64, sizing: &Sizing) {
        if bytes == 0 {
            return;
        }
        let mss = sizing.mss;
        let goal = self.size_goal(mss).min(sizing.tso_segs() * mss);
        let (mut pos, mut left) = (end, bytes);
        if sent < end {
            // The unsent tail buffer; the write appends to it while it is short of the goal.
            let tail_len = end - self.tail_start.max(sent);
            if tail_len < goal {
                self.marks.remove(&end);
                let copy = (goal - tail_len).min(left);
                pos += copy;
                left -= copy;
                if left > 0 {
                    self.forced_push(pos);
                }
            }
        }
        while left > 0 {
            self.tail_start = pos;
            let copy = goal.min(left);
            pos += copy;
            left -= copy;
            if left > 0 {
                self.forced_push(pos);
            }
        }
        // `tcp_push`: the write's last buffer.
        self.marks.insert(pos);
        self.pushed = pos;
    }

    /// A buffer filled to the size goal with more of the write to come (`forced_push`).
    fn forced_push(&mut self, write_seq: u64) {
        if write_seq > self.pushed + (self.max_window >> 1) {
            self.marks.insert(write_seq);
            self.pushed = write_seq;
        }
    }

    /// Whether each of `segs`, sent by one event in this order, carries PSH.
    pub fn flags(&mut self, segs: &[Segment], sizing: &Sizing) -> Vec<bool> {
        let mut psh = vec![false; segs.len()];
        let (new_segs, rtx_segs) = (sizing.new_data_segs(), sizing.tso_segs());
        let mut i = 0;
        while i < segs.len() {
            if segs[i].len == 0 {
                i += 1;
                continue;
            }
            let retransmit = segs[i].seq < self.sent_max;
            let limit = if retransmit { rtx_segs } else { new_segs };
            let mut j = i + 1;
            while j < segs.len()
                && ((j - i) as u64) < limit
                && segs[j].len > 0
                && segs[j].seq == segs[j - 1].end()
                && (segs[j].seq < self.sent_max) == retransmit
                && !(retransmit && self.edges.contains(&segs[j].seq))
            {
                j += 1;
            }
            let (start, last) = (segs[i].seq, segs[j - 1].end());
            psh[j - 1] = j - i > 1 || self.marks.contains(&last);
            self.edges.insert(start);
            self.edges.insert(last);
            self.sent_max = self.sent_max.max(last);
            i = j;
        }
        psh
    }
}
