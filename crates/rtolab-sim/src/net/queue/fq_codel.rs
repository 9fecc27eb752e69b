//! FQ-CoDel (RFC 8290) as Linux's `net/sched/sch_fq_codel.c` runs it: packets are sorted
//! into per-flow FIFOs, each controlled by its own CoDel state (`codel.rs`); a deficit round
//! robin with a `quantum` of bytes serves the flows, new flows (a list of their own) before
//! old ones; on overflow the flow with the largest backlog loses packets from its head.
//!
//! Flow classification: Linux hashes the packet's 5-tuple with a random perturbation into
//! `flows` buckets (`fq_codel_hash`), so distinct connections may share a bucket by chance.
//! rtolab's flows already have small distinct ids, so a packet's bucket is its flow id
//! modulo `flows`: deterministic (no seed, no draw), collision-free while a direction
//! carries fewer than `flows` flows, and, beyond that, flows `k·flows` apart share a
//! bucket. Both directions of a flow are on different link directions, so never share a
//! queue.
//!
//! Not modelled: `memory_limit` (Linux also drops when the packets' `truesize` exceeds
//! 32 MB; rtolab has no socket buffer sizes in its queues), ECN and `ce_threshold`.

use super::aqm::{Aqm, Queued, Refusal};
use super::codel::{check_times, codel_interval, codel_mtu, codel_target, CodelParams, CodelQueue, CodelVars, ControlLaw};
use crate::net::field_error::FieldError;
use crate::net::ids::{FlowId, PacketId};
use crate::time::SimTime;
use crate::units::{Bytes, Duration, Limit};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = { kind = "fq_codel", … }`: FQ-CoDel with Linux's defaults.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// Most packets ("10240p", Linux's default) or bytes the queue holds in all; beyond it
    /// the fattest flow loses packets from its head.
    #[serde(default = "fq_limit")]
    pub limit: Limit,
    /// Number of flow queues (Linux and ns-3: 1024; at most 65536).
    #[serde(default = "fq_flows")]
    pub flows: u32,
    /// Bytes a flow may send per round of the deficit round robin (Linux: the device's MTU
    /// with its link header, 1514 on Ethernet; ns-3: 1514). rtolab counts a packet's IP
    /// bytes, so 1514 is one full 1500-byte segment and 14 bytes more.
    #[serde(default = "fq_quantum")]
    pub quantum: Bytes,
    /// Most packets one overflow drops from the fattest flow (Linux and ns-3: 64); it drops
    /// until half of that flow's backlog is gone or this many have been.
    #[serde(default = "fq_drop_batch")]
    pub drop_batch_size: u32,
    /// Each flow's CoDel target (5 ms).
    #[serde(default = "codel_target")]
    pub target: Duration,
    /// Each flow's CoDel interval (100 ms).
    #[serde(default = "codel_interval")]
    pub interval: Duration,
    /// CoDel's `mtu` (bytes at or below which it does not drop), compared, as in Linux,
    /// with the whole queue's backlog: 1500 B, the IP MTU.
    #[serde(default = "codel_mtu")]
    pub mtu: Bytes,
    /// Each flow's CoDel control law: "linux" (default) or "exact" (see `codel.rs`).
    #[serde(default)]
    pub control_law: ControlLaw,
}

fn fq_limit() -> Limit {
    Limit::Packets(10240)
}
fn fq_flows() -> u32 {
    1024
}
fn fq_quantum() -> Bytes {
    Bytes(1514)
}
fn fq_drop_batch() -> u32 {
    64
}

/// Which list a flow is on (Linux: its `flowchain` in `new_flows`, `old_flows` or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    No,
    New,
    Old,
}

/// One flow queue (Linux `struct fq_codel_flow` and its `backlogs[]` entry).
#[derive(Debug)]
struct Flow {
    packets: VecDeque<Queued>,
    backlog: u64,
    deficit: i64,
    vars: CodelVars,
    listed: Listed,
}

/// A flow's FIFO as CoDel sees it: dequeueing updates the flow's and the whole queue's
/// counts (Linux's `dequeue_func`).
struct FlowQueue<'a> {
    packets: &'a mut VecDeque<Queued>,
    backlog: &'a mut u64,
    total_len: &'a mut usize,
    total_bytes: &'a mut u64,
}

impl CodelQueue for FlowQueue<'_> {
    fn dequeue(&mut self) -> Option<Queued> {
        let p = self.packets.pop_front()?;
        *self.backlog -= p.bytes as u64;
        *self.total_len -= 1;
        *self.total_bytes -= p.bytes as u64;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        *self.total_bytes
    }
}

/// FQ-CoDel's state.
///
/// Invariants: `len` and `bytes` are the sums over the flows; a flow is on at most one of
/// `new_flows` and `old_flows`, and its `listed` says which; a flow with packets is listed.
#[derive(Debug)]
pub struct FqCodel {
    limit: Limit,
    quantum: i64,
    drop_batch: u32,
    params: CodelParams,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

impl Aqm for FqCodel {
    type Spec = FqCodelSpec;

    /// `fq_codel_change`'s ranges (1 to 65536 flows; a quantum from 256 B, to which Linux
    /// raises a smaller one, to `FQ_CODEL_QUANTUM_MAX`, 1 MiB; a batch of at least 1, to
    /// which Linux raises 0) and CoDel's times (`codel.rs`).
    fn validate(f: &FqCodelSpec) -> Result<(), FieldError> {
        if !(1..=65536).contains(&f.flows) {
            return Err(FieldError::new("flows", format!("got {}, expected from 1 to 65536 flow queues (Linux's range)", f.flows)));
        }
        if !(256..=1 << 20).contains(&f.quantum.0) {
            return Err(FieldError::new("quantum", format!("got {}B, expected from 256B to 1MiB (Linux's range)", f.quantum.0)));
        }
        if f.drop_batch_size == 0 {
            return Err(FieldError::new("drop_batch_size", "got 0, expected at least 1 packet"));
        }
        check_times(f.target, f.interval)
    }

    fn new(spec: &FqCodelSpec) -> Self {
        let flows = (0..spec.flows).map(|_| Flow { packets: VecDeque::new(), backlog: 0, deficit: 0, vars: CodelVars::default(), listed: Listed::No }).collect();
        FqCodel {
            limit: spec.limit,
            quantum: spec.quantum.0 as i64,
            drop_batch: spec.drop_batch_size,
            params: CodelParams::new(spec.target, spec.interval, spec.mtu, spec.control_law),
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Appends an arrival of `flow`; a flow not listed joins the new flows with a full
    /// quantum. Over the limit, the fattest flow loses packets from its head into
    /// `overflow` (`fq_codel_enqueue`, RFC 8290 Sec. 4.1). Never refuses.
    fn enqueue(&mut self, arrival: Queued, flow: FlowId, overflow: &mut Vec<PacketId>) -> Result<(), Refusal> {
        let i = self.bucket(flow);
        let f = &mut self.flows[i];
        f.packets.push_back(arrival);
        f.backlog += arrival.bytes as u64;
        if f.listed == Listed::No {
            f.listed = Listed::New;
            f.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
        }
        self.len += 1;
        self.bytes += arrival.bytes as u64;
        let over = match self.limit {
            Limit::Packets(p) => self.len as u64 > p,
            Limit::Bytes(b) => self.bytes > b,
        };
        if over {
            self.drop_from_fattest(overflow);
        }
        Ok(())
    }

    /// The next packet to send: the first listed flow with a positive deficit (a flow whose
    /// deficit is spent gets a quantum more and goes to the end of the old flows), through
    /// its CoDel; a flow found empty leaves the lists, except that an empty new flow goes to
    /// the old flows when there are any, so that old flows are served (`fq_codel_dequeue`,
    /// RFC 8290 Sec. 4.2). CoDel's drops go to `dropped`.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<Queued> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            let f = &mut self.flows[i as usize];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                self.move_head_to_old(from_new, i);
                continue;
            }
            let Flow { packets, backlog, vars, .. } = f;
            let mut q = FlowQueue { packets, backlog, total_len: &mut self.len, total_bytes: &mut self.bytes };
            match vars.dequeue(&self.params, now, &mut q, dropped) {
                Some(p) => {
                    f.deficit -= p.bytes as i64;
                    return Some(p);
                }
                None => {
                    if from_new && !self.old_flows.is_empty() {
                        self.move_head_to_old(from_new, i);
                    } else {
                        self.head_list(from_new).pop_front();
                        self.flows[i as usize].listed = Listed::No;
                    }
                }
            }
        }
    }

    /// Removes every waiting packet into `out`; every flow leaves the lists.
    fn drain_into(&mut self, out: &mut Vec<PacketId>) {
        for f in &mut self.flows {
            out.extend(f.packets.drain(..).map(|q| q.pkt));
            f.backlog = 0;
            f.listed = Listed::No;
        }
        self.new_flows.clear();
        self.old_flows.clear();
        self.len = 0;
        self.bytes = 0;
    }
}

impl FqCodel {
    /// The bucket of `flow` (see the module's note on classification): TCP flows by their
    /// index from the first bucket up, datagram flows by theirs from the last bucket down, so
    /// that a run's first flows of each kind never share one by their numbering alone.
    #[inline]
    fn bucket(&self, flow: FlowId) -> usize {
        let n = self.flows.len();
        if flow.is_datagram() {
            n - 1 - flow.slot() % n
        } else {
            flow.index() % n
        }
    }

    /// Drops from the head of the flow with the largest backlog (the first such flow) until
    /// half its backlog is gone or `drop_batch` packets are, at least one; its CoDel count
    /// grows by as many (`fq_codel_drop`).
    fn drop_from_fattest(&mut self, overflow: &mut Vec<PacketId>) {
        let mut fattest = 0;
        let mut most = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > most {
                most = f.backlog;
                fattest = i;
            }
        }
        let threshold = most >> 1;
        let f = &mut self.flows[fattest];
        let mut len = 0u64;
        let mut n = 0u32;
        loop {
            let Some(p) = f.packets.pop_front() else { break };
            len += p.bytes as u64;
            overflow.push(p.pkt);
            n += 1;
            if n >= self.drop_batch || len >= threshold {
                break;
            }
        }
        f.vars.count = f.vars.count.wrapping_add(n);
        f.backlog -= len;
        self.len -= n as usize;
        self.bytes -= len;
    }

    fn head_list(&mut self, new: bool) -> &mut VecDeque<u32> {
        if new { &mut self.new_flows } else { &mut self.old_flows }
    }

    /// Moves flow `i`, the head of the new (`from_new`) or old list, to the old list's tail.
    fn move_head_to_old(&mut self, from_new: bool, i: u32) {
        self.head_list(from_new).pop_front();
        self.old_flows.push_back(i);
        self.flows[i as usize].listed = Listed::Old;
    }

    /// Flow `flow`'s bucket: its backlog in bytes, its deficit and its CoDel count (tests).
    #[cfg(test)]
    pub fn flow_state(&self, flow: FlowId) -> (u64, i64, u32) {
        let f = &self.flows[self.bucket(flow)];
        (f.backlog, f.deficit, f.vars.count)
    }
}

#[cfg(test)]
#[path = "fq_codel_tests.rs"]
mod tests;
