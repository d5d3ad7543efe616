//! Second-order forward-mode automatic differentiation (Griewank & Walther 2008, "Evaluating
//! Derivatives", ch. 13, univariate Taylor propagation written out for a dense gradient and
//! Hessian): a `Jet<N>` carries a value with its gradient and Hessian over N independent
//! variables, and every operation applies the chain rule to second order,
//!   f(a): value f, gradient f' g_a, Hessian f' H_a + f'' g_a g_a^T,
//!   a b:  gradient a g_b + b g_a, Hessian a H_b + b H_a + g_a g_b^T + g_b g_a^T.
//! Used where a scalar energy is simpler to write than its exact tangent (the spatial
//! corotational beam): its gradient is the force and its Hessian the stiffness, exact to
//! rounding. Code written once over `Real` runs on `f64` (values only) and on `Jet<N>`.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The scalar operations an energy needs, for `f64` and `Jet<N>`.
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

/// Value, gradient and (symmetric) Hessian over N variables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jet<const N: usize> {
    pub value: f64,
    pub gradient: [f64; N],
    pub hessian: [[f64; N]; N],
}

impl<const N: usize> Jet<N> {
    /// The independent variable number `k` at `x`.
    pub fn variable(x: f64, k: usize) -> Self {
        let mut j = Self::constant(x);
        j.gradient[k] = 1.0;
        j
    }

    /// f(self) given f, f', f'' at the value.
    fn chain(self, f: f64, d1: f64, d2: f64) -> Self {
        let mut out = Jet { value: f, gradient: [0.0; N], hessian: [[0.0; N]; N] };
        for i in 0..N {
            out.gradient[i] = d1 * self.gradient[i];
            let gi = d2 * self.gradient[i];
            for j in 0..N {
                out.hessian[i][j] = d1 * self.hessian[i][j] + gi * self.gradient[j];
            }
        }
        out
    }

    fn recip(self) -> Self {
        let r = 1.0 / self.value;
        self.chain(r, -r * r, 2.0 * r * r * r)
    }
}

impl<const N: usize> Real for Jet<N> {
    fn constant(x: f64) -> Self {
        Jet { value: x, gradient: [0.0; N], hessian: [[0.0; N]; N] }
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn sqrt(self) -> Self {
        let s = self.value.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.value))
    }
    fn atan2(self, x: Self) -> Self {
        // theta(y, x): theta_y = x/r2, theta_x = -y/r2, theta_yy = -2xy/r2^2 = -theta_xx,
        // theta_xy = (y^2 - x^2)/r2^2.
        let (yv, xv) = (self.value, x.value);
        let r2 = xv * xv + yv * yv;
        let (ty, tx) = (xv / r2, -yv / r2);
        let (tyy, txy) = (-2.0 * xv * yv / (r2 * r2), (yv * yv - xv * xv) / (r2 * r2));
        let mut out = Jet { value: yv.atan2(xv), gradient: [0.0; N], hessian: [[0.0; N]; N] };
        for i in 0..N {
            out.gradient[i] = ty * self.gradient[i] + tx * x.gradient[i];
            for j in 0..N {
                out.hessian[i][j] = ty * self.hessian[i][j]
                    + tx * x.hessian[i][j]
                    + tyy * (self.gradient[i] * self.gradient[j] - x.gradient[i] * x.gradient[j])
                    + txy * (self.gradient[i] * x.gradient[j] + x.gradient[i] * self.gradient[j]);
            }
        }
        out
    }
}

impl<const N: usize> Add for Jet<N> {
    type Output = Self;
    fn add(mut self, o: Self) -> Self {
        self.value += o.value;
        for i in 0..N {
            self.gradient[i] += o.gradient[i];
            for j in 0..N {
                self.hessian[i][j] += o.hessian[i][j];
            }
        }
        self
    }
}

impl<const N: usize> Sub for Jet<N> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        self + (-o)
    }
}

impl<const N: usize> Neg for Jet<N> {
    type Output = Self;
    fn neg(self) -> Self {
        self * -1.0
    }
}

impl<const N: usize> Mul for Jet<N> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let mut out = Jet { value: self.value * o.value, gradient: [0.0; N], hessian: [[0.0; N]; N] };
        for i in 0..N {
            out.gradient[i] = self.value * o.gradient[i] + o.value * self.gradient[i];
            for j in 0..N {
                out.hessian[i][j] = self.value * o.hessian[i][j]
                    + o.value * self.hessian[i][j]
                    + self.gradient[i] * o.gradient[j]
                    + o.gradient[i] * self.gradient[j];
            }
        }
        out
    }
}

impl<const N: usize> Div for Jet<N> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        self * o.recip()
    }
}

impl<const N: usize> Add<f64> for Jet<N> {
    type Output = Self;
    fn add(mut self, c: f64) -> Self {
        self.value += c;
        self
    }
}

impl<const N: usize> Mul<f64> for Jet<N> {
    type Output = Self;
    fn mul(mut self, c: f64) -> Self {
        self.value *= c;
        for i in 0..N {
            self.gradient[i] *= c;
            for j in 0..N {
                self.hessian[i][j] *= c;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x, y) = atan2(y, x) sqrt(x y) / (1 + x) against its derivatives by hand-free
    /// central differences of the f64 evaluation.
    #[test]
    fn gradient_and_hessian_match_central_differences() {
        fn f<S: Real>(x: S, y: S) -> S {
            y.atan2(x) * (x * y).sqrt() / (x + 1.0)
        }
        let (x0, y0) = (0.7, 1.3);
        let j = f(Jet::<2>::variable(x0, 0), Jet::<2>::variable(y0, 1));
        assert!((j.value - f(x0, y0)).abs() < 1e-15);
        let h = 1e-5;
        let grad = |x: f64, y: f64| [(f(x + h, y) - f(x - h, y)) / (2.0 * h), (f(x, y + h) - f(x, y - h)) / (2.0 * h)];
        let g = grad(x0, y0);
        for k in 0..2 {
            assert!((j.gradient[k] - g[k]).abs() < 1e-9, "{k}: {} vs {}", j.gradient[k], g[k]);
        }
        let (gxp, gxm, gyp, gym) = (grad(x0 + h, y0), grad(x0 - h, y0), grad(x0, y0 + h), grad(x0, y0 - h));
        let hess = [
            [(gxp[0] - gxm[0]) / (2.0 * h), (gxp[1] - gxm[1]) / (2.0 * h)],
            [(gyp[0] - gym[0]) / (2.0 * h), (gyp[1] - gym[1]) / (2.0 * h)],
        ];
        for a in 0..2 {
            for b in 0..2 {
                assert!(
                    (j.hessian[a][b] - hess[a][b]).abs() < 1e-5,
                    "({a},{b}): {} vs {}",
                    j.hessian[a][b],
                    hess[a][b]
                );
            }
        }
    }
}
