//! Jets along a motion: x = x0 + x_v e + x_a f + x_vv e^2 / 2 (e^3 = 0, f^2 = e f = 0).
//! Evaluating a function f at (q, v, a, 0) gives f(q), Df[v], Df[a] and D2f[v, v]: the rate of
//! f(q(t)) along q' = v and its acceleration Df[a] + D2f[v, v] along q'' = a, in its two
//! parts (Lagrange's M a and quadratic-velocity terms, `elements/corotational_center_line_3d.rs`).
//! The rules are those of hyper-dual numbers (Fike & Alonso 2011, eqs. 8-14) with both
//! infinitesimal parts seeded with v (x_vv = x12), plus a dual part along a; one pass costs
//! about what a hyper-dual one does and replaces a hyper-dual and a dual evaluation.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::hyper_dual::Real;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionJet {
    pub x0: f64,
    /// Df[v].
    pub v: f64,
    /// Df[a].
    pub a: f64,
    /// D2f[v, v].
    pub vv: f64,
}

impl MotionJet {
    /// f(self) given f, f', f'' at the value.
    fn chain(self, f: f64, d1: f64, d2: f64) -> Self {
        MotionJet { x0: f, v: d1 * self.v, a: d1 * self.a, vv: d1 * self.vv + d2 * self.v * self.v }
    }

    fn recip(self) -> Self {
        let r = 1.0 / self.x0;
        self.chain(r, -r * r, 2.0 * r * r * r)
    }
}

impl Real for MotionJet {
    fn constant(x: f64) -> Self {
        MotionJet { x0: x, v: 0.0, a: 0.0, vv: 0.0 }
    }
    fn value(&self) -> f64 {
        self.x0
    }
    fn sqrt(self) -> Self {
        let s = self.x0.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.x0))
    }
    fn atan2(self, x: Self) -> Self {
        // As `HyperDual::atan2` with x1 = x2 = v.
        let (y, xv) = (self, x);
        let r2 = xv.x0 * xv.x0 + y.x0 * y.x0;
        let (ty, tx) = (xv.x0 / r2, -y.x0 / r2);
        let (tyy, txy) = (-2.0 * xv.x0 * y.x0 / (r2 * r2), (y.x0 * y.x0 - xv.x0 * xv.x0) / (r2 * r2));
        MotionJet {
            x0: y.x0.atan2(xv.x0),
            v: ty * y.v + tx * xv.v,
            a: ty * y.a + tx * xv.a,
            vv: ty * y.vv + tx * xv.vv + tyy * (y.v * y.v - xv.v * xv.v) + txy * (2.0 * y.v * xv.v),
        }
    }
}

impl Add for MotionJet {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        MotionJet { x0: self.x0 + o.x0, v: self.v + o.v, a: self.a + o.a, vv: self.vv + o.vv }
    }
}

impl Sub for MotionJet {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        MotionJet { x0: self.x0 - o.x0, v: self.v - o.v, a: self.a - o.a, vv: self.vv - o.vv }
    }
}

impl Neg for MotionJet {
    type Output = Self;
    fn neg(self) -> Self {
        MotionJet { x0: -self.x0, v: -self.v, a: -self.a, vv: -self.vv }
    }
}

impl Mul for MotionJet {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        MotionJet {
            x0: self.x0 * o.x0,
            v: self.x0 * o.v + self.v * o.x0,
            a: self.x0 * o.a + self.a * o.x0,
            vv: self.x0 * o.vv + 2.0 * self.v * o.v + self.vv * o.x0,
        }
    }
}

impl Div for MotionJet {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        Mul::mul(self, o.recip())
    }
}

impl Add<f64> for MotionJet {
    type Output = Self;
    fn add(mut self, c: f64) -> Self {
        self.x0 += c;
        self
    }
}

impl Mul<f64> for MotionJet {
    type Output = Self;
    fn mul(self, c: f64) -> Self {
        MotionJet { x0: self.x0 * c, v: self.v * c, a: self.a * c, vv: self.vv * c }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::hyper_dual::HyperDual;

    /// Every part equals the hyper-dual evaluation seeded accordingly, to the last bit for the
    /// value and rates (the same operations), and D2f[v, v] to rounding.
    #[test]
    fn parts_equal_hyper_dual_evaluations() {
        fn f<S: Real>(x: S, y: S) -> S {
            y.atan2(x) * (x * y).sqrt() / (x + 1.0) - x * y * 0.3
        }
        let (q, v, a) = ([0.7, 1.3], [0.4, -1.1], [2.0, 0.5]);
        let jet = |k: usize| MotionJet { x0: q[k], v: v[k], a: a[k], vv: 0.0 };
        let m = f(jet(0), jet(1));
        let hd = |k: usize, s: [f64; 2], w: [f64; 2]| HyperDual { x0: q[k], x1: s[k], x2: w[k], x12: 0.0 };
        let vv = f(hd(0, v, v), hd(1, v, v));
        let va = f(hd(0, v, a), hd(1, v, a));
        assert_eq!(m.x0, vv.x0);
        assert_eq!(m.v, vv.x1);
        assert_eq!(m.a, va.x2);
        assert!((m.vv - vv.x12).abs() < 1e-14 * vv.x12.abs().max(1.0), "{} vs {}", m.vv, vv.x12);
    }
}
