//! Software prefetch: a hint to the CPU that some cache lines will be read soon. It changes
//! no result, only when memory is loaded; on targets without the instruction it does nothing.

/// Cache line size assumed for the hints.
const LINE: usize = 64;

/// Asks for the first `lines` cache lines of `value` (from its address on) to be brought
/// into every level of the cache.
#[inline(always)]
pub fn lines<T>(value: &T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let base = (value as *const T).cast::<i8>();
        for i in 0..lines {
            // SAFETY: SSE is part of x86-64, and a prefetch never faults, whatever the address
            // (here inside or just past `value`); it reads nothing the program sees.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(i * LINE)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, lines);
}
