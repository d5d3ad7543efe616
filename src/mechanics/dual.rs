//! Dual numbers with N directions (forward-mode automatic differentiation): x = x0 + sum_k
//! x_k e_k with e_j e_k = 0. Evaluating f at x + e_k along every coordinate k at once gives
//! f(x) and its whole gradient in one pass, exact to rounding. Each direction follows the
//! first-order part of the hyper-dual rules (`hyper_dual.rs`; Fike & Alonso 2011, eqs.
//! 8-14) operation by operation, so component k equals the `x1` part of a hyper-dual
//! evaluation seeded in coordinate k to the last bit, while the value, square roots and
//! angles are computed once instead of N times.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::hyper_dual::Real;

/// x0 + sum_k d[k] e_k.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dual<const N: usize> {
    pub x0: f64,
    pub d: [f64; N],
}

impl<const N: usize> Dual<N> {
    /// f(self) given f and f' at the value.
    fn chain(self, f: f64, d1: f64) -> Self {
        Dual { x0: f, d: self.d.map(|x| d1 * x) }
    }

    fn recip(self) -> Self {
        let r = 1.0 / self.x0;
        self.chain(r, -r * r)
    }

    fn zip(self, o: Self, f: impl Fn(f64, f64) -> f64) -> [f64; N] {
        std::array::from_fn(|k| f(self.d[k], o.d[k]))
    }
}

impl<const N: usize> Real for Dual<N> {
    fn constant(x: f64) -> Self {
        Dual { x0: x, d: [0.0; N] }
    }
    fn value(&self) -> f64 {
        self.x0
    }
    fn sqrt(self) -> Self {
        let s = self.x0.sqrt();
        self.chain(s, 0.5 / s)
    }
    fn atan2(self, x: Self) -> Self {
        // theta(y, x): theta_y = x/r2, theta_x = -y/r2.
        let (y, xv) = (self, x);
        let r2 = xv.x0 * xv.x0 + y.x0 * y.x0;
        let (ty, tx) = (xv.x0 / r2, -y.x0 / r2);
        Dual { x0: y.x0.atan2(xv.x0), d: y.zip(xv, |a, b| ty * a + tx * b) }
    }
}

impl<const N: usize> Add for Dual<N> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Dual { x0: self.x0 + o.x0, d: self.zip(o, |a, b| a + b) }
    }
}

impl<const N: usize> Sub for Dual<N> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Dual { x0: self.x0 - o.x0, d: self.zip(o, |a, b| a - b) }
    }
}

impl<const N: usize> Neg for Dual<N> {
    type Output = Self;
    fn neg(self) -> Self {
        Dual { x0: -self.x0, d: self.d.map(|a| -a) }
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    #[allow(clippy::suspicious_arithmetic_impl)] // the product rule
    fn mul(self, o: Self) -> Self {
        let (a0, b0) = (self.x0, o.x0);
        Dual { x0: a0 * b0, d: self.zip(o, |a, b| a0 * b + a * b0) }
    }
}

impl<const N: usize> Div for Dual<N> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        Mul::mul(self, o.recip())
    }
}

impl<const N: usize> Add<f64> for Dual<N> {
    type Output = Self;
    fn add(mut self, c: f64) -> Self {
        self.x0 += c;
        self
    }
}

impl<const N: usize> Mul<f64> for Dual<N> {
    type Output = Self;
    fn mul(self, c: f64) -> Self {
        Dual { x0: self.x0 * c, d: self.d.map(|a| a * c) }
    }
}

/// The gradient of f at x (one evaluation).
pub fn gradient<const N: usize>(f: impl Fn(&[Dual<N>; N]) -> Dual<N>, x: &[f64; N]) -> [f64; N] {
    let seeded: [Dual<N>; N] = std::array::from_fn(|i| {
        let mut d = [0.0; N];
        d[i] = 1.0;
        Dual { x0: x[i], d }
    });
    f(&seeded).d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::hyper_dual::HyperDual;

    /// The gradient equals the hyper-dual one bit for bit, on a function using every
    /// operation.
    #[test]
    fn gradient_equals_the_hyper_dual_gradient() {
        fn f<S: Real>(v: &[S; 3]) -> S {
            let (x, y, z) = (v[0], v[1], v[2]);
            y.atan2(x) * (x * y + 2.0).sqrt() / (x + 1.0) - z * z * 0.3 + -(x - z)
        }
        let x0 = [0.7, 1.3, -0.4];
        let dual = gradient(|v: &[Dual<3>; 3]| f(v), &x0);
        let hyper: [f64; 3] = std::array::from_fn(|i| {
            let seeded =
                std::array::from_fn(|k| HyperDual { x0: x0[k], x1: f64::from(u8::from(k == i)), x2: 0.0, x12: 0.0 });
            f(&seeded).x1
        });
        assert_eq!(dual, hyper);
        let h = 1e-6;
        for k in 0..3 {
            let (mut p, mut m) = (x0, x0);
            p[k] += h;
            m[k] -= h;
            let fd = (f(&p) - f(&m)) / (2.0 * h);
            assert!((fd - dual[k]).abs() < 1e-8, "{k}: {fd} vs {}", dual[k]);
        }
    }
}
