//! The parts of CUBIC's window curve that every Linux module version computes alike
//! (`net/ipv4/tcp_cubic.c`, `bictcp_update`: the cubic function, a new epoch's origin and K,
//! and the TCP-friendly estimate), in the kernel's integer arithmetic. `cubic.rs` (today's
//! module) and `cubic_2_6_24.rs` (module 2.1) differ around them: in what they count, the
//! floors and caps on `cnt`, and their β.

use super::cube_root::cubic_root;

/// `BICTCP_BETA_SCALE`.
pub const BETA_SCALE: u32 = 1024;
/// `bic_scale`: C = 41·10/1024 ≈ 0.4 segments/s³.
const BIC_SCALE: u64 = 41;
/// `BICTCP_HZ`: the curve's time unit is 2^-10 s.
pub const BICTCP_HZ: u32 = 10;
/// `cube_rtt_scale` = `bic_scale`·10 (C in 1/1024 segment per (2^-10 s)³, scaled by 2^40).
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor` = 2^40 / (`bic_scale`·10) = 2 681 735 677: K = ∛(`cube_factor`·(W_max − cwnd))
/// in 1/1024 s.
const CUBE_FACTOR: u64 = (1 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE * 10);

/// `beta_scale` = 8·(1024 + β)/3/(1024 − β) in integer steps (15 for β = 717, 23 for 819):
/// Reno's estimate grows by one segment per `beta_scale`/8 windows counted,
/// α = 3(1 − β)/(1 + β) per RTT.
pub fn friendly_scale(beta: u32) -> u32 {
    8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta)
}

/// A new epoch's (K, origin point) for the window `cwnd`: the curve passes through cwnd and
/// has its plateau at W_max = `last_max_cwnd` K units of 2^-10 s on, or starts at its
/// plateau when cwnd ≥ W_max.
pub fn epoch(last_max_cwnd: u32, cwnd: u32) -> (u32, u32) {
    if last_max_cwnd <= cwnd {
        (0, cwnd)
    } else {
        (cubic_root(CUBE_FACTOR * (last_max_cwnd - cwnd) as u64), last_max_cwnd)
    }
}

/// `fast_convergence`, on in every module version (BIC's too).
const FAST_CONVERGENCE: bool = true;

/// `*_recalc_ssthresh` at a loss with window `cwnd`: (the new W_max, ssthresh), BIC's
/// (`tcp_bic.c`, which CUBIC's inherits, but for BIC's ssthresh at or below `low_window`)
/// as well as every CUBIC version's. W_max is
/// cwnd, or with fast convergence, when cwnd fell short of the previous W_max,
/// cwnd·(1 + β)/2; ssthresh is β·cwnd, at least 2 (u32 arithmetic, wrapping as the kernel's).
pub fn at_loss(last_max_cwnd: u32, cwnd: u32, beta: u32) -> (u32, u32) {
    let w_max = if cwnd < last_max_cwnd && FAST_CONVERGENCE { cwnd.wrapping_mul(BETA_SCALE + beta) / (2 * BETA_SCALE) } else { cwnd };
    (w_max, (cwnd.wrapping_mul(beta) / BETA_SCALE).max(2))
}

/// The curve's window at `t` (2^-10 s since the epoch began, delay_min included): origin
/// ± C·|t − K|³, below the plateau before K, above it after (u32 arithmetic, wrapping as the
/// kernel's).
pub fn target(t: u64, k: u32, origin: u32) -> u32 {
    let k = u64::from(k);
    let offs = t.abs_diff(k);
    let delta = (CUBE_RTT_SCALE.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs) >> (10 + 3 * BICTCP_HZ)) as u32;
    if t < k { origin.wrapping_sub(delta) } else { origin.wrapping_add(delta) }
}

/// `cnt` toward `target`: cwnd / (target − cwnd) when the curve is above cwnd, else a very
/// small increment (100·cwnd).
pub fn cnt_toward(target: u32, cwnd: u32) -> u32 {
    if target > cwnd { cwnd / (target - cwnd) } else { cwnd.wrapping_mul(100) }
}

/// The TCP-friendly estimate: Reno's window `tcp_cwnd` gains a segment per
/// cwnd·`beta_scale`/8 counted units (`ack_cnt`, which keeps the remainder); returns the cap
/// cwnd / (tcp_cwnd − cwnd) on `cnt` when the estimate is ahead of cwnd.
pub fn reno_estimate(ack_cnt: &mut u32, tcp_cwnd: &mut u32, cwnd: u32, friendly_scale: u32) -> Option<u32> {
    let per_segment = cwnd.wrapping_mul(friendly_scale) >> 3;
    if per_segment > 0 && *ack_cnt > per_segment {
        // The kernel subtracts in a loop while ack_cnt > per_segment.
        let n = (*ack_cnt - 1) / per_segment;
        *ack_cnt -= n * per_segment;
        *tcp_cwnd = tcp_cwnd.wrapping_add(n);
    }
    (*tcp_cwnd > cwnd).then(|| cwnd / (*tcp_cwnd - cwnd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friendly_scale_of_both_betas() {
        // 8·(1024 + 717)/3/(1024 − 717) = 13928/3/307 = 4642/307 = 15; for 819: 14744/3/205 = 23.
        assert_eq!(friendly_scale(717), 15);
        assert_eq!(friendly_scale(819), 23);
    }

    #[test]
    fn reno_estimate_counts_and_keeps_the_remainder() {
        // cwnd 10, beta_scale 15: a segment per 10·15/8 = 18 units; 40 units give 2 segments
        // ((40 − 1)/18 = 2) and leave 4; the estimate 12 is ahead of 10: cnt ≤ 10/2 = 5.
        let (mut ack_cnt, mut tcp_cwnd) = (40, 10);
        assert_eq!(reno_estimate(&mut ack_cnt, &mut tcp_cwnd, 10, 15), Some(5));
        assert_eq!((ack_cnt, tcp_cwnd), (4, 12));
    }

    #[test]
    fn the_curve_reaches_its_plateau_at_k() {
        let (k, origin) = epoch(100, 70);
        assert_eq!(origin, 100);
        assert_eq!(target(u64::from(k), k, origin), 100);
        assert!(target(0, k, origin) <= 70 + 1, "the curve starts near cwnd");
        assert_eq!(epoch(50, 70), (0, 70));
        assert_eq!(cnt_toward(80, 70), 7);
        assert_eq!(cnt_toward(60, 70), 7000);
    }
}
