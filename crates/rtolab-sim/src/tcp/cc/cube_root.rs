//! The integer cube root CUBIC computes K with, giving the Linux kernel's results bit for bit
//! (`cubic_root` in `net/ipv4/tcp_cubic.c`): a seed from a 64-entry table indexed by the top
//! bits of the argument, then one Newton step.
//!
//! It is not the exact floor of the cube root: the kernel states an average error of 0.195 %,
//! and over all arguments the error stays within 0.3 % (tested below against exact roots).
//! CUBIC's K inherits that error; reproducing it keeps K equal to the kernel's.

/// Seeds: entry `s` is about 64·∛s − 1, refined by hand in the kernel (its table `v[]`),
/// so that the Newton step lands close to the root. These are the kernel's values, needed for
/// its exact results.
const SEED: [u8; 64] = [
    0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176, 179,
    181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227,
    229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
];

/// ∛a as the kernel computes it, in 32-bit arithmetic where the kernel uses it.
///
/// Below 64 the seed alone gives the root, rounded so that 1..3 → 1, 4..15 → 2, 16..41 → 3
/// and 42..63 → 4. Above, with n = bit length of `a`, the scale b = ⌊84·n/256⌋ − 1 (≈ n/3)
/// splits `a` into a top part `a >> 3b` (always below 64) and a shift: the seed of the top
/// part, scaled up by 2^b, is the first guess x₀ ≈ ∛a; one Newton step
/// x₁ = (2·x₀ + a / (x₀·(x₀ − 1))) · 341/1024 (341/1024 ≈ 1/3) refines it.
pub fn cubic_root(a: u64) -> u32 {
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        return (SEED[a as usize] as u32 + 35) >> 6;
    }
    let b = ((bits * 84) >> 8) - 1;
    let top = (a >> (b * 3)) as usize;
    let x0 = ((SEED[top] as u32 + 10) << b) >> 6;
    let quotient = a / (x0 as u64 * (x0 as u64 - 1));
    let x1 = (2 * x0).wrapping_add(quotient as u32);
    x1.wrapping_mul(341) >> 10
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact ∛a by bisection (floor).
    fn exact(a: u64) -> u64 {
        let (mut lo, mut hi) = (0u64, 1u64 << 22);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if (mid as u128).pow(3) <= a as u128 {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    #[test]
    fn small_arguments_round_to_the_nearest_root() {
        // Exact cubes below 64 come out exact; between them the table rounds.
        assert_eq!(cubic_root(0), 0);
        assert_eq!(cubic_root(1), 1);
        assert_eq!(cubic_root(8), 2);
        assert_eq!(cubic_root(27), 3);
        assert_eq!(cubic_root(3), 1);
        assert_eq!(cubic_root(15), 2);
        assert_eq!(cubic_root(16), 3);
        assert_eq!(cubic_root(41), 3);
        assert_eq!(cubic_root(42), 4);
    }

    /// Perfect cubes and powers of ten: exact results where the Newton step lands on the root
    /// (these are the kernel's outputs as well), within 1 where it lands beside it.
    #[test]
    fn known_roots() {
        for (a, root) in [(64, 4), (125, 5), (1000, 10), (4096, 16), (32_768, 32), (1_000_000, 100), (1_000_000_000, 1000)] {
            assert_eq!(cubic_root(a), root, "∛{a}");
        }
        assert_eq!(cubic_root(1_000_000_000_000), 9999); // ∛10¹² = 10⁴, one below
    }

    /// K for W_max − cwnd = 30 segments (W_max 100, cwnd 70 after β = 717/1024):
    /// ∛(⌊2⁴⁰/410⌋ · 30) = ∛80 452 070 310 = 4316.97; the kernel's root is 4316, the floor.
    #[test]
    fn k_for_a_loss_at_one_hundred_segments() {
        assert_eq!(cubic_root(2_681_735_677 * 30), 4316);
        assert_eq!(exact(2_681_735_677 * 30), 4316);
    }

    /// Against exact roots over the whole range: within max(1, 0.3 %) of ∛a (the kernel's
    /// worst case over perfect cubes is 0.29 %, at 345³ → 344).
    #[test]
    fn within_three_per_mille_of_the_exact_root() {
        let mut a: u64 = 64;
        while a < u64::MAX / 3 {
            for x in [a, a + 1, a + a / 3, a + a / 2, (a / 2) * 3 - 1] {
                let got = cubic_root(x) as f64;
                let want = exact(x) as f64;
                let tol = (want * 0.003).max(1.0);
                assert!((got - want).abs() <= tol, "∛{x}: {got} vs {want}");
            }
            a += a / 4 + 1;
        }
        for n in (10u64..2_600_000).step_by(997) {
            let got = cubic_root(n * n * n) as f64;
            assert!((got - n as f64).abs() <= (n as f64 * 0.003).max(1.0), "∛{n}³ = {got}");
        }
    }

    /// The seed index `a >> 3b` stays inside the table for every bit length.
    #[test]
    fn seed_index_stays_in_the_table() {
        for bits in 7..=64u32 {
            let b = ((bits * 84) >> 8) - 1;
            let a = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            assert!((a >> (b * 3)) < 64, "{bits} bits");
        }
    }
}
