//! TCP's endpoints as they are, behind `Endpoint`: the sender and the receiver exchange
//! segments and wake on their own timers. The world calls them directly on its hot path (the
//! receiver's delivered range and the sender's notes are its business too); these
//! implementations are what any host driving them generically uses.

use super::Endpoint;
use crate::tcp::{Segment, TcpReceiver, TcpSender};
use crate::time::SimTime;

impl Endpoint for TcpSender {
    type Unit = Segment;
    fn receive(&mut self, now: SimTime, unit: &Segment, out: &mut Vec<Segment>) {
        self.on_segment(now, unit, out);
    }
    fn wake(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.on_timer(now, out);
    }
    fn next_wakeup(&self) -> Option<SimTime> {
        TcpSender::next_wakeup(self)
    }
}

impl Endpoint for TcpReceiver {
    type Unit = Segment;
    fn receive(&mut self, now: SimTime, unit: &Segment, out: &mut Vec<Segment>) {
        self.on_segment(now, unit, out);
    }
    fn wake(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.on_timer(now, out);
    }
    fn next_wakeup(&self) -> Option<SimTime> {
        TcpReceiver::next_wakeup(self)
    }
}
