//! The contact constraint method (issue 6, paper 004 sec. 2.3.1): a unilateral constraint
//! switched on at impact with Newton's restitution law v+ = -e v- and off when its multiplier
//! turns tensile (src/mechanics/joints/contact_constraint.rs), on models/ball_drop_constraint.toml.
//!
//! References: free flight under constant gravity is integrated exactly by every method here
//! (quadratic in time), so flight energies, impact times (sqrt(2 h0 / g) and the parabola through
//! a sampled state) and the rebound ratio sqrt(E_after / E_before) = e are exact up to the event
//! location and Newton tolerances; the impulse conserves energy + dissipation exactly
//! (T- - T+ = P v- (1 - e) / 2 is what the stepper books).

use flexfmu::integrators::Method;
use flexfmu::integrators::constraints::ConstraintTreatment;
use flexfmu::model::Model;
use flexfmu::simulation::{Experiment, Simulation};

use crate::common;
use common::ball_drop::{FreeFlight, G, R, flight_times, impact_times_at, worst_difference};
use common::c_logger::{Messages, TextInstance, callbacks};
use common::sim::{example, model_path, output, refused};
use flexfmu::fmi2::api::fmi2DoStep;

const M: f64 = 1.0;
const H0: f64 = 0.5;

/// Between impacts the ball is above the floor.
const FREE: FreeFlight = FreeFlight { output: "penetration", holds: |penetration| penetration < 0.0 };

fn model() -> Model {
    example("ball_drop_constraint")
}

/// The model with the parameters `set`, integrated by `method` (with rho_inf 0.5 where the
/// method is not the model's own).
fn simulation_with(model: &Model, set: &[(&str, f64)], method: Method) -> Simulation {
    common::sim::simulation_with(model, set, |settings| {
        if method != settings.method {
            settings.method = method;
            settings.rho_inf = 0.5;
        }
    })
}

/// Kinetic energy the ball would have at the contact height y = r in free flight.
fn flight_energy(sim: &mut Simulation) -> f64 {
    output(sim, "energy_total") - M * G * R
}

#[test]
fn rebound_ratio_equals_e_with_hht_and_ttbif() {
    let model = model();
    for method in [Method::Hht, Method::Ttbif] {
        for e in [0.3, 0.6, 0.9] {
            let mut sim = simulation_with(&model, &[("e", e)], method);
            // First impact at sqrt(2 h0/g) = 0.319 s; the second after 0.511 s (e = 0.3).
            sim.step_to(0.2).unwrap();
            let before = flight_energy(&mut sim);
            sim.step_to(0.45).unwrap();
            let after = flight_energy(&mut sim);
            let ratio = (after / before).sqrt();
            let (t_in, _) = flight_times(0.45, output(&mut sim, "y"), output(&mut sim, "vy"));
            println!(
                "{method}, e = {e}: rebound ratio {ratio:.12} (error {:.2e}), impact at {t_in:.9} s (analytic {:.9})",
                ratio / e - 1.0,
                (2.0 * H0 / G).sqrt()
            );
            assert!((ratio / e - 1.0).abs() < 0.02);
            // Exact up to the event location (the impact speed changes by g dt_event).
            assert!((ratio / e - 1.0).abs() < 1e-6, "{method} e = {e}: {ratio}");
            assert!((t_in - (2.0 * H0 / G).sqrt()).abs() < 1e-6);
        }
    }
}

#[test]
fn energy_is_conserved_between_impacts_and_never_gained() {
    let model = model();
    for method in [Method::Hht, Method::Ttbif] {
        let mut sim = simulation_with(&model, &[("e", 0.6)], method);
        let e0 = output(&mut sim, "energy_total");
        let (mut worst, mut worst_penetration, mut impacts, mut last_dissipated) = (0.0f64, f64::NEG_INFINITY, 0, 0.0);
        let scale = sim.settings().tolerance * (1.0 + R + H0);
        let mut t = 0.0;
        while t < 1.2 - 1e-12 {
            t += 1e-3;
            sim.step_to(t).unwrap();
            let balance = output(&mut sim, "energy_total") + output(&mut sim, "energy_dissipated");
            worst = worst.max((balance - e0).abs() / e0);
            worst_penetration = worst_penetration.max(output(&mut sim, "penetration"));
            let d = output(&mut sim, "energy_dissipated");
            assert!(d >= last_dissipated);
            if d > last_dissipated {
                impacts += 1;
            }
            last_dissipated = d;
        }
        println!(
            "{method}: {impacts} impacts in 1.2 s, |E + D - E0|/E0 <= {worst:.2e}, largest penetration {worst_penetration:.2e} m (Newton tolerance scale {scale:.1e} m)"
        );
        assert!(impacts >= 4);
        assert!(worst < 1e-6);
        // The event is located to 1e-7 of the step: penetration <= v 1e-7 h ~ 3e-10 m.
        assert!(worst_penetration < 10.0 * scale, "{worst_penetration}");
    }
}

#[test]
fn impact_times_do_not_depend_on_the_communication_interval() {
    let model = model();
    // Free flight at these times for e = 0.6 (impacts near 0.319, 0.702, 0.932, 1.070 s).
    let samples = [0.5, 0.8, 1.0];
    let mut reference = simulation_with(&model, &[], Method::Hht);
    let reference = impact_times_at(&mut reference, 1e-4, &samples, &FREE);
    println!("reference (interval 1e-4 s): {reference:?}");
    let t1 = (2.0 * H0 / G).sqrt();
    assert!((reference[0].0 - t1).abs() < 1e-6 && (reference[1].0 - t1 * (1.0 + 2.0 * 0.6)).abs() < 1e-6);
    for dt in [3e-4, 1e-3, 7e-3, 0.01, 0.03, 0.1] {
        let got = impact_times_at(&mut simulation_with(&model, &[], Method::Hht), dt, &samples, &FREE);
        let worst = worst_difference(&got, &reference);
        println!("communication interval {dt}: worst impact time difference {worst:.2e} s");
        assert!(worst < 1e-3);
    }
}

/// e = 0: the ball stays on the floor; the multiplier is the weight m g and the whole impact
/// energy m g h0 is dissipated.
#[test]
fn resting_contact_multiplier_equals_the_weight() {
    let model = model();
    for method in [Method::Hht, Method::Ttbif] {
        let mut sim = simulation_with(&model, &[("e", 0.0)], method);
        sim.step_to(0.6).unwrap();
        let (force, state, pen, vy) = (
            output(&mut sim, "contact_force"),
            output(&mut sim, "contact_state"),
            output(&mut sim, "penetration"),
            output(&mut sim, "vy"),
        );
        let dissipated = output(&mut sim, "energy_dissipated");
        println!(
            "{method}: at 0.6 s contact_state {state}, multiplier {force:.12} N (m g = {}), penetration {pen:.1e} m, vy {vy:.1e} m/s, dissipated {dissipated:.12} J (m g h0 = {})",
            M * G,
            M * G * H0
        );
        assert_eq!(state, 1.0);
        assert!((force / (M * G) - 1.0).abs() < 1e-6);
        assert!(pen.abs() < 1e-9 && vy.abs() < 1e-9);
        assert!((dissipated / (M * G * H0) - 1.0).abs() < 1e-6);
    }
}

/// Release when the multiplier turns tensile: starting in contact (h0 = 0), an upward force
/// lift t makes lambda = m g - lift t, zero at t* = m g / lift; afterwards the ball rises by
/// (lift / m) (t - t*)^3 / 6.
#[test]
fn contact_releases_when_the_multiplier_turns_tensile() {
    let model = model();
    let lift = 20.0;
    let t_star = M * G / lift;
    for method in [Method::Hht, Method::Ttbif] {
        let mut sim = simulation_with(&model, &[("e", 0.0), ("h0", 0.0), ("lift", lift)], method);
        assert_eq!(output(&mut sim, "contact_state"), 1.0, "touching at the start switches on");
        sim.step_to(0.2).unwrap();
        let force = output(&mut sim, "contact_force");
        println!("{method}: multiplier at 0.2 s {force:.9} N (m g - 0.2 lift = {})", M * G - 0.2 * lift);
        assert!((force - (M * G - 0.2 * lift)).abs() < 1e-6);
        let mut t = 0.2;
        let mut released = None;
        let mut worst_penetration = 0.0f64;
        let scale = sim.settings().tolerance * (1.0 + R);
        while t < 0.8 - 1e-12 {
            t += 1e-3;
            sim.step_to(t).unwrap();
            if released.is_none() {
                if output(&mut sim, "contact_state") < 0.5 {
                    released = Some(t);
                } else {
                    worst_penetration = worst_penetration.max(output(&mut sim, "penetration").abs());
                }
            }
        }
        println!(
            "{method}: largest |penetration| in contact {worst_penetration:.1e} m (Newton tolerance scale {scale:.1e} m)"
        );
        assert!(worst_penetration <= scale);
        let rise = output(&mut sim, "y") - R;
        let t_release = 0.8 - (6.0 * M * rise / lift).cbrt();
        println!(
            "{method}: released in the interval ending {released:?} s; from the rise at 0.8 s: t* = {t_release:.9} s (analytic {t_star})"
        );
        let released = released.expect("released");
        assert!(released >= t_star && released < t_star + 1e-3 + 1e-9);
        assert!((t_release - t_star).abs() < 1e-3);
        assert!((t_release - t_star).abs() < 1e-5);
    }
}

/// The continuous force (models/ball_drop.toml, made stiff: K = 1e10 N/m^1.5, contact
/// duration 3.21 (m/K)^0.4 v0^-0.2 = 0.25 ms) and the constraint give the same impact times.
#[test]
fn force_and_constraint_methods_give_the_same_impact_times() {
    let samples = [0.5, 0.8];
    let mut force = common::sim::simulation_with(&example("ball_drop"), &[("K", 1e10)], |s| s.step = 1e-5);
    let force = impact_times_at(&mut force, 0.01, &samples, &FREE);
    let constraint = impact_times_at(&mut simulation_with(&model(), &[], Method::Hht), 0.01, &samples, &FREE);
    println!("force:      {force:?}\nconstraint: {constraint:?}");
    let worst = worst_difference(&force, &constraint);
    println!("largest impact time difference force vs constraint: {worst:.2e} s");
    assert!(worst < 1e-3);
}

/// The active set is part of the state: a snapshot taken in resting contact, restored into a
/// fresh simulation (separated), continues bit for bit.
#[test]
fn snapshot_restores_the_active_set() {
    let model = model();
    let set = [("e", 0.0), ("lift", 20.0)];
    let mut sim = simulation_with(&model, &set, Method::Hht);
    sim.step_to(0.4).unwrap();
    assert_eq!(output(&mut sim, "contact_state"), 1.0);
    let bytes = sim.snapshot().to_bytes();
    sim.step_to(0.7).unwrap();
    let first = sim.output_values().unwrap().to_vec();
    let mut other = simulation_with(&model, &set, Method::Hht);
    other.restore(&flexfmu::simulation::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(output(&mut other, "contact_state"), 1.0);
    other.step_to(0.7).unwrap();
    println!("restored run at 0.7 s: {first:?}");
    assert_eq!(other.output_values().unwrap(), first.as_slice());
    assert_eq!(first[4], 0.0, "released by 0.7 s");
}

#[test]
fn bad_contact_constraints_are_located_errors() {
    let text = std::fs::read_to_string(model_path("ball_drop_constraint")).unwrap();
    let cases = [
        // (replace, by, message, line of models/ball_drop_constraint.toml)
        ("method = \"constraint\"", "method = \"penalty\"", "unknown contact method 'penalty'", 43),
        ("restitution = \"e\"", "restitution = 1.5", "restitution must be in [0, 1]", 50),
        ("restitution = \"e\"", "stiffness = 1e8", "missing field `restitution`", 41),
        ("radius2 = \"r\"", "radius2 = \"r\"\nstiffness = 1e8", "`stiffness` applies only to method = \"force\"", 50),
        ("method = \"constraint\"", "method = \"force\"", "needs `stiffness`", 42),
        ("position = [0.0, \"r + h0\"]", "position = [0.0, 0.04]", "overlap by 1.000e-2 m", 42),
    ];
    for (from, to, message, line) in cases {
        let (err, _) = refused(&text, "ball_drop_constraint.toml", from, to);
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!(err.line, line, "{err}");
    }
}

/// The FMU through a real importer (the `fmi` crate): communication steps 1e-4 s and 0.1 s give
/// the same impact times (within 1 ms), equal to the facade's.
#[test]
fn fmu_impact_times_do_not_depend_on_the_communication_step() {
    let model = model();
    let samples = [0.5, 0.8, 1.0];
    let direct = impact_times_at(&mut simulation_with(&model, &[], Method::Hht), 0.01, &samples, &FREE);
    let worst = common::ball_drop::assert_fmu_impact_times_independent_of_the_communication_step(
        &model, &FREE, &samples, &direct,
    );
    println!("largest impact time difference between communication steps 1e-4 and 0.1: {worst:.2e} s");
}

/// A rod pinned at one end (paper 004's setting: a body rotating about a hinge strikes a
/// plane), released horizontal; its tip hits the floor y = -L sin 45 deg. The impulse acts
/// through the joint: the rod's angular velocity reverses with e, so the kinetic energy at impact,
/// m g (L/2) sin 45, drops by the factor e^2, and the pivot stays in place. (Free swinging
/// is not exact for HHT/TTBIF: step 1e-4 s; energy errors 3e-5 J at 1e-3 s, 3e-7 J at 1e-4 s.)
#[test]
fn pinned_rod_impact_transmits_the_impulse_through_the_joint() {
    let text = r#"
[model]
name = "rod_strike"
gravity = [0.0, -9.81]
[parameters]
e = { value = 0.5 }
[solver]
integrator = "hht"
rho_inf = 0.8
step = 1e-4
[[rigid_bodies]]
name = "rod"
mass = 1.0
inertia = "1/12"
position = [0.5, 0.0]
angle = 0.0
[[joints]]
name = "pivot"
type = "revolute"
body1 = "ground"
body2 = "rod"
point = [0.0, 0.0]
[[contacts]]
name = "floor"
method = "constraint"
type = "point_plane"
point1 = [0.0, "-sqrt(0.5)"]
normal = [0.0, 1.0]
body2 = "rod"
point2 = [1.0, 0.0]
restitution = "e"
[[outputs]]
name = "pivot_x"
quantity = "x"
body = "rod"
point = [0.0, 0.0]
[[outputs]]
name = "omega"
quantity = "angular_velocity"
body = "rod"
[[outputs]]
name = "energy_total"
quantity = "energy_total"
[[outputs]]
name = "energy_dissipated"
quantity = "energy_dissipated"
[[outputs]]
name = "penetration"
quantity = "penetration"
contact = "floor"
"#;
    let model = Model::parse(text, "rod_strike.toml").unwrap();
    let kinetic_at_impact = G * 0.5 * 0.5f64.sqrt();
    for method in [Method::Hht, Method::Ttbif] {
        for e in [0.0, 0.5, 0.9] {
            let mut sim = simulation_with(&model, &[("e", e)], method);
            let (mut worst_pivot, mut worst_balance, mut t, mut omega_min) = (0.0f64, 0.0f64, 0.0, 0.0f64);
            let mut first = None;
            while t < 1.0 - 1e-12 {
                t += 1e-3;
                sim.step_to(t).unwrap();
                let d = output(&mut sim, "energy_dissipated");
                if first.is_none() && d > 0.0 {
                    first = Some(d);
                }
                worst_pivot = worst_pivot.max(output(&mut sim, "pivot_x").abs());
                worst_balance =
                    worst_balance.max((output(&mut sim, "energy_total") + output(&mut sim, "energy_dissipated")).abs());
                omega_min = omega_min.min(output(&mut sim, "omega"));
            }
            let d = first.expect("an impact");
            let expected = (1.0 - e * e) * kinetic_at_impact;
            println!(
                "{method}, e = {e}: dissipated at the first impact {d:.10} J (expected (1 - e^2) m g L sin45/2 = {expected:.10}), |E + D| <= {worst_balance:.1e} J, pivot drift {worst_pivot:.1e} m, fastest swing {omega_min:.6} rad/s (analytic {:.6})",
                -(3.0 * G * 0.5f64.sqrt()).sqrt()
            );
            assert!((d - expected).abs() < 1e-6 * kinetic_at_impact);
            assert!(worst_balance < 1e-6 * kinetic_at_impact);
            assert!(worst_pivot < 1e-9);
            if e == 0.0 {
                // Resting on the floor: the index-3 row holds the (nonlinear in the angle) gap.
                let pen = output(&mut sim, "penetration");
                let scale = sim.settings().tolerance * (1.0 + 1.0);
                println!("{method}, e = 0: penetration at rest {pen:.1e} m (Newton tolerance scale {scale:.1e} m)");
                assert!(pen.abs() <= scale);
            }
        }
    }
}

/// Paper 004 solves the contact phase with HHT and the GGL formulation: the same results with
/// `constraints = "ggl"` (and Baumgarte) for the bouncing and the resting ball.
#[test]
fn ggl_and_baumgarte_treatments_give_the_same_contacts() {
    use flexfmu::integrators::ConstraintTreatment;
    let model = model();
    for treatment in [ConstraintTreatment::Ggl, ConstraintTreatment::Baumgarte] {
        for e in [0.0, 0.6] {
            let mut sim = common::sim::simulation_with(&model, &[("e", e)], |s| s.constraints = treatment);
            sim.step_to(0.2).unwrap();
            let before = flight_energy(&mut sim);
            sim.step_to(0.6).unwrap();
            let (after, force, pen) =
                (flight_energy(&mut sim), output(&mut sim, "contact_force"), output(&mut sim, "penetration"));
            let ratio = (after / before).sqrt();
            println!(
                "{treatment}, e = {e}: rebound ratio {ratio:.10}, multiplier at 0.6 s {force:.10} N, penetration {pen:.2e} m"
            );
            if e == 0.0 {
                assert!((force / (M * G) - 1.0).abs() < 1e-6 && pen.abs() < 1e-9);
            } else {
                assert!((ratio / e - 1.0).abs() < 1e-6);
            }
        }
    }
}

/// A row of five balls (0.1 kg, radius 1 cm, 0.1 mm apart, no gravity), the first moving at
/// 1 m/s, with constraint contacts between neighbours (e = 0.95): contacts at several points,
/// impacts in quick succession (about 0.1 ms apart) and, later, slow re-impacts and resting
/// contacts in the cluster left behind. References: the sequential impacts give the last
/// ball (1 + e)^4 / 2^4 m/s exactly (each impact passes on (1 + e)/2 of the speed); momentum
/// is conserved (no external force) and kinetic + dissipated energy equal the initial 0.05 J
/// (the impulses only remove energy). Neither may depend on the output interval: a located
/// event may leave a step of 1e-11 s, and an impacting row must not reach it with its onset
/// penetration (index-3 would turn delta/h into a velocity: before the post-impact
/// projection, 0.23 m/s backwards for the first ball and 1.8 % of the energy created).
#[test]
fn a_row_of_balls_keeps_momentum_and_energy_at_every_output_interval() {
    let mut text = String::from("[model]\nname = \"cradle\"\ngravity = [0.0, 0.0]\n");
    for i in 0..5 {
        let v = if i == 0 { 1.0 } else { 0.0 };
        text += &format!(
            "[[rigid_bodies]]\nname = \"b{i}\"\nmass = 0.1\ninertia = 1e-5\nposition = [{:?}, 0.0]\n\
             velocity = [{v:?}, 0.0]\nangular_velocity = 0.0\n",
            i as f64 * 0.0201
        );
    }
    for i in 0..4 {
        text += &format!(
            "[[contacts]]\nname = \"c{i}\"\ntype = \"circle_circle\"\nmethod = \"constraint\"\nbody1 = \"b{i}\"\n\
             body2 = \"b{}\"\nradius1 = 0.01\nradius2 = 0.01\nrestitution = 0.95\n",
            i + 1
        );
    }
    for i in 0..5 {
        text += &format!("[[outputs]]\nname = \"v{i}\"\nquantity = \"vx\"\nbody = \"b{i}\"\n");
    }
    text += "[[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n\
             [[outputs]]\nname = \"Ed\"\nquantity = \"energy_dissipated\"\n";
    let model = Model::parse(&text, "cradle.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut last = Vec::new();
    for interval in [0.01f64, 0.005, 0.001] {
        let mut sim = common::sim::simulation_with(&model, &[], |_| {});
        let (mut worst_energy, mut worst_momentum) = (0.0f64, 0.0f64);
        for k in 1..=(0.3 / interval).round() as usize {
            sim.step_to(k as f64 * interval).unwrap_or_else(|e| panic!("{e}"));
            let v: Vec<f64> = (0..5).map(|i| output(&mut sim, &format!("v{i}"))).collect();
            worst_momentum = worst_momentum.max((0.1 * v.iter().sum::<f64>() - 0.1).abs());
            worst_energy = worst_energy.max((output(&mut sim, "E") + output(&mut sim, "Ed") - 0.05).abs());
        }
        let v4 = output(&mut sim, "v4");
        println!(
            "interval {interval}: v4 {v4:.15}, momentum error {worst_momentum:.2e} kg m/s, energy balance \
             {worst_energy:.2e} J, first ball {:.6}",
            output(&mut sim, "v0")
        );
        assert!((v4 - 1.95f64.powi(4) / 16.0).abs() < 1e-12, "{v4}");
        assert!(worst_momentum < 1e-12 && worst_energy < 1e-9, "{worst_momentum} {worst_energy}");
        assert!(output(&mut sim, "v0") > 0.0, "the first ball follows, never thrown back");
        last.push(v4);
    }
    assert!(last.iter().all(|v| *v == last[0]));
}

/// Newton's cradle with balls that touch (no gaps), constraint contacts, e = 1: the impact
/// passes along the row one contact after another, so the last ball leaves at the first's
/// speed and the others stop (equal masses exchange velocities), with every integrator, the
/// first ball touching at the start or arriving exactly at a communication point, and
/// nothing dissipated. Before, whether a touching row joined an impulse was decided by the
/// sign of round-off: five balls ended at (0, 0, 0, 0, 1) with TTBIF, (-0.5, 0.25, 0.25,
/// 0.25, 0.75) with HHT, (-0.6, 0.4, 0.4, 0.4, 0.4) with Bathe, or in a plastic cluster
/// (0, 0.25, 0.25, 0.25, 0.25) with 75 % of the energy counted as dissipated. Balls drawn at
/// 0.02 i have gaps of round-off size, some negative: a separated one counted as an impact
/// only in `update`, not in `impacts`, so the touching row after it did not wait (six balls
/// ended at (-1/3, 0, 0, 0, 2/3, 2/3), from six on; a probe).
#[test]
fn touching_balls_pass_the_impact_along_the_row_with_every_integrator() {
    for (balls, first_x) in [(3usize, 0.0f64), (5, 0.0), (5, -0.001), (6, 0.0), (12, 0.0)] {
        let mut text = String::from("[model]\nname = \"cradle\"\ngravity = [0.0, 0.0]\n");
        for i in 0..balls {
            let (x, v) = if i == 0 { (first_x, 1.0) } else { (0.02 * i as f64, 0.0) };
            text += &format!(
                "[[point_masses]]\nname = \"b{i}\"\nmass = 0.1\nposition = [{x:?}, 0.0]\nvelocity = [{v:?}, 0.0]\n\
                 [[outputs]]\nname = \"v{i}\"\nquantity = \"vx\"\nbody = \"b{i}\"\n"
            );
        }
        for i in 0..balls - 1 {
            text += &format!(
                "[[contacts]]\nname = \"c{i}\"\ntype = \"circle_circle\"\nmethod = \"constraint\"\nbody1 = \"b{i}\"\n\
                 body2 = \"b{}\"\nradius1 = 0.01\nradius2 = 0.01\nrestitution = 1.0\n",
                i + 1
            );
        }
        text += "[[outputs]]\nname = \"Ed\"\nquantity = \"energy_dissipated\"\n";
        let model = Model::parse(&text, "cradle.toml").unwrap_or_else(|e| panic!("{e}"));
        for method in [Method::Ttbif, Method::Hht, Method::GeneralizedAlpha, Method::Newmark, Method::Bathe] {
            let mut sim = common::sim::simulation_with(&model, &[], |s| {
                s.method = method;
                s.rho_inf = method.default_rho_inf(s.rho_inf);
                s.constraints = ConstraintTreatment::default_for(s.rho_inf);
            });
            for k in 1..=20 {
                sim.step_to(k as f64 * 1e-3).unwrap_or_else(|e| panic!("{e}"));
            }
            let v: Vec<f64> = (0..balls).map(|i| output(&mut sim, &format!("v{i}"))).collect();
            let dissipated = output(&mut sim, "Ed");
            let last = balls - 1;
            let off = v.iter().enumerate().fold(0.0f64, |m, (i, x)| m.max((x - f64::from(u8::from(i == last))).abs()));
            assert!(
                off < 1e-9 && dissipated.abs() < 1e-12,
                "{balls} balls, first at {first_x}, {method:?}: velocities {v:?}, dissipated {dissipated:.3e} J"
            );
        }
    }
}

/// A resting disc pulled up through an input (a load the master sets, constant over each
/// communication interval): the contact releases at the first interval whose restart finds the
/// multiplier tensile, and the disc rises as (u - m g)/m t^2/2 from there. The sign change
/// falls between intervals, where no step sees it: a probe's disc stayed glued to the floor
/// with a contact force of -10 N.
#[test]
fn a_contact_pulled_off_through_an_input_releases() {
    let text = "[model]\nname = \"rest\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"pull\"\nunit = \"N\"\n\
                [[rigid_bodies]]\nname = \"disc\"\nmass = 2.0\ninertia = 0.01\nposition = [0.0, 0.1]\n\
                [[contacts]]\nname = \"floor\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\npoint1 = [0.0, 0.0]\n\
                normal = [0.0, 1.0]\nbody2 = \"disc\"\nradius2 = 0.1\nrestitution = 0.5\n\
                [[loads]]\ntype = \"force\"\nbody = \"disc\"\ndirection = [0.0, 1.0]\nvalue = \"pull\"\n\
                [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"disc\"\n\
                [[outputs]]\nname = \"F\"\nquantity = \"contact_force\"\ncontact = \"floor\"\n\
                [[outputs]]\nname = \"on\"\nquantity = \"contact_state\"\ncontact = \"floor\"\n";
    let model = Model::parse(text, "rest.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    // Resting under 10 N of pull: the floor carries m g - 10.
    sim.set_input(0, 10.0).unwrap();
    sim.step_to(0.5).unwrap();
    assert_eq!(output(&mut sim, "on"), 1.0);
    assert!((output(&mut sim, "F") - (2.0 * G - 10.0)).abs() < 1e-6, "{}", output(&mut sim, "F"));
    // Pulled with 25 N > m g from t = 0.5.
    sim.set_input(0, 25.0).unwrap();
    sim.step_to(1.0).unwrap();
    let (on, force, rise) = (output(&mut sim, "on"), output(&mut sim, "F"), output(&mut sim, "y") - 0.1);
    let exact = 0.5 * (25.0 - 2.0 * G) / 2.0 * 0.5 * 0.5;
    println!("after the pull: contact state {on}, force {force} N, rise {rise:.9} m (analytic {exact:.9})");
    assert_eq!(on, 0.0);
    assert_eq!(force, 0.0);
    assert!((rise - exact).abs() < 1e-6 * exact, "rise {rise} against {exact}");
}

/// Two identical constraint contacts on one pair are rows that repeat each other: the impact's
/// impulse system and the resting contact's Newton matrix are singular without the shift of
/// the contact rows (src/mechanics/mod.rs, CONTACT_SHIFT), and the run stopped at the first
/// impact. Now the ball moves exactly as with one contact (the same rebound: the contacts'
/// impulses add up to the one contact's), and at rest each carries half the weight (the
/// least-norm split of the statically indeterminate load).
#[test]
fn a_repeated_constraint_contact_shares_the_load() {
    let text = std::fs::read_to_string(model_path("ball_drop_constraint")).unwrap();
    let block = "[[contacts]]\nname = \"floor\"\n";
    let start = text.find(block).unwrap();
    let end = start + text[start..].find("\n\n").unwrap() + 2;
    let twice = format!("{}{}", &text[..end], text[start..end].replace("name = \"floor\"", "name = \"floor2\""))
        + &text[end..]
        + "\n[[outputs]]\nname = \"contact_force2\"\nquantity = \"contact_force\"\ncontact = \"floor2\"\n";
    let two = Model::parse(&twice, "two.toml").unwrap();
    let one = model();
    for e in [0.6, 0.0] {
        let mut sims = [&one, &two].map(|m| simulation_with(m, &[("e", e)], Method::Hht));
        for sim in &mut sims {
            sim.step_to(0.9).unwrap();
        }
        let [y1, y2] = sims.each_mut().map(|s| output(s, "y"));
        let [v1, v2] = sims.each_mut().map(|s| output(s, "vy"));
        let (f1, f2) = (output(&mut sims[1], "contact_force"), output(&mut sims[1], "contact_force2"));
        println!("e = {e}: at 0.9 s y {y2:.12} vs {y1:.12}, vy {v2:.12} vs {v1:.12}; forces {f1:.9} + {f2:.9} N");
        assert!((y2 - y1).abs() < 1e-10 && (v2 - v1).abs() < 1e-8, "{y2} {y1} {v2} {v1}");
        if e == 0.0 {
            assert!((f1 - 0.5 * M * G).abs() < 1e-6 && (f2 - 0.5 * M * G).abs() < 1e-6, "{f1} {f2}");
        }
    }
}

/// A point support of the planar bar "bar" at (x, height) on the ground plane y = 0
/// (constraint method, restitution e), with its contact force as output `f_<name>`.
fn bar_support(name: &str, x: f64, height: f64, e: f64) -> String {
    format!(
        "[[contacts]]\nname = \"{name}\"\ntype = \"point_plane\"\nmethod = \"constraint\"\npoint1 = [0.0, 0.0]\n\
         normal = [0.0, 1.0]\nbody2 = \"bar\"\npoint2 = [{x:?}, {height:?}]\nrestitution = {e:?}\n\n[[outputs]]\n\
         name = \"f_{name}\"\nquantity = \"contact_force\"\ncontact = \"{name}\"\n\n"
    )
}

/// A rigid bar (10 kg, centre of mass at x = 0.2 m) dropped 1 cm onto three point supports at
/// x = -1, 0, 1 (constraint method, e = 0.5): three rows for its two normal freedoms, so its
/// support forces are not unique. At rest the least-norm split (that of equal stiff supports)
/// is W (1/3 + 0.2 x / 2) = (0.2333, 0.3333, 0.4333) W, and it stays so (the shift of the matrix
/// alone let the undetermined part drift; a probe's table went to two diagonal feet in 0.3 s).
/// The settling penetration's work is counted: the energy balance holds to 1e-8 of the drop.
#[test]
fn a_bar_on_three_supports_rests_with_the_least_norm_split() {
    let text = format!(
        "[model]\nname = \"bar\"\ngravity = [0.0, -9.81]\n\n[[rigid_bodies]]\nname = \"bar\"\nmass = 10.0\n\
         inertia = 4.0333\nposition = [0.2, 0.01]\n\n{}{}{}[[outputs]]\nname = \"balance\"\nquantity = \"energy_total\"\n\n\
         [[outputs]]\nname = \"dissipated\"\nquantity = \"energy_dissipated\"\n",
        bar_support("left", -1.0, 0.01, 0.5),
        bar_support("middle", 0.0, 0.01, 0.5),
        bar_support("right", 1.0, 0.01, 0.5)
    );
    let model = Model::parse(&text, "bar.toml").unwrap();
    let w = 10.0 * G;
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    let start = output(&mut sim, "balance");
    for t in [1.0, 2.0, 4.0] {
        sim.step_to(t).unwrap();
        let forces = ["left", "middle", "right"].map(|c| output(&mut sim, &format!("f_{c}")));
        let balance = output(&mut sim, "balance") + output(&mut sim, "dissipated") - start;
        println!("at {t} s: support forces / W {:?}, balance {balance:.3e} J", forces.map(|f| f / w));
        for (f, x) in forces.iter().zip([-1.0, 0.0, 1.0]) {
            assert!((f / w - (1.0 / 3.0 + 0.1 * x)).abs() < 1e-8, "{forces:?}");
        }
        assert!(balance.abs() < 1e-8 * w * 0.01, "{balance}");
    }
}

/// A bar (10 kg) resting on three supports at x = -1, 0, 1 under a torque M = 100 t: the
/// least-norm split W/3 - M x/2 unloads the support at x = 1 at t = W/150 = 0.654 s; after it
/// lifts, the other two carry M and W - M. The lift-off is located inside a step (output
/// interval 5 ms), and the following step of 2.5e-11 s once had to remove the dependent rows'
/// compliant penetration, when that scaled with the step's square: 9e11 N for an instant and
/// energy_dissipated at -7.7 J (a probe). The compliance is now the nominal step's.
#[test]
fn a_support_unloaded_by_a_torque_lifts_off_at_the_least_norm_time() {
    let text = format!(
        "[model]\nname = \"bar\"\ngravity = [0.0, -9.81]\n\n[solver]\nintegrator = \"hht\"\nstep = 0.001\n\n\
         [[rigid_bodies]]\nname = \"bar\"\nmass = 10.0\ninertia = 13.333\nposition = [0.0, 0.0]\n\n\
         [[loads]]\ntype = \"torque\"\nbody = \"bar\"\nvalue = \"100*t\"\n\n{}{}{}[[outputs]]\nname = \"dissipated\"\n\
         quantity = \"energy_dissipated\"\n",
        bar_support("left", -1.0, 0.0, 0.0),
        bar_support("middle", 0.0, 0.0, 0.0),
        bar_support("right", 1.0, 0.0, 0.0)
    );
    let model = Model::parse(&text, "bar.toml").unwrap();
    let w = 10.0 * G;
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    let mut t = 0.0;
    let mut lifted = None;
    while t < 0.7 - 1e-9 {
        t += 0.005;
        sim.step_to(t).unwrap();
        let forces = ["left", "middle", "right"].map(|c| output(&mut sim, &format!("f_{c}")));
        let m = 100.0 * t;
        let expected = if forces[2] > 0.0 { [w / 3.0 + m / 2.0, w / 3.0, w / 3.0 - m / 2.0] } else { [m, w - m, 0.0] };
        if forces[2] == 0.0 && lifted.is_none() {
            lifted = Some(t);
        }
        for (f, e) in forces.iter().zip(expected) {
            assert!((f - e).abs() < 1e-6 * w, "at {t}: {forces:?} vs {expected:?}");
        }
        let dissipated = output(&mut sim, "dissipated");
        assert!(dissipated.abs() < 1e-6, "at {t}: energy_dissipated {dissipated}");
    }
    println!("the right support carries nothing from the interval ending {lifted:?} s (least-norm: {} s)", w / 150.0);
    assert!(lifted.is_some_and(|t| t >= w / 150.0 && t < w / 150.0 + 0.005));
}

/// A bar (10 kg, centre of mass at x = 0.2) pinned at x = -1 and resting on supports at x = 0 and
/// x = 1: four rows for three freedoms, the supports' rows dependent on the pin's (it stopped at
/// the start: "the Newton matrix is singular", a probe). The contacts are then compliant and
/// the pin rigid: the bar turns about the pin, compressing the supports in proportion to their
/// distances 1 and 2 from it, so they carry 1.2 W / 5 and 2.4 W / 5 (moments about the pin) and
/// the pin the rest; steady over 5 s.
#[test]
fn a_pinned_bar_on_two_supports_shares_its_weight_like_equal_springs() {
    let text = format!(
        "[model]\nname = \"pinned\"\ngravity = [0.0, -9.81]\n\n[[rigid_bodies]]\nname = \"bar\"\nmass = 10.0\n\
         inertia = 13.333\nposition = [0.2, 0.05]\n\n[[joints]]\nname = \"pin\"\ntype = \"revolute\"\nbody2 = \"bar\"\n\
         point = [-1.0, 0.0]\n\n{}{}",
        bar_support("middle", 0.0, 0.0, 0.0),
        bar_support("end", 1.0, 0.0, 0.0)
    );
    let model = Model::parse(&text, "pinned.toml").unwrap();
    let w = 10.0 * G;
    let mut sim = common::sim::simulation_with(&model, &[], |_| {});
    for t in [0.0, 1.0, 5.0] {
        sim.step_to(t).unwrap();
        let (middle, end) = (output(&mut sim, "f_middle"), output(&mut sim, "f_end"));
        println!("at {t} s: supports {:.9} W, {:.9} W (1.2/5 = 0.24, 2.4/5 = 0.48)", middle / w, end / w);
        assert!((middle / w - 0.24).abs() < 1e-8 && (end / w - 0.48).abs() < 1e-8, "{middle} {end}");
    }
}

/// At the outputs 0.01 k apart the ball ("y", contact "F") flies freely from its release at
/// (time, height, upward speed), its contact open.
fn assert_flies_from(
    sim: &mut Simulation,
    (stop, y_stop, speed): (f64, f64, f64),
    rows: std::ops::RangeInclusive<u32>,
) {
    for k in rows {
        let t = 0.01 * k as f64;
        sim.step_to(t).unwrap();
        let tau = t - stop;
        let (y, force) = (output(sim, "y"), output(sim, "F"));
        let exact = y_stop + speed * tau - 0.5 * G * tau * tau;
        println!("t = {t:.2}: ball at {y:.12} m (free flight {exact:.12}), contact force {force} N");
        assert!((y - exact).abs() < 1e-9, "t = {t}: {y} against the free flight's {exact}");
        assert_eq!(force, 0.0);
    }
}

/// A table lifted through an input (an FMU input held over each communication step, which the
/// drive follows at constant speed) that stops: the ball resting on it flies on with the
/// table's last speed. The projection onto the drive's new rate at the communication point is
/// an impulse the contact cannot transmit (it would pull), so the contact parts
/// (`Dynamics::release_tensile`). Before, the ball stayed glued to the table with its full
/// weight on the contact (a probe's shaker table driven by an input table).
#[test]
fn a_ball_on_a_lifted_table_flies_on_when_the_lift_stops() {
    let text = "[model]\nname = \"lift\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"lift\"\nunit = \"m\"\n\
                [[rigid_bodies]]\nname = \"table\"\nmass = 5.0\ninertia = 1.0\nposition = [0.0, 0.0]\n\
                [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
                axis = [0.0, 1.0]\ndrive = \"lift\"\n\
                [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, 0.05]\n\
                [[contacts]]\nname = \"c\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
                point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = 0.0\n\
                [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"ball\"\n\
                [[outputs]]\nname = \"F\"\nquantity = \"contact_force\"\ncontact = \"c\"\n";
    let model = Model::parse(text, "lift.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    // Lifted at 0.5 m/s for 0.1 s in communication steps of 0.01 s, then held at 0.05 m.
    let (speed, stop) = (0.5, 0.1);
    for k in 1..=10 {
        let t = k as f64 * 0.01;
        sim.set_input(0, speed * t).unwrap();
        sim.step_to(t).unwrap();
    }
    let y_stop = output(&mut sim, "y");
    assert!((y_stop - (0.05 + speed * stop)).abs() < 1e-9, "{y_stop}");
    assert_flies_from(&mut sim, (stop, y_stop, speed), 11..=18);
}

/// A hammer strikes a spring-borne table beside a ball resting on it: the impact's impulse
/// moves the table down, and the resting contact, which would have to pull the ball down with
/// it, parts instead (`Dynamics::release_tensile` in the impact's velocity jump). Right after
/// the impact the ball is still at rest, and the table and hammer share the impact as two
/// bodies alone (momentum and Newton's law, downwards positive): v_table = m_h (1 + e) v0 /
/// (m_h + m_t) and m_h v_hammer = m_h v0 - m_t v_table. Before, the ball went down with the
/// table.
#[test]
fn a_hammer_blow_to_a_table_does_not_pull_down_the_ball_on_it() {
    let (mt, mb, mh, k, e, drop) = (5.0, 1.0, 2.0, 1.0e4, 0.5, 0.2);
    let preload = (mt + mb) * G / k;
    let text = format!(
        "[model]\nname = \"hammer\"\ngravity = [0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"table\"\nmass = {mt}\ninertia = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\naxis = [0.0, 1.0]\n\
         [[springs]]\nname = \"legs\"\ntype = \"prismatic\"\njoint = \"slide\"\nstiffness = {k}\nfree_length = {preload}\n\
         [[point_masses]]\nname = \"ball\"\nmass = {mb}\nposition = [0.0, 0.05]\n\
         [[point_masses]]\nname = \"hammer\"\nmass = {mh}\nposition = [0.5, {}]\n\
         [[contacts]]\nname = \"rest\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
         point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = 0.0\n\
         [[contacts]]\nname = \"blow\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
         point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"hammer\"\nradius2 = 0.05\nrestitution = {e}\n\
         [[outputs]]\nname = \"v_ball\"\nquantity = \"vy\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"v_table\"\nquantity = \"vy\"\nbody = \"table\"\n\
         [[outputs]]\nname = \"v_hammer\"\nquantity = \"vy\"\nbody = \"hammer\"\n\
         [[outputs]]\nname = \"F\"\nquantity = \"contact_force\"\ncontact = \"rest\"\n",
        0.05 + drop
    );
    let model = Model::parse(&text, "hammer.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    sim.step_to(0.1).unwrap();
    assert!((output(&mut sim, "F") - mb * G).abs() < 1e-6, "the ball rests on the table: {}", output(&mut sim, "F"));
    let end = sim.step_to_event(1.0).unwrap();
    assert_eq!(end, flexfmu::simulation::StepEnd::Event);
    let v0 = (2.0 * G * drop).sqrt();
    let v_table = -mh * (1.0 + e) * v0 / (mh + mt);
    let v_hammer = (mh * -v0 - mt * v_table) / mh;
    let (vb, vt, vh) = (output(&mut sim, "v_ball"), output(&mut sim, "v_table"), output(&mut sim, "v_hammer"));
    println!("after the blow: ball {vb} m/s, table {vt} m/s ({v_table}), hammer {vh} m/s ({v_hammer})");
    // The event is located within its tolerance after the impact: gravity and the spring act
    // over that much time.
    assert!(vb.abs() < 1e-6, "the ball keeps its rest: {vb} m/s");
    assert!((vt - v_table).abs() < 1e-6 * v0, "table {vt} against {v_table}");
    assert!((vh - v_hammer).abs() < 1e-6 * v0, "hammer {vh} against {v_hammer}");
    assert_eq!(output(&mut sim, "F"), 0.0);
}

/// A table driven up at 0.5 m/s stops at T (`0.5*min(t, T)`, T off the step grid): the ball
/// resting on it flies on at 0.5 m/s, exactly on the free-flight parabola. The step ends at
/// the kink of the drive, where the velocities are projected onto its new rate and the
/// contact, whose impulse would pull, parts (`Stepper::pass_kink`). Stepped across, the
/// ball left at a quarter of the speed, or stayed on the table (a probe).
#[test]
fn a_ball_on_a_table_that_stops_flies_on() {
    let (speed, stop) = (0.5, 0.05037);
    let text = format!(
        "[model]\nname = \"stopper\"\ngravity = [0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"table\"\nmass = 5.0\ninertia = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
         axis = [0.0, 1.0]\ndrive = \"{speed}*min(t, {stop})\"\n\
         [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, 0.05]\nvelocity = [0.0, {speed}]\n\
         [[contacts]]\nname = \"c\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
         point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = 0.0\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"F\"\nquantity = \"contact_force\"\ncontact = \"c\"\n"
    );
    let model = Model::parse(&text, "stopper.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    sim.step_to(0.05).unwrap();
    assert!((output(&mut sim, "F") - G).abs() < 1e-6, "carried: {} N", output(&mut sim, "F"));
    let y_stop = 0.05 + speed * stop;
    assert_flies_from(&mut sim, (stop, y_stop, speed), 6..=14);
}

/// A ball dropped onto a table that a drive lifts at 0.5 m/s (e = 0.5): the impact's impulse
/// acts while the drive moves the table, and the drive's work in it (impulse times the
/// table's speed) counts as supplied, so the energy balance closes through the impacts; the
/// kinetic energy lost is (1 - e^2) / 2 of the ball's relative speed squared times its mass
/// (the table is driven: infinitely heavy for the impact). Before, the balance jumped by the
/// drive's 1.53 J at the first impact (a probe).
#[test]
fn the_work_of_a_drive_during_an_impact_counts_as_supplied() {
    let (speed, e, drop) = (0.5, 0.5, 0.2);
    let text = format!(
        "[model]\nname = \"lifted\"\ngravity = [0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"table\"\nmass = 2.0\ninertia = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
         axis = [0.0, 1.0]\ndrive = \"{speed}*t\"\n\
         [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, {}]\n\
         [[contacts]]\nname = \"c\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
         point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = {e}\n\
         [[outputs]]\nname = \"E\"\nquantity = \"energy_total\"\n\
         [[outputs]]\nname = \"Es\"\nquantity = \"energy_supplied\"\n\
         [[outputs]]\nname = \"Ed\"\nquantity = \"energy_dissipated\"\n",
        0.05 + drop
    );
    let model = Model::parse(&text, "lifted.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    let balance = |sim: &mut Simulation| output(sim, "E") + output(sim, "Ed") - output(sim, "Es");
    let start = balance(&mut sim);
    let end = sim.step_to_event(1.0).unwrap();
    assert_eq!(end, flexfmu::simulation::StepEnd::Event);
    // First impact: the ball falls drop - (the table's rise) in time t, g t^2 / 2 + 0.5 t = drop.
    let t = (-speed + (speed * speed + 2.0 * G * drop).sqrt()) / G;
    let relative = G * t + speed;
    let lost = 0.5 * (1.0 - e * e) * relative * relative;
    let (dissipated, off) = (output(&mut sim, "Ed"), balance(&mut sim) - start);
    println!("impact at {} s ({t}): dissipated {dissipated} J ({lost}), balance off by {off:e} J", sim.time());
    assert!((dissipated - lost).abs() < 1e-6 * lost, "dissipated {dissipated} against {lost}");
    assert!(off.abs() < 1e-8, "the balance is off by {off} J");
    sim.step_to(1.0).unwrap();
    let off = balance(&mut sim) - start;
    assert!(off.abs() < 1e-6, "after the bounces the balance is off by {off} J");
}

/// A ball resting on a table whose input-driven lift is saturated (`min(h, 0.15)`, h set
/// above 0.15 at every communication point, so nothing moves): no contact event, and nothing
/// dissipated beyond round-off. The projection onto the drive's rates at each input change met the ball's
/// round-off drift (2e-15 m/s) and released the contact, which landed again 4.5e-7 s later:
/// an early return at 19 of 20 communication points (a probe).
#[test]
fn an_input_change_that_moves_nothing_makes_no_contact_event() {
    let text = "[model]\nname = \"lift_sat\"\ngravity = [0.0, -9.81]\n[[inputs]]\nname = \"h\"\nunit = \"m\"\n\
                [[rigid_bodies]]\nname = \"table\"\nmass = 2.0\ninertia = 0.1\nposition = [0.0, 0.0]\n\
                [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, 0.05]\n\
                [[joints]]\nname = \"lift\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
                axis = [0.0, 1.0]\ndrive = \"min(h, 0.15)\"\n\
                [[contacts]]\nname = \"top\"\nmethod = \"constraint\"\ntype = \"circle_plane\"\nbody1 = \"table\"\n\
                point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = 0.0\n\
                [[outputs]]\nname = \"Ed\"\nquantity = \"energy_dissipated\"\n\
                [[outputs]]\nname = \"F\"\nquantity = \"contact_force\"\ncontact = \"top\"\n";
    let model = Model::parse(text, "lift_sat.toml").unwrap();
    for method in [Method::Ttbif, Method::Hht] {
        let settings = flexfmu::simulation::SolverSettings { method, ..Default::default() };
        let mut sim = Simulation::new(&model, &[], settings, 0.0).unwrap();
        sim.set_initial_inputs(&[0.15], &[]).unwrap();
        for k in 0..20 {
            sim.set_input(0, 0.2 + 0.01 * k as f64).unwrap();
            let end = sim.step_to_event(0.01 * (k + 1) as f64).unwrap();
            assert_eq!(end, flexfmu::simulation::StepEnd::Reached, "{method:?}: an event in interval {k}");
        }
        assert!(output(&mut sim, "Ed").abs() < 1e-13, "{method:?}: {} J dissipated", output(&mut sim, "Ed"));
        assert!((output(&mut sim, "F") - G).abs() < 1e-9);
    }
}

/// A table carrying a ball down at 2 m/s stops at T (`-2*min(t, T)`): the ball strikes the
/// stopped table at 2 m/s and rebounds by Newton's law at e 2 = 1 m/s, losing (1 - e^2) m v^2
/// / 2 = 1.5 J. The projection onto the drive's new rate opens the resting contact, and the
/// event settling that follows takes it as an impact (`Dynamics::open_contacts`). Before, the
/// contact took the stop as a plastic one whatever e (a probe).
#[test]
fn a_ball_carried_down_by_a_table_that_stops_rebounds_by_its_restitution() {
    let (speed, stop, e) = (2.0, 0.3037, 0.5);
    let text = format!(
        "[model]\nname = \"stop_down\"\ngravity = [0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"table\"\nmass = 5.0\ninertia = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
         axis = [0.0, 1.0]\ndrive = \"-{speed}*min(t, {stop})\"\n\
         [[point_masses]]\nname = \"ball\"\nmass = 1.0\nposition = [0.0, 0.05]\nvelocity = [0.0, -{speed}]\n\
         [[contacts]]\nname = \"c\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\nbody1 = \"table\"\n\
         point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\nbody2 = \"ball\"\nradius2 = 0.05\nrestitution = {e}\n\
         [[outputs]]\nname = \"y\"\nquantity = \"y\"\nbody = \"ball\"\n\
         [[outputs]]\nname = \"Ed\"\nquantity = \"energy_dissipated\"\n"
    );
    let model = Model::parse(&text, "stop_down.toml").unwrap();
    let mut sim = Simulation::new(&model, &[], flexfmu::simulation::SolverSettings::default(), 0.0).unwrap();
    let y_stop = 0.05 - speed * stop;
    for k in 31..=40 {
        let t = 0.01 * k as f64;
        sim.step_to(t).unwrap();
        let tau = t - stop;
        let (y, exact) = (output(&mut sim, "y"), y_stop + e * speed * tau - 0.5 * G * tau * tau);
        assert!((y - exact).abs() < 1e-9, "t = {t}: {y} against the rebound's {exact}");
    }
    let lost = 0.5 * (1.0 - e * e) * speed * speed;
    let dissipated = output(&mut sim, "Ed");
    println!("dissipated {dissipated} J ({lost})");
    assert!((dissipated - lost).abs() < 1e-9, "dissipated {dissipated} J against {lost}");
}

/// Three balls stacked on a table that carries them down at 1 m/s and stops at T (e = 0.5):
/// the impact runs through the stack within the one event (rows that part and are turned back
/// onto their contact by the next impulse are hit again at once), so just after T no contact
/// is left approaching, whatever the step. Before, the bottom ball was left moving into the
/// stopped table at 0.625 m/s, and the rest of the impact was taken a step later (a probe).
/// Which sequence the impacts take within the event is not unique (a row whose approach is
/// round-off waits); every sequence leaves the stack separating.
#[test]
fn an_impact_runs_through_a_stack_within_its_event() {
    let ball = |k: usize, below: &str, gap_body: &str| {
        format!(
            "[[point_masses]]\nname = \"b{k}\"\nmass = 1.0\nposition = [0.0, {}]\nvelocity = [0.0, -1.0]\n\
             [[contacts]]\nname = \"c{k}\"\ntype = \"{gap_body}\"\nmethod = \"constraint\"\nbody1 = \"{below}\"\n\
             {}body2 = \"b{k}\"\nradius2 = 0.05\nrestitution = 0.5\n\
             [[outputs]]\nname = \"v{k}\"\nquantity = \"vy\"\nbody = \"b{k}\"\n",
            0.05 + 0.1 * k as f64,
            if gap_body == "circle_plane" { "point1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\n" } else { "radius1 = 0.05\n" }
        )
    };
    let text = format!(
        "[model]\nname = \"stack\"\ngravity = [0.0, -9.81]\n\
         [[rigid_bodies]]\nname = \"table\"\nmass = 2.0\ninertia = 1.0\nposition = [0.0, 0.0]\n\
         [[joints]]\nname = \"slide\"\ntype = \"prismatic\"\nbody2 = \"table\"\npoint = [0.0, 0.0]\n\
         axis = [0.0, 1.0]\ndrive = \"-min(t, 0.2)\"\n{}{}{}",
        ball(0, "table", "circle_plane"),
        ball(1, "b0", "circle_circle"),
        ball(2, "b1", "circle_circle")
    );
    let model = Model::parse(&text, "stack.toml").unwrap();
    for (method, step) in [(Method::Ttbif, 1e-3), (Method::Ttbif, 5e-4), (Method::Hht, 1e-3)] {
        let settings = flexfmu::simulation::SolverSettings {
            method,
            step,
            rho_inf: method.default_rho_inf(0.8),
            ..Default::default()
        };
        let mut sim = Simulation::new(&model, &[], settings, 0.0).unwrap();
        sim.step_to(0.2).unwrap();
        let v = [0.0, output(&mut sim, "v0"), output(&mut sim, "v1"), output(&mut sim, "v2")];
        println!("{method:?} at {step}: {v:?}");
        for pair in v.windows(2) {
            assert!(pair[0] - pair[1] <= 1e-9, "{method:?} at {step}: a contact left approaching: {v:?}");
        }
        assert!(v[1] >= 0.0, "{method:?} at {step}: the bottom ball moves into the table: {v:?}");
    }
}

/// The pile of `a_pile_of_constraint_contacts_that_crawls_is_told_to_use_the_force_method`:
/// 16 balls of 0.1 kg, radius 0.05 m, in two rows over a floor between two walls, a contact of
/// `method` per pair and per wall.
pub(crate) fn pile_text(method: &str) -> String {
    let (n, r) = (16usize, 0.05);
    let mut text = String::from("[model]\nname = \"pile\"\ngravity = [0.0, -9.81]\n");
    for i in 0..n {
        let (x, y) = (-0.4 + (i % 8) as f64 * 0.11 + 0.004 * (i as f64).sin(), 0.1 + (i / 8) as f64 * 0.12);
        let vx = (2.3 * i as f64).sin();
        text += &format!(
            "[[point_masses]]\nname = \"b{i}\"\nmass = 0.1\nposition = [{x:?}, {y:?}]\nvelocity = [{vx:?}, 0.0]\n"
        );
    }
    let law = if method == "force" { "stiffness = 1e7\n" } else { "" };
    let mut contact = |name: String, kind: &str, keys: String| {
        text += &format!(
            "[[contacts]]\nname = \"{name}\"\ntype = \"{kind}\"\nmethod = \"{method}\"\nrestitution = 0.5\n{law}{keys}"
        );
    };
    for i in 0..n {
        for (wall, point, normal) in
            [("floor", "0.0, 0.0", "0.0, 1.0"), ("left", "-0.5, 0.0", "1.0, 0.0"), ("right", "0.5, 0.0", "-1.0, 0.0")]
        {
            contact(
                format!("{wall}{i}"),
                "circle_plane",
                format!("point1 = [{point}]\nnormal = [{normal}]\nbody2 = \"b{i}\"\nradius2 = {r}\n"),
            );
        }
        for j in i + 1..n {
            contact(
                format!("c{i}_{j}"),
                "circle_circle",
                format!("body1 = \"b{i}\"\nradius1 = {r}\nbody2 = \"b{j}\"\nradius2 = {r}\n"),
            );
        }
    }
    text
}

/// Balls dropped into a box (a contact per pair and per wall, restitution 0.5): with
/// constraint contacts the pile strikes, parts and strikes again in ever shorter intervals
/// from t = 0.2 s, each a located event (docs/model-file.md, contacts), and the run is told
/// so once (`Simulation::event_storm`) instead of crawling in silence; with force contacts the
/// same pile rests, and the example models with contacts never hear it.
#[test]
fn a_pile_of_constraint_contacts_that_crawls_is_told_to_use_the_force_method() {
    let pile = |method: &str| Model::parse(&pile_text(method), "pile.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = common::sim::simulation_with(&pile("constraint"), &[], |_| {});
    sim.step_to(0.205).unwrap_or_else(|e| panic!("{e}"));
    let told = sim.event_storm().expect("the pile's events are told");
    println!("{told}");
    assert!(
        told.starts_with("from t = 0.2022, 100 contact events were located within 1.000e-3 s (the model's step)")
            && told.contains("method = \"force\""),
        "{told}"
    );
    assert!(Simulation::RUN_WARNINGS.iter().any(|w| w(&sim).as_deref() == Some(told.as_str())));
    // The FMU logs it once, as fmi2Warning from the doStep that met it (it logged only the
    // first two contact warnings).
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let instance = TextInstance::new(&pile_text("constraint"), &cb);
    instance.initialize();
    let statuses: Vec<i32> = (0..41).map(|k| unsafe { fmi2DoStep(instance.c, k as f64 * 0.005, 0.005, 1) }).collect();
    drop(instance);
    let logged: Vec<_> = messages
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, _, m)| m.contains("contact events were located"))
        .cloned()
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        logged[0].0 == 1
            && logged[0].2.starts_with("fmi2DoStep: from t = 0.2022")
            && logged[0].2.ends_with("(told once)"),
        "{logged:?}"
    );
    assert_eq!(statuses.iter().filter(|s| **s == 1).count(), 1, "one doStep returns fmi2Warning: {statuses:?}");
    assert!(statuses.iter().all(|s| *s == 0 || *s == 1), "{statuses:?}");
    let mut sim = common::sim::simulation_with(&pile("force"), &[], |_| {});
    sim.step_to(0.3).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.event_storm(), None, "force contacts let the pile rest");
    // Counted in windows of the model's step, so that the error-controlled step, which
    // shrinks in the storm, is told too (a probe's pile crawled there in silence), and a run's
    // events are not added up (this pile was told at its 100th event at t = 0).
    let mut sim = common::sim::simulation_with(&pile("force"), &[], |s| s.error_control.enabled = true);
    sim.step_to(0.3).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sim.event_storm(), None, "error control");
    let mut sim = common::sim::simulation_with(&pile("constraint"), &[], |s| s.error_control.enabled = true);
    sim.step_to(0.3).unwrap_or_else(|e| panic!("{e}"));
    assert!(sim.event_storm().is_some(), "error control, constraint contacts");
    // One ball bouncing to rest with a min_impact_speed (1e-6 m/s) below the speeds it
    // chatters at (about 3e-6 m/s at the 1 ms step, a probe): told from t = 1.354 s, with
    // either step.
    let ball = "[model]\nname = \"bounce\"\ngravity = [0.0, -9.81]\n[[point_masses]]\nname = \"ball\"\nmass = 1.0\n\
                position = [0.0, 1.05]\n[[contacts]]\nname = \"floor\"\ntype = \"circle_plane\"\nmethod = \"constraint\"\n\
                body2 = \"ball\"\nrestitution = 0.5\nmin_impact_speed = 1e-6\npoint1 = [0.0, 0.0]\nnormal = [0.0, 1.0]\n\
                radius2 = 0.05\n";
    let ball = Model::parse(ball, "bounce.toml").unwrap_or_else(|e| panic!("{e}"));
    for error_control in [false, true] {
        let mut sim = common::sim::simulation_with(&ball, &[], |s| s.error_control.enabled = error_control);
        sim.step_to(1.36).unwrap_or_else(|e| panic!("{e}"));
        let told = sim.event_storm().expect("the chattering ball is told");
        assert!(told.starts_with("from t = 1.354") && told.contains("min_impact_speed above"), "{told}");
    }
    for name in ["newtons_cradle", "ball_drop_constraint", "ball_drop", "crank_slider_contact"] {
        let model = example(name);
        let mut sim = common::sim::simulation_with(&model, &[], |_| {});
        let stop = Experiment::from_model(&model, &model.default_parameters()).unwrap().stop_time;
        sim.step_to(stop).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sim.event_storm(), None, "{name}");
    }
}

/// `statics` of the ball drawn above its floor (a constraint contact, open): no equilibrium,
/// and the message names the open contact and says that statics does not close it, with what
/// to do (a probe was told only that the model "may be a mechanism"); the state is unchanged.
#[test]
fn statics_says_which_open_constraint_contact_it_does_not_close() {
    let mut sim = simulation_with(&model(), &[], Method::Ttbif);
    let before = output(&mut sim, "y");
    let err = sim.settle_static(0.0).unwrap_err();
    assert!(
        err.contains("the constraint contact 'floor' is open, and statics does not close a constraint contact")
            && err.contains("method = \"force\""),
        "{err}"
    );
    assert_eq!(output(&mut sim, "y"), before);
}
