//! Reference solutions computed the same way by several test files.

/// The rigid pendulum (a rod pinned at its end, released horizontal from rest):
/// theta'' = -(3 g / 2 L) cos theta, with `g_over_l` = g / L. (theta, omega) at t by RK4 with
/// step 1e-5 from (0, 0) (global error ~1e-17: far below every error measured against it).
pub fn rigid_pendulum(t: f64, g_over_l: f64) -> (f64, f64) {
    rigid_pendulum_rk4(t, g_over_l, 1e-5)
}

/// `rigid_pendulum` by RK4 with about the step `step` (t divided into whole steps).
pub fn rigid_pendulum_rk4(t: f64, g_over_l: f64, step: f64) -> (f64, f64) {
    let f = |th: f64, w: f64| (w, -1.5 * g_over_l * th.cos());
    let n = (t / step).round() as usize;
    let h = t / n as f64;
    let (mut th, mut w) = (0.0f64, 0.0f64);
    for _ in 0..n {
        let k1 = f(th, w);
        let k2 = f(th + 0.5 * h * k1.0, w + 0.5 * h * k1.1);
        let k3 = f(th + 0.5 * h * k2.0, w + 0.5 * h * k2.1);
        let k4 = f(th + h * k3.0, w + h * k3.1);
        th += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        w += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (th, w)
}
