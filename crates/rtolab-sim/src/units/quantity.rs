//! Scalar quantities: rate, duration, byte count, queue limit, flow size, probability.

use super::split_number_unit;
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What serde hands us before unit parsing: a plain number or a string with a unit.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
pub(crate) enum ScalarRepr {
    Num(f64),
    Text(String),
}

impl fmt::Display for ScalarRepr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarRepr::Num(n) => write!(f, "{n}"),
            ScalarRepr::Text(s) => write!(f, "{s:?}"),
        }
    }
}

/// How one kind of quantity is written: its units with their factors to the SI base unit, the
/// units a quoted number without one should take, what an unquoted number means, and the
/// spellings of other tools (tc, iperf, Mahimahi, the kernel) that name one of its units.
pub(crate) struct Units {
    units: &'static [(&'static str, f64)],
    unitless: &'static [&'static str],
    base: &'static str,
    elsewhere: &'static [(&'static str, &'static str)],
}

const RATES: Units = Units {
    units: &[("bps", 1.0), ("kbps", 1e3), ("Kbps", 1e3), ("Mbps", 1e6), ("Gbps", 1e9)],
    unitless: &["Mbps", "kbps"],
    base: "bit/s",
    // tc(8) "RATES": bit, kbit, mbit, gbit; "bps" there is bytes/s, which rtolab never reads.
    elsewhere: &[
        ("bit", "bps"), ("kbit", "kbps"), ("Kbit", "kbps"), ("mbit", "Mbps"), ("Mbit", "Mbps"), ("gbit", "Gbps"), ("Gbit", "Gbps"),
        ("b/s", "bps"), ("bit/s", "bps"), ("kb/s", "kbps"), ("kbit/s", "kbps"), ("Mb/s", "Mbps"), ("Mbit/s", "Mbps"), ("Gb/s", "Gbps"), ("Gbit/s", "Gbps"),
        ("mbps", "Mbps"), ("gbps", "Gbps"), ("k", "kbps"), ("K", "kbps"), ("m", "Mbps"), ("M", "Mbps"), ("g", "Gbps"), ("G", "Gbps"),
    ],
};
const DURATIONS: Units = Units {
    units: &[("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("min", 60.0)],
    unitless: &["ms", "s"],
    base: "seconds",
    // tc(8) "TIMES": s, sec, secs, ms, msec, msecs, us, usec, usecs.
    elsewhere: &[
        ("sec", "s"), ("secs", "s"), ("second", "s"), ("seconds", "s"), ("msec", "ms"), ("msecs", "ms"), ("millisecond", "ms"), ("milliseconds", "ms"),
        ("usec", "us"), ("usecs", "us"), ("microsecond", "us"), ("microseconds", "us"), ("nsec", "ns"), ("nsecs", "ns"), ("m", "min"), ("mins", "min"),
        ("minute", "min"), ("minutes", "min"),
    ],
};
const BYTE_COUNTS: Units = Units {
    units: &[("B", 1.0), ("kB", 1e3), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("KiB", 1024.0), ("MiB", 1048576.0)],
    unitless: &["B", "kB"],
    base: "bytes",
    // tc(8) "SIZES": b, k/kb, m/mb, g/gb (kb there is kibibytes; kbit is bits).
    elsewhere: &[
        ("b", "B"), ("byte", "B"), ("bytes", "B"), ("k", "kB"), ("K", "kB"), ("kb", "kB"), ("kbyte", "kB"), ("kbytes", "kB"), ("m", "MB"), ("M", "MB"),
        ("mb", "MB"), ("mbyte", "MB"), ("g", "GB"), ("G", "GB"), ("gb", "GB"), ("kib", "KiB"), ("mib", "MiB"),
    ],
};
const DISTANCES: Units = Units { units: &[("m", 1.0), ("km", 1e3)], unitless: &["m", "km"], base: "metres", elsewhere: &[("meters", "m"), ("metres", "m"), ("KM", "km")] };
const SPEEDS: Units = Units {
    units: &[("m/s", 1.0), ("km/h", 1.0 / 3.6)],
    unitless: &["km/h", "m/s"],
    base: "m/s",
    elsewhere: &[("kmh", "km/h"), ("kph", "km/h"), ("kmph", "km/h"), ("mps", "m/s")],
};

/// Parses quoted `text` as a number with one of `kind`'s units, in the SI base unit. A number
/// without a unit is refused, unless it is 0 (0 of any unit): `"40"` meant as 40 ms would
/// otherwise be 40 s. The error says what was expected (`expected`), and for a unit of
/// another tool or in the wrong case, which of rtolab's it means.
fn scaled(text: &str, kind: &Units, expected: &str) -> Result<f64, String> {
    let bad = || format!("got {text:?}, expected {expected}");
    let (value, unit) = split_number_unit(text).ok_or_else(bad)?;
    if !value.is_finite() {
        return Err(bad());
    }
    let number = text.trim().strip_suffix(unit).unwrap_or(text).trim();
    if unit.is_empty() {
        if value == 0.0 {
            return Ok(0.0);
        }
        let options: Vec<String> = kind.unitless.iter().map(|u| format!("\"{number}{u}\"")).collect();
        return Err(format!(
            "got {text:?}, a number without a unit; write {} (an unquoted number is {})",
            options.join(" or "),
            kind.base
        ));
    }
    if let Some((_, factor)) = kind.units.iter().find(|(u, _)| *u == unit) {
        return Ok(value * factor);
    }
    match meant_unit(unit, kind) {
        Some(ours) => Err(format!("{}; did you mean \"{number}{ours}\"?", bad())),
        None => Err(bad()),
    }
}

/// rtolab's unit that `unit`, written as another tool or in another case, stands for.
fn meant_unit(unit: &str, kind: &Units) -> Option<&'static str> {
    if let Some((_, ours)) = kind.elsewhere.iter().find(|(theirs, _)| *theirs == unit) {
        return Some(ours);
    }
    let folded: Vec<&'static str> = kind.units.iter().map(|(u, _)| *u).filter(|u| u.eq_ignore_ascii_case(unit)).collect();
    if let [one] = folded[..] {
        return Some(one);
    }
    kind.elsewhere.iter().find(|(theirs, _)| theirs.eq_ignore_ascii_case(unit)).map(|(_, ours)| *ours)
}

pub(crate) const RATE_FORM: &str = "a positive rate such as \"2Mbps\", \"160kbps\" or a number of bit/s";
pub(crate) const DURATION_FORM: &str =
    "a non-negative duration such as \"70ms\", \"1.5s\", \"250us\" or a number of seconds";
pub(crate) const BYTES_FORM: &str = "a byte count such as \"180kB\", \"1500B\" or a number of bytes";
pub(crate) const LIMIT_FORM: &str = "a queue limit in packets (\"48p\") or bytes (\"64kB\")";
pub(crate) const SIZE_FORM: &str = "a byte count such as \"180kB\" or \"inf\" for an unbounded flow";
pub(crate) const PROBABILITY_FORM: &str = "a probability between 0 and 1";
pub(crate) const DISTANCE_FORM: &str = "a positive distance such as \"500m\", \"1.2km\" or a number of metres";
pub(crate) const SPEED_FORM: &str = "a non-negative speed such as \"3km/h\", \"1.5m/s\" or a number of m/s";

/// Parses a duration in seconds from text with a unit (used by random variables too).
pub(crate) fn parse_duration_secs(text: &str) -> Result<f64, String> {
    let v = scaled(text, &DURATIONS, DURATION_FORM)?;
    if v < 0.0 {
        return Err(format!("got {text:?}, expected {DURATION_FORM}"));
    }
    Ok(v)
}

/// Parses a speed in m/s from text with a unit (used by random variables).
pub(crate) fn parse_speed_mps(text: &str) -> Result<f64, String> {
    let v = scaled(text, &SPEEDS, SPEED_FORM)?;
    if v < 0.0 {
        return Err(format!("got {text:?}, expected {SPEED_FORM}"));
    }
    Ok(v)
}

/// Parses a byte count from text with a unit (used by random variables too).
pub(crate) fn parse_bytes(text: &str) -> Result<f64, String> {
    bytes_as(text, BYTES_FORM)
}

/// A byte count from text with a unit, `form` named when it is not one.
fn bytes_as(text: &str, form: &str) -> Result<f64, String> {
    let v = scaled(text, &BYTE_COUNTS, form)?;
    if v < 0.0 {
        return Err(format!("got {text:?}, expected {form}"));
    }
    Ok(v)
}

/// A link rate in bit/s. Invariant: strictly positive.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "f64")]
pub struct Rate(pub f64);

impl TryFrom<ScalarRepr> for Rate {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let v = match &r {
            ScalarRepr::Num(n) => *n,
            ScalarRepr::Text(t) => scaled(t, &RATES, RATE_FORM)?,
        };
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("got {r}, expected {RATE_FORM}"));
        }
        Ok(Rate(v))
    }
}

impl From<Rate> for f64 {
    fn from(r: Rate) -> f64 {
        r.0
    }
}

impl Rate {
    pub fn bps(self) -> f64 {
        self.0
    }
}

/// A non-negative time span.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "f64")]
pub struct Duration(pub SimDuration);

impl TryFrom<ScalarRepr> for Duration {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let v = match &r {
            ScalarRepr::Num(n) if n.is_finite() && *n >= 0.0 => *n,
            ScalarRepr::Num(_) => return Err(format!("got {r}, expected {DURATION_FORM}")),
            ScalarRepr::Text(t) => parse_duration_secs(t)?,
        };
        Ok(Duration(SimDuration::from_secs_f64(v)))
    }
}

impl From<Duration> for f64 {
    fn from(d: Duration) -> f64 {
        d.0.as_secs_f64()
    }
}

impl Duration {
    pub fn from_secs_f64(s: f64) -> Self {
        Duration(SimDuration::from_secs_f64(s))
    }
    pub fn sim(self) -> SimDuration {
        self.0
    }
}

/// A distance in metres. Invariant: strictly positive and finite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "f64")]
pub struct Distance(pub f64);

impl TryFrom<ScalarRepr> for Distance {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let v = match &r {
            ScalarRepr::Num(n) => *n,
            ScalarRepr::Text(t) => scaled(t, &DISTANCES, DISTANCE_FORM)?,
        };
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("got {r}, expected {DISTANCE_FORM}"));
        }
        Ok(Distance(v))
    }
}

impl From<Distance> for f64 {
    fn from(d: Distance) -> f64 {
        d.0
    }
}

/// A byte count (whole bytes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "f64")]
pub struct Bytes(pub u64);

impl TryFrom<ScalarRepr> for Bytes {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let v = match &r {
            ScalarRepr::Num(n) if n.is_finite() && *n >= 0.0 => *n,
            ScalarRepr::Num(_) => return Err(format!("got {r}, expected {BYTES_FORM}")),
            ScalarRepr::Text(t) => parse_bytes(t)?,
        };
        Ok(Bytes(v.round() as u64))
    }
}

impl From<Bytes> for f64 {
    fn from(b: Bytes) -> f64 {
        b.0 as f64
    }
}

/// A queue limit, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "String")]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl TryFrom<ScalarRepr> for Limit {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let bad = || format!("got {r}, expected {LIMIT_FORM}");
        match &r {
            ScalarRepr::Num(n) if n.is_finite() && *n >= 1.0 && n.fract() == 0.0 => {
                Ok(Limit::Packets(*n as u64))
            }
            ScalarRepr::Num(_) => Err(bad()),
            ScalarRepr::Text(t) => {
                let (v, unit) = split_number_unit(t).ok_or_else(bad)?;
                if unit == "p" {
                    if v >= 1.0 && v.fract() == 0.0 {
                        return Ok(Limit::Packets(v as u64));
                    }
                    return Err(bad());
                }
                if unit.is_empty() {
                    let n = t.trim();
                    return Err(format!("got {r}, a number without a unit; write \"{n}p\" (packets) or \"{n}B\" (an unquoted number is packets)"));
                }
                if matches!(unit, "pkt" | "pkts" | "packet" | "packets" | "P") {
                    return Err(format!("{}; did you mean \"{}p\"?", bad(), t.trim().strip_suffix(unit).unwrap_or(t).trim()));
                }
                let b = bytes_as(t, LIMIT_FORM)?;
                if b < 1.0 {
                    return Err(bad());
                }
                Ok(Limit::Bytes(b.round() as u64))
            }
        }
    }
}

impl From<Limit> for String {
    fn from(l: Limit) -> String {
        match l {
            Limit::Packets(p) => format!("{p}p"),
            Limit::Bytes(b) => format!("{b}B"),
        }
    }
}

/// How much a flow sends: a finite number of bytes or an unbounded (bulk) transfer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScalarRepr", into = "String")]
pub enum FlowSize {
    Finite(u64),
    Infinite,
}

impl TryFrom<ScalarRepr> for FlowSize {
    type Error = String;
    fn try_from(r: ScalarRepr) -> Result<Self, String> {
        let bad = || format!("got {r}, expected {SIZE_FORM}");
        let bytes = match &r {
            ScalarRepr::Text(t) if matches!(t.trim(), "inf" | "infinite") => {
                return Ok(FlowSize::Infinite)
            }
            ScalarRepr::Num(n) if n.is_infinite() && *n > 0.0 => return Ok(FlowSize::Infinite),
            ScalarRepr::Num(n) if n.is_finite() => *n,
            ScalarRepr::Num(_) => return Err(bad()),
            ScalarRepr::Text(t) => bytes_as(t, SIZE_FORM)?,
        };
        if bytes < 1.0 {
            return Err(bad());
        }
        Ok(FlowSize::Finite(bytes.round() as u64))
    }
}

impl From<FlowSize> for String {
    fn from(s: FlowSize) -> String {
        match s {
            FlowSize::Finite(b) => format!("{b}B"),
            FlowSize::Infinite => "inf".into(),
        }
    }
}

/// A probability in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct Probability(pub f64);

impl TryFrom<f64> for Probability {
    type Error = String;
    fn try_from(v: f64) -> Result<Self, String> {
        if (0.0..=1.0).contains(&v) {
            Ok(Probability(v))
        } else {
            Err(format!("got {v}, expected {PROBABILITY_FORM}"))
        }
    }
}

impl From<Probability> for f64 {
    fn from(p: Probability) -> f64 {
        p.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> ScalarRepr {
        ScalarRepr::Text(s.into())
    }

    #[test]
    fn distances_and_speeds_parse_with_units() {
        assert_eq!(Distance::try_from(text("500m")).unwrap().0, 500.0);
        assert_eq!(Distance::try_from(text("1.2km")).unwrap().0, 1200.0);
        let e = Distance::try_from(text("-5m")).unwrap_err();
        assert!(e.contains("\"-5m\"") && e.contains("positive distance"), "{e}");
        // 3 km/h = 3000 m / 3600 s.
        assert!((parse_speed_mps("3km/h").unwrap() - 0.8333333333333334).abs() < 1e-12);
        assert_eq!(parse_speed_mps("1.5m/s").unwrap(), 1.5);
        assert!(parse_speed_mps("3mph").is_err());
    }

    #[test]
    fn rates_parse_with_decimal_prefixes() {
        assert_eq!(Rate::try_from(text("2Mbps")).unwrap().0, 2e6);
        assert_eq!(Rate::try_from(text("160kbps")).unwrap().0, 160e3);
        assert_eq!(Rate::try_from(ScalarRepr::Num(5e9)).unwrap().0, 5e9);
    }

    #[test]
    fn bad_rate_names_value_and_form() {
        let e = Rate::try_from(text("2Mbsp")).unwrap_err();
        assert!(e.contains("\"2Mbsp\"") && e.contains("expected a positive rate"), "{e}");
        assert!(Rate::try_from(text("0Mbps")).is_err());
        assert!(Rate::try_from(ScalarRepr::Num(-1.0)).is_err());
    }

    #[test]
    fn durations_and_bytes() {
        assert_eq!(Duration::try_from(text("70ms")).unwrap().0, SimDuration::from_millis(70));
        assert_eq!(Duration::try_from(text("1.5s")).unwrap().0, SimDuration::from_millis(1500));
        assert_eq!(Bytes::try_from(text("180kB")).unwrap().0, 180_000);
        assert!(Duration::try_from(text("-3s")).is_err());
    }

    #[test]
    fn limits_in_packets_or_bytes() {
        assert_eq!(Limit::try_from(text("48p")).unwrap(), Limit::Packets(48));
        assert_eq!(Limit::try_from(text("64kB")).unwrap(), Limit::Bytes(64_000));
        assert!(Limit::try_from(text("0p")).is_err());
        assert!(Limit::try_from(text("4.5p")).is_err());
    }

    #[test]
    fn a_quoted_number_without_a_unit_is_refused_with_the_units_it_could_take() {
        let e = Duration::try_from(text("40")).unwrap_err();
        assert!(e.contains("\"40\", a number without a unit") && e.contains("\"40ms\" or \"40s\""), "{e}");
        let e = Rate::try_from(text("2")).unwrap_err();
        assert!(e.contains("\"2Mbps\" or \"2kbps\""), "{e}");
        let e = Limit::try_from(text("48")).unwrap_err();
        assert!(e.contains("\"48p\" (packets) or \"48B\""), "{e}");
        assert!(parse_bytes("25000").unwrap_err().contains("\"25000B\" or \"25000kB\""));
        // Zero is zero in every unit; an unquoted number keeps its SI reading.
        assert_eq!(Duration::try_from(text("0")).unwrap().0, SimDuration::ZERO);
        assert_eq!(Duration::try_from(ScalarRepr::Num(40.0)).unwrap().0, SimDuration::from_secs(40));
    }

    #[test]
    fn units_of_other_tools_get_a_did_you_mean() {
        // tc(8)'s spellings: RATES mbit/kbit, TIMES msec/usec, SIZES kb.
        for (written, meant) in [("10mbit", "10Mbps"), ("100kbit", "100kbps"), ("1gbit", "1Gbps"), ("10mbps", "10Mbps")] {
            let e = Rate::try_from(text(written)).unwrap_err();
            assert!(e.contains(&format!("did you mean \"{meant}\"?")), "{written}: {e}");
        }
        for (written, meant) in [("40msec", "40ms"), ("1sec", "1s"), ("250usec", "250us"), ("40MS", "40ms")] {
            let e = Duration::try_from(text(written)).unwrap_err();
            assert!(e.contains(&format!("did you mean \"{meant}\"?")), "{written}: {e}");
        }
        let e = Limit::try_from(text("64kb")).unwrap_err();
        assert!(e.contains("did you mean \"64kB\"?") && e.contains("queue limit"), "{e}");
        let e = Limit::try_from(text("48pkts")).unwrap_err();
        assert!(e.contains("did you mean \"48p\"?"), "{e}");
        assert!(!Rate::try_from(text("2Mbsp")).unwrap_err().contains("did you mean"));
    }

    #[test]
    fn flow_sizes() {
        assert_eq!(FlowSize::try_from(text("inf")).unwrap(), FlowSize::Infinite);
        assert_eq!(FlowSize::try_from(text("30kB")).unwrap(), FlowSize::Finite(30_000));
        assert!(FlowSize::try_from(text("0B")).is_err());
    }
}
