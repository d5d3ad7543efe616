//! Kelvin-Voigt material damping of beam elements (`with_damping(beta)`), every formulation:
//! the damping part of the forces has the tangents C = dF/dv and K = dF/dq of central
//! differences, and a rigid motion (translation and rotation) of a *deformed* element gives no
//! damping force and no dissipated power (objectivity).

use flexfmu::integrators::TangentCoefficients;
use flexfmu::mechanics::elements::{
    AncfBeam2d, BeamProperties, CorotationalBeam2d, CorotationalBeam3d, Element, FloatingFrameBeam2d, Kin,
    SpatialBeamProperties,
};
use flexfmu::mechanics::euler_parameters::from_axis_angle;

// ---------------------------------------------------------------------------------------------
// Element level

/// M a + g of `e` over its first `n` global coordinates.
fn residual<E: Element>(e: &E, n: usize, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
    let (mut i, mut f) = (vec![0.0; n], vec![0.0; n]);
    e.add_forces(&Kin { q, v, a, t: 0.0, inputs: &[] }, &mut i, &mut f);
    i.iter().zip(&f).map(|(x, y)| x + y).collect()
}

fn tangent<E: Element>(e: &E, n: usize, x: [&[f64]; 3], c: TangentCoefficients) -> Vec<f64> {
    let mut block = vec![0.0; n * n];
    e.add_tangent(&Kin { q: x[0], v: x[1], a: x[2], t: 0.0, inputs: &[] }, &c, &mut block);
    block
}

/// Central differences of the residual with respect to q (which = 0) or v (1).
fn differences<E: Element>(e: &E, n: usize, x: [&[f64]; 3], which: usize, h: f64) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for j in 0..n {
        let mut y = x.map(<[f64]>::to_vec);
        y[which][j] += h;
        let rp = residual(e, n, &y[0], &y[1], &y[2]);
        y[which][j] -= 2.0 * h;
        let rm = residual(e, n, &y[0], &y[1], &y[2]);
        for i in 0..n {
            out[n * i + j] = (rp[i] - rm[i]) / (2.0 * h);
        }
    }
    out
}

fn largest(x: impl Iterator<Item = f64>) -> f64 {
    x.fold(0.0, |m, y| m.max(y.abs()))
}

/// The damping part (damped minus undamped element) of C and K against central differences of
/// the damping part of the forces, relative to its largest entry (or, where the damping part
/// of K vanishes, as the floating frame's does, to 1e-6 of the damped element's whole K:
/// the differences' rounding); the damping part of the
/// forces and its dissipated power at a rigid motion `rigid` of the same configuration,
/// relative to those at the velocities of `x`.
fn check_element<E: Element>(what: &str, plain: &E, damped: &E, n: usize, x: [&[f64]; 3], rigid: &[f64]) {
    let c = TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 };
    let k = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    for (name, coefficients, which, h) in [("C", c, 1, 1e-6), ("K", k, 0, 1e-7)] {
        let exact: Vec<f64> = tangent(damped, n, x, coefficients)
            .iter()
            .zip(tangent(plain, n, x, coefficients))
            .map(|(a, b)| a - b)
            .collect();
        let fd: Vec<f64> = differences(damped, n, x, which, h)
            .iter()
            .zip(differences(plain, n, x, which, h))
            .map(|(a, b)| a - b)
            .collect();
        let floor = 1e-6 * largest(tangent(damped, n, x, coefficients).into_iter());
        let scale = largest(fd.iter().copied()).max(floor);
        let error = largest(exact.iter().zip(&fd).map(|(a, b)| a - b)) / scale;
        println!("{what}: damping part of {name} vs central differences: {error:.1e} of its largest entry {scale:.3e}");
        assert!(scale > 0.0 && error < 1e-6, "{what}: {name} error {error:.2e}");
    }
    let damping_force = |v: &[f64]| -> Vec<f64> {
        let (d, p) = (residual(damped, n, x[0], v, x[2]), residual(plain, n, x[0], v, x[2]));
        d.iter().zip(&p).map(|(a, b)| a - b).collect()
    };
    let power = |v: &[f64]| damped.power(&Kin { q: x[0], v, a: x[2], t: 0.0, inputs: &[] }).dissipated;
    let (moving, turning) = (largest(damping_force(x[1]).into_iter()), largest(damping_force(rigid).into_iter()));
    let (p_moving, p_turning) = (power(x[1]), power(rigid));
    println!(
        "{what}: damping force {moving:.3e}, at a rigid motion {turning:.1e}; dissipated power {p_moving:.3e} W, \
         at a rigid motion {p_turning:.1e} W"
    );
    assert!(p_moving > 0.0 && moving > 0.0, "{what}: no damping at the deformation rates");
    assert!(turning < 1e-10 * moving && p_turning.abs() < 1e-10 * p_moving, "{what}: rigid motion damped");
}

fn planar_properties(shear: bool) -> BeamProperties {
    let (b, h, e, nu) = (0.015, 0.01, 1.0e7, 0.3);
    BeamProperties {
        young: e,
        shear: e / (2.0 * (1.0 + nu)),
        area: b * h,
        inertia: b * h * h * h / 12.0,
        shear_factor: shear.then(|| BeamProperties::rectangle_shear_factor(nu)),
        density: 5540.0,
    }
}

/// The rate of a planar point `r` in the rigid motion (translation `v` of the origin,
/// angular velocity `w`).
fn planar_rigid(v: [f64; 2], w: f64, r: [f64; 2]) -> [f64; 2] {
    [v[0] - w * r[1], v[1] + w * r[0]]
}

#[test]
fn corotational_2d_element_damping_tangents_and_objectivity() {
    let beta: f64 = 0.7;
    let q = [0.1, -0.2, beta + 0.05, 0.1 + 0.31 * beta.cos(), -0.2 + 0.31 * beta.sin(), beta - 0.08];
    let v = [0.3, -1.1, 2.0, -0.4, 0.9, -1.5];
    let a = [1.3, 0.4, -3.0, 2.2, -0.7, 5.0];
    let (w, vt) = (1.7, [0.4, -0.3]);
    let (r1, r2) = (planar_rigid(vt, w, [q[0], q[1]]), planar_rigid(vt, w, [q[3], q[4]]));
    let rigid = [r1[0], r1[1], w, r2[0], r2[1], w];
    for shear in [false, true] {
        let plain = CorotationalBeam2d::new(0, 3, 0.3, &planar_properties(shear), [0.0, -9.81]);
        let damped = plain.clone().with_damping(0.01);
        check_element(
            if shear { "corotational 2D Timoshenko" } else { "corotational 2D Euler-Bernoulli" },
            &plain,
            &damped,
            6,
            [&q, &v, &a],
            &rigid,
        );
    }
}

#[test]
fn ancf_element_damping_tangents_and_objectivity() {
    let p = planar_properties(true);
    let plain = AncfBeam2d::new([0, 4, 8], 0.3, &p, [0.0, -9.81]);
    let damped = plain.clone().with_damping(0.01);
    // A deformed element: nodes along an angle of 0.6 rad, moved off the line, slopes turned
    // and stretched.
    let (s, c) = 0.6f64.sin_cos();
    let mut q = [0.0; 12];
    let bumps = [[0.002, -0.003, 0.02, -0.03], [0.001, 0.004, -0.05, 0.01], [-0.002, 0.001, 0.04, 0.02]];
    for m in 0..3 {
        let x = 0.15 * m as f64;
        q[4 * m..4 * m + 4].copy_from_slice(&[
            0.2 + c * x + bumps[m][0],
            -0.1 + s * x + bumps[m][1],
            -s + bumps[m][2],
            c + bumps[m][3],
        ]);
    }
    let v: Vec<f64> = (0..12).map(|k| ((k * 7 % 5) as f64 - 2.0) * 0.3 + 0.1 * k as f64).collect();
    let a = vec![0.5; 12];
    let (w, vt) = (-2.3, [0.7, 0.2]);
    let mut rigid = [0.0; 12];
    for m in 0..3 {
        let r = planar_rigid(vt, w, [q[4 * m], q[4 * m + 1]]);
        let d = planar_rigid([0.0; 2], w, [q[4 * m + 2], q[4 * m + 3]]);
        rigid[4 * m..4 * m + 4].copy_from_slice(&[r[0], r[1], d[0], d[1]]);
    }
    check_element("ANCF", &plain, &damped, 12, [&q, &v, &a], &rigid);
}

#[test]
fn floating_frame_damping_tangents() {
    let p = planar_properties(false);
    let plain = FloatingFrameBeam2d::new(0, 0.8, 3, &p, [0.0, -9.81]);
    let damped = plain.clone().with_damping(0.01);
    let q = [0.1, -0.2, 0.4, 0.001, -0.0005, 0.0002, 0.02, -0.004, 0.001];
    let v = [0.3, -0.2, 1.1, 0.01, -0.02, 0.005, 0.3, -0.1, 0.05];
    let a = [0.2; 9];
    // The frame's rigid motion with the modal rates at rest.
    let rigid = [0.3, -0.2, 1.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    check_element("floating frame", &plain, &damped, 9, [&q, &v, &a], &rigid);
}

/// Hamilton product a b.
fn compose(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / n)
}

#[test]
fn spatial_element_damping_tangents_and_objectivity() {
    let props = SpatialBeamProperties {
        young: 2.1e11,
        shear: 2.1e11 / 2.6,
        area: 1e-4,
        iy: 2e-9,
        iz: 8e-9,
        torsion: 3e-9,
        shear_factor: Some(0.85),
        density: 7850.0,
    };
    let x1 = [0.1, -0.2, 0.3];
    let d = unit([1.0, 0.4, -0.3]).map(|x| 0.5 * x);
    let x2 = [x1[0] + d[0], x1[1] + d[1], x1[2] + d[2]];
    let p1 = from_axis_angle(unit([0.3, -0.5, 0.8]), 0.9);
    let p2 = compose(p1, from_axis_angle([0.0, 1.0, 0.0], 0.2));
    let plain = CorotationalBeam3d::new(0, 7, (x1, p1, x2, p2), &props, [0.0, 0.0, -9.81]);
    let damped = plain.clone().with_damping(1e-4);
    // Deformed: the end moved, both nodes turned (Euler parameters off p.p = 1 on node 2).
    let mut q = [0.0; 14];
    q[..3].copy_from_slice(&x1);
    q[3..7].copy_from_slice(&compose(from_axis_angle(unit([0.2, 1.0, -0.4]), 0.1), p1));
    q[7..10].copy_from_slice(&[x2[0] + 0.01, x2[1] - 0.02, x2[2] + 0.015]);
    q[10..].copy_from_slice(&compose(from_axis_angle(unit([-0.7, 0.1, 0.5]), 0.15), p2).map(|x| 1.1 * x));
    let v: Vec<f64> = (0..14).map(|k| ((k * 5 % 7) as f64 - 3.0) * 0.2 + 0.05 * k as f64).collect();
    let a = vec![0.3; 14];
    // Rigid motion: x' = vt + w x x, p' = 1/2 (0, w) p (w global).
    let (w, vt) = ([0.4, -1.2, 2.1], [0.3, 0.5, -0.2]);
    let mut rigid = [0.0; 14];
    for node in 0..2 {
        let o = 7 * node;
        let x = [q[o], q[o + 1], q[o + 2]];
        let wx = [w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]];
        let p: [f64; 4] = std::array::from_fn(|k| q[o + 3 + k]);
        let pd = compose([0.0, w[0], w[1], w[2]], p).map(|x| 0.5 * x);
        for k in 0..3 {
            rigid[o + k] = vt[k] + wx[k];
        }
        rigid[o + 3..o + 7].copy_from_slice(&pd);
    }
    check_element("corotational 3D", &plain, &damped, 14, [&q, &v, &a], &rigid);
}
