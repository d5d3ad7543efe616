//! The spatial corotational beam (src/mechanics/elements/corotational_beam_3d.rs).

use flexfmu::integrators::TangentCoefficients;
use flexfmu::mechanics::elements::{CorotationalBeam3d, Element, Kin, SpatialBeamProperties};
use flexfmu::mechanics::euler_parameters::{from_axis_angle, rotation};

fn props(shear_factor: Option<f64>) -> SpatialBeamProperties {
    SpatialBeamProperties {
        young: 2.1e11,
        shear: 2.1e11 / 2.6,
        area: 1e-4,
        iy: 2e-9,
        iz: 8e-9,
        torsion: 3e-9,
        shear_factor,
        density: 7850.0,
    }
}

/// Quaternion product a b (Euler parameters of the rotation A(a) A(b)).
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

/// An element along x from (0,0,0) to (0.5,0,0) with identity node frames.
fn element(shear_factor: Option<f64>) -> CorotationalBeam3d {
    let p = [1.0, 0.0, 0.0, 0.0];
    CorotationalBeam3d::new(0, 7, ([0.0; 3], p, [0.5, 0.0, 0.0], p), &props(shear_factor), [0.0, 0.0, -9.81])
}

fn forces(e: &CorotationalBeam3d, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {
    let (mut i, mut f) = (vec![0.0; 14], vec![0.0; 14]);
    e.add_forces(&Kin { q, v, a, t: 0.0, inputs: &[] }, &mut i, &mut f);
    i.iter().zip(&f).map(|(x, y)| x + y).collect()
}

#[test]
fn linear_stiffness_at_rest_is_the_beam_stiffness() {
    let e = element(None);
    let q = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let mut k = vec![0.0; 196];
    let c = TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 };
    e.add_tangent(&Kin { q: &q, v: &[0.0; 14], a: &[0.0; 14], t: 0.0, inputs: &[] }, &c, &mut k);
    for r in 0..14 {
        println!("{:?}", (0..14).map(|c| format!("{:.3e}", k[r * 14 + c])).collect::<Vec<_>>());
    }
    let _ = (compose, unit, forces, from_axis_angle([1.0, 0.0, 0.0], 0.0), rotation(&[1.0, 0.0, 0.0, 0.0]));
}

#[test]
fn scratch_static_tip() {
    use flexfmu::analysis::statics::static_equilibrium;
    use flexfmu::model::Model;
    use flexfmu::simulation::{Simulation, SolverSettings};
    let text = std::fs::read_to_string(&std::env::var("CANT").unwrap()).unwrap()
        + "[[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = [0.0, 0.0, 1.0]\nvalue = 1.0\n";
    let model = Model::parse(&text, "c.toml").unwrap();
    let sim = Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0).unwrap();
    let sys = sim.system();
    let (mut q, mut lambda) = (sim.state().q.clone(), sim.state().lambda.clone());
    static_equilibrium(sys, &mut q, &mut lambda, 0.0, 1e-12).unwrap();
    let tip = sys.body(&format!("b.node[{}]", std::env::var("N").unwrap())).unwrap().x;
    println!("tip z {} expected {}", q[tip + 2], 1.0 / (3.0 * 2.1e11 * 2e-9));
    println!("f {:?}", sim.natural_frequencies().unwrap()[..4].to_vec());
}

#[test]
fn scratch_model_element() {
    use flexfmu::model::Model;
    use flexfmu::simulation::{Simulation, SolverSettings};
    let text = std::fs::read_to_string("/tmp/b3/c1.toml").unwrap();
    let model = Model::parse(&text, "c.toml").unwrap();
    let sim = Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0).unwrap();
    let sys = sim.system();
    let e = &sys.elements::<CorotationalBeam3d>()[0];
    println!("{e:?}");
    println!("q {:?}", sim.state().q);
}
