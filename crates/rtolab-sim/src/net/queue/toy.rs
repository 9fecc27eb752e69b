//! A toy queue registered for the tests only: a FIFO that drops every n-th packet at
//! dequeue. `a_registered_toy_queue_runs_on_a_link` checks what one registry entry gives.

use super::aqm::{Aqm, Queued, Refusal};
use crate::net::field_error::FieldError;
use crate::net::ids::{FlowId, PacketId};
use crate::time::SimTime;
use std::collections::VecDeque;

/// `queue = { kind = "every-nth", n = … }`.
#[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EveryNthSpec {
    /// The period of the drops at dequeue, in packets (at least 1).
    pub n: u64,
}

pub struct EveryNth {
    n: u64,
    dequeued: u64,
    fifo: VecDeque<Queued>,
    bytes: u64,
}

impl Aqm for EveryNth {
    type Spec = EveryNthSpec;

    fn validate(spec: &EveryNthSpec) -> Result<(), FieldError> {
        match spec.n {
            0 => Err(FieldError::new("n", "got 0, expected a period of at least 1 packet")),
            _ => Ok(()),
        }
    }

    fn new(spec: &EveryNthSpec) -> Self {
        EveryNth { n: spec.n, dequeued: 0, fifo: VecDeque::new(), bytes: 0 }
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn enqueue(&mut self, arrival: Queued, _flow: FlowId, _dropped: &mut Vec<PacketId>) -> Result<(), Refusal> {
        self.fifo.push_back(arrival);
        self.bytes += arrival.bytes as u64;
        Ok(())
    }

    fn dequeue(&mut self, _now: SimTime, dropped: &mut Vec<PacketId>) -> Option<Queued> {
        loop {
            let p = self.fifo.pop_front()?;
            self.bytes -= p.bytes as u64;
            self.dequeued += 1;
            if self.dequeued % self.n != 0 {
                return Some(p);
            }
            dropped.push(p.pkt);
        }
    }

    fn drain_into(&mut self, out: &mut Vec<PacketId>) {
        out.extend(self.fifo.drain(..).map(|q| q.pkt));
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{from_toml, json_schema};

    fn scenario(queue: &str) -> String {
        format!(
            "duration = \"20s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"20ms\"\nqueue = {queue}\n\
             [[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"300kB\"\n[output]\nevents = [\"drop\"]\n"
        )
    }

    /// The toy plugs in through its registry entry alone: a spec names it, its own check
    /// refuses a bad table by field path, the schema lists its table, and a run's queue drops
    /// at dequeue, each drop counted as the AQM's and reported as the queue's event, while
    /// the flow still delivers every byte.
    #[test]
    fn a_registered_toy_queue_runs_on_a_link() {
        let r = crate::run(&from_toml(&scenario("{ kind = \"every-nth\", n = 3 }")).unwrap(), None).unwrap();
        let fwd = &r.links[0];
        assert!(fwd.aqm_drops > 0);
        assert_eq!((fwd.drops, fwd.queue_drops), (fwd.aqm_drops, 0));
        let events = r.events.iter().filter(|e| e.link.as_deref() == Some("l.forward") && e.detail.as_deref() == Some("queue")).count() as u64;
        assert_eq!(events, fwd.aqm_drops);
        assert_eq!(r.flows[0].bytes, 300_000);

        let e = from_toml(&scenario("{ kind = \"every-nth\", n = 0 }")).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("links[0].queue.n", "got 0, expected a period of at least 1 packet"));
        let e = from_toml(&scenario("{ kind = \"every-nth\", n = 3, limit = \"5p\" }")).unwrap_err();
        assert_eq!(e.path, "links[0].queue.limit");
        let e = from_toml(&scenario("{ kind = \"sfq\" }")).unwrap_err();
        assert_eq!(e.path, "links[0].queue.kind");
        assert!(e.message.contains("every-nth"), "{e}");

        assert!(json_schema().contains("\"const\": \"every-nth\""), "the schema's `queue` lists the toy's table");
    }
}
