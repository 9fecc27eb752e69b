//! Quantities with units as users write them in specs: `"2Mbps"`, `"70ms"`, `"180kB"`, `"48p"`.
//!
//! Every parser accepts a string with a unit or a plain number in SI base units (bit/s, s, B),
//! and rejects anything else with a message that says what form was expected. Decimal
//! prefixes are powers of 1000 (`kB` = 1000 B), as in networking, not 1024.

mod quantity;
mod rv;
mod schema;

pub use quantity::{Bytes, Distance, Duration, FlowSize, Limit, Probability, Rate};
pub use rv::{DurationRv, MarkovSpec, RandomVar, RvSampler, SizeRv, SpeedRv};

/// Splits `"12.5ms"` into `(12.5, "ms")`. Whitespace between number and unit is allowed.
pub(crate) fn split_number_unit(text: &str) -> Option<(f64, &str)> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '-'
                || c == '+'
                || ((c == 'e' || c == 'E')
                    && t[i + 1..].starts_with(|n: char| n.is_ascii_digit() || n == '-' || n == '+')))
        })
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let value: f64 = t[..end].trim().parse().ok()?;
    Some((value, t[end..].trim()))
}

#[cfg(test)]
mod tests {
    use super::split_number_unit;

    #[test]
    fn splits_number_and_unit() {
        assert_eq!(split_number_unit("12.5ms"), Some((12.5, "ms")));
        assert_eq!(split_number_unit(" 2 Mbps"), Some((2.0, "Mbps")));
        assert_eq!(split_number_unit("1e-3s"), Some((1e-3, "s")));
        assert_eq!(split_number_unit("7"), Some((7.0, "")));
        assert_eq!(split_number_unit("fast"), None);
    }
}
