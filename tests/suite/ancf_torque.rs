//! Torque loads on beam nodes (paper 003 eq. 24): the generalized force of a torque T on an
//! ANCF node is T dtheta/dq with theta the angle of the node's slope d = dr/dy (eq. 4).
//! Checked against finite differences of the virtual work T dtheta and of the force (the
//! load's tangent), and against the static cantilever under an end moment M (tip rotation
//! ML/EI; the beam rolls up into a circular arc of radius EI/M, a full circle at
//! M = 2 pi EI/L). A torque on a corotational node is checked against the same theory.

use flexfmu::analysis::statics::static_equilibrium;
use flexfmu::integrators::{Dynamics, TangentCoefficients};
use flexfmu::mechanics::assemble::assemble;
use flexfmu::mechanics::elements::{Element, Kin};
use flexfmu::mechanics::forces::Load;
use flexfmu::model::Model;
use std::f64::consts::PI;

/// A beam along x clamped at its start with a torque "M*t" at its end (t: the load factor).
fn cantilever_with_end_moment(elements: usize, formulation: &str, l: f64, m: f64) -> String {
    format!(
        r#"[model]
name = "end_moment"

[parameters]
M = {m:e}
elements = {{ value = {elements}, type = "integer" }}

[[beams]]
name = "beam"
start = [0.0, 0.0]
end = [{l:e}, 0.0]
elements = "elements"
section = {{ width = 0.02, height = 0.02 }}
material = {{ E = 2.1e11, nu = 0.3, rho = 7850.0 }}
formulation = "{formulation}"

[[joints]]
name = "clamp"
type = "fixed"
body2 = "beam.start"

[[loads]]
type = "torque"
body = "beam.end"
value = "M*t"

[[outputs]]
name = "tip_angle"
quantity = "angle"
body = "beam.end"
"#
    )
}

fn ei() -> f64 {
    2.1e11 * 0.02 * 0.02f64.powi(3) / 12.0
}

/// Slope angle of the ANCF node whose coordinates start at x (paper 003 eq. 4).
fn slope_angle(q: &[f64], x: usize) -> f64 {
    (-q[x + 2]).atan2(q[x + 3])
}

#[test]
fn ancf_node_torque_is_the_virtual_work_of_the_slope_angle() {
    let torque = 3.7;
    let model = Model::parse(&cantilever_with_end_moment(2, "ancf", 1.0, torque), "end_moment.toml").unwrap();
    let asm = assemble(&model, &model.default_parameters()).unwrap();
    let sys = &asm.system;
    let load = &sys.elements::<Load>()[0];
    let x = sys.body("beam.end").unwrap().x;
    assert_eq!(load.dofs(), &[x, x + 1, x + 2, x + 3]);
    // A deformed, stretched, rotated slope: |d| != 1, theta away from 0.
    let mut q = asm.initial.q.clone();
    for (i, v) in q.iter_mut().enumerate() {
        *v += 0.05 * ((i as f64) * 1.3).sin();
    }
    q[x + 2] = -0.8;
    q[x + 3] = 0.45;
    let n = sys.coordinates();
    let zeros = vec![0.0; n];
    let t = 1.0; // load factor: T = M t
    let force = |q: &[f64]| {
        let kin = Kin::without_inputs(q, &zeros, &zeros, t);
        let (mut inertial, mut f) = (vec![0.0; n], vec![0.0; n]);
        load.add_forces(&kin, &mut inertial, &mut f);
        // `forces` holds g with M a + g = 0: the applied generalized force is -g.
        f.iter().map(|v| -v).collect::<Vec<f64>>()
    };
    let qf = force(&q);
    // Virtual work: Q . dq = T dtheta along several directions, central differences.
    let eps = 1e-6;
    let mut worst = 0.0f64;
    for k in 0..5 {
        let dir: Vec<f64> = (0..n).map(|i| ((i * 7 + k * 3) as f64 * 0.91).cos()).collect();
        let plus: Vec<f64> = q.iter().zip(&dir).map(|(a, d)| a + eps * d).collect();
        let minus: Vec<f64> = q.iter().zip(&dir).map(|(a, d)| a - eps * d).collect();
        let fd = torque * t * (slope_angle(&plus, x) - slope_angle(&minus, x)) / (2.0 * eps);
        let exact: f64 = qf.iter().zip(&dir).map(|(a, b)| a * b).sum();
        let err = (exact - fd).abs() / fd.abs().max(1e-3);
        println!("direction {k}: Q.dq = {exact:.10e}, T dtheta (FD) = {fd:.10e}, rel. error {err:.2e}");
        worst = worst.max(err);
    }
    assert!(worst < 1e-8, "virtual work mismatch {worst:e}");
    // Paper 003 eq. 24 (up to the sign convention of its reaction torque): on the slope
    // coordinates Q = T (-e4, e3)/(e3^2 + e4^2); nothing on the position coordinates.
    let (e3, e4) = (q[x + 2], q[x + 3]);
    let r2 = e3 * e3 + e4 * e4;
    println!("Q on the node: {:?}; T(-e4, e3)/|d|^2 = [{}, {}]", &qf[x..x + 4], -torque * e4 / r2, torque * e3 / r2);
    assert_eq!(qf[x], 0.0);
    assert_eq!(qf[x + 1], 0.0);
    assert!((qf[x + 2] + torque * e4 / r2).abs() < 1e-14 * torque / r2.sqrt());
    assert!((qf[x + 3] - torque * e3 / r2).abs() < 1e-14 * torque / r2.sqrt());
    assert!(qf.iter().enumerate().all(|(i, v)| (x..x + 4).contains(&i) || *v == 0.0));

    // Tangent: the load's block (stiffness coefficient) equals -dQ/dq by central differences.
    let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    let kin = Kin::without_inputs(&q, &zeros, &zeros, t);
    let mut block = vec![0.0; 16];
    load.add_tangent(&kin, &c, &mut block);
    let mut worst = 0.0f64;
    let scale = torque / r2;
    for j in 0..4 {
        let mut plus = q.clone();
        let mut minus = q.clone();
        plus[x + j] += eps;
        minus[x + j] -= eps;
        let (fp, fm) = (force(&plus), force(&minus));
        for i in 0..4 {
            let fd = -(fp[x + i] - fm[x + i]) / (2.0 * eps);
            worst = worst.max((block[4 * i + j] - fd).abs() / scale);
        }
    }
    println!("load tangent vs finite differences: max error / (T/|d|^2) = {worst:.2e}; block {block:?}");
    assert!(worst < 1e-7, "tangent mismatch {worst:e}");
    assert!(block.iter().any(|v| v.abs() > 0.1 * scale), "the tangent must not vanish off the reference slope");
}

/// Static solution with the load factor raised from 0 to 1 in `increments` (end moment M).
fn solve_end_moment(elements: usize, formulation: &str, l: f64, m: f64, increments: usize) -> (Vec<f64>, usize) {
    let model = Model::parse(&cantilever_with_end_moment(elements, formulation, l, m), "end_moment.toml").unwrap();
    let asm = assemble(&model, &model.default_parameters()).unwrap();
    let mut q = asm.initial.q.clone();
    let mut lambda = vec![0.0; asm.system.constraints()];
    for k in 1..=increments {
        static_equilibrium(&asm.system, &mut q, &mut lambda, k as f64 / increments as f64, 1e-12).unwrap();
    }
    let x = asm.system.body("beam.end").unwrap().x;
    (q, x)
}

#[test]
fn cantilever_under_end_moment_small_rotation() {
    // Tip rotation M L / EI, tip deflection M L^2 / (2 EI) (linear theory; no shear force, so
    // the Timoshenko and Euler-Bernoulli answers coincide). Theta = 1e-4: the nonlinear
    // correction (arc vs. chord, relative O(theta^2)) is 1e-9.
    let l = 1.0;
    let m = 1e-4 * ei() / l;
    let (theta, w) = (m * l / ei(), m * l * l / (2.0 * ei()));
    for elements in [1, 4] {
        let (q, x) = solve_end_moment(elements, "ancf", l, m, 1);
        let (angle, tip) = (slope_angle(&q, x), q[x + 1]);
        let (ea, ew) = ((angle - theta).abs() / theta, (tip - w).abs() / w);
        println!(
            "{elements} ANCF elements: tip rotation {angle:.10e} (ML/EI = {theta:.10e}, error {ea:.2e}), tip deflection {tip:.10e} (ML^2/2EI = {w:.10e}, error {ew:.2e})"
        );
        assert!(ea < 1e-6 && ew < 1e-6, "{ea:e} {ew:e}");
    }
}

/// The exact static solution of the element's own continuum model (the strain energy of
/// src/mechanics/elements/ancf_beam_2d.rs) under an end moment M: a circular arc with
/// constant stretch lambda = |r_x|, slope length mu = |d| and section-angle rate theta'.
/// The bending measure is kappa = -r_x . d_x = lambda mu theta', the energy density is
/// EA/2 ((lambda^2-1)/2)^2 plus EA/2 ((mu^2-1)/2)^2 plus EI/2 kappa^2; stationarity gives
/// EI lambda^2 mu^2 theta' = M and lambda^2 = mu^2 = 1/(1 + c theta'^2) with c = 2 EI/EA.
/// So the bending measure couples a slight shortening (relative h^2/12 theta'^2 for a
/// rectangle) to the elastica's R = EI/M. Returns (tip rotation, tip x, tip y).
fn exact_arc(m: f64, l: f64) -> (f64, f64, f64) {
    let (ei, ea) = (ei(), 2.1e11 * 0.02 * 0.02);
    let c = 2.0 * ei / ea;
    let mut rate = m / ei;
    for _ in 0..100 {
        rate = m / ei * (1.0 + c * rate * rate).powi(2);
    }
    let lambda = (1.0 / (1.0 + c * rate * rate)).sqrt();
    let (phi, radius) = (rate * l, lambda / rate);
    (phi, radius * phi.sin(), radius * (1.0 - phi.cos()))
}

#[test]
fn cantilever_rolls_up_into_a_circle_under_end_moment() {
    // Large rotation: an end moment M bends the beam into a circular arc; the elastica has
    // R = EI/M, the element's continuum model (see `exact_arc`) the same arc up to a
    // shortening of relative order (h/R)^2. M = pi EI/(2L): a quarter circle;
    // M = 2 pi EI/L: a full circle, the tip back near the clamp.
    let l = 1.0;
    for (label, m, increments, tolerance) in
        [("quarter circle", PI * ei() / (2.0 * l), 10, 1e-6), ("full circle", 2.0 * PI * ei() / l, 40, 5e-4)]
    {
        let (phi, xe, ye) = exact_arc(m, l);
        let r = ei() / m;
        let elastica = if phi < PI {
            (m * l / ei(), r * (m * l / ei()).sin(), r * (1.0 - (m * l / ei()).cos()))
        } else {
            (2.0 * PI, 0.0, 0.0)
        };
        println!(
            "{label}: exact arc of the element model: rotation {phi:.8} rad, tip ({xe:+.8}, {ye:+.8}); elastica: rotation {:.8}, tip ({:+.8}, {:+.8})",
            elastica.0, elastica.1, elastica.2
        );
        let mut errors = Vec::new();
        for elements in [4, 8, 16, 32] {
            let (q, x) = solve_end_moment(elements, "ancf", l, m, increments);
            // Unwrap the slope angle to the branch of the exact rotation.
            let mut angle = slope_angle(&q, x);
            angle += 2.0 * PI * ((phi - angle) / (2.0 * PI)).round();
            let err = ((q[x] - xe).powi(2) + (q[x + 1] - ye).powi(2)).sqrt() / l;
            let ea = (angle - phi).abs();
            let el = ((q[x] - elastica.1).powi(2) + (q[x + 1] - elastica.2).powi(2)).sqrt() / l;
            println!(
                "  {elements:2} ANCF elements: tip ({:+.8}, {:+.8}), rotation {angle:.8}: |tip - exact|/L = {err:.2e}, rotation error {ea:.2e} rad; |tip - elastica|/L = {el:.2e}",
                q[x],
                q[x + 1]
            );
            errors.push(err.max(ea));
        }
        // Converges to the exact arc (fourth order: errors drop ~16x per halving).
        assert!(errors[3] < tolerance, "{label}: {errors:?}");
        assert!(errors[3] < errors[2] / 8.0 && errors[2] < errors[1], "{label}: {errors:?}");
    }
}

#[test]
fn corotational_node_torque_matches_theory() {
    // Corotational nodes carry the rotation coordinate itself: the same end-moment checks.
    let l = 1.0;
    let m = PI * ei() / (2.0 * l);
    let r = ei() / m;
    // The corotational element (constant curvature per element under a pure moment) gives
    // the elastica's rotation ML/EI exactly and the arc's chord points: the tip converges.
    let mut errors = Vec::new();
    for elements in [8, 16] {
        let (q, x) = solve_end_moment(elements, "euler_bernoulli", l, m, 10);
        let err = ((q[x] - r).powi(2) + (q[x + 1] - r).powi(2)).sqrt() / l;
        println!(
            "quarter circle, {elements:2} corotational elements: tip ({:.8}, {:.8}), R = {r:.8}, rotation {:.10} (pi/2), |tip error|/L = {err:.2e}",
            q[x],
            q[x + 1],
            q[x + 2]
        );
        assert!((q[x + 2] - PI / 2.0).abs() < 1e-9);
        errors.push(err);
    }
    assert!(errors[1] < 1e-3 && errors[1] < errors[0] / 3.0, "{errors:?}");
}
