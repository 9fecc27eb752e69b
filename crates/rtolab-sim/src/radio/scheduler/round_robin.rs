//! Round robin (paper 000): the backlogged user served longest ago goes first, whatever its
//! SIR, so users of a cell take turns and each gets the same share of TTIs.

use super::Candidate;
use std::cmp::Ordering;

pub fn compare(a: &Candidate, b: &Candidate) -> Ordering {
    a.last_served.cmp(&b.last_served)
}

#[cfg(test)]
mod tests {
    use super::super::{candidate, rank};
    use crate::radio::radio_spec::SchedulerKind;

    /// Three always-backlogged users, one served per TTI, marking `last_served` as a cell
    /// does: over 300 TTIs each is served exactly 100 times, in strict rotation, even though
    /// their SIRs differ.
    #[test]
    fn users_take_turns_and_get_equal_shares() {
        let mut users = [candidate(0, 9.0, 1800), candidate(1, -2.0, 360), candidate(2, 4.0, 1080)];
        let mut served = [0u32; 3];
        let mut order = Vec::new();
        for tti in 1..=300u64 {
            let mut c = users;
            rank(SchedulerKind::Rr, &mut c, 1);
            let first = c[0].ue as usize;
            users[first].last_served = tti;
            served[first] += 1;
            order.push(first);
        }
        assert_eq!(served, [100, 100, 100]);
        assert_eq!(&order[..6], &[0, 1, 2, 0, 1, 2]);
    }
}
