//! Hyper-dual numbers (Fike & Alonso 2011, "The development of hyper-dual numbers for exact
//! second-derivative calculations", AIAA 2011-886, eqs. 8-14): x = x0 + x1 e1 + x2 e2 + x12 e1e2
//! with e1^2 = e2^2 = 0, e1 e2 != 0. Evaluating f at x + e1 u + e2 w gives
//!   f(x) + f'(x)[u] e1 + f'(x)[w] e2 + f''(x)[u, w] e1e2
//! exactly (no truncation, no cancellation), so seeding coordinates i and j gives the gradient
//! entry g_i and the Hessian entry H_ij of a scalar function; N(N+1)/2 evaluations give the
//! whole Hessian. Each operation applies the chain rule to second order:
//!   f(a): (f(a0), f' a1, f' a2, f' a12 + f'' a1 a2),
//!   a b:  (a0 b0, a0 b1 + a1 b0, a0 b2 + a2 b0, a0 b12 + a1 b2 + a2 b1 + a12 b0).
//! The exact reference for hand-derived tangents: the spatial corotational beam's strain
//! energy is written once over `Real` (values on `f64`), and its closed-form force and
//! stiffness (`elements/corotational_derivatives_3d.rs`) are tested against the gradient and
//! Hessian of that energy on `HyperDual` (105 evaluations per Hessian: 30 times the closed
//! form's cost, so not used for stepping).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The scalar operations an energy needs, for `f64` and `HyperDual`.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + Add<f64, Output = Self>
    + Mul<f64, Output = Self>
{
    fn constant(x: f64) -> Self;
    fn value(&self) -> f64;
    fn sqrt(self) -> Self;
    /// atan2(self, x), the angle of (x, self).
    fn atan2(self, x: Self) -> Self;
}

impl Real for f64 {
    fn constant(x: f64) -> Self {
        x
    }
    fn value(&self) -> f64 {
        *self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn atan2(self, x: Self) -> Self {
        f64::atan2(self, x)
    }
}

/// x0 + x1 e1 + x2 e2 + x12 e1e2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HyperDual {
    pub x0: f64,
    pub x1: f64,
    pub x2: f64,
    pub x12: f64,
}

impl HyperDual {
    /// f(self) given f, f', f'' at the value.
    fn chain(self, f: f64, d1: f64, d2: f64) -> Self {
        HyperDual { x0: f, x1: d1 * self.x1, x2: d1 * self.x2, x12: d1 * self.x12 + d2 * self.x1 * self.x2 }
    }

    fn recip(self) -> Self {
        let r = 1.0 / self.x0;
        self.chain(r, -r * r, 2.0 * r * r * r)
    }
}

impl Real for HyperDual {
    fn constant(x: f64) -> Self {
        HyperDual { x0: x, x1: 0.0, x2: 0.0, x12: 0.0 }
    }
    fn value(&self) -> f64 {
        self.x0
    }
    fn sqrt(self) -> Self {
        let s = self.x0.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.x0))
    }
    fn atan2(self, x: Self) -> Self {
        // theta(y, x): theta_y = x/r2, theta_x = -y/r2, theta_yy = -2xy/r2^2 = -theta_xx,
        // theta_xy = (y^2 - x^2)/r2^2.
        let (y, xv) = (self, x);
        let r2 = xv.x0 * xv.x0 + y.x0 * y.x0;
        let (ty, tx) = (xv.x0 / r2, -y.x0 / r2);
        let (tyy, txy) = (-2.0 * xv.x0 * y.x0 / (r2 * r2), (y.x0 * y.x0 - xv.x0 * xv.x0) / (r2 * r2));
        HyperDual {
            x0: y.x0.atan2(xv.x0),
            x1: ty * y.x1 + tx * xv.x1,
            x2: ty * y.x2 + tx * xv.x2,
            x12: ty * y.x12 + tx * xv.x12 + tyy * (y.x1 * y.x2 - xv.x1 * xv.x2) + txy * (y.x1 * xv.x2 + xv.x1 * y.x2),
        }
    }
}

impl Add for HyperDual {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        HyperDual { x0: self.x0 + o.x0, x1: self.x1 + o.x1, x2: self.x2 + o.x2, x12: self.x12 + o.x12 }
    }
}

impl Sub for HyperDual {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        HyperDual { x0: self.x0 - o.x0, x1: self.x1 - o.x1, x2: self.x2 - o.x2, x12: self.x12 - o.x12 }
    }
}

impl Neg for HyperDual {
    type Output = Self;
    fn neg(self) -> Self {
        HyperDual { x0: -self.x0, x1: -self.x1, x2: -self.x2, x12: -self.x12 }
    }
}

impl Mul for HyperDual {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        HyperDual {
            x0: self.x0 * o.x0,
            x1: self.x0 * o.x1 + self.x1 * o.x0,
            x2: self.x0 * o.x2 + self.x2 * o.x0,
            x12: self.x0 * o.x12 + self.x1 * o.x2 + self.x2 * o.x1 + self.x12 * o.x0,
        }
    }
}

impl Div for HyperDual {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        Mul::mul(self, o.recip())
    }
}

impl Add<f64> for HyperDual {
    type Output = Self;
    fn add(mut self, c: f64) -> Self {
        self.x0 += c;
        self
    }
}

impl Mul<f64> for HyperDual {
    type Output = Self;
    fn mul(self, c: f64) -> Self {
        HyperDual { x0: self.x0 * c, x1: self.x1 * c, x2: self.x2 * c, x12: self.x12 * c }
    }
}

/// Seed coordinate i in e1 and coordinate j in e2.
fn seeded<const N: usize>(x: &[f64; N], i: usize, j: usize) -> [HyperDual; N] {
    std::array::from_fn(|k| HyperDual {
        x0: x[k],
        x1: f64::from(u8::from(k == i)),
        x2: f64::from(u8::from(k == j)),
        x12: 0.0,
    })
}

/// The Hessian of f at x (N(N+1)/2 evaluations, symmetric).
pub fn hessian<const N: usize>(f: impl Fn(&[HyperDual; N]) -> HyperDual, x: &[f64; N]) -> [[f64; N]; N] {
    let upper: [[f64; N]; N] =
        std::array::from_fn(|i| std::array::from_fn(|j| if j >= i { f(&seeded(x, i, j)).x12 } else { 0.0 }));
    std::array::from_fn(|i| std::array::from_fn(|j| upper[i.min(j)][i.max(j)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x, y) = atan2(y, x) sqrt(x y) / (1 + x) against central differences of the f64
    /// evaluation.
    #[test]
    fn gradient_and_hessian_match_central_differences() {
        fn f<S: Real>(x: S, y: S) -> S {
            y.atan2(x) * (x * y).sqrt() / (x + 1.0)
        }
        let x0 = [0.7, 1.3];
        let g = crate::mechanics::dual::gradient(|v: &[crate::mechanics::dual::Dual<2>; 2]| f(v[0], v[1]), &x0);
        let hs = hessian(|v: &[HyperDual; 2]| f(v[0], v[1]), &x0);
        let h = 1e-5;
        let grad = |x: f64, y: f64| [(f(x + h, y) - f(x - h, y)) / (2.0 * h), (f(x, y + h) - f(x, y - h)) / (2.0 * h)];
        let fd = grad(x0[0], x0[1]);
        for k in 0..2 {
            assert!((g[k] - fd[k]).abs() < 1e-9, "{k}: {} vs {}", g[k], fd[k]);
        }
        let (gxp, gxm, gyp, gym) =
            (grad(x0[0] + h, x0[1]), grad(x0[0] - h, x0[1]), grad(x0[0], x0[1] + h), grad(x0[0], x0[1] - h));
        let fd_h = [
            [(gxp[0] - gxm[0]) / (2.0 * h), (gxp[1] - gxm[1]) / (2.0 * h)],
            [(gyp[0] - gym[0]) / (2.0 * h), (gyp[1] - gym[1]) / (2.0 * h)],
        ];
        for a in 0..2 {
            for b in 0..2 {
                assert!((hs[a][b] - fd_h[a][b]).abs() < 1e-5, "({a},{b}): {} vs {}", hs[a][b], fd_h[a][b]);
            }
        }
    }
}
