//! Natural frequencies of a clamped-free beam by the continuum theories, the references of the
//! beam elements' frequency tests: roots of the frequency determinant found by shooting
//! (classical RK4 from the clamp) and bisection. Timoshenko's beam (shear and rotary
//! inertia) and Rayleigh's (rotary inertia, no shear), as in Han, Benaroya & Wei 1999,
//! "Dynamics of transversely vibrating beams using four engineering theories" (J. Sound Vib.
//! 225(5)), with the rotary inertia per length rho_i given apart from EI.

/// The state at x = l of y' = f(y) from y(0) = y0, classical RK4 with `steps` steps.
pub fn shoot(f: impl Fn([f64; 4]) -> [f64; 4], mut y: [f64; 4], l: f64, steps: usize) -> [f64; 4] {
    let h = l / steps as f64;
    for _ in 0..steps {
        let add = |y: [f64; 4], k: [f64; 4], s: f64| std::array::from_fn::<f64, 4, _>(|i| y[i] + s * k[i]);
        let k1 = f(y);
        let k2 = f(add(y, k1, 0.5 * h));
        let k3 = f(add(y, k2, 0.5 * h));
        let k4 = f(add(y, k3, h));
        for i in 0..4 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    y
}

/// The first `count` roots (rad/s) below `omega_max` of the frequency determinant `det`: sign
/// changes on a grid of 3000 points, each refined by bisection.
fn roots(det: impl Fn(f64) -> f64, omega_max: f64, count: usize) -> Vec<f64> {
    let mut roots = Vec::new();
    let scan = 3000;
    let mut prev = (1e-6 * omega_max, det(1e-6 * omega_max));
    for k in 1..=scan {
        let w = omega_max * k as f64 / scan as f64;
        let d = det(w);
        if d.signum() != prev.1.signum() {
            let (mut lo, mut hi, dlo) = (prev.0, w, prev.1);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if det(mid).signum() == dlo.signum() { lo = mid } else { hi = mid }
            }
            roots.push(0.5 * (lo + hi));
            if roots.len() == count {
                break;
            }
        }
        prev = (w, d);
    }
    roots
}

/// Clamped-free Timoshenko beam (shear and rotary inertia): roots omega (rad/s) of the
/// frequency determinant, found by shooting. With w the deflection and psi the section
/// rotation: kGA (w'' - psi') + rho A omega^2 w = 0, EI psi'' + kGA (w' - psi) +
/// rho I omega^2 psi = 0; w = psi = 0 at x = 0; EI psi' = 0 and kGA (w' - psi) = 0 at x = L.
/// Two solutions from the clamp with (w', psi') = (1, 0) and (0, 1); the determinant of
/// their free-end conditions vanishes at a natural frequency.
pub fn timoshenko_frequencies(
    l: f64,
    ei: f64,
    kga: f64,
    rho_a: f64,
    rho_i: f64,
    omega_max: f64,
    count: usize,
) -> Vec<f64> {
    let det = |omega: f64| {
        let w2 = omega * omega;
        let f = |y: [f64; 4]| {
            [y[1], y[3] - rho_a * w2 / kga * y[0], y[3], -(kga / ei) * (y[1] - y[2]) - rho_i * w2 / ei * y[2]]
        };
        // State (w, w', psi, psi').
        let a = shoot(f, [0.0, 1.0, 0.0, 0.0], l, 2000);
        let b = shoot(f, [0.0, 0.0, 0.0, 1.0], l, 2000);
        a[3] * (b[1] - b[2]) - b[3] * (a[1] - a[2])
    };
    roots(det, omega_max, count)
}

/// Clamped-free Rayleigh beam (rotary inertia, no shear; Rayleigh, The Theory of Sound, 1877):
/// roots omega (rad/s) of the frequency determinant. EI w'''' + rho I omega^2 w'' -
/// rho A omega^2 w = 0 (from EI w'''' + rho A w_tt - rho I w_xxtt = 0); w = w' = 0 at x = 0;
/// the moment EI w'' = 0 and the shear force EI w''' + rho I omega^2 w' = 0 at x = L (the
/// rotary inertia's share of the shear, from Hamilton's principle). Two solutions from the
/// clamp with (w'', w''') = (1, 0) and (0, 1).
pub fn rayleigh_frequencies(l: f64, ei: f64, rho_a: f64, rho_i: f64, omega_max: f64, count: usize) -> Vec<f64> {
    let det = |omega: f64| {
        let w2 = omega * omega;
        let f = |y: [f64; 4]| [y[1], y[2], y[3], (rho_a * w2 * y[0] - rho_i * w2 * y[2]) / ei];
        // State (w, w', w'', w''').
        let a = shoot(f, [0.0, 0.0, 1.0, 0.0], l, 2000);
        let b = shoot(f, [0.0, 0.0, 0.0, 1.0], l, 2000);
        let shear = |y: [f64; 4]| ei * y[3] + rho_i * w2 * y[1];
        a[2] * shear(b) - b[2] * shear(a)
    };
    roots(det, omega_max, count)
}
