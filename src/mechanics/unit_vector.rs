//! The unit vector along a direction given in a model file or computed from positions.

/// v / |v|, or `None` for a zero or non-finite v. The length is taken of v scaled by its
/// largest component, so a direction such as [1e308, 1e308] is [0.707, 0.707] (its plain
/// length overflowed, and a prismatic joint along it was reported as constraining nothing; a
/// probe), and one of 1e-200 components does not underflow to zero.
pub fn unit<const N: usize>(v: [f64; N]) -> Option<[f64; N]> {
    let largest = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(largest > 0.0 && largest.is_finite()) || v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let scaled = v.map(|x| x / largest);
    let length = scaled.iter().map(|x| x * x).sum::<f64>().sqrt();
    Some(scaled.map(|x| x / length))
}

#[cfg(test)]
mod tests {
    use super::unit;

    #[test]
    fn directions_of_any_representable_size_have_unit_length() {
        for v in [[3.0, 4.0], [1e308, 1e308], [1e-300, -1e-300], [0.0, -2.0]] {
            let u = unit(v).unwrap();
            assert!((u[0].hypot(u[1]) - 1.0).abs() < 1e-15, "{v:?}: {u:?}");
            assert!((u[0] * v[1] - u[1] * v[0]).abs() <= 1e-15 * v[0].abs().max(v[1].abs()), "{v:?}: not parallel");
        }
        assert_eq!(unit([3.0, 0.0, 4.0]), Some([0.6, 0.0, 0.8]));
        assert_eq!(unit([0.0, 0.0]), None);
        assert_eq!(unit([f64::NAN, 1.0]), None);
        assert_eq!(unit([f64::INFINITY, 1.0]), None);
    }
}
