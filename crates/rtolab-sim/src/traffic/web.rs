//! `kind = "web"`: web users (paper 000's web sessions: a file of random size over a new
//! connection, then an exponential think time, again and again; paper 001's 3GPP packet
//! calls: a file made of a random number of datagrams, each over a connection of its own or
//! all of a user's over one, `WebConnection`).

use super::kind::{GeneratorKind, Traffic};
use super::planned::{start_time, PlannedUsers, User};
use crate::rng::stream;
use crate::quic::QuicSpec;
use crate::tcp::settings::TcpSpec;
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration, DurationRv, RvSampler, SizeRv};
use rand::Rng;
use rand_distr::{Distribution, Geometric};
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::Deserialize;

/// Web users (paper 000): each fetches a file of random size, then thinks for a random time,
/// and again, until the run ends; each file over a new connection, or all of a user's files
/// over one (`connection`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// The generator's name, and the prefix of its flows' names (default "web<index>").
    pub name: Option<String>,
    /// How many users fetch files independently; 0 switches the generator off.
    pub users: u32,
    /// The file size; with `datagrams`, the size of each datagram of a packet call.
    pub size: SizeRv,
    /// The time between the end of one file and the request of the next (reading time),
    /// e.g. "exp(1.5s)".
    pub think: DurationRv,
    /// When the users start (default 0 s).
    pub start: Option<Duration>,
    /// Links crossed by data, in order; ACKs return over the same links reversed.
    pub route: Vec<String>,
    /// The mobile user sends: the route names the radio network first, data leaves over the
    /// user's dedicated uplink and the radio's wired path, ACKs come back through the shared
    /// channel. Default false (a route into the radio ends at a mobile receiver).
    #[serde(default)]
    pub uplink: bool,
    /// The users' TCP (default rtolab's own settings, no `stack`).
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// The users' files go over QUIC instead (`quic = { cc = "cubic" }`), a new connection
    /// for each; exclusive with `tcp`, and with `datagrams` and "per-session".
    #[serde(default)]
    pub quic: Option<QuicSpec>,
    /// Files as packet calls of the 3GPP non-real-time model (paper 001): a random number
    /// of datagrams, each of a size drawn from `size`.
    pub datagrams: Option<DatagramsSpec>,
    /// "per-file" (a new TCP connection for each file, the default) or "per-session" (one
    /// connection per user, opened at its first file and carrying every later file after
    /// the think time, with the sender's timer and window state as the idle gap left them).
    #[serde(default)]
    pub connection: WebConnection,
}

/// How a web user's files map onto TCP connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WebConnection {
    /// A new connection (handshake, fresh RTO and window) for each file: paper 000's web
    /// sessions, the 3GPP model's packet calls each on a connection of its own.
    #[default]
    PerFile,
    /// One connection per user session, a reading of paper 001 (Sec. IV: "We simulate a
    /// single user running a single session"; Sec. II: the "session completion time" is
    /// measured "on a single TCP session"): opened at the user's first file (one handshake),
    /// each later file written to it after the think time. The RTO, its back-off,
    /// SRTT/RTTVAR, cwnd, ssthresh and the loss state carry over the idle gap as the stack's
    /// own rules leave them (no stack here restarts the window after idle). It never closes
    /// (no FIN). A mobile user of the radio network is placed once, when it opens.
    PerSession,
}

/// A packet call of the 3GPP non-real-time (web browsing) traffic model, ETSI TR 101 112
/// (UMTS 30.03) Annex B: a geometric number N of datagrams (support 1, 2, …, mean
/// `mean_count`; 25 in the standard), each of a size S drawn from the generator's `size`
/// (the standard's Pareto, k = 81.5 B, α = 1.1) and cut off at `max_size` (66 666 B, "Pareto
/// with cut-off": larger draws become `max_size`). The file is their total, so its mean is
/// E[N]·E[min(S, max_size)] (Wald's identity; 25 · 480 B ≈ 12 kB in the standard).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DatagramsSpec {
    /// Mean number of datagrams per packet call, at least 1 (1 means exactly one).
    pub mean_count: f64,
    /// Datagram sizes above this are set to it; none means no cut-off.
    pub max_size: Option<Bytes>,
}

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

/// One web user's behaviour: its draws of file sizes and think times, from its own stream.
pub struct WebUser {
    pub size: RvSampler,
    pub think: RvSampler,
    /// With `Some`, a file is a packet call of datagrams whose sizes `size` draws.
    pub datagrams: Option<Datagrams>,
    pub rng: Xoshiro256PlusPlus,
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


impl GeneratorKind for WebSpec {
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    fn route(&self) -> (&[String], bool) {
        (&self.route, self.uplink)
    }
    fn tcp(&self) -> Option<&TcpSpec> {
        match self.quic {
            Some(_) => None,
            None => Some(self.tcp.as_ref().unwrap_or(TcpSpec::none_given())),
        }
    }
    fn quic(&self) -> Option<&QuicSpec> {
        self.quic.as_ref()
    }
    fn check(&self, has_duration: bool) -> Result<(), (String, String)> {
        if self.quic.is_some() {
            if self.tcp.is_some() {
                return Err(("quic".into(), "the generator has both `tcp` and `quic`; expected at most one".into()));
            }
            if self.datagrams.is_some() {
                return Err(("quic".into(), "packet calls (`datagrams`) run over TCP; expected no `quic` with `datagrams`".into()));
            }
            if self.connection == WebConnection::PerSession {
                return Err(("quic".into(), "QUIC users open a connection per file; expected connection = \"per-file\" with `quic`".into()));
            }
        }
        if let Some(d) = &self.datagrams {
            if !(d.mean_count.is_finite() && d.mean_count >= 1.0) {
                return Err(("datagrams.mean_count".into(), format!("got {}, expected a mean of at least 1 datagram per packet call", d.mean_count)));
            }
            if d.max_size.is_some_and(|b| b.0 == 0) {
                return Err(("datagrams.max_size".into(), "got 0 B, expected a positive cut-off size".into()));
            }
        }
        if !has_duration {
            return Err((String::new(), "web users never stop: the run needs a `duration`".into()));
        }
        Ok(())
    }
    /// User u draws its sizes and think times from its own stream
    /// ("generators/NAME/user<u>").
    fn plan(&self, _kind: &'static str, name: String, seed: u64) -> Traffic<'_> {
        let datagrams = self.datagrams.as_ref().map(|d| Datagrams { mean_count: d.mean_count, max_size: d.max_size.map_or(f64::INFINITY, |b| b.0 as f64) });
        let users = (0..self.users)
            .map(|u| {
                Box::new(WebUser {
                    size: RvSampler::new(self.size.0.clone()),
                    think: RvSampler::new(self.think.0.clone()),
                    datagrams,
                    rng: stream(seed, &format!("generators/{name}/user{u}"), "size-and-think"),
                }) as Box<dyn User + Send>
            })
            .collect();
        Traffic::Users(PlannedUsers {
            name,
            start: start_time(self.start),
            route: &self.route,
            uplink: self.uplink,
            tcp: self.tcp.as_ref().unwrap_or(TcpSpec::none_given()),
            quic: self.quic.as_ref(),
            one_connection: self.connection == WebConnection::PerSession,
            users,
        })
    }
}

/// Think, fetch, think: the first request one think time after the start, each later one a
/// think time after the previous file ended.
impl User for WebUser {
    fn first_wake(&mut self, start: SimTime) -> SimTime {
        start + self.draw_think()
    }
    fn request(&mut self) -> u64 {
        self.draw_size()
    }
    fn next_wake(&mut self, now: SimTime) -> SimTime {
        now + self.draw_think()
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
            size: RvSampler::new(RandomVar::Pareto { scale: 81.5, shape: 1.1, max: f64::INFINITY }),
            think: RvSampler::new(RandomVar::Const(1.0)),
            datagrams: Some(Datagrams { mean_count: 25.0, max_size: 66_666.0 }),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
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
