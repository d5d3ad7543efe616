//! Duration of an impact against a power-law contact force F = K delta^n, the time scale a
//! step must resolve while a compliant contact is closed (src/integrators/contact_step.rs).
//!
//! For one relative coordinate, m_eff delta'' = -K delta^n, the normal energy per unit
//! effective mass e = delta'^2/2 + K delta^(n+1) / ((n+1) m_eff) is conserved; the largest
//! penetration is delta* = ((n+1) m_eff e / K)^(1/(n+1)), the speed at contact v = sqrt(2 e),
//! and the contact lasts
//!   t_c = 2 integral_0^delta* d delta / sqrt(v^2 - 2 K delta^(n+1)/((n+1) m_eff))
//!       = C_n delta* / v,   C_n = 2 integral_0^1 dx / sqrt(1 - x^(n+1)) = (2/p) B(1/p, 1/2),
//! p = n + 1. Hertz (n = 3/2): C = 2.9432, the "T = 2.94 delta*/V" of Johnson, Contact
//! Mechanics (1985), sec. 11.4 (with K = (4/3) E* sqrt(R): t_c = 2.87 (m_eff^2/(R E*^2 V))^(1/5));
//! linear (n = 1): C = pi, half the period of m_eff delta'' = -K delta.
//! Evaluated at the current (delta, delta'), the estimate holds at onset (delta = 0), at the
//! largest penetration (delta' = 0) and in between, and it stays the same through a free
//! impact. Damping (restitution < 1) is left out: it changes the duration by a factor of
//! order one only.

/// t_c (s) at penetration `delta` (>= 0) and penetration rate `rate` for F = `stiffness`
/// delta^`exponent` and inverse effective mass `inverse_mass` (1/kg); None without a finite
/// positive time (no stiffness, no mobility, no energy).
pub fn impact_duration(stiffness: f64, exponent: f64, inverse_mass: f64, delta: f64, rate: f64) -> Option<f64> {
    let (largest, e) = largest_penetration_and_energy(stiffness, exponent, inverse_mass, delta, rate)?;
    let t = duration_factor(exponent) * largest / (2.0 * e).sqrt();
    (t.is_finite() && t > 0.0).then_some(t)
}

/// delta* (m), the largest penetration of the impact at penetration `delta` and rate `rate`
/// (the arguments of `impact_duration`); None where that has no finite positive time.
pub fn largest_penetration(stiffness: f64, exponent: f64, inverse_mass: f64, delta: f64, rate: f64) -> Option<f64> {
    largest_penetration_and_energy(stiffness, exponent, inverse_mass, delta, rate).map(|(largest, _)| largest)
}

/// delta* and the normal energy per unit effective mass e.
fn largest_penetration_and_energy(
    stiffness: f64,
    exponent: f64,
    inverse_mass: f64,
    delta: f64,
    rate: f64,
) -> Option<(f64, f64)> {
    let p = exponent + 1.0;
    let k = stiffness * inverse_mass;
    let e = 0.5 * rate * rate + k * delta.max(0.0).powf(p) / p;
    if !(k > 0.0 && e > 0.0 && k.is_finite() && e.is_finite()) {
        return None;
    }
    Some(((p * e / k).powf(1.0 / p), e))
}

/// C_n = (2/p) B(1/p, 1/2) = 2 sqrt(pi) Gamma(1 + 1/p) / Gamma(1/2 + 1/p), p = n + 1.
pub fn duration_factor(exponent: f64) -> f64 {
    let p = exponent + 1.0;
    2.0 * std::f64::consts::PI.sqrt() * (ln_gamma(1.0 + 1.0 / p) - ln_gamma(0.5 + 1.0 / p)).exp()
}

/// ln Gamma(x) for x > 0: Lanczos' approximation with g = 7 and 9 coefficients (relative
/// error ~1e-15; Press et al., Numerical Recipes, 3rd ed. 2007, sec. 6.1), by the
/// recurrence Gamma(x) = Gamma(x + 1)/x below 1/2.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return ln_gamma(x + 1.0) - x.ln();
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_of_the_linear_and_the_hertz_law() {
        // Linear: half the period, pi. Hertz: Johnson's 2.94 (2.9432 to five digits:
        // 2 sqrt(pi) Gamma(1.4)/Gamma(0.9), Gamma(1.4) = 0.887264, Gamma(0.9) = 1.068629).
        assert!((duration_factor(1.0) - std::f64::consts::PI).abs() < 1e-13);
        let hertz = duration_factor(1.5);
        let tabulated = 2.0 * std::f64::consts::PI.sqrt() * 0.887_263_817_503_075 / 1.068_628_702_119_319;
        println!("C_1.5 = {hertz:.12} (from tabulated Gamma values {tabulated:.12})");
        assert!((hertz - tabulated).abs() < 1e-12 && (hertz - 2.9432).abs() < 1e-4);
        // ln Gamma at integers and at 1/2.
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
    }

    #[test]
    fn duration_is_a_constant_of_the_free_impact_and_matches_quadrature() {
        // m_eff = 0.5 kg, K = 1e7 N/m^1.5, v = 1 m/s (two 1 kg balls of models/newtons_cradle.toml).
        let (k, w, v) = (1e7, 2.0, 1.0);
        let t0 = impact_duration(k, 1.5, w, 0.0, v).unwrap();
        // The same normal energy at half the largest penetration.
        let largest = (2.5 * 0.5 * v * v / (k * w)).powf(0.4);
        let d = 0.5 * largest;
        let rate = (v * v - 2.0 * k * w * d.powf(2.5) / 2.5).sqrt();
        let t1 = impact_duration(k, 1.5, w, d, rate).unwrap();
        // Direct quadrature of 2 int_0^delta* d delta / delta' with delta = delta* (1 - s^2)
        // (removes the square-root singularity at delta*), midpoint rule.
        let steps = 200_000;
        let mut t = 0.0;
        for i in 0..steps {
            let s = (i as f64 + 0.5) / steps as f64;
            let delta = largest * (1.0 - s * s);
            let speed = (v * v - 2.0 * k * w * delta.powf(2.5) / 2.5).max(0.0).sqrt();
            t += 2.0 * largest * 2.0 * s / speed / steps as f64;
        }
        println!("t_c = {t0:.9e} s, at delta*/2 {t1:.9e} s, quadrature {t:.9e} s");
        assert!((t0 - t1).abs() < 1e-12 * t0);
        assert!((t0 - t).abs() < 1e-5 * t0);
        // Johnson's closed form 2.94 (5 m_eff v^2 / (4 K))^(2/5) / v.
        assert!((t0 - 2.9432 * (5.0 * 0.5 / (4.0 * k)).powf(0.4)).abs() < 1e-4 * t0);
        assert_eq!(impact_duration(k, 1.5, 0.0, 0.0, v), None);
        assert_eq!(impact_duration(k, 1.5, w, 0.0, 0.0), None);
    }
}
