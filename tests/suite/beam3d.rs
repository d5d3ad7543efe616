//! The spatial corotational beam (src/mechanics/elements/corotational_beam_3d.rs) and its
//! `[[beams]]` in spatial models. References:
//! - tangent: central differences of the element's forces (M, C, K blocks);
//! - rigid motions: zero strain energy and zero elastic force (frame invariance);
//! - natural frequencies of a clamped-free beam against Euler-Bernoulli theory (bending in both
//!   planes, f = (beta_n L)^2 / (2 pi) sqrt(EI / (rho A L^4)), beta_1 L = 1.87510,
//!   beta_2 L = 4.69409), torsion (f = sqrt(G J / (rho I_p)) / (4 L)) and axial
//!   (f = sqrt(E / rho) / (4 L)) vibration (e.g. Meirovitch, Elements of Vibration Analysis);
//! - a free spinning beam: linear and angular momentum are conserved (no external force);
//! - the 45-degree bend (Bathe & Bolourchi 1979; Simo & Vu-Quoc 1986);
//! - a planar cantilever: the planar corotational element's answer.

use flexfmu::analysis::statics::static_equilibrium;
use flexfmu::integrators::{Method, TangentCoefficients};
use flexfmu::mechanics::System;
use flexfmu::mechanics::elements::{CorotationalBeam3d, Element, Kin, SpatialBeamProperties};
use flexfmu::mechanics::euler_parameters::{from_axis_angle, mat_vec, rotation};
use flexfmu::model::Model;
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

fn props(shear_factor: Option<f64>) -> SpatialBeamProperties {
    SpatialBeamProperties {
        young: 2.1e11,
        shear: 2.1e11 / 2.6,
        area: 1e-4,
        iy: 2e-9,
        iz: 8e-9,
        torsion: 3e-9,
        shear_factor: shear_factor.map(|k| [k; 2]),
        mass_per_length: 0.0,
        rotary_inertia: [0.0; 3],
    }
    .with_density(7850.0)
}

/// Quaternion product a b (Euler parameters of the rotation A(a) A(b)).
pub(crate) fn compose(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

pub(crate) fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / n)
}

/// An element from (0.1, -0.2, 0.3) along (1, 0.4, -0.3) (length 0.5) whose rest node frames
/// differ (a curved rest shape): node 1 turned by 0.2 rad about the section's y axis.
pub(crate) fn element(shear_factor: Option<f64>) -> (CorotationalBeam3d, [f64; 14]) {
    let x1 = [0.1, -0.2, 0.3];
    let d = unit([1.0, 0.4, -0.3]).map(|x| 0.5 * x);
    let x2 = [x1[0] + d[0], x1[1] + d[1], x1[2] + d[2]];
    let p1 = from_axis_angle(unit([0.3, -0.5, 0.8]), 0.9);
    let p2 = compose(p1, from_axis_angle([0.0, 1.0, 0.0], 0.2));
    let e = CorotationalBeam3d::new(0, 7, (x1, p1, x2, p2), &props(shear_factor), [0.0, 0.0, -9.81]);
    let mut q = [0.0; 14];
    q[..3].copy_from_slice(&x1);
    q[3..7].copy_from_slice(&p1);
    q[7..10].copy_from_slice(&x2);
    q[10..].copy_from_slice(&p2);
    (e, q)
}

/// `element(None)` of a material with E = 1e3 Pa: its forces are the centre line's inertia and
/// gravity.
fn soft_element() -> (CorotationalBeam3d, [f64; 14]) {
    let (_, q) = element(None);
    let props = SpatialBeamProperties { young: 1e3, shear: 1e3 / 2.6, ..props(None) };
    let rest = ([q[0], q[1], q[2]], [q[3], q[4], q[5], q[6]], [q[7], q[8], q[9]], [q[10], q[11], q[12], q[13]]);
    (CorotationalBeam3d::new(0, 7, rest, &props, [0.0, 0.0, -9.81]), q)
}

/// Apply the rigid motion x -> Q x + t, p -> p_Q p to the element's coordinates.
fn rigid_motion(q: &[f64; 14], pq: [f64; 4], t: [f64; 3]) -> [f64; 14] {
    let a = rotation(&pq);
    let mut out = *q;
    for node in [0, 7] {
        let x = mat_vec(&a, [q[node], q[node + 1], q[node + 2]]);
        for k in 0..3 {
            out[node + k] = x[k] + t[k];
        }
        let p = compose(pq, [q[node + 3], q[node + 4], q[node + 5], q[node + 6]]);
        out[node + 3..node + 7].copy_from_slice(&p);
    }
    out
}

/// A deformed state: node 2 moved by (0.02, -0.03, 0.04) and turned by 0.3 rad, node 1 turned
/// by 0.25 rad, about skew axes; the Euler parameters are kept unit.
fn deformed(q: &[f64; 14]) -> [f64; 14] {
    let mut d = *q;
    for (k, u) in [0.02, -0.03, 0.04].iter().enumerate() {
        d[7 + k] += u;
    }
    let p1 = compose(from_axis_angle(unit([0.2, 1.0, -0.4]), 0.25), [q[3], q[4], q[5], q[6]]);
    let p2 = compose(from_axis_angle(unit([-0.7, 0.1, 0.5]), 0.3), [q[10], q[11], q[12], q[13]]);
    d[3..7].copy_from_slice(&p1);
    d[10..].copy_from_slice(&p2);
    d
}

fn residual(e: &CorotationalBeam3d, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
    let (mut i, mut f) = (vec![0.0; 14], vec![0.0; 14]);
    e.add_forces(&Kin::without_inputs(q, v, a, 0.0), &mut i, &mut f);
    i.iter().zip(&f).map(|(x, y)| x + y).collect()
}

#[test]
fn tangent_matches_central_differences_of_the_forces() {
    // Steel, and a soft material (E = 1e3 Pa) whose tangent is the centre line's inertia and
    // gravity (`corotational_center_line_3d.rs`: K from forward differences of its forces).
    for (shear_factor, soft) in [(None, false), (Some(0.85), false), (None, true)] {
        let (e, q0) = if soft { soft_element() } else { element(shear_factor) };
        let q = deformed(&q0);
        let v: Vec<f64> = (0..14).map(|k| 0.3 * ((k as f64) * 1.7).sin()).collect();
        let a: Vec<f64> = (0..14).map(|k| 2.0 * ((k as f64) * 0.9 + 0.4).cos()).collect();
        let mut worst = [0.0f64; 3];
        // which = 0: K = dR/dq, 1: C = dR/dv, 2: M = dR/da.
        for (which, c) in [
            TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 },
            TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 },
            TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 0.0 },
        ]
        .iter()
        .enumerate()
        {
            let mut block = vec![0.0; 196];
            e.add_tangent(&Kin::without_inputs(&q, &v, &a, 0.0), c, &mut block);
            let scale = block.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            // R is quadratic in v and linear in a, so central differences are exact there for
            // any step: a large one keeps the rounding of the large elastic forces out of C, M.
            let h = if which == 0 { 1e-6 } else { 0.1 };
            for col in 0..14 {
                let mut x = [q.to_vec(), v.clone(), a.clone()];
                x[which][col] += h;
                let rp = residual(&e, &x[0], &x[1], &x[2]);
                x[which][col] -= 2.0 * h;
                let rm = residual(&e, &x[0], &x[1], &x[2]);
                for row in 0..14 {
                    let fd = (rp[row] - rm[row]) / (2.0 * h);
                    worst[which] = worst[which].max((fd - block[row * 14 + col]).abs() / scale);
                }
            }
        }
        println!(
            "shear factor {shear_factor:?}, soft {soft}: max |tangent - central difference| / max |entry|: K {:.1e}, \
             C {:.1e}, M {:.1e}",
            worst[0], worst[1], worst[2]
        );
        assert!(worst.iter().all(|&w| w < 1e-6), "{worst:?}");
    }
}

#[test]
fn rigid_motions_have_no_strain_energy_and_deformation_is_objective() {
    let (e, q0) = element(Some(0.85));
    let rest = e.strain_energy(&q0);
    let pq = from_axis_angle(unit([0.6, -0.2, 0.9]), 2.4);
    let moved = rigid_motion(&q0, pq, [3.0, -1.0, 7.5]);
    let moved_energy = e.strain_energy(&moved);
    let (mut i, mut f) = (vec![0.0; 14], vec![0.0; 14]);
    let e0 = CorotationalBeam3d::new(0, 7, rest_of(&q0), &props(Some(0.85)), [0.0; 3]);
    e0.add_forces(&Kin::without_inputs(&moved, &[0.0; 14], &[0.0; 14], 0.0), &mut i, &mut f);
    let force = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    // The same deformation seen after a rigid motion stores the same energy.
    let d = deformed(&q0);
    let (ud, ud_moved) = (e.strain_energy(&d), e.strain_energy(&rigid_motion(&d, pq, [3.0, -1.0, 7.5])));
    println!(
        "strain energy at rest {rest:.1e}, after a 2.4 rad rotation and translation {moved_energy:.1e} J, \
         max elastic force {force:.1e} N; deformed {ud:.6e} J, deformed and moved {ud_moved:.6e} J"
    );
    assert!(rest.abs() < 1e-20 && moved_energy.abs() < 1e-9 * ud, "{rest} {moved_energy}");
    assert!(force < 1e-6, "{force}");
    assert!((ud - ud_moved).abs() < 1e-10 * ud, "{ud} vs {ud_moved}");
}

fn rest_of(q: &[f64; 14]) -> ([f64; 3], [f64; 4], [f64; 3], [f64; 4]) {
    ([q[0], q[1], q[2]], [q[3], q[4], q[5], q[6]], [q[7], q[8], q[9]], [q[10], q[11], q[12], q[13]])
}

fn simulation(text: &str) -> Simulation {
    let model = Model::parse(text, "beam3d.toml").unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0)
        .unwrap_or_else(|e| panic!("{e}"))
}

const CLAMPED: &str = "[[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n";

#[test]
fn clamped_free_frequencies_match_beam_theory() {
    // Steel, 1 m, rectangle-like section with Iy != Iz given by its values; slender (radius of
    // gyration r / L < 0.01), so rotary inertia lowers bending mode n by about (r beta_n)^2 / 2
    // (Rayleigh's correction; 0.25 % for mode 3 about z) and shear (Timoshenko) by about three
    // times that. 10 elements: the centre line's cubic mass converges as h^4 (a mass of linear
    // translations gave mode 3 +3.6 % here).
    let (e, nu, rho, l, a, iy, iz, j): (f64, f64, f64, f64, f64, f64, f64, f64) =
        (2.1e11, 0.3, 7850.0, 1.0, 1e-4, 2e-9, 8e-9, 3e-9);
    let g = e / (2.0 * (1.0 + nu));
    let bending = |i: f64, bl: f64| bl * bl / (2.0 * PI) * (e * i / (rho * a * l.powi(4))).sqrt();
    let theory = [
        ("bending x-z (Iy), mode 1", bending(iy, 1.875_104_07)),
        ("bending x-y (Iz), mode 1", bending(iz, 1.875_104_07)),
        ("bending x-z (Iy), mode 2", bending(iy, 4.694_091_13)),
        ("bending x-y (Iz), mode 2", bending(iz, 4.694_091_13)),
        ("bending x-z (Iy), mode 3", bending(iy, 7.854_757_44)),
        ("bending x-y (Iz), mode 3", bending(iz, 7.854_757_44)),
        ("torsion, mode 1", (g * j / (rho * (iy + iz))).sqrt() / (4.0 * l)),
        ("axial, mode 1", (e / rho).sqrt() / (4.0 * l)),
    ];
    for formulation in ["euler_bernoulli", "timoshenko"] {
        let text = format!(
            "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [{l}, 0.0, 0.0]\n\
             elements = 10\nsection = {{ area = {a}, iy = {iy}, iz = {iz}, j = {j} }}\n\
             material = {{ E = {e}, nu = {nu}, rho = {rho} }}\nformulation = \"{formulation}\"\n{CLAMPED}"
        );
        let f = simulation(&text).natural_frequencies().unwrap();
        println!("{formulation}, 10 elements:");
        // Euler-Bernoulli within 0.5 % (rotary inertia); Timoshenko within 1 % but for mode 3,
        // which shear lowers by about 1 % against Euler-Bernoulli theory.
        let (tolerance, last) = if formulation == "timoshenko" { (0.01, 4) } else { (0.005, 6) };
        for (k, (what, reference)) in theory.into_iter().enumerate() {
            if k >= last && k < 6 {
                continue;
            }
            let nearest =
                f.iter().copied().min_by(|x, y| (x - reference).abs().total_cmp(&(y - reference).abs())).unwrap();
            let err = nearest / reference - 1.0;
            println!("  {what}: {nearest:.4} Hz vs theory {reference:.4} Hz ({:+.3} %)", 100.0 * err);
            assert!(err.abs() < tolerance, "{what}: {nearest} vs {reference}");
        }
    }
}

/// Total linear and angular momentum of the beams of `sys`.
fn momentum(sys: &System, q: &[f64], v: &[f64]) -> ([f64; 3], [f64; 3]) {
    let (mut p, mut l) = ([0.0; 3], [0.0; 3]);
    for e in sys.elements::<CorotationalBeam3d>() {
        let (pe, le) = e.momentum(q, v);
        for k in 0..3 {
            p[k] += pe[k];
            l[k] += le[k];
        }
    }
    (p, l)
}

#[test]
fn free_spinning_beam_conserves_momentum() {
    // A soft free beam set spinning about a skew axis through its start while translating:
    // the centrifugal load stretches and bends it, which then vibrates; no external force.
    let text = "[model]\nname = \"spin\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
                end = [1.0, 0.2, 0.1]\nelements = 6\nsection = { width = 0.02, height = 0.03 }\n\
                material = { E = 2e7, nu = 0.3, rho = 1000.0 }\nvelocity = [0.5, -0.2, 0.1]\n\
                angular_velocity = [0.3, 1.0, 4.0]\n";
    let model = Model::parse(text, "spin.toml").unwrap();
    let settings = SolverSettings {
        method: Method::Ttbif,
        rho_inf: 1.0,
        step: 1e-3,
        tolerance: 1e-12,
        constraints: flexfmu::simulation::ConstraintTreatment::Ggl,
        ..SolverSettings::default()
    };
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    let (p0, l0) = momentum(sim.system(), &sim.state().q, &sim.state().v);
    sim.step_to(1.0).unwrap();
    let (p1, l1) = momentum(sim.system(), &sim.state().q, &sim.state().v);
    let dp = (0..3).map(|k| (p1[k] - p0[k]).abs()).fold(0.0, f64::max);
    let dl = (0..3).map(|k| (l1[k] - l0[k]).abs()).fold(0.0, f64::max);
    let norm = |x: [f64; 3]| (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
    // The beam deforms: its nodes left the rigid motion.
    let n = sim.state().q.len();
    let stretch = {
        let q = &sim.state().q;
        ((q[n - 7] - q[0]).powi(2) + (q[n - 6] - q[1]).powi(2) + (q[n - 5] - q[2]).powi(2)).sqrt()
            - (1.0f64 + 0.04 + 0.01).sqrt()
    };
    println!(
        "spinning beam, 1 s (TTBIF rho_inf 1, h 1e-3, GGL): |P| = {:.6} kg m/s, |L| = {:.6} kg m^2/s; \
         drift max |dP| = {dp:.2e}, max |dL| = {dl:.2e}; end-to-end stretch {stretch:.3e} m",
        norm(p0),
        norm(l0)
    );
    assert!(stretch.abs() > 1e-5, "the beam did not deform ({stretch})");
    assert!(dp < 1e-10 * norm(p0), "linear momentum drift {dp}");
    assert!(dl < 1e-6 * norm(l0), "angular momentum drift {dl}");
}

/// Statics in `increments` load steps; loads are `P*t`, so time t in (0, 1] is the load factor.
fn static_solution(text: &str, increments: usize) -> (Simulation, Vec<f64>) {
    let sim = simulation(text);
    let (mut q, mut lambda) = (sim.state().q.clone(), sim.state().lambda.clone());
    for k in 1..=increments {
        let t = k as f64 / increments as f64;
        static_equilibrium(sim.system(), &mut q, &mut lambda, t, 1e-12)
            .unwrap_or_else(|e| panic!("increment {k}: {e}"));
    }
    (sim, q)
}

#[test]
fn bathe_bolourchi_45_degree_bend() {
    // Bathe & Bolourchi (1979): a 45-degree arc of radius 100 in the x-y plane, clamped at the
    // origin (tangent x, centre (0, 100, 0)), square section A = 1, I = 1/12, J = 1/6 (nu = 0:
    // G = E/2), E = 1e7, 8 straight elements, a fixed tip load P = 600 along z. Tip positions
    // (x, y, z) at P = 600 as tabulated by Simo & Vu-Quoc (1986, "A three-dimensional
    // finite-strain rod model. Part II", CMAME 58, sec. 7.3): Bathe & Bolourchi (47.2, 15.9,
    // 53.4); Simo & Vu-Quoc, 8 elements, (47.23, 15.79, 53.37). (Quoted from the literature;
    // the environment's search tool did not return the tables.) The initial tip is at
    // (70.71, 29.29, 0).
    let r = 100.0;
    let (s, c) = (PI / 4.0).sin_cos();
    let text = format!(
        "[model]\nname = \"bend\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
         end = [{}, {}, 0.0]\ncenter = [0.0, {r}, 0.0]\nelements = 8\n\
         section = {{ area = 1.0, iy = 0.0833333333333333, iz = 0.0833333333333333, j = 0.1666666666666667 }}\n\
         material = {{ E = 1e7, nu = 0.0, rho = 1.0 }}\nformulation = \"euler_bernoulli\"\n{CLAMPED}\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 0.0, 1.0]\nvalue = \"600*t\"\n",
        r * s,
        r * (1.0 - c)
    );
    let (sim, q) = static_solution(&text, 30);
    let tip = sim.system().body("b.node[8]").unwrap().x;
    let x = [q[tip], q[tip + 1], q[tip + 2]];
    let reference = [47.23, 15.79, 53.37];
    let displacement = ((x[0] - r * s).powi(2) + (x[1] - r * (1.0 - c)).powi(2) + x[2].powi(2)).sqrt();
    let err = (0..3).map(|k| (x[k] - reference[k]).abs()).fold(0.0, f64::max);
    println!(
        "45-degree bend, P = 600, 8 elements: tip ({:.2}, {:.2}, {:.2}) vs Simo & Vu-Quoc ({:.2}, {:.2}, {:.2}): \
         max difference {err:.3} ({:.2} % of the tip displacement {displacement:.2})",
        x[0],
        x[1],
        x[2],
        reference[0],
        reference[1],
        reference[2],
        100.0 * err / displacement
    );
    assert!(err < 0.01 * displacement, "{x:?}");
}

#[test]
fn planar_cantilever_equals_the_planar_element() {
    // Cantilever 1 m along x, tip load 300 N along y (P L^2 / EI = 1.7: large deflection), 10 Timoshenko
    // elements, with the planar element (dimension 2) and the spatial one.
    let common = "elements = 10\nmaterial = { E = 2.1e11, nu = 0.3, rho = 7850.0 }\nformulation = \"timoshenko\"\n";
    let planar = format!(
        "[model]\nname = \"p\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\n{common}\
         section = {{ width = 0.01, height = 0.01 }}\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 1.0]\nvalue = \"300*t\"\n"
    );
    let spatial = format!(
        "[model]\nname = \"s\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\n\
         {common}section = {{ width = 0.01, height = 0.01 }}\n{CLAMPED}\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 1.0, 0.0]\nvalue = \"300*t\"\n"
    );
    let (sim2, q2) = static_solution(&planar, 20);
    let (sim3, q3) = static_solution(&spatial, 20);
    let (t2, t3) = (sim2.system().body("b.node[10]").unwrap().x, sim3.system().body("b.node[10]").unwrap().x);
    let (x2, y2, th2) = (q2[t2], q2[t2 + 1], q2[t2 + 2]);
    let p = &q3[t3 + 3..t3 + 7];
    // Rotation about z: p = (cos(th/2), 0, 0, sin(th/2)).
    let th3 = 2.0 * p[3].atan2(p[0]);
    let (x3, y3, z3) = (q3[t3], q3[t3 + 1], q3[t3 + 2]);
    let diff = (x3 - x2).abs().max((y3 - y2).abs()).max((th3 - th2).abs());
    println!(
        "planar cantilever, tip: 2D ({x2:.10}, {y2:.10}, {th2:.10}), 3D ({x3:.10}, {y3:.10}, {th3:.10}), \
         z {z3:.1e}, out-of-plane Euler parameters {:.1e} {:.1e}; max difference {diff:.2e}",
        p[1], p[2]
    );
    assert!(y2 > 0.2, "not a large deflection: {y2}");
    assert!(diff < 1e-9 && z3.abs() < 1e-12 && p[1].abs() < 1e-12 && p[2].abs() < 1e-12, "{diff}");
}

/// Gravity acts on the centre line's mass (`corotational_center_line_3d.rs`): a free beam falls
/// with a = g everywhere and does not bend, and a cantilever under its own weight sags
/// q L^4 / (8 EI) at 4 elements (the consistent load of Hermite elements gives the exact nodal
/// solution; linear range). With the weight lumped at the nodes (a probe written from the docs)
/// the spatial cantilever sagged 2.1 % too far, the planar one exactly.
#[test]
fn gravity_loads_the_centre_line() {
    for formulation in ["euler_bernoulli", "timoshenko"] {
        let beam = |joint: &str| {
            format!(
                "[model]\nname = \"g\"\ndimension = 3\ngravity = [0.0, -9.81, 0.0]\n[[beams]]\nname = \"b\"\n\
                 start = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 4\nformulation = \"{formulation}\"\n\
                 section = {{ width = 0.01, height = 0.01 }}\nmaterial = {{ E = 210e9, nu = 0.3, rho = 7850.0 }}\n{joint}\
                 [[outputs]]\nname = \"ay\"\nquantity = \"ay\"\nbody = \"b.end\"\n\
                 [[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"b.end\"\n\
                 [[outputs]]\nname = \"mid_y\"\nquantity = \"y\"\nbody = \"b.node[2]\"\n"
            )
        };
        let mut sim = simulation(&beam(""));
        let a0 = sim.output_values().unwrap()[0];
        sim.step_to(0.2).unwrap();
        let o = sim.output_values().unwrap();
        let fall = 0.5 * 9.81 * 0.2 * 0.2;
        let bend = (o[1] - o[2]).abs();
        println!(
            "{formulation}: free fall a = {a0:.9} m/s^2, tip {:.9} m (exact {:.9}), tip - middle {bend:.1e} m",
            o[1], -fall
        );
        assert!((a0 + 9.81).abs() < 1e-9 * 9.81, "{formulation}: end acceleration {a0}");
        assert!((o[1] + fall).abs() < 1e-9 && bend < 1e-12, "{formulation}: tip {} middle {}", o[1], o[2]);
        let mut sim = simulation(&beam(CLAMPED));
        sim.settle_static(0.0).unwrap();
        let sag = -sim.output_values().unwrap()[1];
        let (q, ei) = (7850.0 * 1e-4 * 9.81, 210e9 * 0.01f64.powi(4) / 12.0);
        let theory = q / (8.0 * ei);
        println!("{formulation}: cantilever sag {sag:.6e} m, q L^4/(8 EI) {theory:.6e} m");
        assert!((sag - theory).abs() < 2e-4 * theory, "{formulation}: sag {sag} vs {theory}");
    }
}

/// A quarter-circle steel cantilever (radius 1 m, round section r = 1 cm, 32 elements) under an
/// out-of-plane tip load P t: unloaded at t = 0, the forces in play are only the round-off of
/// its elastic forces (residual 1e-7 N m), which no relative test passes, and `statics` said
/// "no equilibrium reached" (a probe). At P = 1 N the tip deflection is Castigliano's
/// P R^3 (pi / (4 EI) + (3 pi / 4 - 2) / (GJ)) = 7.5697e-4 m (within 5e-4 at 32 elements).
#[test]
fn an_unloaded_curved_cantilever_is_its_own_equilibrium() {
    let (r, radius, e, nu) = (1.0f64, 0.01f64, 2.1e11f64, 0.3f64);
    let text = format!(
        "[model]\nname = \"arc\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [{r}, 0.0, 0.0]\n\
         end = [0.0, {r}, 0.0]\ncenter = [0.0, 0.0, 0.0]\nelements = 32\nformulation = \"euler_bernoulli\"\n\
         section = {{ shape = \"circle\", radius = {radius} }}\nmaterial = {{ E = {e}, nu = {nu}, rho = 7850.0 }}\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [{r}, 0.0, 0.0]\n[[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 0.0, 1.0]\nvalue = \"t\"\n\
         [[outputs]]\nname = \"tip_z\"\nquantity = \"z\"\nbody = \"b.end\"\n"
    );
    let mut sim = simulation(&text);
    sim.settle_static(0.0).unwrap();
    assert!(sim.output_values().unwrap()[0].abs() < 1e-15);
    sim.settle_static(1.0).unwrap();
    let tip = sim.output_values().unwrap()[0];
    let i = PI * radius.powi(4) / 4.0;
    let (ei, gj) = (e * i, e / (2.0 * (1.0 + nu)) * 2.0 * i);
    let theory = r.powi(3) * (PI / (4.0 * ei) + (0.75 * PI - 2.0) / gj);
    println!("quarter circle, P = 1 N: tip {tip:.6e} m, Castigliano {theory:.6e} m");
    assert!((tip / theory - 1.0).abs() < 5e-4, "{tip} vs {theory}");
}

/// A planar motion of the spatial beam is the planar element's (paper 000's consistent mass is
/// the kinetic energy of the same cubic field, `corotational_center_line_3d.rs`): a 1 m
/// flexible steel-density strip (E = 2.1 GPa, 10 Euler-Bernoulli elements) pinned at one end
/// falls from horizontal for 0.5 s (tip travels 1 m, bending visibly). The tip's y agrees to
/// 1e-6 m (the nodes' lumped rotary inertia against the planar element's consistent one); with
/// the translations' linear mass it differed by 1.3e-3 m.
#[test]
fn a_falling_flexible_pendulum_moves_as_the_planar_one() {
    let beam = |dimension: usize| {
        let (v, axis) = if dimension == 3 { (", 0.0", "axis = [0.0, 0.0, 1.0]\n") } else { ("", "") };
        format!(
            "[model]\nname = \"p\"\ndimension = {dimension}\ngravity = [0.0, -9.81{v}]\n[[beams]]\nname = \"b\"\n\
             start = [0.0, 0.0{v}]\nend = [1.0, 0.0{v}]\nelements = 10\nformulation = \"euler_bernoulli\"\n\
             section = {{ width = 0.01, height = 0.01 }}\nmaterial = {{ E = 2.1e9, nu = 0.3, rho = 7850.0 }}\n\
             [[joints]]\nname = \"pin\"\ntype = \"revolute\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0{v}]\n{axis}\
             [[outputs]]\nname = \"tip_y\"\nquantity = \"y\"\nbody = \"b.end\"\n"
        )
    };
    let (mut planar, mut spatial) = (simulation(&beam(2)), simulation(&beam(3)));
    let mut worst = 0.0f64;
    for k in 1..=100 {
        let t = 0.005 * k as f64;
        planar.step_to(t).unwrap();
        spatial.step_to(t).unwrap();
        let (y2, y3) = (planar.output_values().unwrap()[0], spatial.output_values().unwrap()[0]);
        worst = worst.max((y2 - y3).abs());
    }
    let y = planar.output_values().unwrap()[0];
    println!("falling flexible pendulum: tip y at 0.5 s {y:.6} m; largest |planar - spatial| {worst:.2e} m");
    assert!(y < -0.9, "the tip fell ({y})");
    assert!(worst < 1e-5, "planar and spatial tips {worst:.3e} m apart");
}

#[test]
fn bad_beam_input_gets_located_errors() {
    let base = |beam: &str| {
        format!(
            "[model]\nname = \"bad\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
             end = [1.0, 0.0, 0.0]\n{beam}"
        )
    };
    let section = "section = { area = 1e-4, iy = 1e-9, iz = 1e-9, j = 2e-9 }\n";
    let material = "material = { E = 2e11, nu = 0.3, rho = 7800.0 }\n";
    for (beam, line, needle) in [
        (format!("elements = 0\n{section}{material}"), 8, "elements must be an integer >= 1"),
        (format!("elements = 2\n{section}material = {{ E = -2e11, nu = 0.3, rho = 7800.0 }}\n"), 10, "E"),
        (format!("elements = 2\n{material}"), 4, "section"),
        (format!("elements = 2\nsection = {{ area = 1e-4, inertia = 1e-9 }}\n{material}"), 9, "iy"),
        (format!("elements = 2\nsection = {{ area = 1e-4, iy = 1e-9 }}\n{material}"), 9, "all of area, iy, iz and j"),
        (format!("elements = 2\nsection = {{ shape = \"hexagon\", radius = 0.1 }}\n{material}"), 9, "hexagon"),
        (format!("elements = 2\n{section}{material}y_axis = [2.0, 0.0, 0.0]\n"), 11, "parallel"),
        (format!("elements = 2\n{section}{material}center = [0.5, 0.0, 0.0]\n"), 11, "collinear"),
    ] {
        let text = base(&beam);
        let err = match Model::parse(&text, "bad.toml") {
            Err(e) => e.to_string(),
            Ok(m) => Simulation::new(&m, &m.default_parameters(), SolverSettings::default(), 0.0)
                .map(|_| ())
                .expect_err(&text)
                .to_string(),
        };
        println!("{err}");
        assert!(err.starts_with(&format!("bad.toml:{line}:")) && err.contains(needle), "{err}\n{text}");
    }
}

#[test]
fn beams_jointed_to_each_other_and_to_a_rigid_body() {
    // A cantilever split into two beams welded by a fixed joint is the single beam; a rigid
    // body welded to the tip weighs on it like a tip force m g (statics under gravity, the
    // full load in one Newton solve: the deflection is small).
    let material = "material = { E = 2.1e11, nu = 0.3, rho = 7850.0 }\nsection = { width = 0.03, height = 0.01 }\n";
    let head = "[model]\nname = \"j\"\ndimension = 3\ngravity = [0.0, 0.0, -9.81]\n";
    let single = format!(
        "{head}[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 8\n{material}{CLAMPED}\
         [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 0.0, -1.0]\nvalue = \"2*9.81\"\n"
    );
    let split = format!(
        "{head}[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [0.5, 0.0, 0.0]\nelements = 4\n{material}\
         [[beams]]\nname = \"c\"\nstart = [0.5, 0.0, 0.0]\nend = [1.0, 0.0, 0.0]\nelements = 4\n{material}{CLAMPED}\
         [[joints]]\nname = \"weld\"\ntype = \"fixed\"\nbody1 = \"b.end\"\nbody2 = \"c.start\"\npoint = [0.5, 0.0, 0.0]\n\
         [[rigid_bodies]]\nname = \"tip\"\nmass = 2.0\ninertia = [1e-4, 1e-4, 1e-4]\nposition = [1.0, 0.0, 0.0]\n\
         [[joints]]\nname = \"tip_weld\"\ntype = \"fixed\"\nbody1 = \"c.end\"\nbody2 = \"tip\"\npoint = [1.0, 0.0, 0.0]\n"
    );
    let (s1, q1) = static_solution(&single, 1);
    let (s2, q2) = static_solution(&split, 1);
    let (t1, t2) = (s1.system().body("b.node[8]").unwrap().x, s2.system().body("c.node[4]").unwrap().x);
    let (m1, m2) = (s1.system().body("b.node[4]").unwrap().x, s2.system().body("b.node[4]").unwrap().x);
    let diff = (0..7).map(|k| (q1[t1 + k] - q2[t2 + k]).abs().max((q1[m1 + k] - q2[m2 + k]).abs())).fold(0.0, f64::max);
    println!(
        "tip z: single beam + tip force {:.15e} m, two welded beams + welded tip body {:.15e} m ({} and {} coordinates); max coordinate difference {diff:.1e}",
        q1[t1 + 2],
        q2[t2 + 2],
        q1.len(),
        q2.len()
    );
    // Timoshenko cantilever under a tip force P and its weight q per length: w = P L^3/(3 EI)
    // + q L^4/(8 EI) + P L/(k G A) + q L^2/(2 k G A), EI = E h w^3/12 (bending about the
    // section's y axis, width 0.03 along z).
    let (e, g, a, iy, k) = (2.1e11, 2.1e11 / 2.6, 3e-4, 0.01 * 0.03f64.powi(3) / 12.0, 13.0 / 15.3);
    let (p, q, l) = (2.0 * 9.81, 7850.0 * a * 9.81, 1.0);
    let theory = p * l * l * l / (3.0 * e * iy)
        + q * l.powi(4) / (8.0 * e * iy)
        + p * l / (k * g * a)
        + q * l * l / (2.0 * k * g * a);
    let err = -q1[t1 + 2] / theory - 1.0;
    println!("beam theory {theory:.6e} m: {:+.3} % (small-deflection theory; weight lumped at the nodes)", 100.0 * err);
    assert!(err.abs() < 5e-3 && diff < 1e-12, "{err} {diff}");
}

/// A section whose mass is given apart from its stiffness (`mass_per_length`,
/// `rotary_inertia`, as Simo & Vu-Quoc 1988 give rho A and rho J): the clamped-free
/// frequencies follow the given mass, bending and axial sqrt(EI / (m L^4)) and sqrt(EA / m)
/// with m = `mass_per_length`, torsion sqrt(GJ / J_x) with J_x the polar `rotary_inertia`.
#[test]
fn section_mass_given_apart_from_the_stiffness_sets_the_frequencies() {
    let (e, nu, l, a, iy, iz, j): (f64, f64, f64, f64, f64, f64, f64) = (2.1e11, 0.3, 1.0, 1e-4, 2e-9, 8e-9, 3e-9);
    let (m, jx) = (1.7, 2.5e-4); // kg/m and kg m: not those of any density with this section
    let g = e / (2.0 * (1.0 + nu));
    let bending = |i: f64, bl: f64| bl * bl / (2.0 * PI) * (e * i / (m * l.powi(4))).sqrt();
    let theory = [
        ("bending x-z (Iy), mode 1", bending(iy, 1.875_104_07)),
        ("bending x-y (Iz), mode 1", bending(iz, 1.875_104_07)),
        ("torsion, mode 1", (g * j / jx).sqrt() / (4.0 * l)),
        ("axial, mode 1", (e * a / m).sqrt() / (4.0 * l)),
    ];
    let text = format!(
        "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\nend = [{l}, 0.0, 0.0]\n\
         elements = 40\nsection = {{ area = {a}, iy = {iy}, iz = {iz}, j = {j}, mass_per_length = {m}, \
         rotary_inertia = [{jx}, 1e-9, 1e-9] }}\nmaterial = {{ E = {e}, nu = {nu}, rho = 7850.0 }}\n\
         formulation = \"euler_bernoulli\"\n{CLAMPED}"
    );
    let f = simulation(&text).natural_frequencies().unwrap();
    for (what, reference) in theory {
        let nearest = f.iter().copied().min_by(|x, y| (x - reference).abs().total_cmp(&(y - reference).abs())).unwrap();
        let err = nearest / reference - 1.0;
        println!("  {what}: {nearest:.4} Hz vs theory {reference:.4} Hz ({:+.3} %)", 100.0 * err);
        assert!(err.abs() < 0.01, "{what}: {nearest} vs {reference}");
    }
    // Located errors: a non-positive value, a rotary inertia that is not [Jx, Jy, Jz] (a number is
    // the planar form: tests/suite/beam_models.rs), and the 3-vector in a planar model.
    let error = |text: &str| {
        Model::parse(text, "bad.toml")
            .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    let given = format!("rotary_inertia = [{jx}, 1e-9, 1e-9]");
    // The column of the value on line 9 (the section's line).
    let column = text.lines().nth(8).unwrap().find(&given).unwrap() + "rotary_inertia = ".len() + 1;
    for (to, needle) in [
        ("mass_per_length = -1.0".to_string(), "mass_per_length must be positive"),
        (format!("rotary_inertia = [{jx}, 0.0, 1e-9]"), "rotary_inertia must be positive"),
        (format!("rotary_inertia = {jx}"), "in a spatial model, rotary_inertia is [Jx, Jy, Jz]"),
        (format!("rotary_inertia = [{jx}, 1e-9]"), "in a spatial model, rotary_inertia is [Jx, Jy, Jz]"),
    ] {
        let from = if to.starts_with("mass") { "mass_per_length = 1.7" } else { given.as_str() };
        let message = error(&text.replace(from, &to));
        println!("{to}: {message}");
        assert!(message.starts_with("bad.toml:9:") && message.contains(needle), "{message}");
        if !to.starts_with("mass") {
            assert!(message.starts_with(&format!("bad.toml:9:{column}:")), "{message}");
        }
    }
    let planar = "[model]\nname = \"p\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [1.0, 0.0]\nelements = 2\n\
                  section = { area = 1e-4, inertia = 1e-9, rotary_inertia = [1.0, 1.0, 1.0] }\nmaterial = { E = 2e11, nu = 0.3, rho = 7850.0 }\n";
    let message = error(planar);
    assert!(message.starts_with("bad.toml:8:") && message.contains("rotary_inertia is one number"), "{message}");
}
