//! The SI base units of the unit strings variables carry, for `<UnitDefinitions>`: FMI 2.0
//! sec. 2.2.2 and FMI 3.0 sec. 2.4.3 give a unit its exponents of kg, m, s, A, K, mol, cd and
//! rad and a factor (value in base units = factor * value + offset), so that an importer can
//! check that two connected variables measure the same quantity and convert between their
//! units.
//!
//! Unit strings follow the Modelica syntax (Modelica Language Specification 3.6, sec. 19.1):
//! factors joined by `.` with integer exponents (`N.m`, `kg.m2`), one denominator after `/`,
//! a single factor or several in parentheses (`m/s2`, `kg/(m.s)`), `1` for none (`1/s`); an
//! exponent may also follow `^`. A symbol is an SI unit or one of its derived units, or one
//! with a decimal prefix (`mm`, `kN`, `MPa`; the whole symbol is tried first, so `min`, `mol`
//! and `cd` are not prefixed). A string outside this (`N/m1.5`, whose exponent is not an
//! integer, or `N.s^alpha/m`) gets no base unit: the FMI schemas allow exponents that are
//! integers only, and a unit without one is still a valid unit.

/// The base units in the order of `BaseUnit::exponents`, named as the FMI attributes.
pub const BASE_UNITS: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

/// A unit's exponents of `BASE_UNITS` and its factor to them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseUnit {
    pub exponents: [i32; 8],
    pub factor: f64,
}

impl BaseUnit {
    const ONE: BaseUnit = BaseUnit { exponents: [0; 8], factor: 1.0 };

    fn times(self, other: BaseUnit, power: i32) -> BaseUnit {
        let mut exponents = self.exponents;
        for (e, o) in exponents.iter_mut().zip(other.exponents) {
            *e += power * o;
        }
        BaseUnit { exponents, factor: self.factor * other.factor.powi(power) }
    }

    /// The attributes of its `<BaseUnit>` element: the non-zero exponents and a factor other
    /// than 1.
    pub fn attributes(&self) -> Vec<(&'static str, String)> {
        let mut attributes: Vec<(&'static str, String)> = BASE_UNITS
            .iter()
            .zip(self.exponents)
            .filter(|(_, e)| *e != 0)
            .map(|(name, e)| (*name, e.to_string()))
            .collect();
        if self.factor != 1.0 {
            attributes.push(("factor", format!("{:e}", self.factor)));
        }
        attributes
    }
}

/// The base unit of `unit`, if it is one this module reads (module doc).
pub fn base_unit(unit: &str) -> Option<BaseUnit> {
    let unit = unit.trim();
    let (numerator, denominator) = match unit.split_once('/') {
        Some((n, d)) => (n, Some(d)),
        None => (unit, None),
    };
    let mut base = if numerator == "1" { BaseUnit::ONE } else { factors(numerator, BaseUnit::ONE, 1)? };
    if let Some(d) = denominator {
        let d = d.strip_prefix('(').and_then(|d| d.strip_suffix(')')).unwrap_or(d);
        if d.contains('/') || d.contains('(') {
            return None;
        }
        base = factors(d, base, -1)?;
    }
    Some(base)
}

/// `base` times the factors `text` (joined by `.`) to the power `sign`.
fn factors(text: &str, mut base: BaseUnit, sign: i32) -> Option<BaseUnit> {
    for factor in text.split('.') {
        let digits = factor.find(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '^');
        let (symbol, exponent) = match digits {
            Some(k) => (&factor[..k], factor[k..].strip_prefix('^').unwrap_or(&factor[k..]).parse::<i32>().ok()?),
            None => (factor, 1),
        };
        if exponent == 0 || exponent.abs() > 12 {
            return None;
        }
        base = base.times(symbol_unit(symbol)?, sign * exponent);
    }
    Some(base)
}

/// A unit symbol, the whole symbol first, then a decimal prefix before a known symbol.
fn symbol_unit(symbol: &str) -> Option<BaseUnit> {
    named(symbol).or_else(|| {
        PREFIXES.iter().find_map(|(prefix, factor)| {
            let unit = named(symbol.strip_prefix(prefix)?)?;
            Some(BaseUnit { factor: unit.factor * factor, ..unit })
        })
    })
}

const PREFIXES: [(&str, f64); 16] = [
    ("da", 1e1),
    ("E", 1e18),
    ("P", 1e15),
    ("T", 1e12),
    ("G", 1e9),
    ("M", 1e6),
    ("k", 1e3),
    ("h", 1e2),
    ("d", 1e-1),
    ("c", 1e-2),
    ("m", 1e-3),
    ("u", 1e-6),
    ("µ", 1e-6),
    ("n", 1e-9),
    ("p", 1e-12),
    ("f", 1e-15),
];

/// The SI units and the derived ones with names (exponents of kg, m, s, A, K, mol, cd, rad).
fn named(symbol: &str) -> Option<BaseUnit> {
    let (exponents, factor) = match symbol {
        "kg" => ([1, 0, 0, 0, 0, 0, 0, 0], 1.0),
        "g" => ([1, 0, 0, 0, 0, 0, 0, 0], 1e-3),
        "t" => ([1, 0, 0, 0, 0, 0, 0, 0], 1e3),
        "m" => ([0, 1, 0, 0, 0, 0, 0, 0], 1.0),
        "s" => ([0, 0, 1, 0, 0, 0, 0, 0], 1.0),
        "min" => ([0, 0, 1, 0, 0, 0, 0, 0], 60.0),
        "h" => ([0, 0, 1, 0, 0, 0, 0, 0], 3600.0),
        "A" => ([0, 0, 0, 1, 0, 0, 0, 0], 1.0),
        "K" => ([0, 0, 0, 0, 1, 0, 0, 0], 1.0),
        "mol" => ([0, 0, 0, 0, 0, 1, 0, 0], 1.0),
        "cd" => ([0, 0, 0, 0, 0, 0, 1, 0], 1.0),
        "rad" => ([0, 0, 0, 0, 0, 0, 0, 1], 1.0),
        "deg" => ([0, 0, 0, 0, 0, 0, 0, 1], std::f64::consts::PI / 180.0),
        "Hz" => ([0, 0, -1, 0, 0, 0, 0, 0], 1.0),
        "N" => ([1, 1, -2, 0, 0, 0, 0, 0], 1.0),
        "Pa" => ([1, -1, -2, 0, 0, 0, 0, 0], 1.0),
        "bar" => ([1, -1, -2, 0, 0, 0, 0, 0], 1e5),
        "J" => ([1, 2, -2, 0, 0, 0, 0, 0], 1.0),
        "W" => ([1, 2, -3, 0, 0, 0, 0, 0], 1.0),
        "C" => ([0, 0, 1, 1, 0, 0, 0, 0], 1.0),
        "V" => ([1, 2, -3, -1, 0, 0, 0, 0], 1.0),
        _ => return None,
    };
    Some(BaseUnit { exponents, factor })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exponents(unit: &str) -> Option<[i32; 8]> {
        base_unit(unit).map(|b| b.exponents)
    }

    #[test]
    fn derived_units_in_base_units() {
        //                                  kg  m   s  A  K mol cd rad
        assert_eq!(exponents("N.m"), Some([1, 2, -2, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("kg.m2/s"), Some([1, 2, -1, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("m/s2"), Some([0, 1, -2, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("rad/s"), Some([0, 0, -1, 0, 0, 0, 0, 1]));
        assert_eq!(exponents("kg/m3"), Some([1, -3, 0, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("N.m.s/rad"), Some([1, 2, -1, 0, 0, 0, 0, -1]));
        assert_eq!(exponents("kg/(m.s)"), Some([1, -1, -1, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("1/s"), Some([0, 0, -1, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("m^2"), Some([0, 2, 0, 0, 0, 0, 0, 0]));
        assert_eq!(exponents("s-1"), Some([0, 0, -1, 0, 0, 0, 0, 0]));
        // The whole symbol before a prefix: minutes, moles and candelas.
        assert_eq!(base_unit("min").unwrap().factor, 60.0);
        assert_eq!(exponents("mol"), Some([0, 0, 0, 0, 0, 1, 0, 0]));
        assert_eq!(exponents("cd"), Some([0, 0, 0, 0, 0, 0, 1, 0]));
    }

    #[test]
    fn prefixes_and_factors() {
        let close = |unit: &str, factor: f64| (base_unit(unit).unwrap().factor / factor - 1.0).abs() < 1e-15;
        assert!(close("mm", 1e-3) && close("ms", 1e-3) && close("kN", 1e3) && close("MPa", 1e6));
        assert!(close("kg", 1.0) && close("g", 1e-3) && close("mm2", 1e-6) && close("N/mm2", 1e6));
        assert!(close("deg", std::f64::consts::PI / 180.0) && close("deg/s", std::f64::consts::PI / 180.0));
        assert_eq!(exponents("MPa"), exponents("N/m2"));
        assert_eq!(exponents("J"), exponents("N.m"));
        assert_eq!(exponents("W"), exponents("J/s"));
    }

    #[test]
    fn units_outside_the_syntax_have_none() {
        // The Hertz stiffness's exponent is not an integer; alpha is no number; unknown names.
        for unit in ["N/m1.5", "N.s^alpha/m", "furlong", "m/s/s", "kg/(m", "", "m0", "N..m", "discrete"] {
            assert_eq!(base_unit(unit), None, "{unit}");
        }
    }

    #[test]
    fn attributes_name_the_nonzero_exponents_and_a_factor() {
        assert_eq!(
            base_unit("N.m").unwrap().attributes(),
            vec![("kg", "1".to_string()), ("m", "2".to_string()), ("s", "-2".to_string())]
        );
        assert_eq!(base_unit("mm").unwrap().attributes(), vec![("m", "1".to_string()), ("factor", "1e-3".to_string())]);
    }
}
