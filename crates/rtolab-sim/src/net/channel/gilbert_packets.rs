//! The packet-based two-state Gilbert channel that other tools parameterise by its mean loss
//! rate and mean burst length: every transmission first moves the chain (good → bad with
//! probability p, bad → good with r), then is lost iff the chain is bad. Stationary loss
//! π_B = p / (p + r) and mean burst 1/r give r = 1 / mean_burst and
//! p = r · mean_loss / (1 − mean_loss) (Gilbert 1960; e.g. the `gemodel` of Linux netem).

use rand::Rng;

pub struct GilbertPackets {
    p: f64,
    r: f64,
    bad: bool,
}

impl GilbertPackets {
    /// `mean_loss` in [0, 1), `mean_burst` ≥ 1 packet (checked by the spec).
    pub fn new(mean_loss: f64, mean_burst: f64) -> Self {
        let r = 1.0 / mean_burst;
        GilbertPackets { p: r * mean_loss / (1.0 - mean_loss), r, bad: false }
    }

    #[inline]
    pub fn next_lost<R: Rng>(&mut self, rng: &mut R) -> bool {
        let u: f64 = rng.random();
        self.bad = if self.bad { u >= self.r } else { u < self.p };
        self.bad
    }
}
