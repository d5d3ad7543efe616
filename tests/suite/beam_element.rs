//! The corotational beam element (paper 000, section 1): tangents against central finite
//! differences, rigid-body motion, energy.

use flexfmu::integrators::TangentCoefficients;
use flexfmu::mechanics::elements::{BeamProperties, CorotationalBeam2d, Element, Kin};

fn props(shear: bool) -> BeamProperties {
    let (b, h, e, nu) = (0.015, 0.01, 1.0e7, 0.3);
    BeamProperties {
        young: e,
        shear: e / (2.0 * (1.0 + nu)),
        area: b * h,
        inertia: b * h * h * h / 12.0,
        shear_factor: shear.then(|| BeamProperties::rectangle_shear_factor(nu)),
        density: 5540.0,
        rotary_inertia: None,
    }
}

fn element(shear: bool) -> CorotationalBeam2d {
    CorotationalBeam2d::new(0, 3, 0.3, &props(shear), [0.0, -9.81])
}

/// A deformed, rotated, moving state.
fn state() -> ([f64; 6], [f64; 6], [f64; 6]) {
    let beta: f64 = 0.7;
    let q = [0.1, -0.2, beta + 0.05, 0.1 + 0.31 * beta.cos(), -0.2 + 0.31 * beta.sin(), beta - 0.08];
    let v = [0.3, -1.1, 2.0, -0.4, 0.9, -1.5];
    let a = [1.3, 0.4, -3.0, 2.2, -0.7, 5.0];
    (q, v, a)
}

/// Residual R = M a + g (inertia + elastic + gravity).
fn residual(e: &CorotationalBeam2d, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
    let (mut i, mut f) = (vec![0.0; 6], vec![0.0; 6]);
    e.add_forces(&Kin::without_inputs(q, v, a, 0.0), &mut i, &mut f);
    i.iter().zip(&f).map(|(x, y)| x + y).collect()
}

fn tangent(e: &CorotationalBeam2d, q: &[f64], v: &[f64], a: &[f64], c: TangentCoefficients) -> Vec<f64> {
    let mut block = vec![0.0; 36];
    e.add_tangent(&Kin::without_inputs(q, v, a, 0.0), &c, &mut block);
    block
}

/// Central differences of R with respect to q (which = 0), v (1) or a (2).
fn fd(e: &CorotationalBeam2d, which: usize, h: f64) -> Vec<f64> {
    let (q, v, a) = state();
    let mut out = vec![0.0; 36];
    for j in 0..6 {
        let mut x = [q, v, a];
        x[which][j] += h;
        let rp = residual(e, &x[0], &x[1], &x[2]);
        x[which][j] -= 2.0 * h;
        let rm = residual(e, &x[0], &x[1], &x[2]);
        for i in 0..6 {
            out[6 * i + j] = (rp[i] - rm[i]) / (2.0 * h);
        }
    }
    out
}

fn check(name: &str, analytic: &[f64], numeric: &[f64]) {
    let scale = numeric.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let err = analytic.iter().zip(numeric).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!("{name}: max |analytic - fd| / max |fd| = {:.2e} (scale {scale:.3e})", err / scale);
    assert!(err <= 1e-6 * scale, "{name}: relative error {:.3e}\nanalytic {analytic:?}\nfd {numeric:?}", err / scale);
}

#[test]
fn tangents_match_central_differences() {
    for shear in [true, false] {
        let e = element(shear);
        let (q, v, a) = state();
        let only = |m: f64, d: f64, k: f64| TangentCoefficients { mass: m, damping: d, stiffness: k, lambda: 0.0 };
        check("M (eq. 18)", &tangent(&e, &q, &v, &a, only(1.0, 0.0, 0.0)), &fd(&e, 2, 1e-3));
        check("C (eq. 19)", &tangent(&e, &q, &v, &a, only(0.0, 1.0, 0.0)), &fd(&e, 1, 1e-5));
        check("K (eq. 20)", &tangent(&e, &q, &v, &a, only(0.0, 0.0, 1.0)), &fd(&e, 0, 1e-6));
        // The inertial part of K alone (the elastic part dominates the scale above).
        let stiff_only = e.without_stiffness();
        check("K_I", &tangent(&stiff_only, &q, &v, &a, only(0.0, 0.0, 1.0)), &fd(&stiff_only, 0, 1e-6));
    }
}

#[test]
fn rigid_motion_has_no_elastic_force_and_exact_kinetic_energy() {
    let mut e = element(true);
    e.gravity = [0.0, 0.0];
    let p = props(true);
    let l = 0.3;
    let (beta, w, vc) = (2.5f64, 1.7, [0.4, -0.9]);
    let (c, s) = (beta.cos(), beta.sin());
    let q = [1.0, 2.0, beta, 1.0 + l * c, 2.0 + l * s, beta];
    // Node velocities of a rigid rod whose centre moves with vc and turns at w.
    let arm = [0.5 * l * c, 0.5 * l * s];
    let v = [vc[0] + w * arm[1], vc[1] - w * arm[0], w, vc[0] - w * arm[1], vc[1] + w * arm[0], w];
    let fe = e.elastic_force(&q);
    assert!(fe.iter().all(|f| f.abs() < 1e-9), "elastic force {fe:?}");
    let m = p.density * p.area * l;
    // Translation + rotation of a uniform rod; the rotary inertia of the section (rho I l,
    // the M_L1 term of eq. 14) adds to m l^2 / 12.
    let exact =
        0.5 * m * (vc[0] * vc[0] + vc[1] * vc[1]) + 0.5 * (m * l * l / 12.0 + p.density * p.inertia * l) * w * w;
    let ke = e.kinetic_energy(&q, &v);
    println!("rigid kinetic energy {ke:.15e}, exact {exact:.15e}");
    assert!((ke - exact).abs() <= 1e-13 * exact);
    // Quadratic-velocity forces of rigid rotation: centripetal, summing to zero torque-free
    // forces of a spinning rod about its centre (m w^2 times centre offset = 0 here).
    let (_, quad) = e.inertia_force(&q, &v, &[0.0; 6]);
    let total = [quad[0] + quad[3], quad[1] + quad[4]];
    assert!(total[0].abs() < 1e-12 && total[1].abs() < 1e-12, "net quadratic-velocity force {total:?}");
}

#[test]
fn energy_is_kinetic_plus_strain_plus_gravity() {
    let e = element(true);
    let (q, v, _) = state();
    let x = Kin::without_inputs(&q, &v, &v, 0.0);
    let en = e.energy(&x);
    // Gravity on the field of the consistent mass: the nodes' share m g (y1 + y2)/2 and the
    // cubic transverse field's -rho A l0^2/12 (th1 - th2) (g . n), n the chord normal.
    let (rho_a, l0) = (e.mass_per_length(), e.initial_length());
    let m = rho_a * l0;
    let (dx, dy) = (q[3] - q[0], q[4] - q[1]);
    let normal_g = -9.81 * dx / (dx * dx + dy * dy).sqrt();
    let gravity = 0.5 * m * 9.81 * (q[1] + q[4]) - rho_a * l0 * l0 / 12.0 * (q[2] - q[5]) * normal_g;
    assert!((en.kinetic - e.kinetic_energy(&q, &v)).abs() < 1e-15);
    assert!((en.potential - e.strain_energy(&q) - gravity).abs() < 1e-12);
    // The static forces (v = a = 0) are the gradient of the potential energy, also with
    // gravity alone (no stiffness: its end moments are not hidden by the elastic forces).
    let gravity_only = e.without_stiffness();
    for e in [&e, &gravity_only] {
        let zero = [0.0; 6];
        let potential = |q: &[f64]| e.energy(&Kin::without_inputs(q, &zero, &zero, 0.0)).potential;
        let forces = residual(e, &q, &zero, &zero);
        let scale = forces.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        for j in 0..6 {
            let h = 1e-7;
            let (mut qp, mut qm) = (q, q);
            qp[j] += h;
            qm[j] -= h;
            let d = (potential(&qp) - potential(&qm)) / (2.0 * h);
            assert!((d - forces[j]).abs() <= 1e-6 * scale, "dV/dq[{j}] = {d}, force {}", forces[j]);
        }
    }
    // The elastic force is the gradient of the strain energy.
    let fe = e.elastic_force(&q);
    for j in 0..6 {
        let h = 1e-7;
        let (mut qp, mut qm) = (q, q);
        qp[j] += h;
        qm[j] -= h;
        let d = (e.strain_energy(&qp) - e.strain_energy(&qm)) / (2.0 * h);
        assert!((d - fe[j]).abs() <= 1e-6 * fe.amax(), "dV/dq[{j}] = {d}, F_E = {}", fe[j]);
    }
}

/// The inertia forces are Lagrange's equations of the kinetic energy (eq. 17):
/// F_I = d/dt dT/dv - dT/dq = M_g a + (d2T/dv dq) v - dT/dq, with T = `kinetic_energy`, whose
/// derivatives here are differences (T is quadratic in v: its v-differences are exact).
#[test]
fn inertia_forces_are_lagrange_equations_of_the_kinetic_energy() {
    for shear in [true, false] {
        let e = element(shear);
        let (q, v, a) = state();
        let t = |q: &[f64; 6], v: &[f64; 6]| e.kinetic_energy(q, v);
        let shift = |x: &[f64; 6], j: usize, h: f64| {
            let mut y = *x;
            y[j] += h;
            y
        };
        // dT/dv at (q, v), exact for a quadratic in v up to round-off.
        let momentum = |q: &[f64; 6], v: &[f64; 6]| -> [f64; 6] {
            std::array::from_fn(|j| (t(q, &shift(v, j, 1.0)) - t(q, &shift(v, j, -1.0))) / 2.0)
        };
        let hq = 1e-6;
        let (ma, quad) = e.inertia_force(&q, &v, &a);
        // M_g a: dT/dv is linear in v, so its derivative along a is a difference.
        let v_plus_a: [f64; 6] = std::array::from_fn(|j| v[j] + a[j]);
        let (pa, p0) = (momentum(&q, &v_plus_a), momentum(&q, &v));
        let mut lagrange = [0.0; 6];
        for i in 0..6 {
            lagrange[i] = pa[i] - p0[i];
            // (d2T/dv dq) v - dT/dq by central differences in q.
            for j in 0..6 {
                let dp = (momentum(&shift(&q, j, hq), &v)[i] - momentum(&shift(&q, j, -hq), &v)[i]) / (2.0 * hq);
                lagrange[i] += dp * v[j];
            }
            lagrange[i] -= (t(&shift(&q, i, hq), &v) - t(&shift(&q, i, -hq), &v)) / (2.0 * hq);
        }
        let total = ma + quad;
        let scale = total.amax();
        let err = (0..6).fold(0.0f64, |m, i| m.max((total[i] - lagrange[i]).abs()));
        println!("shear {shear}: max |F_I - Lagrange| / max |F_I| = {:.1e}", err / scale);
        assert!(err <= 1e-7 * scale, "F_I {total:?}, Lagrange {lagrange:?}");
    }
}
