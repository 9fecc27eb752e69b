//! Traffic generators at run time: web users (paper 000's web sessions: a file of random
//! size over a new connection, then an exponential think time, again and again).

use crate::time::SimDuration;
use crate::units::RvSampler;
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct WebUser {
    /// Index into the simulation's web generator specs.
    pub spec: u32,
    pub user: u32,
    pub files: u32,
    pub size: RvSampler,
    pub think: RvSampler,
    pub rng: Xoshiro256PlusPlus,
}

impl WebUser {
    pub fn draw_think(&mut self) -> SimDuration {
        SimDuration::from_secs_f64(self.think.sample(&mut self.rng))
    }

    /// A file size in whole bytes, at least one.
    pub fn draw_size(&mut self) -> u64 {
        (self.size.sample(&mut self.rng).round() as u64).max(1)
    }
}
