//! The data receiver of a TCP connection, sans-IO like the sender.
//!
//! Reassembles out-of-order data, delivers in order, and acknowledges: immediately for
//! out-of-order or hole-filling segments (RFC 5681, 4.2), otherwise every `ack_every`
//! full segments or when the delayed-ACK timer fires. SACK blocks follow RFC 2018, 4: the
//! first block holds the segment that triggered the ACK, then the most recently reported.
//! Timestamps follow RFC 7323, 4.3: TS.Recent is taken from segments at the left edge.
//! With `dsack`, a duplicate segment is reported in the first SACK block of the ACK it
//! triggers (RFC 2883, 4): below the cumulative ACK, or followed by the out-of-order block
//! that contains it.
//!
//! With `rmem` (the `linux` profile) the window offered is Linux's (`receive_window.rs`:
//! the receive buffer, `rcv_ssthresh`, autotuning), segments held are charged their TUN
//! truesize, and the application reads each in-order segment as soon as the ACK decision
//! for it is made (or, after `reads_by_call`, when `read` is called).

use super::jiffies::{self, Wheel};
use super::quickack::QuickAck;
use super::receive_window::{tun_truesize, LinuxWindow, WindowConfig, TS_BYTES};
use super::segment::{ts_now, SackBlocks, Segment, FLAG_ACK, FLAG_SYN};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub mss: u32,
    pub sack: bool,
    /// Report duplicates with DSACK blocks (RFC 2883); needs `sack`.
    pub dsack: bool,
    /// SACK blocks per ACK at most (RFC 2018 3: 4, or 3 with timestamps).
    pub max_sack_blocks: usize,
    pub timestamps: bool,
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub delack_timeout: SimDuration,
    /// Advertised window in bytes.
    pub window: u64,
    /// Linux's ACK policy (`quickack.rs`: quick-ACK mode, adaptive delayed-ACK timeout, an
    /// ACK once more than one full segment is unacknowledged) instead of `ack_every` and
    /// `delack_timeout`.
    pub linux_acks: bool,
    /// The kernel's timer wheel runs the delayed-ACK timer (`jiffies::Wheel`); `None`: it
    /// fires exactly on time.
    pub wheel: Option<Wheel>,
    /// Linux's receive buffer (`tcp_rmem`: least, initial, largest) and the window it offers
    /// (`receive_window.rs`) instead of the fixed `window`; with `linux_acks` only.
    pub rmem: Option<Box<[u64; 3]>>,
}

/// Counters the flow table reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    pub segments_received: u64,
    /// Payload bytes that arrived although already received (spurious retransmissions).
    pub duplicate_bytes: u64,
    pub acks_sent: u64,
}

/// Layout: `repr(C, align(64))`, in declaration order: what every data segment reads and
/// writes fills the first three cache lines (the sequence state and the delayed-ACK timer,
/// then the configuration, then the lists' lengths, the counters and whether Linux's ACK
/// policy applies: `Option<QuickAck>`'s tag is in its first word); with thousands of flows
/// the receiver is out of cache whenever a segment arrives, so its lines are the cost.
/// Linux's window state follows them: only the `linux` profile touches it.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct TcpReceiver {
    rcv_nxt: u64,
    last_ack_sent: u64,
    ts_recent: u64,
    delack_at: Option<SimTime>,
    /// Out-of-order data above `rcv_nxt`: sorted, disjoint, non-adjacent [start, end).
    ooo: Vec<(u64, u64)>,
    cfg: ReceiverConfig,
    unacked_segments: u32,
    established: bool,
    /// Sequence numbers of recently received out-of-order segments, most recent first.
    recent: Vec<u64>,
    pub stats: ReceiverStats,
    quickack: Option<QuickAck>,
    syn_at: Option<SimTime>,
    /// Linux's receive buffer and window (`cfg.rmem`), from the SYN on.
    window: Option<LinuxWindow>,
    /// Segments held in the buffer, unread or out of order: (end, truesize), in arrival order.
    held: Vec<(u64, u64)>,
    /// Bytes the application has read (`copied_seq`).
    copied: u64,
    /// The application reads every in-order byte as soon as it arrives; otherwise only what
    /// `read` asks for (`reads_by_call`: a drill script's `read()`).
    reads_at_once: bool,
    /// Where a FIN without data arrived (the sender's `fin.rs`): one past the data.
    fin_at: Option<u64>,
}

impl TcpReceiver {
    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }

    pub fn new(cfg: ReceiverConfig) -> Self {
        TcpReceiver {
            established: false,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            unacked_segments: 0,
            delack_at: None,
            ts_recent: 0,
            last_ack_sent: 0,
            quickack: cfg.linux_acks.then(|| QuickAck::new(cfg.window, cfg.mss)),
            syn_at: None,
            window: None,
            held: Vec::new(),
            copied: 0,
            reads_at_once: true,
            fin_at: None,
            stats: ReceiverStats::default(),
            cfg,
        }
    }

    /// Bytes delivered in order to the application so far.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.delack_at
    }

    /// Handles a segment from the sender; returns the in-order range newly delivered to the
    /// application, if any.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) -> Option<(u64, u64)> {
        if seg.is_syn() {
            self.established = true;
            self.syn_at.get_or_insert(now);
            self.ts_recent = seg.ts_val;
            if self.window.is_none() && self.cfg.rmem.is_some() {
                self.make_linux_window();
            }
            let wnd = self.window.as_ref().map_or(self.cfg.window, |w| w.initial_window());
            out.push(Segment {
                flags: FLAG_SYN | FLAG_ACK,
                wnd,
                ts_val: if self.cfg.timestamps { ts_now(now) } else { 0 },
                ts_ecr: if self.cfg.timestamps { seg.ts_val } else { 0 },
                ..Default::default()
            });
            return None;
        }
        if self.window.is_none() && self.cfg.rmem.is_some() {
            self.make_linux_window();
        }
        if let Some(w) = &mut self.window {
            w.establish(now);
        }
        if seg.len == 0 && seg.is_fin() {
            self.on_lone_fin(now, seg.seq, out);
            return None;
        }
        if seg.len == 0 {
            return None;
        }
        self.stats.segments_received += 1;
        if self.cfg.timestamps && seg.ts_val != 0 && seg.seq <= self.last_ack_sent {
            self.ts_recent = seg.ts_val;
        }
        let (start, end) = (seg.seq, seg.end());
        if self.cfg.timestamps {
            let queue_empty = self.copied == self.rcv_nxt;
            if let Some(w) = &mut self.window {
                w.measure_rtt_ts(now, seg.len as u64, seg.ts_ecr, queue_empty);
            }
        }
        let had_holes = !self.ooo.is_empty();
        if end <= self.rcv_nxt {
            self.stats.duplicate_bytes += seg.len as u64;
            if let Some(q) = &mut self.quickack {
                q.enter_quickack_mode();
            }
            self.send_ack(now, None, Some((start, end)), out);
            return None;
        }
        if start > self.rcv_nxt {
            let dup = self.insert_ooo(start, end);
            self.stats.duplicate_bytes += dup;
            if dup < end - start && self.charge(now, seg, false, true).0 {
                if let Some(q) = &mut self.quickack {
                    q.request_one();
                }
            }
            self.recent.retain(|&s| s != start);
            self.recent.insert(0, start);
            self.recent.truncate(8);
            let dsack = (dup == end - start).then_some((start, end));
            self.send_ack(now, Some(start), dsack, out);
            return None;
        }
        let before = self.rcv_nxt;
        let dsack = (start < self.rcv_nxt).then_some((start, self.rcv_nxt));
        self.stats.duplicate_bytes += self.rcv_nxt - start;
        self.rcv_nxt = end;
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.stats.duplicate_bytes += self.rcv_nxt.min(e) - s;
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        let rcv_nxt = self.rcv_nxt;
        self.recent.retain(|&s| s >= rcv_nxt);
        self.unacked_segments += 1;
        let full = seg.len >= self.cfg.mss;
        // Read at once with nothing else held: the read below frees this segment alone, so it
        // is not listed in `held` (what `read` would find there and free).
        let lone = self.reads_at_once && self.held.is_empty();
        let (grew, truesize) = self.charge(now, seg, true, !lone);
        // The window `__tcp_select_window` would offer now, when the ACK test computed it:
        // nothing changes the window's state between that test and an ACK sent at once.
        let mut offer = None;
        let ack_now = match &mut self.quickack {
            Some(q) => {
                if let Some(w) = &self.window {
                    q.set_grant(w.quickack_grant());
                }
                q.on_data(now, self.syn_at);
                if grew {
                    q.request_one();
                }
                // The FIN: the receiving application reads to the end and closes, and its
                // FIN acknowledges everything at once (what a reader of a Linux socket does).
                let fin = seg.is_fin() && self.ooo.is_empty();
                // `__tcp_ack_snd_check`: more than one full frame since the window was last
                // offered, and the window would not shrink (`__tcp_select_window`, whose
                // low-space test also ends the quick ACKs).
                let frame = match &self.window {
                    Some(w) if self.rcv_nxt - w.rcv_wup() > w.rcv_mss() => {
                        let (window, low) = w.candidate();
                        offer = Some((window, low));
                        if low {
                            q.stop();
                        }
                        window >= w.rcv_wnd() || self.copied == self.rcv_nxt
                    }
                    Some(_) => false,
                    None => self.rcv_nxt - self.last_ack_sent > self.cfg.mss as u64,
                };
                fin || frame || q.in_quickack_mode()
            }
            None => full && self.unacked_segments >= self.cfg.ack_every,
        };
        if had_holes || dsack.is_some() || !self.cfg.delayed_ack || ack_now {
            self.send_ack_offering(now, None, dsack, offer, out);
        } else if self.delack_at.is_none() {
            let delay = self.quickack.as_ref().map_or(self.cfg.delack_timeout, |q| q.delay());
            // `tcp_send_delayed_ack`: `sk_reset_timer(jiffies + ato)` on the wheel.
            self.delack_at = Some(jiffies::fire_at(self.cfg.wheel, now, delay));
        }
        // Without Linux's window nothing reads the application's progress (`copied`).
        if self.reads_at_once && self.window.is_some() {
            let copied = self.rcv_nxt;
            let bytes = copied - self.copied;
            self.copied = copied;
            let freed = if lone { truesize } else { self.free_read(copied) };
            self.after_read(now, bytes, freed, out);
        }
        Some((before, self.rcv_nxt))
    }

    /// A FIN without data at `seq`: in order it is acknowledged at once (the application
    /// reads to the end and closes: its FIN acknowledges it, as for a FIN on data); out of
    /// order it is held (Linux `tcp_data_queue_ofo`) and reported in an immediate duplicate
    /// ACK as the SACK block (seq, seq + 1), merged with the block of data that ends at it
    /// (RFC 2018 4: the block of the segment that triggered the ACK comes first).
    fn on_lone_fin(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) {
        self.fin_at = Some(seq);
        let trigger = (seq > self.rcv_nxt).then_some(seq);
        self.send_ack(now, trigger, None, out);
    }

    /// The SACK block holding `seq`, or, for a FIN held out of order, the block of data that
    /// ends at it (if any) extended over the FIN's sequence number; a block that ends at the
    /// held FIN covers it too.
    fn sack_block(&self, seq: u64) -> Option<(u64, u64)> {
        let fin = self.fin_at.filter(|&f| f > self.rcv_nxt);
        if fin == Some(seq) {
            let data = seq.checked_sub(1).and_then(|s| self.block_containing(s));
            return Some((data.map_or(seq, |(s, _)| s), seq + 1));
        }
        let (s, e) = self.block_containing(seq)?;
        Some((s, if fin == Some(e) { e + 1 } else { e }))
    }

    /// Linux's window state, made at the first segment (the SYN, or data without a
    /// handshake) when `rmem` is set (with `linux_acks` only).
    #[cold]
    #[inline(never)]
    fn make_linux_window(&mut self) {
        let Some(rmem) = self.cfg.rmem.as_deref().copied().filter(|_| self.cfg.linux_acks) else { return };
        let ts = if self.cfg.timestamps { TS_BYTES } else { 0 };
        let mss = self.cfg.mss as u64;
        let cfg = WindowConfig { rmem, ..WindowConfig::linux(mss + ts, mss, self.cfg.timestamps, true) };
        self.window = Some(LinuxWindow::new(cfg));
    }

    /// Charges a data segment to the buffer (Linux's window only): its truesize as a TUN
    /// device allocates it, listed in `held` when `hold` (else the caller frees it itself);
    /// returns whether the window grew (`LinuxWindow::on_data`) and the truesize (0 without
    /// Linux's window).
    fn charge(&mut self, now: SimTime, seg: &Segment, in_order: bool, hold: bool) -> (bool, u64) {
        let rcv_nxt = self.rcv_nxt;
        let Some(w) = &mut self.window else { return (false, 0) };
        let truesize = tun_truesize(seg.len as u64, (seg.wire_bytes() - seg.len) as u64);
        if hold {
            self.held.push((seg.end(), truesize));
        }
        (w.on_data(now, seg.len as u64, truesize, in_order, rcv_nxt), truesize)
    }

    /// The application reads up to `max` in-order bytes at `now`; returns how many. Linux
    /// (`tcp_recvmsg` → `tcp_rcv_space_adjust`, `tcp_cleanup_rbuf`): the buffer is freed,
    /// autotuning may grow it, and a delayed ACK may go at once.
    pub fn read(&mut self, now: SimTime, max: u64, out: &mut Vec<Segment>) -> u64 {
        let copied = self.rcv_nxt.min(self.copied.saturating_add(max));
        let bytes = copied - self.copied;
        self.copied = copied;
        if self.window.is_none() {
            return bytes;
        }
        let freed = self.free_read(copied);
        self.after_read(now, bytes, freed, out);
        bytes
    }

    /// Drops from `held` the segments read up to `copied`; returns their truesize.
    fn free_read(&mut self, copied: u64) -> u64 {
        let mut freed = 0;
        if let [(end, truesize)] = self.held[..] {
            // One segment held (data read as it arrives).
            if end <= copied {
                freed = truesize;
                self.held.clear();
            }
        } else {
            self.held.retain(|&(end, truesize)| {
                let read = end <= copied;
                freed += if read { truesize } else { 0 };
                !read
            });
        }
        freed
    }

    /// The application read `bytes`, up to `self.copied`, which freed `freed` bytes of
    /// truesize (Linux's window only). Inlined: for every in-order segment read at once, a call would
    /// cost more than this part's few tests; what sends an ACK is a call of its own.
    #[inline(always)]
    fn after_read(&mut self, now: SimTime, bytes: u64, freed: u64, out: &mut Vec<Segment>) {
        let Some(w) = &mut self.window else { return };
        let ooo_end = self.ooo.last().map(|&(_, e)| e);
        w.on_read(now, self.copied, freed, self.rcv_nxt, ooo_end);
        // `tcp_cleanup_rbuf`: an ACK still scheduled goes once more than one frame arrived
        // since the window was last offered; else a read that lets the window at least
        // double what is still open (and that is at most half the clamp) sends one.
        if self.delack_at.is_some() && self.rcv_nxt - w.rcv_wup() > w.rcv_mss() {
            self.send_ack(now, None, None, out);
        } else if bytes > 0 && 2 * w.open_window(self.rcv_nxt) <= w.window_clamp() {
            self.ack_opened_window(now, out);
        }
    }

    /// `tcp_cleanup_rbuf` after a read, with no ACK scheduled to go and at most half the clamp
    /// still open: an ACK goes if the window offered now is at least twice what is open.
    #[inline(never)]
    fn ack_opened_window(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let Some(w) = &self.window else { return };
        let open = w.open_window(self.rcv_nxt);
        let (offer, low) = w.candidate();
        if low {
            if let Some(q) = &mut self.quickack {
                q.stop();
            }
        }
        if offer > 0 && offer >= 2 * open {
            self.send_ack_offering(now, None, None, Some((offer, low)), out);
        }
    }

    /// Offers Linux's window `w` (set before the first segment; a drill socket's own
    /// `tcp_rmem` and scaling).
    pub fn set_linux_window(&mut self, w: LinuxWindow) {
        self.window = Some(w);
    }

    /// Linux's window state, to select the window a segment of the other half carries.
    pub fn linux_window_mut(&mut self) -> Option<&mut LinuxWindow> {
        self.window.as_mut()
    }

    /// From now on the application reads only when `read` is called.
    pub fn reads_by_call(&mut self) {
        self.reads_at_once = false;
    }

    /// Linux's receive-side state for `tcp_info` (`None` without `rmem`).
    pub fn linux_state(&self) -> Option<&LinuxWindow> {
        self.window.as_ref()
    }

    /// Bytes arrived in order and not yet read.
    pub fn unread(&self) -> u64 {
        self.rcv_nxt - self.copied
    }

    /// The delayed-ACK timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            if let Some(q) = &mut self.quickack {
                q.on_timer();
            }
            self.send_ack(now, None, None, out);
        }
    }

    /// Inserts [start, end) into the out-of-order set; returns bytes already present.
    fn insert_ooo(&mut self, start: u64, end: u64) -> u64 {
        let i = self.ooo.partition_point(|&(_, e)| e < start);
        let mut new = (start, end);
        let mut overlap = 0;
        while i < self.ooo.len() && self.ooo[i].0 <= new.1 {
            let (s, e) = self.ooo.remove(i);
            overlap += e.min(end).saturating_sub(s.max(start));
            new = (new.0.min(s), new.1.max(e));
        }
        self.ooo.insert(i, new);
        overlap
    }

    fn block_containing(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, e)| e <= seq);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= seq)
    }

    /// Sends an ACK: the DSACK block first (if any and enabled), then the block holding the
    /// triggering segment, then the most recently reported blocks (RFC 2018 4).
    fn send_ack(&mut self, now: SimTime, trigger: Option<u64>, dsack: Option<(u64, u64)>, out: &mut Vec<Segment>) {
        self.send_ack_offering(now, trigger, dsack, None, out);
    }

    /// `send_ack`, where `offer` (if any) is Linux's window's `candidate()` in its current
    /// state, already computed.
    fn send_ack_offering(&mut self, now: SimTime, trigger: Option<u64>, dsack: Option<(u64, u64)>, offer: Option<(u64, bool)>, out: &mut Vec<Segment>) {
        let mut sack = SackBlocks::default();
        if self.cfg.sack {
            let max_blocks = self.cfg.max_sack_blocks;
            let dsack = dsack.filter(|_| self.cfg.dsack);
            if let Some(d) = dsack {
                sack.push(d);
            }
            let fin = self.fin_at.filter(|&f| f > self.rcv_nxt);
            // The blocks holding the trigger, the recent segments and a held FIN, in that
            // order, until `max_blocks` (once full, no later one is added).
            let mut add = |seq: u64| {
                let reported = |sack: &SackBlocks| sack.iter().skip(dsack.is_some() as usize).any(|(s, e)| s <= seq && seq < e);
                // A data byte inside a block already listed has that block (blocks are whole
                // out-of-order runs, disjoint): no lookup. Not while a FIN is held, whose
                // block may end inside data a peer sent past it.
                if sack.len() < max_blocks && (fin.is_some() || !reported(&sack)) {
                    if let Some(b) = self.sack_block(seq) {
                        if !sack.iter().skip(dsack.is_some() as usize).any(|x| x == b) {
                            sack.push(b);
                        }
                    }
                }
            };
            if let Some(seq) = trigger {
                add(seq);
            }
            for &seq in &self.recent {
                add(seq);
            }
            if let Some(seq) = fin {
                add(seq);
            }
        }
        let wnd = match &mut self.window {
            Some(w) => {
                let (window, low) = w.select_from(offer.unwrap_or_else(|| w.candidate()), self.rcv_nxt);
                if low {
                    if let Some(q) = &mut self.quickack {
                        q.stop();
                    }
                }
                window
            }
            None => self.cfg.window,
        };
        out.push(Segment {
            flags: FLAG_ACK,
            ack: self.rcv_nxt,
            wnd,
            ts_val: if self.cfg.timestamps { ts_now(now) } else { 0 },
            ts_ecr: if self.cfg.timestamps { self.ts_recent } else { 0 },
            sack,
            ..Default::default()
        });
        self.stats.acks_sent += 1;
        if let Some(q) = &mut self.quickack {
            q.on_ack_sent();
        }
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver(delayed: bool) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            mss: 100,
            sack: true,
            dsack: true,
            max_sack_blocks: 3,
            timestamps: true,
            delayed_ack: delayed,
            ack_every: 2,
            delack_timeout: SimDuration::from_millis(200),
            window: 1 << 20,
            linux_acks: false,
            wheel: None,
            rmem: None,
        })
    }

    fn data(seq: u64, ts: u64) -> Segment {
        Segment { flags: FLAG_ACK, seq, len: 100, ts_val: ts, ..Default::default() }
    }

    /// The three hot lines the layout comment names: the sequence state, the configuration
    /// and the counters with the quick-ACK state's tag.
    #[test]
    fn hot_fields_fill_the_first_three_lines() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<TcpReceiver>(), 64);
        assert_eq!(offset_of!(TcpReceiver, ooo) + size_of::<Vec<(u64, u64)>>(), 64);
        assert_eq!(offset_of!(TcpReceiver, cfg), 64);
        assert_eq!(offset_of!(TcpReceiver, unacked_segments), 128);
        assert!(offset_of!(TcpReceiver, quickack) + 8 <= 192);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timeout() {
        let mut r = receiver(true);
        let mut out = vec![];
        r.on_segment(SimTime(1), &data(0, 1), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_wakeup(), Some(SimTime(1) + SimDuration::from_millis(200)));
        r.on_segment(SimTime(2), &data(100, 2), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 200);
        r.on_segment(SimTime(3), &data(200, 3), &mut out);
        r.on_timer(SimTime(3) + SimDuration::from_millis(200), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].ack, 300);
    }

    /// RFC 2018, 4 example logic: the first block holds the triggering segment, the next
    /// ones the most recently reported other blocks.
    #[test]
    fn sack_blocks_most_recent_first() {
        let mut r = receiver(false);
        let mut out = vec![];
        r.on_segment(SimTime(1), &data(0, 1), &mut out);
        r.on_segment(SimTime(2), &data(200, 2), &mut out); // hole at 100
        r.on_segment(SimTime(3), &data(500, 3), &mut out); // hole at 300..500
        r.on_segment(SimTime(4), &data(300, 4), &mut out); // joins 200..400? no: 300..400 next to 200..300
        let last = out.last().unwrap();
        assert_eq!(last.ack, 100);
        assert_eq!(last.sack.to_vec(), [(200, 400), (500, 600)]);
        // ts_ecr echoes the segment at the left edge (seq 0), not the out-of-order ones
        assert_eq!(last.ts_ecr, 1);
        let delivered = r.on_segment(SimTime(5), &data(100, 5), &mut out);
        assert_eq!(delivered, Some((100, 400)));
        assert_eq!(out.last().unwrap().ack, 400);
        assert_eq!(out.last().unwrap().sack.to_vec(), [(500, 600)]);
        assert_eq!(out.last().unwrap().ts_ecr, 5);
    }

    #[test]
    fn duplicate_bytes_are_counted() {
        let mut r = receiver(false);
        let mut out = vec![];
        r.on_segment(SimTime(1), &data(0, 1), &mut out);
        r.on_segment(SimTime(2), &data(0, 2), &mut out);
        r.on_segment(SimTime(3), &data(200, 3), &mut out);
        r.on_segment(SimTime(4), &data(200, 4), &mut out);
        assert_eq!(r.stats.duplicate_bytes, 200);
        assert_eq!(r.delivered(), 100);
    }

    /// RFC 2883 4.1.1 and 4.1.2 cases by hand: a duplicate below RCV.NXT is the first block
    /// (below the ACK); a duplicate inside an out-of-order block is followed by that block.
    #[test]
    fn duplicates_are_reported_as_dsack_blocks() {
        let mut r = receiver(false);
        let mut out = vec![];
        r.on_segment(SimTime(1), &data(0, 1), &mut out);
        r.on_segment(SimTime(2), &data(0, 2), &mut out);
        assert_eq!(out.last().unwrap().ack, 100);
        assert_eq!(out.last().unwrap().sack.to_vec(), [(0, 100)]);
        r.on_segment(SimTime(3), &data(300, 3), &mut out);
        r.on_segment(SimTime(4), &data(300, 4), &mut out);
        assert_eq!(out.last().unwrap().sack.to_vec(), [(300, 400), (300, 400)]);
        // the next ACK carries no DSACK any more
        r.on_segment(SimTime(5), &data(500, 5), &mut out);
        assert_eq!(out.last().unwrap().sack.to_vec(), [(500, 600), (300, 400)]);
    }

    /// A FIN without data (the sender's lone FIN): out of order it is reported as the block
    /// (seq, seq + 1), merged with the data that ends at it; in order it is acknowledged at
    /// once with the data's ACK number (the simulator's ACKs count data only).
    #[test]
    fn lone_fin_is_sacked_out_of_order_and_acked_in_order() {
        let mut r = receiver(true);
        let mut out = vec![];
        let fin = |seq: u64| Segment { flags: FLAG_ACK | super::super::segment::FLAG_FIN, seq, ..Default::default() };
        r.on_lone_fin(SimTime(1), 300, &mut out);
        assert_eq!((out[0].ack, out[0].sack.to_vec()), (0, vec![(300, 301)]));
        r.on_segment(SimTime(2), &data(200, 2), &mut out);
        assert_eq!(out.last().unwrap().sack.to_vec(), [(200, 301)]);
        let mut r = receiver(true);
        let mut out = vec![];
        r.on_segment(SimTime(1), &data(0, 1), &mut out);
        r.on_segment(SimTime(2), &fin(100), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].ack, out[0].sack.len()), (100, 0));
    }
}
