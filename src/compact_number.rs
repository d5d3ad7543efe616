//! Numbers in messages: `1e300` rather than a 301-digit decimal. Rust's `{}` for f64 writes
//! every digit of the positional form, so an extreme value given on purpose or by mistake
//! (`--stop-time 1e300`, `output_interval = 1e-300`) would fill the terminal.

use std::fmt;

/// `{}` of the value between 1e-4 and 1e6 in magnitude (and for 0 and non-finite values), the
/// shortest scientific form (`{:e}`) beyond: ordinary messages are unchanged.
#[derive(Debug, Clone, Copy)]
pub struct Compact(pub f64);

impl fmt::Display for Compact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let magnitude = x.abs();
        if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&magnitude) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Compact;

    #[test]
    fn extreme_magnitudes_are_scientific_and_ordinary_ones_unchanged() {
        let shown = |x: f64| Compact(x).to_string();
        assert_eq!(shown(1e300), "1e300");
        assert_eq!(shown(-2.5e-300), "-2.5e-300");
        assert_eq!(shown(1e6), "1e6");
        assert_eq!(shown(999999.5), "999999.5");
        assert_eq!(shown(0.001), "0.001");
        assert_eq!(shown(1e-4), "0.0001");
        assert_eq!(shown(3.0), "3");
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(f64::NAN), "NaN");
        assert_eq!(shown(f64::NEG_INFINITY), "-inf");
    }
}
