//! A listening socket of one stack profile that accepts one connection, sends what its
//! application writes and receives what the peer sends (the profile's receiver; the
//! application reads on `read`): the simulated counterpart of a packetdrill script's server
//! socket.
//!
//! The handshake follows Linux's passive open, which every stack profile shares here: the
//! SYN-ACK carries the MSS of a 1500-byte MTU, SACK-permitted and timestamps when the peer
//! offered them and the profile runs them, and a window scale when the peer sent one, in
//! the order of Linux's `tcp_options_write`; it is sent again after 1 s, doubling
//! (`TCP_TIMEOUT_INIT`, `tcp_rtx_synack`). The ACK of the SYN-ACK establishes the
//! connection; its round trip is the first RTT sample when the SYN-ACK went once
//! (`tcp_synack_rtt_meas`). From then on the profile's sender (`TcpSender`) runs alone.
//!
//! Invariants: the peer's bytes acknowledged are `ack − 1`; the sender's data offset `o` is
//! sequence number `o + 1`; a timestamp tick is 1 ms and tick `k` stands for the simulated
//! time `(k − 1)` ms (tick 0 would mean "no timestamp" to the sender).

use super::push::{PushState, Sizing};
use super::info::{TcpInfo, INFINITE_SSTHRESH, TCP_CA_DISORDER, TCP_CA_LOSS, TCP_CA_OPEN, TCP_CA_RECOVERY};
use super::wire::{WireOption, WireSegment, ACK, FIN, PSH, RST, SYN};
use crate::spec::TcpSpec;
use crate::tcp::receive_window::{offered_scale, LinuxWindow, WindowConfig, TS_BYTES};
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::segment::{FLAG_ACK, FLAG_FIN, FLAG_SYN};
use crate::tcp::{LossState, Segment, SharedSenderConfig, TcpSender};
use crate::time::{SimDuration, SimTime};

/// The MSS a 1500-byte MTU allows (IPv4 and TCP headers without options), as the SYN-ACK
/// advertises it.
const LOCAL_MSS: u32 = 1460;
/// The first SYN-ACK timeout (Linux `TCP_TIMEOUT_INIT`).
const SYNACK_TIMEOUT: SimDuration = SimDuration::from_secs(1);
/// The receive window a Linux listener advertises in its SYN-ACK with the default
/// `tcp_rmem` (131072 B at half overhead, rounded down to whole 1460-byte segments).
const INITIAL_RECEIVE_WINDOW: u32 = 64240;
const NS_PER_TICK: u64 = 1_000_000;

/// The timestamp tick of simulated time `ns` (1 ms ticks from 1: see the invariants above).
fn tick(ns: u64) -> u32 {
    (ns / NS_PER_TICK + 1) as u32
}

/// The simulated time a tick stands for, in the sender's timestamps (never 0, which means
/// "none").
fn time_of_tick(tick: u32) -> u64 {
    ((tick as u64 - 1) * NS_PER_TICK).max(1)
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DrillError {
    /// The script asks for something this socket does not model; the script is skipped.
    #[error("not modelled: {0}")]
    Unsupported(String),
    /// The script's packet or call makes no sense in the socket's state.
    #[error("{0}")]
    Refused(String),
}

/// What the peer's SYN offered.
#[derive(Clone, Copy, Debug, Default)]
struct Peer {
    mss: Option<u16>,
    window_scale: Option<u8>,
    sack: bool,
    timestamps: bool,
}

#[derive(Debug)]
enum State {
    Listen,
    SynReceived { first_sent: SimTime, resent: u32, timer: SimTime, timeout: SimDuration },
    Established,
    Closed,
}

/// One socket and its connection.
#[derive(Debug)]
pub struct DrillSocket {
    spec: TcpSpec,
    state: State,
    peer: Peer,
    sack: bool,
    timestamps: bool,
    /// Window scale this side offered (when the peer offered one too).
    local_scale: Option<u8>,
    /// The last TSval of the peer, echoed in TSecr (RFC 7323 `TS.Recent`).
    ts_recent: u32,
    sender: Option<TcpSender>,
    accepted: bool,
    /// Retransmissions of the SYN-ACK (Linux counts them in `total_retrans`).
    synack_retransmits: u32,
    /// The buffers PSH depends on (`push`).
    push: PushState,
    /// `close()` sent this side's FIN (its sequence number is the end of the data + 1).
    fin_sent: bool,
    /// The peer's FIN arrived: this side's ACK number is one past its data from then on.
    peer_fin: bool,
    /// `tcp_rmem` (least, initial, largest).
    rmem: [u64; 3],
    /// The receiving half: the profile's receiver, fed the peer's data; the application
    /// reads only when the script calls `read()`. With the `linux` profile it offers Linux's
    /// window (`receive_window`).
    receiver: Option<TcpReceiver>,
}

impl DrillSocket {
    /// A listening socket of the profile `spec` (a `tcp` table: `stack` and overrides) with
    /// the receive buffer `rmem` (`tcp_rmem`). Its window scale is Linux's, the one its receive
    /// window (`receive_window::offered_scale`) aligns to.
    pub fn listen(spec: TcpSpec, rmem: [u64; 3]) -> Self {
        let scale = offered_scale(rmem);
        DrillSocket {
            spec,
            state: State::Listen,
            peer: Peer::default(),
            sack: false,
            timestamps: false,
            local_scale: Some(scale),
            ts_recent: 0,
            sender: None,
            accepted: false,
            synack_retransmits: 0,
            push: PushState::default(),
            fin_sent: false,
            peer_fin: false,
            rmem,
            receiver: None,
        }
    }

    /// The next time a timer of the socket fires, if one is armed.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        match &self.state {
            State::SynReceived { timer, .. } => Some(*timer),
            State::Established => {
                let send = self.sender.as_ref().and_then(|s| s.next_wakeup());
                let ack = self.receiver.as_ref().and_then(|r| r.next_wakeup());
                send.into_iter().chain(ack).min()
            }
            _ => None,
        }
    }

    /// Fires every timer due at or before `now`, in time order: what the socket sends, each
    /// with the time it left.
    pub fn advance(&mut self, now: SimTime) -> Vec<(SimTime, WireSegment)> {
        let mut out = Vec::new();
        while let Some(t) = self.next_wakeup().filter(|t| *t <= now) {
            match &mut self.state {
                State::SynReceived { resent, timer, timeout, .. } => {
                    *resent += 1;
                    *timeout = *timeout + *timeout;
                    *timer = t + *timeout;
                    out.push((t, self.syn_ack(t)));
                }
                State::Established => {
                    let mut segs = Vec::new();
                    if self.sender.as_ref().and_then(|s| s.next_wakeup()).is_some_and(|w| w <= t) {
                        self.sender.as_mut().expect("established").on_timer(t, &mut segs);
                        let batch = self.wire_batch(&segs);
                        out.extend(batch.into_iter().map(|s| (t, s)));
                    }
                    let mut acks = Vec::new();
                    if let Some(r) = self.receiver.as_mut().filter(|r| r.next_wakeup().is_some_and(|w| w <= t)) {
                        r.on_timer(t, &mut acks);
                    }
                    out.extend(acks.iter().map(|a| (t, self.ack_to_wire(t, a))));
                }
                _ => break,
            }
        }
        out
    }

    /// The peer's segment arrives at `now`; returns what the socket sends at once.
    pub fn inbound(&mut self, now: SimTime, seg: &WireSegment) -> Result<Vec<WireSegment>, DrillError> {
        if seg.has(RST) {
            self.state = State::Closed;
            return Ok(Vec::new());
        }
        if seg.len > 0 && !matches!(self.state, State::Established) {
            return Err(DrillError::Unsupported("data from the peer before the connection is established".into()));
        }
        if seg.has(FIN) && !matches!(self.state, State::Established) {
            return Err(DrillError::Unsupported("a FIN from the peer before the connection is established".into()));
        }
        if let Some((val, _)) = seg.timestamp() {
            self.ts_recent = val;
        }
        match self.state {
            State::Listen if seg.has(SYN) && !seg.has(ACK) => {
                let profile = self.spec.settings();
                self.peer = Peer { mss: seg.mss(), window_scale: seg.window_scale(), sack: seg.sack_permitted(), timestamps: seg.timestamp().is_some() };
                self.sack = self.peer.sack && profile.sack;
                self.timestamps = self.peer.timestamps && profile.timestamps;
                if self.peer.window_scale.is_none() {
                    self.local_scale = None;
                }
                self.receiver = Some(self.receiver_for(now));
                self.state = State::SynReceived { first_sent: now, resent: 0, timer: now + SYNACK_TIMEOUT, timeout: SYNACK_TIMEOUT };
                Ok(vec![self.syn_ack(now)])
            }
            State::Listen => Err(DrillError::Refused(format!("a listening socket got a segment without SYN: {seg:?}"))),
            State::SynReceived { first_sent, resent, .. } if seg.has(ACK) && !seg.has(SYN) => {
                if seg.ack != 1 {
                    return Err(DrillError::Refused(format!("the handshake's ACK acknowledges {} (expected 1)", seg.ack)));
                }
                let rtt = (resent == 0).then(|| now.since(first_sent));
                let mut sender = TcpSender::new(SharedSenderConfig::from(self.sender_config()));
                sender.accept(now, rtt, self.peer_window(seg), resent);
                self.push = PushState::new(self.peer_window(seg));
                self.synack_retransmits = resent;
                self.sender = Some(sender);
                self.state = State::Established;
                let handshake_ack = Segment { flags: FLAG_ACK, ..Default::default() };
                self.receiver.as_mut().expect("made at the SYN").on_segment(now, &handshake_ack, &mut Vec::new());
                Ok(Vec::new())
            }
            State::SynReceived { .. } if seg.has(SYN) => Ok(vec![self.syn_ack(now)]),
            State::SynReceived { .. } => Err(DrillError::Refused("a segment without ACK during the handshake".into())),
            State::Established => {
                let inner = self.from_wire(seg);
                let sender = self.sender.as_ref().expect("established");
                // A data segment acknowledges this side's data only when its ACK moves
                // (`FLAG_DATA` makes it no duplicate).
                let mut out = Vec::new();
                if seg.len == 0 || inner.ack > sender.snd_una() {
                    let sack = inner.sack.to_vec();
                    self.push.on_ack(inner.wnd, &sack);
                    let mut segs = Vec::new();
                    self.sender.as_mut().expect("established").on_segment(now, &inner, &mut segs);
                    out = self.wire_batch(&segs);
                }
                if seg.len > 0 {
                    let data = self.data_from_wire(seg);
                    let mut acks = Vec::new();
                    self.receiver.as_mut().expect("established").on_segment(now, &data, &mut acks);
                    out.extend(acks.iter().map(|a| self.ack_to_wire(now, a)));
                } else if seg.has(FIN) && !self.peer_fin {
                    // Linux `tcp_fin`: the peer's FIN is acknowledged at once (quick ACK).
                    self.peer_fin = true;
                    out.push(self.bare(now, ACK));
                }
                Ok(out)
            }
            State::Closed => Err(DrillError::Refused("the connection was reset".into())),
        }
    }

    /// `accept()`: whether a connection is established and not yet accepted (then it is).
    pub fn accept(&mut self) -> bool {
        let ready = matches!(self.state, State::Established) && !self.accepted;
        self.accepted |= ready;
        ready
    }

    /// The application reads at most `max` bytes at `now`: how many it got and what the socket
    /// sends at once (a window update, Linux `tcp_cleanup_rbuf`).
    pub fn read(&mut self, now: SimTime, max: u64) -> Result<(u64, Vec<WireSegment>), DrillError> {
        let Some(r) = self.receiver.as_mut().filter(|_| matches!(self.state, State::Established)) else {
            return Err(DrillError::Refused("read before the connection is established".into()));
        };
        if r.unread() == 0 {
            return Err(DrillError::Unsupported("a read with no data waiting (it would block or fail with EAGAIN)".into()));
        }
        let mut acks = Vec::new();
        let got = r.read(now, max, &mut acks);
        Ok((got, acks.iter().map(|a| self.ack_to_wire(now, a)).collect()))
    }

    /// The application writes `bytes` at `now`; returns what is sent at once.
    ///
    /// The simulator's segments tile the data on MSS boundaries, so a write may not follow
    /// a short segment already sent (Linux would coalesce the two; not modelled).
    pub fn write(&mut self, now: SimTime, bytes: u64) -> Result<Vec<WireSegment>, DrillError> {
        let Some(sender) = self.sender.as_mut().filter(|_| matches!(self.state, State::Established)) else {
            return Err(DrillError::Refused("write before the connection is established".into()));
        };
        let mss = sender.config().mss as u64;
        if sender.snd_max() == sender.data_end() && sender.snd_max() % mss != 0 {
            return Err(DrillError::Unsupported(format!("a write after a short segment ({} bytes sent, MSS {mss}): segments tile the data on MSS boundaries", sender.snd_max())));
        }
        let (end, sent) = (sender.data_end(), sender.snd_max());
        let sizing = self.sizing();
        self.push.on_write(end, sent, bytes, &sizing);
        let sender = self.sender.as_mut().expect("established");
        let mut segs = Vec::new();
        sender.supply(now, bytes, &mut segs);
        Ok(self.wire_batch(&segs))
    }

    /// `close()` at `now`: this side's FIN goes at once after the data (Linux `tcp_send_fin`
    /// with nothing left unsent: a segment of its own, `F.`). Not modelled: a close with data
    /// still unsent (Linux puts the FIN on the last segment), the FIN's retransmission, and
    /// what a later read or write of the closed socket returns.
    pub fn close(&mut self, now: SimTime) -> Result<Vec<WireSegment>, DrillError> {
        let Some(sender) = self.sender.as_ref().filter(|_| matches!(self.state, State::Established)) else {
            return Err(DrillError::Refused("close before the connection is established".into()));
        };
        if sender.snd_max() < sender.data_end() {
            return Err(DrillError::Unsupported("close() with data not yet sent (the FIN would go on the last segment)".into()));
        }
        if self.fin_sent {
            return Ok(Vec::new());
        }
        self.fin_sent = true;
        let fin = self.bare(now, FIN | ACK);
        Ok(vec![fin])
    }

    /// A segment without data at SND.NXT (after the FIN once sent): a FIN or an ACK.
    fn bare(&mut self, now: SimTime, flags: u8) -> WireSegment {
        let sender = self.sender.as_ref().expect("established");
        let fin_is_below = self.fin_sent && flags & FIN == 0;
        let seq = (sender.data_end() + 1 + fin_is_below as u64) as u32;
        let options = if self.timestamps { vec![WireOption::Nop, WireOption::Nop, self.timestamp_option(now)] } else { Vec::new() };
        WireSegment { flags, seq, ack: self.rcv_nxt(), win: self.window_field(), len: 0, options }
    }

    /// The receiver's ACK on the wire: at SND.NXT, the window in this side's scale,
    /// timestamps when negotiated, then its SACK blocks (Linux `tcp_options_write` order).
    fn ack_to_wire(&mut self, now: SimTime, ack: &Segment) -> WireSegment {
        let mut wire = self.bare(now, ACK);
        wire.win = self.scaled(ack.wnd);
        let blocks: Vec<(u32, u32)> = ack.sack.iter().map(|(a, b)| ((a + 1) as u32, (b + 1) as u32)).collect();
        if !blocks.is_empty() {
            wire.options.extend([WireOption::Nop, WireOption::Nop, WireOption::Sack(blocks)]);
        }
        wire
    }

    /// The ACK number this side sends: one past the peer's data in order (and its FIN).
    fn rcv_nxt(&self) -> u32 {
        let data = self.receiver.as_ref().map_or(0, |r| r.delivered());
        (1 + data + self.peer_fin as u64) as u32
    }

    /// The window field of a segment sent now: Linux's (`tcp_select_window`) with the
    /// `linux` profile, else the SYN-ACK's; in this side's scale.
    fn window_field(&mut self) -> u16 {
        let rcv_nxt = self.receiver.as_ref().map_or(0, |r| r.delivered());
        let window = match self.receiver.as_mut().and_then(|r| r.linux_window_mut()) {
            Some(w) => w.select(rcv_nxt).0,
            None => INITIAL_RECEIVE_WINDOW as u64,
        };
        self.scaled(window)
    }

    /// A window in bytes as the field carries it (rounded up to the scale's unit, Linux
    /// `ALIGN(window, 1 << rcv_wscale)`, so that it is not scaled away).
    fn scaled(&self, window: u64) -> u16 {
        let shift = self.local_scale.filter(|_| self.peer.window_scale.is_some()).unwrap_or(0);
        window.div_ceil(1 << shift).min(u16::MAX as u64) as u16
    }

    /// The profile's receiver for this connection: its ACK policy, SACK and timestamps as
    /// negotiated, the peer's MSS; with Linux's ACK policy (the `linux` profile) also Linux's
    /// receive buffer (`tcp_rmem`) and window, scaled when both sides offered a scale.
    fn receiver_for(&self, now: SimTime) -> TcpReceiver {
        let mut spec = self.spec.clone();
        spec.mss = Some(self.peer_mss());
        spec.sack = Some(self.sack);
        spec.timestamps = Some(self.timestamps);
        let mut cfg = spec.resolve(None).receiver;
        cfg.window = INITIAL_RECEIVE_WINDOW as u64;
        let linux = cfg.linux_acks;
        let mut receiver = TcpReceiver::new(cfg);
        receiver.reads_by_call();
        if linux {
            let scaling = self.local_scale.is_some() && self.peer.window_scale.is_some();
            let cfg = WindowConfig { rmem: self.rmem, ..WindowConfig::linux(LOCAL_MSS as u64, self.peer_mss() as u64, self.timestamps, scaling) };
            receiver.set_linux_window(LinuxWindow::new(cfg));
        }
        let syn = Segment { flags: FLAG_SYN, ts_val: 1, ..Default::default() };
        receiver.on_segment(now, &syn, &mut Vec::new());
        receiver
    }

    /// The MSS this side sends and expects: the least of both sides' less the timestamp
    /// option (Linux `tcp_sync_mss`).
    fn peer_mss(&self) -> u32 {
        self.peer.mss.map_or(536, u32::from).min(LOCAL_MSS) - if self.timestamps { TS_BYTES as u32 } else { 0 }
    }

    /// The peer's data segment as the receiver reads it: sequence numbers as data offsets,
    /// its TSecr as the simulated time it echoes.
    fn data_from_wire(&self, seg: &WireSegment) -> Segment {
        let mut data = Segment { flags: FLAG_ACK, seq: seg.seq.saturating_sub(1) as u64, len: seg.len, ..Default::default() };
        if seg.has(FIN) {
            data.flags |= FLAG_FIN;
        }
        if let Some((val, ecr)) = seg.timestamp().filter(|_| self.timestamps) {
            data.ts_val = val.max(1) as u64;
            data.ts_ecr = if ecr == 0 { 0 } else { time_of_tick(ecr) };
        }
        data
    }

    /// `getsockopt(TCP_INFO)` now.
    pub fn info(&self) -> TcpInfo {
        let Some(s) = &self.sender else {
            return TcpInfo { tcpi_snd_ssthresh: INFINITE_SSTHRESH, tcpi_snd_cwnd: 0, ..Default::default() };
        };
        let mss = s.config().mss as u64;
        let (first, end) = (s.snd_una() / mss, s.snd_max().div_ceil(mss));
        let count = |f: &dyn Fn(u64) -> bool| (first..end).filter(|&k| f(k)).count() as u32;
        let board = s.scoreboard();
        let rto = s.rto_estimator();
        let us = |d: SimDuration| (d.as_nanos() / 1000) as u32;
        TcpInfo {
            tcpi_ca_state: match s.state() {
                LossState::Open => TCP_CA_OPEN,
                LossState::Disorder => TCP_CA_DISORDER,
                LossState::Recovery { .. } => TCP_CA_RECOVERY,
                LossState::Loss { .. } => TCP_CA_LOSS,
            },
            tcpi_retransmits: if s.state().is_loss() { rto.backoff().min(255) as u8 } else { 0 },
            tcpi_backoff: rto.backoff().min(255) as u8,
            tcpi_rto: us(s.rto()),
            tcpi_snd_mss: mss as u32,
            tcpi_unacked: (end - first) as u32,
            // Without SACK, Linux counts duplicate ACKs as SACKed segments (`tcp_add_reno_sack`),
            // at most all but one outstanding (`tcp_limit_reno_sacked`).
            tcpi_sacked: if self.sack { count(&|k| board.is_sacked_segment(k)) } else { (s.duplicate_acks() as u32).min(((end - first) as u32).saturating_sub(1)) },
            // Linux `tcp_timeout_mark_lost` marks the segments not SACKed lost at a timeout
            // (but those RACK still waits for, sent within RTT + reo_wnd: not told apart here);
            // the simulator's Loss state goes back over them without marking (go-back-N).
            tcpi_lost: match s.state() {
                LossState::Loss { point } => count(&|k| k * mss < point && !board.is_sacked_segment(k)),
                _ => count(&|k| board.is_lost(k)),
            },
            // Linux `retrans_out`: a retransmission SACKed (`tcp_sacktag_one`) or found lost
            // (`tcp_mark_skb_lost`) is counted out.
            tcpi_retrans: count(&|k| board.is_retransmitted(k) && !board.is_sacked_segment(k)),
            tcpi_rtt: rto.srtt().map_or(0, us),
            tcpi_rttvar: us(rto.rttvar()),
            tcpi_snd_ssthresh: (s.ssthresh() / mss).min(INFINITE_SSTHRESH as u64) as u32,
            tcpi_snd_cwnd: (s.cwnd() / mss) as u32,
            // `tp->reordering`: the `tcp_reordering` sysctl, raised by `tcp_check_sack_reordering`.
            tcpi_reordering: (s.config().dupthresh as u64).max(s.reordering_seen()) as u32,
            tcpi_total_retrans: (s.stats.retransmits + self.synack_retransmits as u64) as u32,
            tcpi_min_rtt: s.min_rtt().map_or(0, us),
            ..self.receive_info()
        }
    }

    /// The receiving half's `tcp_info` fields (Linux `tcp_get_info`), from Linux's window.
    fn receive_info(&self) -> TcpInfo {
        let Some(w) = self.receiver.as_ref().and_then(|r| r.linux_state()) else { return TcpInfo::default() };
        TcpInfo {
            tcpi_rcv_ssthresh: w.rcv_ssthresh() as u32,
            tcpi_rcv_space: w.rcv_space() as u32,
            tcpi_rcv_wnd: w.rcv_wnd() as u32,
            tcpi_rcv_mss: w.rcv_mss() as u32,
            tcpi_rcv_rtt: w.rcv_rtt_us() as u32,
            ..TcpInfo::default()
        }
    }

    /// The profile's sender for this connection: the MSS both sides allow less the
    /// timestamp option (Linux `tcp_sync_mss`), SACK and timestamps as negotiated, no
    /// handshake of its own.
    fn sender_config(&self) -> crate::tcp::SenderConfig {
        let mut spec = self.spec.clone();
        spec.mss = Some(self.peer_mss());
        spec.sack = Some(self.sack);
        spec.timestamps = Some(self.timestamps);
        spec.handshake = Some(false);
        spec.resolve(None).sender
    }

    /// The peer's window in bytes: scaled when both sides offered a scale (RFC 7323 2.2);
    /// never on a SYN.
    fn peer_window(&self, seg: &WireSegment) -> u64 {
        let shift = match (self.local_scale, self.peer.window_scale) {
            (Some(_), Some(p)) if !seg.has(SYN) => p.min(14),
            _ => 0,
        };
        (seg.win as u64) << shift
    }

    fn syn_ack(&self, now: SimTime) -> WireSegment {
        let mut options = vec![WireOption::Mss(LOCAL_MSS as u16)];
        match (self.sack, self.timestamps) {
            (true, true) => options.extend([WireOption::SackPermitted, self.timestamp_option(now)]),
            (false, true) => options.extend([WireOption::Nop, WireOption::Nop, self.timestamp_option(now)]),
            (true, false) => options.extend([WireOption::Nop, WireOption::Nop, WireOption::SackPermitted]),
            (false, false) => {}
        }
        if let Some(scale) = self.local_scale {
            options.extend([WireOption::Nop, WireOption::WindowScale(scale)]);
        }
        let win = self.receiver.as_ref().and_then(|r| r.linux_state()).map_or(INITIAL_RECEIVE_WINDOW as u64, |w| w.initial_window());
        WireSegment { flags: SYN | ACK, seq: 0, ack: 1, win: win as u16, len: 0, options }
    }

    fn timestamp_option(&self, now: SimTime) -> WireOption {
        WireOption::Timestamp { val: tick(now.0), ecr: self.ts_recent }
    }

    /// What one event sends, on the wire: PSH as Linux sets it on the packets it would
    /// build of these segments (`push`: `__tcp_transmit_skb` on every packet of two or more
    /// segments, `tcp_push` / `forced_push` on the buffer that ends a write).
    fn wire_batch(&mut self, segs: &[Segment]) -> Vec<WireSegment> {
        let sizing = self.sizing();
        let psh = self.push.flags(segs, &sizing);
        segs.iter().zip(psh).map(|(s, p)| self.to_wire(s, p)).collect()
    }

    /// The sender's state that sizes Linux's packets now (`push::Sizing`).
    fn sizing(&mut self) -> Sizing {
        let sender = self.sender.as_ref().expect("established");
        let mss = sender.config().mss as u64;
        Sizing { mss, cwnd: sender.cwnd() / mss, ssthresh: sender.ssthresh(), srtt: sender.srtt(), min_rtt: sender.min_rtt() }
    }

    /// A sender's segment on the wire: ACK always, PSH when `psh` (`wire_batch`), the window
    /// in this side's scale, timestamps when negotiated.
    fn to_wire(&mut self, s: &Segment, psh: bool) -> WireSegment {
        let mut flags = ACK;
        if s.is_fin() {
            flags |= FIN;
        }
        if psh {
            flags |= PSH;
        }
        let win = self.window_field();
        let options = if self.timestamps && s.ts_val != 0 {
            vec![WireOption::Nop, WireOption::Nop, WireOption::Timestamp { val: tick(s.ts_val), ecr: self.ts_recent }]
        } else {
            Vec::new()
        };
        WireSegment { flags, seq: (s.seq + 1) as u32, ack: self.rcv_nxt(), win, len: s.len, options }
    }

    /// The peer's ACK as the sender reads it: bytes acknowledged, SACK blocks as data
    /// offsets, the window in bytes, TSecr as the simulated time it echoes.
    fn from_wire(&self, seg: &WireSegment) -> Segment {
        // The FIN takes a sequence number after the data: its ACK acknowledges no byte.
        let data_end = self.sender.as_ref().map_or(u64::MAX, |s| s.data_end());
        let acked = (seg.ack.saturating_sub(1) as u64).min(data_end);
        let mut inner = Segment { flags: FLAG_ACK, ack: acked, wnd: self.peer_window(seg), ..Default::default() };
        for &(a, b) in seg.sack_blocks() {
            inner.sack.push((a.saturating_sub(1) as u64, b.saturating_sub(1) as u64));
        }
        if self.timestamps {
            if let Some((val, ecr)) = seg.timestamp() {
                inner.ts_val = val.max(1) as u64;
                inner.ts_ecr = if ecr == 0 { 0 } else { time_of_tick(ecr) };
            }
        }
        inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::profile::Stack;
    use crate::tcp::receive_window::DEFAULT_RMEM;

    fn linux() -> DrillSocket {
        DrillSocket::listen(TcpSpec { stack: Some(Stack::Linux), ..Default::default() }, DEFAULT_RMEM)
    }

    fn ms(n: u64) -> SimTime {
        SimTime(n * NS_PER_TICK)
    }

    fn syn() -> WireSegment {
        let options = vec![WireOption::Mss(1000), WireOption::SackPermitted, WireOption::Nop, WireOption::Nop, WireOption::Nop, WireOption::WindowScale(7)];
        WireSegment { flags: SYN, win: 32792, options, ..Default::default() }
    }

    fn ack(n: u32) -> WireSegment {
        WireSegment { flags: ACK, seq: 1, ack: n, win: 257, ..Default::default() }
    }

    /// Linux's passive open, worked by hand: a SYN offering MSS 1000, SACK and scale 7 gets
    /// `<mss 1460,nop,nop,sackOK,nop,wscale 7>` (6 MB `tcp_rmem[2]`: ilog2 = 22, 22 − 15 = 7)
    /// and window 64240; the ACK 100 ms later gives SRTT 100 ms, RTTVAR 50 ms, RTO
    /// 100 + 4 · 50 = 300 ms (RFC 6298 (2.2), Linux's 200 ms floor on the variance term not
    /// binding); a 10000-byte write goes as IW 10 segments of 1000 bytes, PSH on the last; the
    /// tail loss probe resends the last segment 2 · SRTT + 2 jiffies (8 ms) later, at 308 ms
    /// (Linux `tcp_schedule_loss_probe`), and re-arms the RTO from then: 308 + 300 ms = 152
    /// jiffies of 4 ms, 75 ahead, on the timer wheel's level 1 (8-jiffy buckets, rounded
    /// up: (152 + 8) >> 3 = 20) fires at 160 jiffies, 640 ms, and resends 1:1001 with cwnd 1
    /// in Loss, back-off 1, two retransmissions in all (the probe's and the timeout's).
    #[test]
    fn passive_open_write_and_timeout() {
        let mut s = linux();
        let synack = s.inbound(SimTime::ZERO, &syn()).unwrap();
        let expected = vec![WireOption::Mss(1460), WireOption::Nop, WireOption::Nop, WireOption::SackPermitted, WireOption::Nop, WireOption::WindowScale(7)];
        assert_eq!(synack, vec![WireSegment { flags: SYN | ACK, seq: 0, ack: 1, win: 64240, len: 0, options: expected }]);
        assert!(!s.accept());
        assert!(s.inbound(ms(100), &ack(1)).unwrap().is_empty());
        assert!(s.accept() && !s.accept());
        let info = s.info();
        assert_eq!((info.tcpi_rtt, info.tcpi_rttvar, info.tcpi_rto, info.tcpi_snd_mss, info.tcpi_snd_cwnd), (100_000, 50_000, 300_000, 1000, 10));
        let sent = s.write(ms(100), 10_000).unwrap();
        assert_eq!(sent.len(), 10);
        assert_eq!((sent[0].seq, sent[0].len, sent[0].flags), (1, 1000, ACK));
        assert_eq!((sent[9].seq, sent[9].len, sent[9].flags), (9001, 1000, ACK | PSH));
        assert_eq!(sent[0].win, 502); // ⌈64240 / 2^7⌉: `ALIGN` in `__tcp_select_window`
        assert_eq!(s.info().tcpi_unacked, 10);
        let probe = s.advance(ms(308));
        assert_eq!(probe.len(), 1);
        assert_eq!((probe[0].0, probe[0].1.seq, probe[0].1.len), (ms(308), 9001, 1000));
        let resent = s.advance(ms(1000));
        assert_eq!(resent.len(), 1);
        assert_eq!((resent[0].0, resent[0].1.seq, resent[0].1.len), (ms(640), 1, 1000));
        let info = s.info();
        assert_eq!((info.tcpi_ca_state, info.tcpi_snd_cwnd, info.tcpi_backoff, info.tcpi_total_retrans), (TCP_CA_LOSS, 1, 1, 2));
    }

    /// The SYN-ACK goes again after 1 s and 2 s more; the handshake's ACK then gives no RTT
    /// sample (Karn), so the RTO falls back to 3 s (Linux `tcp_init_metrics`, RFC 6298
    /// (5.7)), and after two retransmissions cwnd is 1 (`tcp_init_transfer`); both counted in
    /// `total_retrans`. Kernel 6.18 reports (3 s, 1, 2) on the same exchange.
    #[test]
    fn a_resent_syn_ack_gives_no_sample() {
        let mut s = linux();
        s.inbound(SimTime::ZERO, &syn()).unwrap();
        let resent: Vec<SimTime> = s.advance(ms(3500)).into_iter().map(|(t, seg)| {
            assert!(seg.has(SYN) && seg.has(ACK));
            t
        }).collect();
        assert_eq!(resent, vec![ms(1000), ms(3000)]);
        s.inbound(ms(3600), &ack(1)).unwrap();
        let info = s.info();
        assert_eq!((info.tcpi_rtt, info.tcpi_rto, info.tcpi_snd_cwnd, info.tcpi_total_retrans), (0, 3_000_000, 1, 2));
    }

    /// PSH as Linux 6.18 sets it (`push`), worked by hand. MSS 1000 (the peer's, no
    /// timestamps), window 257 << 7 = 32896 bytes, SRTT 100 ms from the handshake.
    /// Pacing rate (`tcp_update_pacing_rate`, slow start: 200 %) = 1000 · 10 · 2 / 0.1 s =
    /// 200000 B/s; `>> 10` = 195 bytes, min_rtt 100000 µs `>> 9` = 195 ≥ 32 adds nothing, so
    /// `tcp_tso_autosize` = max(195 / 1000, 2) = 2 segments, and `tcp_cwnd_test`'s half cwnd
    /// is 5: the IW of 10 goes as 5 packets of 2 segments, each with PSH (`__tcp_transmit_skb`)
    /// on its last segment: ends 2001, 4001, …, 10001. The ACK of 1001 at 205 ms makes cwnd
    /// 11 with 9 in flight: one packet of 2, 10001:12001, PSH on 12001 only. Kernel 6.18
    /// sends the same (`P.` on each 2000-byte TSO packet).
    #[test]
    fn psh_on_every_packet_of_two_segments() {
        let mut s = linux();
        s.inbound(SimTime::ZERO, &syn()).unwrap();
        s.inbound(ms(100), &ack(1)).unwrap();
        let sent = s.write(ms(100), 30_000).unwrap();
        let flags: Vec<(u32, bool)> = sent.iter().map(|w| (w.seq + w.len, w.has(PSH))).collect();
        let expected: Vec<(u32, bool)> = (1..=10).map(|k| (1 + 1000 * k, k % 2 == 0)).collect();
        assert_eq!(flags, expected);
        let more = s.inbound(ms(205), &ack(1001)).unwrap();
        let flags: Vec<(u32, u32, bool)> = more.iter().map(|w| (w.seq, w.len, w.has(PSH))).collect();
        assert_eq!(flags, vec![(10001, 1000, false), (11001, 1000, true)]);
    }

    /// One-segment packets carry PSH only at a buffer's mark (`tcp_push`, `forced_push`).
    /// Writes of 1000 and 1000 bytes leave `pushed_seq` at 2000; a 200000-byte write is then
    /// built into 2-segment (2000-byte) buffers, the size goal `min(half window 16448 → 16000,
    /// 2 · 1000)`, and a buffer that fills past `pushed_seq + max_window / 2` = 2000 + 16448 =
    /// 18448 is marked: the one ending at 20000 (sequence 20001), then 20000 + 16448 → 38000,
    /// and the write's end, 202000. So a lone segment 19000:20000 carries PSH and 18000:19000
    /// does not; kernel 6.18 sends `P. 19001:20001(1000)` in this state.
    #[test]
    fn forced_push_marks_buffer_ends() {
        use super::super::push::{PushState, Sizing};
        let sizing = Sizing { mss: 1000, cwnd: 2, ssthresh: 7000, srtt: Some(SimDuration::from_millis(100)), min_rtt: Some(SimDuration::from_millis(100)) };
        assert_eq!(sizing.tso_segs(), 2);
        let mut p = PushState::new(32_896);
        assert_eq!(p.size_goal(1000), 16_000);
        p.on_write(0, 0, 1000, &sizing);
        p.on_write(1000, 1000, 1000, &sizing);
        p.on_write(2000, 2000, 200_000, &sizing);
        let seg = |seq: u64| Segment { seq, len: 1000, ..Default::default() };
        let lone = |p: &mut PushState, seq: u64| p.flags(&[seg(seq)], &sizing)[0];
        let got: Vec<bool> = [2000, 18_000, 19_000, 36_000, 37_000, 201_000].into_iter().map(|q| lone(&mut p, q)).collect();
        assert_eq!(got, vec![false, false, true, false, true, true]);
    }

    /// The peer's data, worked by hand (MSS 1000, no timestamps, scale 7): the first segment
    /// is acknowledged at once (quick ACKs, `tcp_incr_quickack`); its truesize 2304 sets the
    /// ratio 111, so the window Linux would offer is (131072 − 2304) · 111 / 256 = 55833 →
    /// 55936 in scale units, less than the 64240 − 1000 = 63240 still open, which it offers
    /// instead (`tcp_select_window` never shrinks): ⌈63240 / 128⌉ = 495. `read()` then takes
    /// the 1000 bytes, and a second read would block (skipped).
    #[test]
    fn peer_data_is_acknowledged_and_read() {
        let mut s = linux();
        s.inbound(SimTime::ZERO, &syn()).unwrap();
        s.inbound(ms(100), &ack(1)).unwrap();
        let data = WireSegment { flags: ACK, seq: 1, ack: 1, win: 257, len: 1000, options: Vec::new() };
        let out = s.inbound(ms(110), &data).unwrap();
        assert_eq!(out, vec![WireSegment { flags: ACK, seq: 1, ack: 1001, win: 495, len: 0, options: Vec::new() }]);
        assert_eq!(s.read(ms(110), 4000).unwrap(), (1000, Vec::new()));
        assert!(matches!(s.read(ms(110), 4000), Err(DrillError::Unsupported(_))));
        let info = s.info();
        assert_eq!((info.tcpi_rcv_ssthresh, info.tcpi_rcv_space, info.tcpi_rcv_mss), (56_832, 14_600, 1000));
    }

    /// Data from the peer before the handshake is not modelled: the error says so.
    #[test]
    fn data_before_the_handshake_is_not_modelled() {
        let mut s = linux();
        let data = WireSegment { flags: ACK, len: 10, ..Default::default() };
        assert!(matches!(s.inbound(SimTime::ZERO, &data), Err(DrillError::Unsupported(_))));
    }
}
