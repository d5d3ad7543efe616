//! Assembly of large models: every name (bodies, floating-frame beam points, joints,
//! contacts) is looked up in a map, so 100,000 bodies assemble in time linear in the model's
//! size. This test checks the assembled system, not the time: the timing is in
//! benches/assembly_scaling.py (numbers in docs/architecture.md).

use flexfmu::integrators::Dynamics;
use flexfmu::mechanics::assemble::assemble;
use flexfmu::mechanics::elements::{FloatingFrameBeam2d, PointMass};
use flexfmu::mechanics::forces::{Load, SpringDamper};
use flexfmu::model::Model;

/// 100,000 point masses, each on a prismatic joint to ground and a spring to the next one;
/// a few floating-frame beams pinned at a point of their axis and loaded at their tip.
#[test]
fn hundred_thousand_bodies_assemble_correctly() {
    let n = 100_000;
    let beams = 50;
    let mut text = String::from("[model]\nname = \"many\"\ngravity = [0.0, -9.81]\n");
    for i in 0..n {
        text += &format!("[[point_masses]]\nname = \"p{i}\"\nmass = {}.0\nposition = [{i}.0, 0.0]\n", 1 + i % 3);
    }
    for i in 0..beams {
        let x = -2.0 * (i + 1) as f64;
        text += &format!(
            "[[beams]]\nname = \"b{i}\"\nformulation = \"floating_frame\"\nmodes = 1\nstart = [{x}, 5.0]\n\
             end = [{}, 5.0]\nsection = {{ area = 1e-4, inertia = 1e-9 }}\nmaterial = {{ E = 2e11, nu = 0.3, rho = 7800.0 }}\n",
            x + 1.0
        );
    }
    for i in 0..n {
        text += &format!(
            "[[joints]]\nname = \"j{i}\"\ntype = \"prismatic\"\nbody1 = \"ground\"\nbody2 = \"p{i}\"\n\
             point = [{i}.0, 0.0]\naxis = [1.0, 0.0]\n"
        );
    }
    for i in 0..beams {
        let x = -2.0 * (i + 1) as f64;
        text += &format!(
            "[[joints]]\nname = \"pin{i}\"\ntype = \"revolute\"\nbody1 = \"ground\"\nbody2 = \"b{i}\"\npoint = [{}, 5.0]\n",
            x + 0.5
        );
    }
    for i in 0..n - 1 {
        text += &format!("[[springs]]\nname = \"s{i}\"\nbody1 = \"p{i}\"\nbody2 = \"p{}\"\nstiffness = 10.0\n", i + 1);
    }
    for i in 0..beams {
        text += &format!("[[loads]]\ntype = \"force\"\nbody = \"b{i}.end\"\ndirection = [0.0, 1.0]\nvalue = 1.0\n");
    }
    text += &format!("[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"p{}\"\n", n - 1);
    text += &format!("[[outputs]]\nname = \"tip\"\nquantity = \"y\"\nbody = \"b{}.end\"\n", beams - 1);

    let model = Model::parse(&text, "many.toml").unwrap();
    let asm = assemble(&model, &model.default_parameters()).unwrap();
    let sys = &asm.system;

    // Point masses first (2 coordinates each), then the beams (3 frame + 2 modal each).
    assert_eq!(sys.coordinates(), 2 * n + 5 * beams);
    assert_eq!(sys.constraints(), n + 2 * beams);
    assert_eq!(sys.elements::<PointMass>().len(), n);
    assert_eq!(sys.elements::<FloatingFrameBeam2d>().len(), beams);
    assert_eq!(sys.elements::<SpringDamper>().len(), n - 1);
    assert_eq!(sys.elements::<Load>().len(), beams);
    for i in [0, 1, 4567, n - 1] {
        let body = sys.body(&format!("p{i}")).unwrap();
        assert_eq!(body.x, 2 * i);
        assert_eq!(asm.initial.q[body.x], i as f64);
        assert_eq!(asm.initial.q[body.x + 1], 0.0);
        let joint = &sys.joints[i];
        assert_eq!(joint.name, format!("j{i}"));
        assert_eq!(joint.rows, i..i + 1);
        assert_eq!(joint.body2_x, 2 * i);
    }
    let last = sys.body(&format!("b{}.start", beams - 1)).unwrap();
    assert_eq!(last.x, 2 * n + 5 * (beams - 1));
    assert_eq!(asm.initial.q[last.x], -2.0 * beams as f64);
    let pin = &sys.joints[n + beams - 1];
    assert_eq!(
        (pin.name.as_str(), pin.rows.clone()),
        (&*format!("pin{}", beams - 1), n + 2 * (beams - 1)..n + 2 * beams)
    );
    // The initial state is consistent: every joint row holds.
    let mut phi = vec![0.0; sys.constraints()];
    sys.constraint_residual(&asm.initial.q, 0.0, &mut phi);
    assert!(phi.iter().all(|p| p.abs() < 1e-12), "max residual {:e}", phi.iter().fold(0.0f64, |m, p| m.max(p.abs())));
    // Outputs name the last point mass and the last beam's tip.
    assert_eq!(asm.outputs.len(), 2);
    // A name that is not declared is still a located error.
    let bad = text.replacen(&format!("body = \"p{}\"\n", n - 1), "body = \"nobody\"\n", 1);
    let err = assemble(&Model::parse(&bad, "many.toml").unwrap(), &[]).map(|_| ()).unwrap_err();
    assert!(err.message.contains("unknown body 'nobody'"), "{}", err.message);
}
