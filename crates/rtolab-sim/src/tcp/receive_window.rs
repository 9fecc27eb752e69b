//! Linux's receive buffer and the window it advertises (6.x: `net/ipv4/tcp_input.c`,
//! `tcp_output.c`, `include/net/tcp.h`), for a receiver whose segments arrive through a TUN
//! device, as in `rtolab-emu` and `rtolab drill --kernel`.
//!
//! - **Buffer to window.** A buffer of `space` bytes is worth `space · ratio / 256` bytes of
//!   window (`tcp_win_from_space`). The ratio starts at 128 (`TCP_DEFAULT_SCALING_RATIO`)
//!   and is set from the first full segment as `len · 256 / truesize`
//!   (`tcp_measure_rcv_mss`), which clamps the window to the buffer's worth
//!   (`tcp_set_window_clamp`).
//! - **Initial window.** `tcp_openreq_init_rwin` → `tcp_select_initial_window`: the buffer
//!   `tcp_rmem[1]`'s worth, rounded down to whole segments of the MSS less the timestamp
//!   option, with no 64 KB cap (upstream 378979e94e95, "tcp: remove 64 KByte limit for
//!   initial tp->rcv_wnd value", 6.10; the cap stays only with
//!   `tcp_workaround_signed_windows`); the scale is log2 of `max(tcp_rmem[2], rmem_max)` − 15
//!   (0–14). The SYN-ACK's own 16-bit field carries at most 65535 of it (`tcp_make_synack`,
//!   `tcp_synack_window`), but the child starts with `rcv_wnd` and `rcv_ssthresh` at the full
//!   value (`tcp_create_openreq_child`). Measured on 6.18.44 (peer MSS 1000, no timestamps):
//!   `tcp_rmem[1]` 262144 / 540000 / 1000000 give `tcpi_rcv_wnd` 129940 / 268640 / 499320
//!   with a SYN-ACK window of 65535. With timestamps `advmss` loses the option's 12 bytes
//!   when the handshake completes, before `tcp_init_buffer_space` runs
//!   (`tcp_rcv_state_process`, `TCP_SYN_RECV`, since cd171461b90a "tcp: fix initial
//!   tp->rcvq_space.space value for passive TS enabled flows"; measured: tcpi_advmss 1448
//!   for an MTU of 1500, `rcvq_space` 14480). At establishment `tcp_init_buffer_space` clamps the window to the
//!   buffer's worth less one segment, `rcv_ssthresh` to that clamp (so 268540 for 540000),
//!   and sets `rcvq_space` to at most 10 segments.
//! - **Growth.** Every segment of at least 128 bytes raises `rcv_ssthresh` by 2 · advmss
//!   while there is room below `min(window_clamp, free space)` and its truesize is worth no
//!   more than its length (`tcp_grow_window`, else the halving search `__tcp_grow_window`),
//!   and asks for one quick ACK (`icsk_ack.quick |= 1`).
//! - **Autotuning.** The receiver's RTT is the time to receive one window
//!   (`tcp_rcv_rtt_measure`, a minimum) or, with timestamps, the echo of its own (smoothed,
//!   `tcp_rcv_rtt_measure_ts`); once per such RTT, a read that finds more copied than
//!   `rcvq_space` sets it to that and grows the buffer (`tcp_rcv_space_adjust`,
//!   `tcp_rcvbuf_grow`). Since 6.18 (aa251c84636c, "tcp: fix too slow tcp_rcvbuf_grow()
//!   action") the window it sizes the buffer for is twice the new copied count plus twice
//!   that times the relative growth since the last measure, `2n + 2 · ⌊2n · (n − o) / o⌋`
//!   (then the out-of-order span), at most `tcp_rmem[2]`; 6.17 sized it for `2n` only, so
//!   the clamp trailed a sender in slow start by about one RTT.
//! - **Window offered.** `__tcp_select_window`: the free space (buffer less what unread and
//!   out-of-order segments hold, by truesize) capped at `rcv_ssthresh`, rounded up to the
//!   scale's unit; below half the full space the quick ACKs stop and the free space is
//!   rounded down; `tcp_select_window` never offers less than the window still open.
//!
//! Truesize (`tun_get_user` → `sock_alloc_send_pskb`, linear): the kmalloc size class of
//! `NET_SKB_PAD` + IP and TCP headers + payload + `skb_shared_info`, plus `struct sk_buff`:
//! 2304 bytes for a 1000- to 1460-byte segment. Not modelled: memory pressure, `SO_RCVBUF`
//! locks, `tcp_shrink_window`, coalescing (TUN's linear buffers leave no room for it).

use super::quickack::MAX_QUICKACKS;
use crate::time::SimTime;

/// The `tcp_rmem` the drill scripts set (least, initial and largest receive buffer): Linux's
/// default until 6.15. Since 6.16 (572be9bf9d0d, "tcp: increase tcp_rmem[2] to 32 MB") the
/// default largest buffer is 33554432: a fresh network namespace on 6.18.44 reads
/// `4096 131072 33554432`, so the kernels of `rtolab emulate` offer scale 10 and round their
/// windows to 1024 bytes, where this value gives scale 7.
pub const DEFAULT_RMEM: [u64; 3] = [4096, 131_072, 6_291_456];

/// Linux 6.16+'s default `tcp_rmem` (572be9bf9d0d: `tcp_rmem[2]` 32 MB), what a fresh network
/// namespace of kernel 6.18 reads and so what `rtolab emulate`'s receivers run with: the
/// simulated flows' receive buffer.
pub const KERNEL_RMEM: [u64; 3] = [4096, 131_072, 33_554_432];

/// `TCP_RMEM_TO_WIN_SCALE`: the ratio is in 1/256ths.
const RATIO_SHIFT: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO`: 50 % until a segment is measured.
const DEFAULT_RATIO: u64 = 1 << (RATIO_SHIFT - 1);
/// `TCP_MSS_DEFAULT` and `TCP_MIN_MSS`, the bounds of the first `rcv_mss` guess.
const MSS_DEFAULT: u64 = 536;
const MIN_MSS: u64 = 88;
/// `TCP_INIT_CWND`: `rcvq_space` starts at most this many segments.
const INIT_CWND: u64 = 10;
/// `SOCK_MIN_RCVBUF / 2`: the least window clamp (2 · (2048 + 256) / 2).
const MIN_CLAMP: u64 = 2304;
/// `net.core.rmem_max` by default (212992), which the window scale also considers.
const CORE_RMEM_MAX: u64 = 212_992;
/// `NET_SKB_PAD`, `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` and
/// `SKB_DATA_ALIGN(sizeof(struct sk_buff))` on x86-64.
const SKB_PAD: u64 = 64;
const SHINFO: u64 = 320;
const SKB: u64 = 256;
/// The timestamp option's bytes (`TCPOLEN_TSTAMP_ALIGNED`).
pub const TS_BYTES: u64 = 12;
/// The largest window a SYN or SYN-ACK can carry (its field is never scaled, RFC 7323 2.2).
const SYN_WINDOW_MAX: u64 = u16::MAX as u64;

/// The window scale a listener offers (`tcp_select_initial_window`): log2 of the largest
/// buffer it could ever offer — the initial buffer's worth, `tcp_rmem[2]` and `net.core.rmem_max`
/// — less 15, clamped to 0–14 (RFC 7323 2.3).
pub fn offered_scale(rmem: [u64; 3]) -> u8 {
    let full = (rmem[1] * DEFAULT_RATIO) >> RATIO_SHIFT;
    let largest = full.max(rmem[2]).max(CORE_RMEM_MAX);
    (63 - largest.leading_zeros() as i64 - 15).clamp(0, 14) as u8
}

/// The memory a TUN device charges for a segment of `payload` bytes with `header` bytes of
/// IP and TCP headers: the kmalloc size class of its linear buffer plus `struct sk_buff`
/// (`SKB_TRUESIZE`). kmalloc classes are powers of two (and 96, 192); the small-head cache
/// (`skb_small_head_cache`, heads under about 640 bytes) is not modelled.
pub fn tun_truesize(payload: u64, header: u64) -> u64 {
    let linear = (SKB_PAD + header + payload).div_ceil(64) * 64 + SHINFO;
    let class = match linear {
        0..=96 => 96,
        97..=128 => 128,
        129..=192 => 192,
        n => n.next_power_of_two(),
    };
    class + SKB
}

#[derive(Clone, Copy, Debug)]
pub struct WindowConfig {
    /// `tcp_rmem`: least, initial and largest buffer in bytes.
    pub rmem: [u64; 3],
    /// The MSS this side advertises in its SYN-ACK (the MTU less IP and TCP headers). Linux's
    /// `tp->advmss` is this less the timestamp option when timestamps are on.
    pub advmss: u64,
    /// The peer's MSS as this side sends (`mss_cache`).
    pub mss_cache: u64,
    pub timestamps: bool,
    /// Both sides offered window scaling.
    pub scaling: bool,
    /// `tcp_moderate_rcvbuf`: receive-buffer autotuning.
    pub autotune: bool,
}

impl WindowConfig {
    /// Linux's defaults (`tcp_rmem` 4096 131072 6291456, autotuning on).
    pub fn linux(advmss: u64, mss_cache: u64, timestamps: bool, scaling: bool) -> Self {
        WindowConfig { rmem: DEFAULT_RMEM, advmss, mss_cache, timestamps, scaling, autotune: true }
    }
}

/// One connection's receive buffer and advertised window. Sequence numbers are byte offsets
/// of the peer's data (0 = its first byte).
///
/// Invariants: `rcv_ssthresh ≤ window_clamp` after establishment except while autotuning
/// raised the clamp; `allocated` is the truesize of the segments held (unread in order, or
/// out of order); `rcv_wnd` is the window last offered at `rcv_wup`.
#[derive(Clone, Debug)]
pub struct LinuxWindow {
    cfg: WindowConfig,
    /// `tp->advmss`: `cfg.advmss` less the timestamp option once negotiated.
    advmss: u64,
    ratio: u64,
    rcvbuf: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    rcv_wnd: u64,
    rcv_wup: u64,
    wscale: u8,
    rcv_mss: u64,
    last_seg_size: u64,
    allocated: u64,
    /// `rcvq_space`: bytes copied per receiver RTT, and where and when its measure began.
    space: u64,
    space_seq: u64,
    space_time: Option<SimTime>,
    /// `rcv_rtt_est`: the RTT in µs · 8 (0: none), and the sequence and time the current
    /// window measurement waits for.
    rtt_us8: u64,
    rtt_seq: u64,
    rtt_time: Option<SimTime>,
    last_tsecr: u64,
}

impl LinuxWindow {
    /// The listener's answer to a SYN (`tcp_openreq_init_rwin` → `tcp_select_initial_window`):
    /// `rcv_wnd` is the initial buffer's worth in whole segments, not capped at 65535
    /// (378979e94e95); the child socket starts with `rcv_ssthresh` = `rcv_wnd`
    /// (`tcp_create_openreq_child`).
    pub fn new(cfg: WindowConfig) -> Self {
        let full = (cfg.rmem[1] * DEFAULT_RATIO) >> RATIO_SHIFT;
        let mss = cfg.advmss - if cfg.timestamps { TS_BYTES } else { 0 };
        let space = if full > mss { full / mss * mss } else { full };
        let rcv_wnd = space;
        let wscale = if cfg.scaling { offered_scale(cfg.rmem) } else { 0 };
        LinuxWindow {
            cfg,
            advmss: mss,
            ratio: DEFAULT_RATIO,
            rcvbuf: cfg.rmem[1],
            window_clamp: (u16::MAX as u64) << wscale,
            rcv_ssthresh: rcv_wnd,
            rcv_wnd,
            rcv_wup: 0,
            wscale,
            rcv_mss: MSS_DEFAULT,
            last_seg_size: 0,
            allocated: 0,
            space: 0,
            space_seq: 0,
            space_time: None,
            rtt_us8: 0,
            rtt_seq: 0,
            rtt_time: None,
            last_tsecr: 0,
        }
    }

    /// The window scale this side offers (0 without scaling).
    pub fn wscale(&self) -> u8 {
        self.wscale
    }

    /// The window the SYN-ACK carries: never scaled (RFC 7323 2.2), so at most 65535 of
    /// `rcv_wnd` (`tcp_make_synack`: `tcp_synack_window`).
    pub fn initial_window(&self) -> u64 {
        self.rcv_wnd.min(SYN_WINDOW_MAX)
    }

    /// The handshake completes at `now` (`tcp_init_buffer_space`, `tcp_initialize_rcv_mss`;
    /// `advmss` already less the timestamp option, `tcp_rcv_state_process`).
    pub fn establish(&mut self, now: SimTime) {
        if self.space_time.is_some() {
            return;
        }
        let advmss = self.advmss;
        let maxwin = self.win_from_space(self.rcvbuf);
        if self.window_clamp >= maxwin {
            self.window_clamp = maxwin;
        }
        // Force the reservation of one segment (`tcp_app_win` 31 keeps the rest).
        if self.window_clamp > 2 * advmss && self.window_clamp + advmss > maxwin {
            self.window_clamp = (2 * advmss).max(maxwin - advmss);
        }
        self.rcv_ssthresh = self.rcv_ssthresh.min(self.window_clamp);
        self.space = self.rcv_ssthresh.min(self.rcv_wnd).min(INIT_CWND * advmss);
        self.space_time = Some(now);
        let hint = advmss.min(self.cfg.mss_cache).min(self.rcv_wnd / 2).min(MSS_DEFAULT);
        self.rcv_mss = hint.max(MIN_MSS);
    }

    fn win_from_space(&self, space: u64) -> u64 {
        (space * self.ratio) >> RATIO_SHIFT
    }

    fn space_from_win(&self, win: u64) -> u64 {
        (win << RATIO_SHIFT) / self.ratio
    }

    /// `tcp_space`: the window the free buffer is worth.
    fn free_space(&self) -> u64 {
        self.win_from_space(self.rcvbuf.saturating_sub(self.allocated))
    }

    /// `tcp_set_window_clamp`.
    fn set_window_clamp(&mut self, val: u64) {
        let clamp = val.max(MIN_CLAMP);
        if clamp < self.window_clamp {
            self.rcv_ssthresh = self.rcv_ssthresh.min(clamp);
        } else if clamp > self.window_clamp {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(clamp));
        }
        self.window_clamp = clamp;
    }

    /// The peer's guessed MSS (`icsk_ack.rcv_mss`).
    pub fn rcv_mss(&self) -> u64 {
        self.rcv_mss
    }

    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    /// `rcvq_space.space`.
    pub fn rcv_space(&self) -> u64 {
        self.space
    }

    /// The window last offered (`rcv_wnd`).
    pub fn rcv_wnd(&self) -> u64 {
        self.rcv_wnd
    }

    /// The largest window this side would offer now (`window_clamp`).
    pub fn window_clamp(&self) -> u64 {
        self.window_clamp
    }

    /// Where the window last offered starts (`rcv_wup`).
    pub fn rcv_wup(&self) -> u64 {
        self.rcv_wup
    }

    /// The receiver's RTT estimate in µs (`rcv_rtt_est.rtt_us >> 3`).
    pub fn rcv_rtt_us(&self) -> u64 {
        self.rtt_us8 >> 3
    }

    /// Quick ACKs one grant gives (`tcp_incr_quickack`: the window over two segments, 2 when
    /// that is 0, at most `TCP_MAX_QUICKACKS`). A window of at least 2 · 16 segments gives
    /// the most without a division (⌊w / 2m⌋ ≥ 16 exactly when w ≥ 32m).
    pub fn quickack_grant(&self) -> u64 {
        if self.rcv_wnd >= 2 * MAX_QUICKACKS * self.rcv_mss {
            return MAX_QUICKACKS;
        }
        match self.rcv_wnd / (2 * self.rcv_mss) {
            0 => 2,
            n => n,
        }
    }

    /// `tcp_rcv_rtt_update`: window samples (`win_dep`) only lower the estimate; timestamp
    /// samples are smoothed by 1/8 while nothing waits unread.
    fn rtt_update(&mut self, sample_us: u64, win_dep: bool, queue_empty: bool) {
        let m = sample_us << 3;
        if self.rtt_us8 == 0 || m < self.rtt_us8 {
            self.rtt_us8 = m;
        } else if !win_dep && queue_empty {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        }
    }

    /// `tcp_rcv_rtt_measure_ts`, for a segment carrying `len` bytes that echoes `tsecr` (this
    /// side's timestamp, in the simulator's ns; 0: none). Runs before the segment is queued.
    pub fn measure_rtt_ts(&mut self, now: SimTime, len: u64, tsecr: u64, queue_empty: bool) {
        if tsecr == 0 || tsecr == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        if len >= self.rcv_mss {
            // Linux's timestamp clock ticks in ms (`tcp_time_stamp_ts`, TCP_TS_HZ 1000).
            let delta_ms = (now.0 / 1_000_000).saturating_sub(tsecr / 1_000_000);
            if delta_ms > 0 {
                self.rtt_update(delta_ms * 1000, false, queue_empty);
            }
        }
    }

    /// A data segment of `len` payload bytes and `truesize` was queued; `rcv_nxt` is the next
    /// byte expected after it. In order: `tcp_event_data_recv` (`tcp_measure_rcv_mss`,
    /// `tcp_rcv_rtt_measure`, then `tcp_grow_window` with the truesize adjustment, which a
    /// linear buffer never gets); out of order: only `tcp_grow_window` (`tcp_data_queue_ofo`).
    /// Returns whether the window grew (one quick ACK is then due).
    pub fn on_data(&mut self, now: SimTime, len: u64, truesize: u64, in_order: bool, rcv_nxt: u64) -> bool {
        self.allocated += truesize;
        if in_order {
            self.measure_rcv_mss(len, truesize);
            self.measure_rtt_window(now, rcv_nxt);
        }
        len >= 128 && self.grow(len, truesize)
    }

    /// `tcp_measure_rcv_mss` (a segment without PSH).
    fn measure_rcv_mss(&mut self, len: u64, truesize: u64) {
        let lss = std::mem::take(&mut self.last_seg_size);
        if len >= self.rcv_mss {
            if len != self.rcv_mss {
                let ratio = ((len << RATIO_SHIFT) / truesize).max(1);
                if ratio != self.ratio {
                    self.ratio = ratio;
                    self.set_window_clamp(self.win_from_space(self.rcvbuf));
                    self.space = self.space.min(self.window_clamp);
                }
            }
            self.rcv_mss = len.min(self.advmss);
        } else {
            // A short segment: its length with the TCP header (options included) counts once
            // it is at least `TCP_MIN_MSS` + 20 (no PSH here); two of the same length in a
            // row set `rcv_mss` to it.
            let header = 20 + if self.cfg.timestamps { TS_BYTES } else { 0 };
            if len + header >= MIN_MSS + 20 {
                self.last_seg_size = len;
                if len == lss {
                    self.rcv_mss = len;
                }
            }
        }
    }

    /// `tcp_rcv_rtt_measure`: the time one window takes to arrive.
    fn measure_rtt_window(&mut self, now: SimTime, rcv_nxt: u64) {
        if let Some(t) = self.rtt_time {
            if rcv_nxt < self.rtt_seq {
                return;
            }
            let us = (now.since(t).as_nanos() / 1000).max(1);
            self.rtt_update(us, true, false);
        }
        self.rtt_seq = rcv_nxt + self.rcv_wnd;
        self.rtt_time = Some(now);
    }

    /// `tcp_grow_window` / `__tcp_grow_window`.
    fn grow(&mut self, len: u64, truesize: u64) -> bool {
        let limit = self.window_clamp.min(self.free_space());
        if limit <= self.rcv_ssthresh {
            return false;
        }
        let room = limit - self.rcv_ssthresh;
        let incr = if self.win_from_space(truesize) <= len {
            2 * self.advmss
        } else {
            let mut worth = self.win_from_space(truesize) >> 1;
            let mut window = self.win_from_space(self.cfg.rmem[2]) >> 1;
            let mut incr = 0;
            while self.rcv_ssthresh <= window {
                if worth <= len {
                    incr = 2 * self.rcv_mss;
                    break;
                }
                worth >>= 1;
                window >>= 1;
            }
            incr
        };
        if incr == 0 {
            return false;
        }
        self.rcv_ssthresh += room.min(incr.max(2 * len));
        true
    }

    /// The application read up to `copied_seq` at `now`, freeing `freed` bytes of truesize;
    /// `rcv_nxt` and `ooo_end` (the end of the highest out-of-order segment, if any) are the
    /// receiver's. `tcp_rcv_space_adjust` and `tcp_rcvbuf_grow` as of 6.18 (aa251c84636c):
    /// for `n` copied in the last receiver RTT after `o`, a window of
    /// `2n + 2 · ⌊2n · (n − o) / o⌋` plus the out-of-order span.
    #[inline]
    pub fn on_read(&mut self, now: SimTime, copied_seq: u64, freed: u64, rcv_nxt: u64, ooo_end: Option<u64>) {
        self.allocated = self.allocated.saturating_sub(freed);
        let Some(start) = self.space_time else { return };
        // Once per receiver RTT (`rtt_us8` is 8 × µs; the elapsed time compared in ns).
        if self.rtt_us8 == 0 || now.since(start).as_nanos() < (self.rtt_us8 >> 3) * 1000 {
            return;
        }
        self.adjust_space(now, copied_seq, rcv_nxt, ooo_end);
    }

    /// `tcp_rcv_space_adjust` past its once-per-RTT test.
    #[inline(never)]
    fn adjust_space(&mut self, now: SimTime, copied_seq: u64, rcv_nxt: u64, ooo_end: Option<u64>) {
        let copied = (copied_seq - self.space_seq).saturating_sub(rcv_nxt - copied_seq);
        if copied > self.space {
            let old = std::mem::replace(&mut self.space, copied);
            if self.cfg.autotune {
                // "DRS is always one RTT late": twice what was copied, and twice that again
                // in proportion to the growth over the previous RTT (slow start).
                let mut window = copied << 1;
                window += (window * (copied - old) / old.max(1)) << 1;
                window += ooo_end.map_or(0, |e| e - rcv_nxt);
                let rcvbuf = self.space_from_win(window).min(self.cfg.rmem[2]);
                if rcvbuf > self.rcvbuf {
                    self.rcvbuf = rcvbuf;
                    self.window_clamp = self.win_from_space(rcvbuf);
                }
            }
        }
        self.space_seq = copied_seq;
        self.space_time = Some(now);
    }

    /// Memory freed without a read (out-of-order data dropped): only the accounting.
    pub fn release(&mut self, freed: u64) {
        self.allocated = self.allocated.saturating_sub(freed);
    }

    /// `__tcp_select_window`: the window to offer now, and whether the free space is below
    /// half the full space (the quick ACKs then stop).
    pub fn candidate(&self) -> (u64, bool) {
        let allowed = self.win_from_space(self.rcvbuf);
        let full = self.window_clamp.min(allowed);
        let mss = self.rcv_mss.min(full);
        let unit_mask = (1u64 << self.wscale) - 1;
        let mut free = self.free_space();
        let low = free < full >> 1;
        if low {
            free &= !unit_mask;
            if free < allowed >> 4 || free < mss {
                return (0, true);
            }
        }
        free = free.min(self.rcv_ssthresh);
        if self.wscale > 0 {
            return ((free + unit_mask) & !unit_mask, low);
        }
        let window = self.rcv_wnd;
        if window + mss <= free || window > free {
            (free / mss * mss, low)
        } else if mss == full && free > window + (full >> 1) {
            (free, low)
        } else {
            (window, low)
        }
    }

    /// `tcp_receive_window`: what is left of the window last offered.
    pub fn open_window(&self, rcv_nxt: u64) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt)
    }

    /// `tcp_select_window` as an ACK or segment leaves with `rcv_nxt`: never less than the
    /// window still open; returns the window in bytes the segment carries (a multiple of the
    /// scale's unit, at most 65535 units). `rcv_wnd` keeps the window before that cap, as the
    /// kernel stores it before capping the field: without scaling and with `tcp_rmem[1]` =
    /// 540000, 6.18.44 sends 65535 and keeps `tcpi_rcv_wnd` at the 268640 it started with.
    pub fn select(&mut self, rcv_nxt: u64) -> (u64, bool) {
        self.select_from(self.candidate(), rcv_nxt)
    }

    /// `select` given `candidate()` as of now (the window's state unchanged since it was
    /// computed).
    #[inline]
    pub fn select_from(&mut self, (new, low): (u64, bool), rcv_nxt: u64) -> (u64, bool) {
        let open = self.open_window(rcv_nxt);
        let unit = 1u64 << self.wscale;
        let window = if new < open { open.div_ceil(unit) * unit } else { new };
        self.rcv_wnd = window;
        self.rcv_wup = rcv_nxt;
        (window.min((u16::MAX as u64) << self.wscale), low)
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// By hand from the kernel's arithmetic (`kmalloc` classes, x86-64 sizes): 64 + 40 +
    /// 1000 = 1104 → 1152 aligned, + 320 = 1472 → the 2048 class, + 256 = 2304; 1448 bytes
    /// with timestamps: 64 + 52 + 1448 = 1564 → 1600 + 320 = 1920 → 2048 → 2304; 100 bytes:
    /// 64 + 40 + 100 = 204 → 256 + 320 = 576 → 1024 → 1280.
    #[test]
    fn truesize_of_a_tun_segment() {
        assert_eq!(tun_truesize(1000, 40), 2304);
        assert_eq!(tun_truesize(1448, 52), 2304);
        assert_eq!(tun_truesize(100, 40), 1280);
    }

    /// The receive-window-growth drill script, worked by hand (MSS 1000 from the peer, no
    /// timestamps, scale 7): SYN-ACK window ⌊65536 / 1460⌋ · 1460 = 64240; at establishment
    /// the clamp is 65536 − 1460 = 64076 and `rcvq_space` min(64076, 64240, 14600) = 14600;
    /// the first segment (truesize 2304) sets the ratio ⌊1000 · 256 / 2304⌋ = 111, so the
    /// clamp and `rcv_ssthresh` fall to 131072 · 111 / 256 = 56832.
    #[test]
    fn first_segment_sets_the_ratio() {
        let mut w = LinuxWindow::new(WindowConfig::linux(1460, 1000, false, true));
        assert_eq!((w.initial_window(), w.wscale()), (64_240, 7));
        w.establish(ms(100));
        assert_eq!((w.window_clamp, w.rcv_ssthresh, w.rcv_space(), w.rcv_mss()), (64_076, 64_076, 14_600, 536));
        assert!(!w.on_data(ms(102), 1000, 2304, true, 1000));
        assert_eq!((w.ratio, w.window_clamp, w.rcv_ssthresh, w.rcv_mss()), (111, 56_832, 56_832, 1000));
    }

    /// Continuing by hand, one segment every 2 ms, each read at once: the window measure
    /// started at the first segment waits for 1000 + 64240 = 65240, reached by segment 66
    /// (66000) 130 ms later; the read after it finds 66000 copied in 132 ms ≥ 130 ms, so
    /// `rcvq_space` goes from 14600 to 66000 and `tcp_rcvbuf_grow` (6.18) sizes the buffer for
    /// 2 · 66000 = 132000 plus 2 · ⌊132000 · (66000 − 14600) / 14600⌋ = 2 · 464712 = 929424,
    /// a window of 1061424: the buffer grows to ⌊1061424 · 256 / 111⌋ = 2447968 bytes, the
    /// clamp to ⌊2447968 · 111 / 256⌋ = 1061423. From segment 67 each adds 2 · 1460 = 2920
    /// (truesize worth 999 ≤ 1000): 56832 + 4 · 2920 = 68512 after segment 70, offered as
    /// ⌈68512 / 128⌉ · 128 = 68608.
    #[test]
    fn autotuning_opens_the_window() {
        let mut w = LinuxWindow::new(WindowConfig::linux(1460, 1000, false, true));
        w.establish(ms(100));
        for k in 1..=70u64 {
            let now = ms(100 + 2 * k);
            let grew = w.on_data(now, 1000, 2304, true, 1000 * k);
            assert_eq!(grew, k > 66, "segment {k}");
            if grew || k == 1 {
                w.select(1000 * k).0;
            }
            w.on_read(now, 1000 * k, 2304, 1000 * k, None);
            if k == 66 {
                assert_eq!((w.rcv_rtt_us(), w.rcv_space(), w.rcvbuf, w.window_clamp), (130_000, 66_000, 2_447_968, 1_061_423));
            }
        }
        assert_eq!((w.rcv_ssthresh(), w.rcv_wnd()), (68_512, 68_608));
    }

    /// By hand, `tcp_rmem[1]` = 540000 (MSS 1000 from the peer, no timestamps, scale 7): the
    /// buffer is worth 540000 · 128 / 256 = 270000, ⌊270000 / 1460⌋ · 1460 = 268640 of it
    /// offered (no 64 KB cap), of which the SYN-ACK carries 65535; at establishment the clamp
    /// is 270000 − 1460 = 268540 and `rcv_ssthresh` falls to it, `rcvq_space` min(268540,
    /// 268640, 14600) = 14600; the first window sent keeps the 268640 still open, rounded up
    /// to ⌈268640 / 128⌉ · 128 = 268672.
    #[test]
    fn the_initial_window_is_not_capped_at_64k() {
        let cfg = WindowConfig { rmem: [4096, 540_000, 6_291_456], ..WindowConfig::linux(1460, 1000, false, true) };
        let mut w = LinuxWindow::new(cfg);
        assert_eq!((w.initial_window(), w.rcv_wnd(), w.rcv_ssthresh(), w.wscale()), (65_535, 268_640, 268_640, 7));
        w.establish(ms(100));
        assert_eq!((w.window_clamp, w.rcv_ssthresh, w.rcv_space()), (268_540, 268_540, 14_600));
        assert_eq!(w.select(0).0, 268_672);
    }

    /// By hand, with timestamps (SYN-ACK MSS 1460, default `tcp_rmem`): the initial window is
    /// ⌊65536 / 1448⌋ · 1448 = 65160; `advmss` is 1460 − 12 = 1448, so the clamp is
    /// 65536 − 1448 = 64088 and `rcvq_space` min(64088, 65160, 10 · 1448) = 14480.
    #[test]
    fn timestamps_take_their_option_off_advmss() {
        let mut w = LinuxWindow::new(WindowConfig::linux(1460, 1448, true, true));
        assert_eq!(w.initial_window(), 65_160);
        w.establish(ms(100));
        assert_eq!((w.window_clamp, w.rcv_ssthresh, w.rcv_space()), (64_088, 64_088, 14_480));
    }

    /// By hand, without scaling (`tcp_rmem[1]` = 540000, MSS 1460 from the peer): the initial
    /// window is ⌊270000 / 1460⌋ · 1460 = 268640, the clamp 65535, so `rcv_ssthresh` falls
    /// to 65535 at establishment; the candidate is 65535 rounded down to whole `rcv_mss`
    /// (536): 122 · 536 = 65392, less than the 268640 still open, so the window stays 268640
    /// in `rcv_wnd` and the field carries 65535.
    #[test]
    fn without_scaling_the_field_is_capped_not_the_window() {
        let cfg = WindowConfig { rmem: [4096, 540_000, 6_291_456], ..WindowConfig::linux(1460, 1460, false, false) };
        let mut w = LinuxWindow::new(cfg);
        assert_eq!((w.initial_window(), w.wscale()), (65_535, 0));
        w.establish(ms(100));
        assert_eq!((w.window_clamp, w.rcv_ssthresh, w.rcv_space()), (65_535, 65_535, 14_600));
        assert_eq!(w.candidate(), (65_392, false));
        assert_eq!((w.select(0).0, w.rcv_wnd()), (65_535, 268_640));
    }

    /// `tcp_select_window` never takes back what it offered: with the clamp at 64076 the
    /// candidate is ⌈64076 / 128⌉ · 128 = 64128, below the 64240 still open, so the window
    /// offered stays ⌈64240 / 128⌉ · 128 = 64256.
    #[test]
    fn the_window_never_shrinks() {
        let mut w = LinuxWindow::new(WindowConfig::linux(1460, 1000, false, true));
        w.establish(ms(100));
        assert_eq!(w.candidate(), (64_128, false));
        assert_eq!(w.select(0).0, 64_256);
    }

    /// Unread data fills the buffer: with 30 segments of 2304 held, the free space is worth
    /// (131072 − 69120) · 111 / 256 = 26862 < half of 56832, so the quick ACKs stop and the
    /// offer is rounded down to 26752 (and never below what is still open).
    #[test]
    fn unread_data_closes_the_window() {
        let mut w = LinuxWindow::new(WindowConfig::linux(1460, 1000, false, true));
        w.establish(ms(100));
        for k in 1..=30u64 {
            w.on_data(ms(100 + k), 1000, 2304, true, 1000 * k);
        }
        assert_eq!(w.candidate(), (26_752, true));
    }
}
