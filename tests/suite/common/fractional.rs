//! The analytic reference of the fractional oscillator, shared by the 2D and 3D tests.

use nalgebra::Complex;
use std::f64::consts::PI;

/// x(t) of m x'' + c D^alpha x + k x = F0 (t >= 0), at rest at 0, by numerical inversion of
/// X(s) = F0 / (s (m s^2 + c s^alpha + k)) with the fixed Talbot contour (Abate & Valkó 2004).
pub fn laplace_reference(t: f64, m: f64, k: f64, c: f64, alpha: f64, f0: f64) -> f64 {
    let x = |s: Complex<f64>| Complex::new(f0, 0.0) / (s * (s * s * m + s.powf(alpha) * c + k));
    let terms = 40;
    let r = 2.0 * terms as f64 / (5.0 * t);
    let mut sum = 0.5 * (x(Complex::new(r, 0.0)) * (r * t).exp()).re;
    for j in 1..terms {
        let theta = j as f64 * PI / terms as f64;
        let cot = 1.0 / theta.tan();
        let s = Complex::new(r * theta * cot, r * theta);
        let sigma = theta + (theta * cot - 1.0) * cot;
        sum += ((s * t).exp() * x(s) * Complex::new(1.0, sigma)).re;
    }
    r / terms as f64 * sum
}
