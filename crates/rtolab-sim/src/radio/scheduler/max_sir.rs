//! Maximum SIR (paper 000): the backlogged user with the best SIR goes first, which
//! maximises the cell's throughput and starves users at the cell edge while better ones
//! have data.

use super::Candidate;
use std::cmp::Ordering;

pub fn compare(a: &Candidate, b: &Candidate) -> Ordering {
    b.sir.total_cmp(&a.sir)
}

#[cfg(test)]
mod tests {
    use super::super::{candidate, rank};
    use crate::radio::radio_spec::SchedulerKind;

    #[test]
    fn the_best_sir_goes_first_whoever_was_served_last() {
        let mut c = [candidate(0, -1.0, 360), candidate(1, 8.2, 1800), candidate(2, 3.9, 1080)];
        c[1].last_served = 99;
        rank(SchedulerKind::MaxSir, &mut c, 3);
        assert_eq!(c.map(|x| x.ue), [1, 2, 0]);
    }
}
