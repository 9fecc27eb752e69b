//! Traffic generators at run time: web users (paper 000's web sessions: a file of random
//! size over a new connection, then an exponential think time, again and again; paper 001's
//! 3GPP packet calls: a file made of a random number of datagrams, each over a connection of
//! its own or all of a user's over one, `WebConnection`).

use crate::net::{DirId, FlowId};
use crate::spec::TcpSpec;
use crate::time::{SimDuration, SimTime};
use crate::units::RvSampler;
use rand::Rng;
use rand_distr::{Distribution, Geometric};
use rand_xoshiro::Xoshiro256PlusPlus;

/// How a packet call is drawn (`DatagramsSpec`, ETSI TR 101 112 Annex B): a geometric number
/// of datagrams on 1, 2, … with mean `mean_count`, sizes cut off at `max_size` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Datagrams {
    pub mean_count: f64,
    pub max_size: f64,
}

impl Datagrams {
    /// N = 1 + (failures before the first success) with success probability p = 1/mean, so
    /// P(N = n) = (1 − p)^(n−1)·p and E[N] = 1/p = `mean_count`.
    pub fn draw_count<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let p = 1.0 / self.mean_count;
        1 + Geometric::new(p).map(|g| g.sample(rng)).unwrap_or(0)
    }
}

/// A web generator at run time: what each new connection of its users gets.
pub struct WebGenerator {
    pub name: String,
    /// The route's directions, data and ACKs (without a mobile user's own uplink).
    pub forward: Vec<DirId>,
    pub reverse: Vec<DirId>,
    pub tcp: TcpSpec,
    pub start: SimTime,
    /// Its mobile users send (`WebSpec::uplink`).
    pub uplink: bool,
    /// Each user's files share one connection (`WebConnection::PerSession`).
    pub per_session: bool,
}

pub struct WebUser {
    /// Index into the simulation's web generator specs.
    pub spec: u32,
    pub user: u32,
    pub files: u32,
    /// The mobile user it is, when its route reaches the radio network.
    pub ue: Option<u32>,
    pub size: RvSampler,
    pub think: RvSampler,
    /// With `Some`, a file is a packet call of datagrams whose sizes `size` draws.
    pub datagrams: Option<Datagrams>,
    pub rng: Xoshiro256PlusPlus,
    /// Its connection once open, when its generator's users keep one per session.
    pub connection: Option<FlowId>,
}

impl WebUser {
    pub fn draw_think(&mut self) -> SimDuration {
        SimDuration::from_secs_f64(self.think.sample(&mut self.rng))
    }

    /// A file size in whole bytes, at least one: one draw of `size`, or the total of a packet
    /// call's datagrams (each rounded to whole bytes after its cut-off).
    pub fn draw_size(&mut self) -> u64 {
        let bytes = match self.datagrams {
            None => self.size.sample(&mut self.rng).round(),
            Some(d) => {
                let n = d.draw_count(&mut self.rng);
                (0..n).map(|_| self.size.sample(&mut self.rng).min(d.max_size).round()).sum()
            }
        };
        (bytes as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::RandomVar;
    use rand::SeedableRng;

    /// The 3GPP web user of paper 001: Pareto datagrams (k = 81.5 B, α = 1.1) cut off at
    /// 66 666 B, a geometric number of them with mean 25.
    fn umts_user(seed: u64) -> WebUser {
        WebUser {
            spec: 0,
            user: 0,
            files: 0,
            ue: None,
            size: RvSampler::new(RandomVar::Pareto { scale: 81.5, shape: 1.1, max: f64::INFINITY }),
            think: RvSampler::new(RandomVar::Const(1.0)),
            datagrams: Some(Datagrams { mean_count: 25.0, max_size: 66_666.0 }),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            connection: None,
        }
    }

    /// E[min(X, m)] for a Pareto X with scale k and shape α ≠ 1: ∫₀^m P(X > x) dx
    /// = k + k·(1 − (k/m)^(α−1))/(α − 1).
    fn cut_pareto_mean(k: f64, alpha: f64, m: f64) -> f64 {
        k + k * (1.0 - (k / m).powf(alpha - 1.0)) / (alpha - 1.0)
    }

    #[test]
    fn cut_pareto_mean_is_the_standards_480_bytes() {
        let mean = cut_pareto_mean(81.5, 1.1, 66_666.0);
        assert!((mean - 480.0).abs() < 1.0, "{mean}");
    }

    /// Wald's identity: E[file] = E[N]·E[min(S, m)] = 25 · 479.7 B = 11 993 B. With 200 000
    /// packet calls the standard error is about 0.3 % (sd of a packet call ≈ 17 kB), so 2 %
    /// is over six standard errors; seed fixed.
    #[test]
    fn packet_call_mean_is_count_times_datagram_mean() {
        let mut user = umts_user(2003);
        let n = 200_000;
        let mean = (0..n).map(|_| user.draw_size() as f64).sum::<f64>() / n as f64;
        let want = 25.0 * cut_pareto_mean(81.5, 1.1, 66_666.0);
        assert!((mean / want - 1.0).abs() < 0.02, "{mean} vs {want}");
    }

    /// The count alone: mean 25 within 1 % (sd √600 ≈ 24.5, standard error 0.055 over
    /// 200 000 draws), never below one, and exactly one for a mean of 1.
    #[test]
    fn datagram_count_is_geometric_from_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let d = Datagrams { mean_count: 25.0, max_size: f64::INFINITY };
        let draws: Vec<u64> = (0..200_000).map(|_| d.draw_count(&mut rng)).collect();
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean / 25.0 - 1.0).abs() < 0.01, "{mean}");
        assert_eq!(*draws.iter().min().unwrap(), 1);
        let one = Datagrams { mean_count: 1.0, max_size: f64::INFINITY };
        assert!((0..1000).all(|_| one.draw_count(&mut rng) == 1));
    }

    #[test]
    fn datagrams_never_exceed_the_cut_off() {
        let mut user = umts_user(5);
        user.datagrams = Some(Datagrams { mean_count: 1.0, max_size: 1000.0 });
        let sizes: Vec<u64> = (0..50_000).map(|_| user.draw_size()).collect();
        assert_eq!(*sizes.iter().max().unwrap(), 1000);
        assert!(*sizes.iter().min().unwrap() >= 82);
    }

    #[test]
    fn without_datagrams_a_file_is_one_draw() {
        let mut user = umts_user(1);
        user.datagrams = None;
        user.size = RvSampler::new(RandomVar::Const(12_345.4));
        assert_eq!(user.draw_size(), 12_345);
    }
}
