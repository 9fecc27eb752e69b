//! A mobile user (UE): where it is, the shadowing it sees, its buffer at the base station
//! and what the scheduler remembers of it.

use super::buffer::UeBuffer;
use super::geometry::Layout;
use super::mobility::Mobility;
use super::shadowing::Shadowing;
use super::sir::path_gain;
use crate::time::SimTime;
use crate::units::RvSampler;
use rand_xoshiro::Xoshiro256PlusPlus;

/// How far a user walks before its gains are recomputed: over 0.5 m the path loss of a user
/// 100 m away changes by 3.5 · 10 · log10(100.5 / 100) = 0.008 dB and its shadowing keeps a
/// correlation of exp(−0.5 / 50) = 0.99 (50 m decorrelation), far below the 3.5–4 dB steps
/// of link adaptation; at 3 km/h that is one refresh per 0.6 s instead of per 2 ms TTI.
pub const GAIN_STEP_M: f64 = 0.5;

pub struct Ue {
    pub mobility: Mobility,
    pub shadowing: Shadowing,
    /// The time up to which `shadowing` has followed the user's path.
    pub shadow_at: SimTime,
    /// Gains from every base station (path loss and shadowing) as of `shadow_at`.
    pub gains: Vec<f64>,
    /// `gains` must be recomputed however little the user has walked (it was just placed).
    pub gains_stale: bool,
    /// The cell the user is attached to (the nearest base station when its transfer began).
    pub cell: u32,
    pub buffer: UeBuffer,
    /// Its last block arrived damaged and goes again at once.
    pub retransmit: bool,
    /// In its cell's list of backlogged users.
    pub active: bool,
    /// TTI index of its last service (round robin), 0 if never.
    pub last_served: u64,
    /// Exponentially averaged bytes per TTI it received (proportional fair).
    pub average: f64,
    pub speed: RvSampler,
    /// Movement and shadowing draws.
    pub rng: Xoshiro256PlusPlus,
}

impl Ue {
    /// Brings `gains` up to `now` once the user has walked `GAIN_STEP_M` since they were last
    /// computed (or never were): moves the user, carries its shadowing along the distance
    /// walked (Gudmundson), and recomputes the gain from every base station. Between
    /// refreshes the gains are those of the last one; the SIR itself is still computed every
    /// TTI, from the cells transmitting in it.
    pub fn update_gains(&mut self, layout: &Layout, exponent: f64, now: SimTime) {
        let walked = self.mobility.travelled(self.shadow_at, now);
        if !self.gains_stale && walked < GAIN_STEP_M {
            return;
        }
        self.shadowing.advance(walked, &mut self.rng);
        self.shadow_at = now;
        let at = self.mobility.position(layout, now);
        for (b, g) in self.gains.iter_mut().enumerate() {
            *g = path_gain(layout.distance(at, b), exponent, self.shadowing.db(b));
        }
        self.gains_stale = false;
    }

    /// A new transfer: a new position, direction and speed, fresh shadowing, and the nearest
    /// base station (paper 000, Sec. 3.1). Returns the cell it attaches to.
    pub fn relocate(&mut self, layout: &Layout, now: SimTime) -> u32 {
        let speed = self.speed.sample(&mut self.rng);
        self.mobility.restart(layout, &mut self.rng, speed, now);
        self.shadowing.redraw(&mut self.rng);
        self.shadow_at = now;
        self.gains_stale = true;
        self.average = 0.0;
        self.retransmit = false;
        layout.nearest_cell(self.mobility.position(layout, now)) as u32
    }
}
