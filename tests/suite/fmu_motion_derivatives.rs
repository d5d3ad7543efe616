//! maxOutputDerivativeOrder = 2 holds for every output: fmi2GetRealOutputDerivatives gives
//! orders 1 and 2 of each output of each example model (src/simulation/motion_derivatives.rs
//! for those the solver state has no exact form of; they were fmi2Error before), and they are
//! the derivatives of the output's own history, of the energy balance and of Euler's
//! equations; reading them leaves the run as it is.

use std::path::Path;

use flexfmu::export::variables::Role;
use flexfmu::fmi2::api::fmi2SetInteger;

use crate::fmu_derivatives::Inst;

fn model_text(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("models/{name}.toml"))).unwrap()
}

fn output_names(inst: &Inst) -> Vec<String> {
    inst.vars.list.iter().filter(|v| matches!(v.role, Role::Output(_))).map(|v| v.name.clone()).collect()
}

/// Velocities on the velocity constraints (GGL, `solver_constraints` = 1), where the index-1
/// motion keeps them and conserves what the model conserves.
fn use_ggl(inst: &Inst) {
    assert_eq!(unsafe { fmi2SetInteger(inst.c, [inst.vr("solver_constraints")].as_ptr(), 1, [1].as_ptr()) }, 0);
}

/// `text` with the outputs `quantities` (no other keys) added where it has none of them.
fn with_outputs(text: &str, quantities: &[&str]) -> String {
    let mut text = text.to_string();
    for quantity in quantities {
        if !text.contains(&format!("quantity = \"{quantity}\"")) {
            text.push_str(&format!("\n[[outputs]]\nname = \"{quantity}\"\nquantity = \"{quantity}\"\n"));
        }
    }
    text
}

/// Every example model, every output, orders 1 and 2 at t = 0 and after 0.02 s: finite, and
/// orders 0 and 3 still errors. Reading them changes nothing: a second instance stepped the
/// same way without reading them has the same outputs, bit for bit, one step later (the
/// differences solve the index-1 system in storage of its own, and a fractional damper's
/// evaluations along the motion are forgotten).
#[test]
fn every_output_of_every_model_has_derivatives_of_orders_1_and_2() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    assert!(names.len() >= 25, "{names:?}");
    let mut count = 0;
    for name in &names {
        let (read, plain) = (Inst::new(name), Inst::new(name));
        let outputs = output_names(&read);
        for t in [0.0, 0.02] {
            if t > 0.0 {
                read.step(0.0, t);
                plain.step(0.0, t);
            }
            for output in &outputs {
                for order in [1, 2] {
                    let x = read.derivative(output, order).unwrap_or_else(|e| panic!("{name} t = {t}: {e}"));
                    assert!(x.is_finite(), "{name} t = {t}: {output} order {order} = {x}");
                    count += 1;
                }
                for order in [0, 3] {
                    let e = read.derivative(output, order).unwrap_err();
                    assert!(e.contains(&format!("order {order}")), "{e}");
                }
            }
        }
        read.step(0.02, 0.01);
        plain.step(0.02, 0.01);
        for output in &outputs {
            assert_eq!(read.get(output).to_bits(), plain.get(output).to_bits(), "{name}: {output}");
        }
    }
    eprintln!("{} models: {count} output derivatives", names.len());
}

/// One model's derivatives at `t` against its output history: the FMU runs with the internal
/// step `divisor` times finer than the model's, to t - 2H, t - H, t, t + H, t + 2H in
/// communication steps of H, and the derivatives read at t are compared with the fourth-order
/// central differences of the history,
///   y' ~ (y(-2H) - 8 y(-H) + 8 y(H) - y(2H)) / 12 H,
///   y'' ~ (-y(-2H) + 16 y(-H) - 30 y(0) + 16 y(H) - y(2H)) / 12 H^2
/// (truncation (H/T)^4 / 30 and / 90 relative on the time scale T). The difference is taken
/// relative to max(|difference|, 1e-3 Y / T^k), Y the largest |y| of the history: outputs a
/// motion keeps constant (a steadily precessing top's height, a conserved energy) have
/// derivatives of rounding and drift size, which only the output's own scale measures.
/// Returns the largest relative difference per order, with the output's name.
fn history_errors(name: &str, text: &str, t: f64, big_h: f64, divisor: f64, scale: f64) -> [(f64, String); 2] {
    // An energy's size is that of the kinetic and potential energies it holds.
    let text = if text.contains("quantity = \"energy_") {
        with_outputs(text, &["energy_kinetic", "energy_potential"])
    } else {
        text.to_string()
    };
    let inst = Inst::with_text(name, &text);
    let step = inst.get("solver_step");
    inst.set("solver_step", step / divisor);
    let outputs = output_names(&inst);
    let mut history = Vec::new();
    let mut derivatives = Vec::new();
    let mut now = 0.0;
    for k in -2..=2 {
        let target = t + k as f64 * big_h;
        inst.step(now, target - now);
        now = target;
        history.push(outputs.iter().map(|o| inst.get(o)).collect::<Vec<_>>());
        if k == 0 {
            derivatives = outputs
                .iter()
                .map(|o| [1, 2].map(|order| inst.derivative(o, order).unwrap_or_else(|e| panic!("{name}: {e}"))))
                .collect();
        }
    }
    let largest = |j: usize| history.iter().fold(0.0f64, |m, row| m.max(row[j].abs()));
    let energies = ["energy_kinetic", "energy_potential"]
        .map(|q| outputs.iter().position(|o| o == q).map_or(0.0, largest))
        .iter()
        .sum::<f64>();
    let mut worst = [(0.0f64, String::new()), (0.0f64, String::new())];
    for (j, output) in outputs.iter().enumerate() {
        let y: Vec<f64> = history.iter().map(|row| row[j]).collect();
        let fd = [
            (y[0] - 8.0 * y[1] + 8.0 * y[3] - y[4]) / (12.0 * big_h),
            (-y[0] + 16.0 * y[1] - 30.0 * y[2] + 16.0 * y[3] - y[4]) / (12.0 * big_h * big_h),
        ];
        let size = if output.starts_with("energy_") { energies.max(largest(j)) } else { largest(j) };
        for k in 0..2 {
            let d = derivatives[j][k];
            let relative = (d - fd[k]).abs() / fd[k].abs().max(1e-3 * size / scale.powi(k as i32 + 1)).max(1e-300);
            eprintln!("{name} t = {t}: {output} order {}: {d:.9e}, history {:.9e} ({relative:.1e})", k + 1, fd[k]);
            if relative > worst[k].0 {
                worst[k] = (relative, output.clone());
            }
        }
    }
    worst
}

/// Every output's derivatives against its own history (`history_errors`), for a rigid
/// mechanism with reactions and energies (crank_slider, with a spring-damper), a driven one
/// (crank_slider_driven: the drive torque and the supplied energy), a flexible pendulum
/// (pendulum_corotational, corotational beam), a spatial top (heavy_top: Euler parameters,
/// angular velocities, the pivot reaction), a contact model between impacts
/// (crank_slider_contact, its gap and contact state) and a fractional damper
/// (oscillator_fractional, whose force reads its history). The bound is per model, about 10x
/// what was measured: the history of a run at h/10 differs from the derivatives at its own
/// state by the integrator's O(h^2), which the differences along the motion (1e-9 to 1e-7)
/// do not reach. Measured worst (orders 1, 2): crank_slider 1e-7, 3e-7; crank_slider_driven
/// 5e-8, 2e-7; pendulum_corotational 3e-7, 3e-5 (its energy: the steps damp the stiff modes,
/// which the index-1 motion carries; the energy is conserved along that motion to 1e-12 and
/// decays in the history); heavy_top 9e-7, 2e-5 (the pivot reaction's second derivative,
/// ~0 in steady precession, on the output's scale); crank_slider_contact 1e-7, 1e-6;
/// oscillator_fractional 3e-5, 5e-5 (the exact acceleration too: the fractional series is
/// first order in its spacing). On the old code most of these were fmi2Error.
#[test]
fn derivatives_along_the_motion_are_those_of_the_output_history() {
    for (name, t, big_h, divisor, scale, bounds) in [
        ("crank_slider", 0.5, 2e-3, 10.0, 0.16, [1e-6, 3e-6]),
        ("crank_slider_driven", 0.5, 2e-3, 10.0, 0.16, [1e-6, 3e-6]),
        ("pendulum_corotational", 0.3, 2e-3, 10.0, 0.2, [3e-6, 3e-4]),
        ("heavy_top", 0.5, 1e-3, 10.0, 0.01, [1e-5, 2e-4]),
        ("crank_slider_contact", 0.5, 2e-3, 10.0, 0.16, [1e-6, 1e-5]),
        ("oscillator_fractional", 0.3, 2e-3, 10.0, 0.5, [3e-4, 5e-4]),
    ] {
        let worst = history_errors(name, &model_text(name), t, big_h, divisor, scale);
        for k in 0..2 {
            eprintln!("{name}: order {} worst {:.1e} ({})", k + 1, worst[k].0, worst[k].1);
            assert!(worst[k].0 < bounds[k], "{name}: order {}: {:e} ({})", k + 1, worst[k].0, worst[k].1);
        }
    }
}

/// energy_total' = supplied power - dissipated power along the motion, and its derivative
/// (measured: order 1 within 1e-11 of the larger rate; order 2 within 5e-9, and 2.5e-6 for the
/// flexible arm, whose beam's stiff modes the index-1 motion carries; bounds ~10x),
/// with the velocities on the velocity constraints (GGL), where the index-1 motion conserves
/// them (with index-3 velocities, O(h^2) off them, the multipliers work on that drift). The
/// energy_total side is a difference of the mechanical energy along the motion, the other the
/// powers of the dampers, loads and drives (`Dynamics::power`): two independent computations
/// of the same rates. Models: crank_slider (viscous damper), crank_slider_driven (a drive
/// supplies), flexible_arm_torque (a load on a flexible arm), oscillator_fractional (the
/// fractional term's work counts as dissipated, a constant force supplies), hertz_impact in
/// contact (no restitution loss: the contact's elastic energy trades with the kinetic).
#[test]
fn energy_total_changes_at_the_supplied_less_the_dissipated_power() {
    for (name, t, ggl, bounds) in [
        ("crank_slider", 0.5, true, [1e-10, 5e-8]),
        ("crank_slider_driven", 0.5, true, [1e-10, 5e-9]),
        ("flexible_arm_torque", 0.3, true, [1e-10, 3e-5]),
        ("oscillator_fractional", 0.3, false, [1e-10, 1e-8]),
        ("hertz_impact", 4e-5, false, [1e-9, 1e-7]),
    ] {
        let quantities = ["energy_total", "energy_supplied", "energy_dissipated", "energy_kinetic"];
        let text = with_outputs(&model_text(name), &quantities);
        let inst = Inst::with_text(name, &text);
        if ggl {
            use_ggl(&inst);
        }
        // Communication steps of 1/100 of the time (hertz_impact: the internal steps resolve
        // the contact).
        for k in 0..100 {
            inst.step(k as f64 * t / 100.0, t / 100.0);
        }
        // (These models name their energy outputs by their quantities.)
        let [total, supplied, dissipated, kinetic] = quantities;
        for (k, bound) in [1, 2].into_iter().zip(bounds) {
            let rate = inst.derivative(total, k).unwrap();
            let balance = inst.derivative(supplied, k).unwrap() - inst.derivative(dissipated, k).unwrap();
            // The scale: also the kinetic energy's rate of the same order, which a conservative
            // motion trades with the potential energy (hertz_impact: the balance is 0).
            let scale = balance.abs().max(rate.abs()).max(inst.derivative(kinetic, k).unwrap().abs());
            eprintln!("{name}: energy_total order {k}: {rate:.12e}, supplied - dissipated {balance:.12e}");
            assert!((rate - balance).abs() <= bound * scale, "{name} order {k}: {rate:e} vs {balance:e}");
        }
    }
}

/// torque_free_body (GGL): the body-frame angular velocity obeys Euler's equations
/// J w' = (J w) x w (J = diag(1, 2, 3) kg m^2). Order 1 is exact (2 G(p) p'' from the index-1 accelerations),
/// order 2 the rate of that along the motion; both against Euler's equations at the state's w,
/// w'' = J^-1 ((J w') x w + (J w) x w'). The energy is constant: its derivatives ~0 on the
/// scale J w^2 / T^k.
#[test]
fn body_angular_velocities_follow_euler_equations() {
    let inst = Inst::new("torque_free_body");
    use_ggl(&inst);
    let j = [1.0, 2.0, 3.0];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let mut now = 0.0;
    for t in [0.5, 3.0, 7.7] {
        inst.step(now, t - now);
        now = t;
        let w = ["w1", "w2", "w3"].map(|n| inst.get(n));
        let jw = [j[0] * w[0], j[1] * w[1], j[2] * w[2]];
        let c = cross(jw, w);
        let rate = [c[0] / j[0], c[1] / j[1], c[2] / j[2]];
        let (a, b) = (cross([j[0] * rate[0], j[1] * rate[1], j[2] * rate[2]], w), cross(jw, rate));
        let second = [(a[0] + b[0]) / j[0], (a[1] + b[1]) / j[1], (a[2] + b[2]) / j[2]];
        let scale = w.iter().map(|x| x * x).sum::<f64>();
        for (i, n) in ["w1", "w2", "w3"].into_iter().enumerate() {
            let (d1, d2) = (inst.derivative(n, 1).unwrap(), inst.derivative(n, 2).unwrap());
            eprintln!(
                "t = {t}: {n}' = {d1:.12e} (Euler {:.12e}), {n}'' = {d2:.12e} (Euler {:.12e})",
                rate[i], second[i]
            );
            assert!((d1 - rate[i]).abs() < 1e-9 * scale, "t = {t}: {n}' = {d1}, Euler {}", rate[i]);
            assert!((d2 - second[i]).abs() < 1e-7 * scale * scale.sqrt(), "t = {t}: {n}'' = {d2}, Euler {}", second[i]);
        }
        let energy = inst.get("energy_total");
        let (e1, e2) = (inst.derivative("energy_total", 1).unwrap(), inst.derivative("energy_total", 2).unwrap());
        eprintln!("t = {t}: energy {energy:.6e}, rates {e1:.1e} {e2:.1e}");
        assert!(e1.abs() < 1e-9 * energy * scale.sqrt() && e2.abs() < 1e-7 * energy * scale);
    }
}

/// An output whose derivatives overflow (an acceleration under a load 1e305 exp(1e4 t): 1e305
/// m/s2, its rates ~1e309 and 1e313) is an fmi2Error naming it, not inf or a panic; the
/// instance stays usable.
#[test]
fn derivatives_that_overflow_are_errors() {
    let text = "[model]\nname = \"wild\"\n[[point_masses]]\nname = \"m\"\nmass = 1.0\nposition = [0.0, 0.0]\n\
                [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"m\"\npoint = [0.0, 0.0]\naxis = [1.0, 0.0]\n\
                [[loads]]\nname = \"f\"\ntype = \"force\"\nbody = \"m\"\ndirection = [1.0, 0.0]\nvalue = \"1e305*exp(1e4*t)\"\n\
                [[outputs]]\nname = \"ax\"\nquantity = \"ax\"\nbody = \"m\"\n";
    let inst = Inst::with_text("wild", text);
    let mut errors = 0;
    for order in [1, 2] {
        match inst.derivative("ax", order) {
            Ok(x) => assert!(x.is_finite(), "order {order}: {x}"),
            Err(e) => {
                eprintln!("order {order}: {e}");
                assert!(e.starts_with("fmi2GetRealOutputDerivatives: "), "{e}");
                assert!(e.contains("'ax'") || e.contains("not finite"), "{e}");
                errors += 1;
            }
        }
    }
    assert_eq!(errors, 2);
    assert!(inst.get("ax").is_finite());
}
