//! Contact and impact (issue 6): the continuous Hertz force with hysteresis damping of
//! paper 004 eqs. 6-10, driven through `Simulation` and through the FMU.
//!
//! Which model gives exactly e: the contact *constraint* method with Newton's restitution
//! law imposes v_out = -e v_in by construction. Of the continuous force F = K d^1.5 (1 + C d'),
//! eq. 10's factor C = 3 (1 - e^2)/(4 v0) (Lankarani-Nikravesh) is derived for e near 1 and
//! rebounds with e' > e (0.684 for e = 0.3); integrating the impact exactly gives the factor
//! C = c/v0 with (1 + e) c = ln((1 + c)/(1 - e c)), whose rebound ratio is exactly e for a
//! free impact. The tests use that one; under gravity the weight acts during the 1.6 ms impact
//! (measured -0.8 % at e = 0.3, less at higher e), which the 2 % tolerance covers; without gravity the ratio is
//! checked to 2e-3.

use flexfmu::mechanics::forces::contact::{DampingModel, restitution_of_damping_factor};
use flexfmu::model::Model;
use flexfmu::simulation::Simulation;

use crate::common;
use common::ball_drop::{FreeFlight, G, impact_times_at, worst_difference};
use common::sim::{example, model_path, output, refused, simulation_with};

/// Between impacts the contact force is off.
const FREE: FreeFlight = FreeFlight { output: "contact_state", holds: |state| state < 0.5 };

fn ball_drop() -> Model {
    example("ball_drop")
}

fn simulation(model: &Model, e: f64) -> Simulation {
    simulation_with(model, &[("e", e)], |_| {})
}

/// Kinetic energy the ball would have at the contact height (y = r) in free flight.
fn flight_energy(sim: &mut Simulation, m: f64, r: f64) -> f64 {
    output(sim, "energy_total") - m * G * r
}

/// Rebound ratios of the first `count` impacts from the flight energies between them:
/// e_k = sqrt(E_{k+1} / E_k) (free flight conserves energy, so no sampling at separation).
fn rebound_ratios(sim: &mut Simulation, dt: f64, t_end: f64, count: usize) -> Vec<f64> {
    let (m, r) = (1.0, 0.05);
    let mut energies = vec![flight_energy(sim, m, r)];
    let mut in_contact = false;
    let mut t = 0.0;
    while t < t_end && energies.len() <= count {
        t += dt;
        sim.step_to(t).unwrap();
        let state = output(sim, "contact_state") > 0.5;
        if in_contact && !state {
            energies.push(flight_energy(sim, m, r));
        }
        in_contact = state;
    }
    energies.windows(2).map(|w| (w[1] / w[0]).sqrt()).collect()
}

#[test]
fn rebound_ratio_equals_the_restitution_coefficient() {
    let model = ball_drop();
    for e in [0.3, 0.6, 0.9] {
        let mut sim = simulation(&model, e);
        let ratios = rebound_ratios(&mut sim, 1e-4, 1.2, 1);
        let measured = ratios[0];
        println!("e = {e}: first rebound ratio {measured:.5} ({:+.3} %)", 100.0 * (measured / e - 1.0));
        assert!((measured / e - 1.0).abs() < 0.02, "e = {e}: rebound ratio {measured}");
    }
}

/// The same ball without gravity, thrown at the floor at 3 m/s: the exact factor rebounds with
/// e to discretisation accuracy; paper 004's eq. 10 rebounds with the e' the exact relation
/// predicts for its factor, visibly above e.
#[test]
fn without_gravity_the_exact_factor_gives_e_and_eq10_its_predicted_ratio() {
    let text = std::fs::read_to_string(model_path("ball_drop"))
        .unwrap()
        .replace("gravity = [0.0, -9.81]", "")
        .replace("position = [0.0, \"r + h0\"]", "position = [0.0, \"r + h0\"]\nvelocity = [0.0, -3.0]");
    for (law, name) in [(DampingModel::Exact, "exact"), (DampingModel::LankaraniNikravesh, "lankarani_nikravesh")] {
        let text = text.replace("restitution = \"e\"", &format!("restitution = \"e\"\ndamping_model = \"{name}\""));
        let model = Model::parse(&text, "ball_free.toml").unwrap();
        for e in [0.3, 0.6, 0.9] {
            let mut sim = simulation(&model, e);
            let v_in = 3.0;
            let mut t = 0.0;
            while t < 0.25 {
                t += 1e-3;
                sim.step_to(t).unwrap();
            }
            let measured = output(&mut sim, "vy") / v_in;
            let expected = restitution_of_damping_factor(law.factor(e));
            println!(
                "{name:20} e = {e}: rebound {measured:.5}, predicted {expected:.5} (error {:.1e})",
                measured - expected
            );
            assert!((measured - expected).abs() < 2e-3);
            if law == DampingModel::Exact {
                assert!((measured - e).abs() < 2e-3);
            } else {
                assert!(measured > e + 0.01, "eq. 10 is only approximate: {measured} vs {e}");
            }
        }
    }
}

/// Largest rise of energy_total + energy_dissipated above its running minimum (J), the
/// initial energy, the final dissipated energy and the net drift of the balance.
fn energy_balance(model: &Model, e: f64, step: f64) -> (f64, f64, f64, f64) {
    let mut sim = simulation_with(model, &[("e", e)], |s| s.step = step);
    // The convergence order of the fixed-step method: contacts do not refine the step.
    sim.set_contact_step_limit(false);
    let e0 = output(&mut sim, "energy_total");
    let (mut lowest, mut worst_rise, mut t) = (e0, 0.0f64, 0.0);
    while t < 1.2 - 1e-9 {
        t += 1e-4;
        sim.step_to(t).unwrap();
        let balance = output(&mut sim, "energy_total") + output(&mut sim, "energy_dissipated");
        worst_rise = worst_rise.max(balance - lowest);
        lowest = lowest.min(balance);
    }
    let dissipated = output(&mut sim, "energy_dissipated");
    let balance = output(&mut sim, "energy_total") + dissipated;
    (worst_rise, e0, dissipated, (balance - e0) / e0)
}

/// E + D is conserved up to the integrator's and the power quadrature's O(h^2) errors, which
/// have either sign inside an impact: the largest rise is below 1e-3 E0 (issue 6) and falls
/// at second order with the step, so no energy is created by the contact law itself.
#[test]
fn energy_total_plus_dissipated_never_increases() {
    let model = ball_drop();
    for e in [0.3, 0.9] {
        let (rise, e0, dissipated, drift) = energy_balance(&model, e, 5e-5);
        let (rise_half, _, _, drift_half) = energy_balance(&model, e, 2.5e-5);
        println!(
            "e = {e}: E0 = {e0:.4} J, dissipated {dissipated:.4} J; largest rise of E + D {rise:.2e} J (h = 5e-5), {rise_half:.2e} J (h/2), ratio {:.2}; net drift {drift:.2e}, {drift_half:.2e}",
            rise / rise_half
        );
        assert!(dissipated > (1.0 - e * e) * (e0 - 0.05 * G));
        assert!(rise <= 1e-3 * e0, "energy gained: {rise}");
        assert!(rise / rise_half > 3.0, "the rise must be a second-order discretisation error");
        assert!(drift.abs() < 1e-3 && drift_half.abs() < drift.abs());
    }
}

#[test]
fn impacts_do_not_depend_on_the_communication_interval() {
    let model = ball_drop();
    // Free flight at these times for e = 0.6 (impacts near 0.32, 0.71, 0.94, 1.07 s).
    let samples = [0.5, 0.8, 1.0];
    let reference = impact_times_at(&mut simulation(&model, 0.6), 1e-4, &samples, &FREE);
    println!("reference (dt 1e-4): {reference:?}");
    for dt in [3e-4, 1e-3, 7e-3, 0.01, 0.03, 0.1] {
        let got = impact_times_at(&mut simulation(&model, 0.6), dt, &samples, &FREE);
        let worst = worst_difference(&got, &reference);
        println!("communication interval {dt}: worst impact/separation time difference {worst:.2e} s");
        assert!(worst < 1e-3);
    }
}

#[test]
fn snapshot_inside_an_impact_restores_the_impact_speed() {
    let model = ball_drop();
    let mut sim = simulation(&model, 0.6);
    sim.step_to(0.3205).unwrap();
    assert!(output(&mut sim, "contact_state") > 0.5, "mid-impact");
    let snap = sim.snapshot();
    let bytes = snap.to_bytes();
    sim.step_to(0.6).unwrap();
    let first = sim.output_values().unwrap().to_vec();
    // A fresh simulation (no impact seen) restored from the bytes continues identically.
    let mut other = simulation(&model, 0.6);
    other.restore(&flexfmu::simulation::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    other.step_to(0.6).unwrap();
    assert_eq!(other.output_values().unwrap(), first.as_slice());
    println!("restored mid-impact run equals the original at t = 0.6: {first:?}");
}

/// A ball drawn touching its floor (penetration exactly 0) is not yet in contact: no force,
/// `contact_state` 0 and no impact recorded (`impact_time` -1; it showed an onset at t = 0
/// with the contact open, a probe). Once it settles in, the onset is the first step's time.
#[test]
fn a_ball_drawn_touching_has_no_impact_before_it_presses() {
    let text = std::fs::read_to_string(model_path("ball_drop")).unwrap().replacen(
        "h0 = { value = 0.5,",
        "h0 = { value = 0.0,",
        1,
    ) + "[[outputs]]\nname = \"onset\"\nquantity = \"impact_time\"\ncontact = \"floor\"\n";
    assert!(text.contains("h0 = { value = 0.0,"));
    let model = Model::parse(&text, "touching.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(0.0).unwrap();
    let at_start = ["penetration", "contact_state", "onset"].map(|o| output(&mut sim, o));
    assert_eq!(at_start, [0.0, 0.0, -1.0]);
    sim.step_to(1e-3).unwrap();
    let later = ["penetration", "contact_state", "onset"].map(|o| output(&mut sim, o));
    assert!(later[0] > 0.0 && later[1] == 1.0 && later[2] > 0.0 && later[2] <= 1e-3, "{later:?}");
}

#[test]
fn bad_contacts_are_located_errors() {
    let text = std::fs::read_to_string(model_path("ball_drop")).unwrap();
    let cases = [
        ("body2 = \"ball\"", "body2 = \"bal\"", "unknown body 'bal'"),
        ("stiffness = \"K\"", "stiffness = -1.0", "stiffness"),
        (
            "restitution = \"e\"",
            "restitution = 1.5",
            "must be in [0.001, 1], got 1.5 (above 1 an impact would create energy)",
        ),
        (
            "restitution = \"e\"",
            "restitution = 0.0",
            "must be in [0.001, 1], got 0 (for a plastic impact use method = \"constraint\"",
        ),
        // Below 1e-3 the damping factor (~1/e) outgrows the steps: a probe's 1e-300 made energy.
        ("restitution = \"e\"", "restitution = 1e-4", "use method = \"constraint\", which takes 0"),
        ("type = \"circle_plane\"", "type = \"sphere\"", "unknown contact type 'sphere'"),
        ("radius2 = \"r\"", "radius1 = \"r\"", "`radius1` applies only to circle_circle"),
        ("normal = [0.0, 1.0]", "normal = [0.0, 0.0]", "normal must not be zero"),
        ("contact = \"floor\"", "contact = \"flor\"", "unknown contact 'flor'"),
    ];
    for (from, to, message) in cases {
        let (err, line) = refused(&text, "ball_drop.toml", from, to);
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!(err.line, line, "{err}");
    }
    // A circle on ground without its centre is told the key the entry takes (a probe was told
    // `point`, a joint's key; a contact's is point1).
    let circles = "[model]\nname = \"c\"\n[[point_masses]]\nname = \"b\"\nmass = 1.0\nposition = [1.0, 0.0]\n\
        [[contacts]]\nname = \"c\"\ntype = \"circle_circle\"\nbody1 = \"ground\"\nradius1 = 0.1\n\
        body2 = \"b\"\nradius2 = 0.1\nstiffness = 1e7\nrestitution = 0.9\n";
    let err = common::sim::parse_and_assemble(circles, "c.toml").unwrap_err();
    assert!(err.to_string().contains("`point1` for `body1`") && err.line == 10, "{err}");
    // body1 omitted (ground by default): located at the entry's name, not at line 1.
    let err = common::sim::parse_and_assemble(&circles.replace("body1 = \"ground\"\n", ""), "c.toml").unwrap_err();
    assert!(err.to_string().contains("`point1` for `body1`") && err.line == 8, "{err}");
}

/// A force contact drawn deeper than a tenth of its radius is warned of, at the contact: its
/// elastic energy 2/5 K delta^2.5 is set free at once (a probe's ball 10 m under its floor left
/// at 1908 m/s without a word). The ball resting at its static penetration (m g / K)^(2/3) is not.
#[test]
fn a_force_contact_drawn_deep_in_is_warned_of() {
    let model = ball_drop();
    let warnings = |h0: f64| {
        let sim = simulation_with(&model, &[("h0", h0)], |_| {});
        sim.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>()
    };
    let deep = warnings(-0.01);
    let energy = 0.4 * 1e8 * 0.01f64.powf(2.5);
    assert_eq!(deep.len(), 1, "{deep:?}");
    assert!(
        deep[0].contains(&format!(
            "the bodies start 1.000e-2 m deep in this contact (20 % of the radii): its elastic energy {energy:.3e} J"
        )),
        "{deep:?}"
    );
    let resting = -(9.81f64 / 1e8).powf(2.0 / 3.0);
    assert!(warnings(resting).is_empty(), "{:?}", warnings(resting));
}

/// The FMU through a real importer (the `fmi` crate): communication steps 1e-4 s and 0.1 s give
/// the same impact and separation times (within 1 ms; measured ~1e-10 s), equal to the facade's.
#[test]
fn fmu_impact_times_do_not_depend_on_the_communication_step() {
    let model = ball_drop();
    let samples = [0.5, 0.8, 1.0];
    let direct = impact_times_at(&mut simulation(&model, 0.6), 0.01, &samples, &FREE);
    let worst = common::ball_drop::assert_fmu_impact_times_independent_of_the_communication_step(
        &model, &FREE, &samples, &direct,
    );
    println!("largest impact/separation time difference between communication steps 1e-4 and 0.1: {worst:.2e} s");
}

/// Two free balls (circle_circle), no gravity: the relative normal velocity reverses with
/// exactly e (the exact relation holds for the relative coordinate with the reduced mass)
/// and momentum is conserved (the contact force is internal).
#[test]
fn circle_circle_collision_conserves_momentum_and_reverses_with_e() {
    let text = r#"
[model]
name = "two_balls"
[parameters]
e = 0.5
[solver]
step = 2e-5
[[point_masses]]
name = "a"
mass = 1.0
position = [0.0, 0.0]
velocity = [2.0, 0.5]
[[point_masses]]
name = "b"
mass = 2.0
position = [0.3, 0.0]
velocity = [0.0, 0.5]
[[contacts]]
name = "hit"
type = "circle_circle"
body1 = "a"
radius1 = 0.06
body2 = "b"
radius2 = 0.04
stiffness = 1e8
restitution = "e"
[[outputs]]
name = "state"
quantity = "contact_state"
contact = "hit"
"#;
    let model = Model::parse(text, "two_balls.toml").unwrap();
    for e in [0.3, 0.9] {
        let mut sim = simulation(&model, e);
        let mut t = 0.0;
        let mut touched = false;
        while t < 0.2 {
            t += 1e-3;
            sim.step_to(t).unwrap();
            touched |= output(&mut sim, "state") > 0.5;
        }
        let v = &sim.state().v;
        let q = &sim.state().q;
        let n = {
            let d = [q[2] - q[0], q[3] - q[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            [d[0] / l, d[1] / l]
        };
        // Initial relative normal approach speed: along the line of centres at impact; the
        // tangential relative velocity is zero, so the relative velocity is normal throughout.
        let v_in = 2.0;
        let v_out = (v[2] - v[0]) * n[0] + (v[3] - v[1]) * n[1];
        let momentum = [v[0] + 2.0 * v[2], v[1] + 2.0 * v[3]];
        println!("e = {e}: relative rebound {:.5}, momentum ({:.12}, {:.12})", v_out / v_in, momentum[0], momentum[1]);
        assert!(touched);
        assert!((v_out / v_in - e).abs() < 2e-3);
        assert!((momentum[0] - 2.0).abs() < 1e-9 && (momentum[1] - 1.5).abs() < 1e-9);
    }
}

/// Energy dissipated by three balls on a line, e = 0.8 (K = 1e7, m = 1 kg, r = 0.05 m): the
/// first at 1 m/s hits the second across a 10 mm gap, and the second sits `gap` from the third.
fn touching_line_dissipation(gap: f64) -> f64 {
    let text = r#"
[model]
name = "three_balls"
gravity = [0.0, 0.0]
[parameters]
g = 0.0
[[point_masses]]
name = "a"
mass = 1.0
position = [0.0, 0.0]
velocity = [1.0, 0.0]
[[point_masses]]
name = "b"
mass = 1.0
position = [0.11, 0.0]
velocity = [0.0, 0.0]
[[point_masses]]
name = "c"
mass = 1.0
position = ["0.21 + g", 0.0]
velocity = [0.0, 0.0]
[[contacts]]
name = "ab"
type = "circle_circle"
body1 = "a"
radius1 = 0.05
body2 = "b"
radius2 = 0.05
stiffness = 1e7
restitution = 0.8
[[contacts]]
name = "bc"
type = "circle_circle"
body1 = "b"
radius1 = 0.05
body2 = "c"
radius2 = 0.05
stiffness = 1e7
restitution = 0.8
[[outputs]]
name = "energy_dissipated"
quantity = "energy_dissipated"
"#;
    let model = Model::parse(text, "three_balls.toml").unwrap();
    let mut sim = simulation_with(&model, &[("g", gap)], |_| {});
    sim.step_to(0.1).unwrap();
    output(&mut sim, "energy_dissipated")
}

/// A contact that starts closed at rest (balls touching) and is then struck dissipates as
/// the limit of the same contact with a vanishing initial gap: the damping's v0 is the largest
/// approach speed while closed, not the speed 0 at which it closed (that would give v0 its
/// floor `min_impact_speed` and a damping a thousand times too large).
#[test]
fn a_contact_that_starts_closed_dissipates_as_the_limit_of_a_vanishing_gap() {
    let touching = touching_line_dissipation(0.0);
    let gaps = [1e-6, 1e-7, 1e-8].map(touching_line_dissipation);
    println!(
        "energy dissipated: touching {touching:.6e} J; gaps 1e-6, 1e-7, 1e-8 m: {:.6e}, {:.6e}, {:.6e} J",
        gaps[0], gaps[1], gaps[2]
    );
    let limit = gaps[2];
    assert!(
        (touching - limit).abs() <= 1e-3 * limit,
        "touching {touching:.6e} J against the vanishing-gap limit {limit:.6e} J"
    );
    assert!((gaps[1] - limit).abs() <= 1e-3 * limit, "the gapped runs do not converge: {gaps:?}");
}

/// A body placed into the ground (a ball 1 mm deep in a Hertz contact, K = 1e8) holds elastic
/// energy from the start and gives it back at the contact's time scale: the step limit holds
/// from the first step, so that energy_total + energy_dissipated (no other work is done) does
/// not grow. Before, the onset speed 0 counted as no impact, no step limited the release at
/// the default 1 ms step, and the sum grew by 22 % (with 25 mm: from 3953 J by 925 J).
#[test]
fn a_body_placed_into_the_ground_gains_no_energy_on_defaults() {
    for (depth, limit) in [(1e-3, 1e-3), (2.5e-2, 1e-3)] {
        let text = format!(
            r#"[model]
name = "placed_ball"
gravity = [0.0, -9.81]
[solver]
stop_time = 0.5
output_interval = 1e-3
[[rigid_bodies]]
name = "ball"
mass = 0.2
inertia = 2e-4
position = [0.0, {y}]
[[contacts]]
name = "floor"
type = "circle_plane"
point1 = [0.0, 0.0]
normal = [0.0, 1.0]
body2 = "ball"
radius2 = 0.05
restitution = 0.8
stiffness = 1e8
[[outputs]]
name = "energy_total"
quantity = "energy_total"
[[outputs]]
name = "energy_dissipated"
quantity = "energy_dissipated"
"#,
            y = 0.05 - depth
        );
        let model = Model::parse(&text, "placed_ball.toml").unwrap();
        let mut sim = simulation_with(&model, &[], |_| {});
        let balance =
            |sim: &mut flexfmu::simulation::Simulation| output(sim, "energy_total") + output(sim, "energy_dissipated");
        let start = balance(&mut sim);
        let mut largest = start;
        for k in 1..=500 {
            sim.step_to(k as f64 * 1e-3).unwrap();
            largest = largest.max(balance(&mut sim));
        }
        println!("placed {depth} m deep: energy {start:.6} J, largest {largest:.6} J");
        assert!(largest - start <= limit * start, "placed {depth} m deep: energy {start} J grew to {largest} J");
    }
}

/// A force contact's onset taken where its located step ends touching (the penetration
/// reach - s exactly zero, as it is over the ulps of s around the root) or where a step ends
/// on it: probe 39a's two balls meet at t = 0.3 s, on a step's end, and its slow drop
/// (0.106 m/s) lands on a located step's end at delta = 0. The onset was taken a step of the
/// impact later (1/50 of it), with the speed there: impact_time 3.4e-5 s late, rebound 0.49975
/// for e = 0.5. Exact: impact times 0.3 s and sqrt(2 h0/g); the relative rebound e (the exact
/// damping factor, no other force) within the 3.5e-5 that a located onset off a step's end
/// gives.
#[test]
fn an_onset_on_a_step_end_or_located_to_touching_is_the_impact() {
    let balls = r#"
[model]
name = "meet"
[[point_masses]]
name = "a"
mass = 1.0
position = [0.0, 0.0]
velocity = [1.0, 0.0]
[[point_masses]]
name = "b"
mass = 2.0
position = [0.5, 0.0]
[[contacts]]
name = "hit"
type = "circle_circle"
body1 = "a"
radius1 = 0.1
body2 = "b"
radius2 = 0.1
stiffness = 1e8
restitution = 0.5
[[outputs]]
name = "onset"
quantity = "impact_time"
contact = "hit"
"#;
    let model = Model::parse(balls, "meet.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    for k in 1..=100 {
        sim.step_to(0.01 * k as f64).unwrap();
    }
    let v = &sim.state().v;
    let rebound = v[2] - v[0];
    let onset = output(&mut sim, "onset");
    println!("balls: onset {onset:.12} s (0.3), rebound {rebound:.6} (0.5)");
    assert!((onset - 0.3).abs() < 1e-9, "{onset}");
    assert!((rebound - 0.5).abs() < 1e-4, "{rebound}");

    let h0: f64 = 0.0005721192;
    let drop = format!(
        r#"
[model]
name = "slow_drop"
gravity = [0.0, -9.81]
[solver]
output_interval = 1e-3
[[point_masses]]
name = "ball"
mass = 2.0
position = [0.0, {}]
[[contacts]]
name = "floor"
type = "circle_plane"
point1 = [0.0, 0.0]
normal = [0.0, 1.0]
body2 = "ball"
radius2 = 0.1
stiffness = 1e9
restitution = 0.5
[[outputs]]
name = "onset"
quantity = "impact_time"
contact = "floor"
"#,
        0.1 + h0
    );
    let model = Model::parse(&drop, "slow_drop.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(0.02).unwrap();
    let onset = output(&mut sim, "onset");
    let exact = (2.0 * h0 / G).sqrt();
    println!("slow drop: onset {onset:.12} s, exact {exact:.12} s");
    assert!((onset - exact).abs() < 1e-9, "{onset} vs {exact}");
}

/// Probe 39a's stack, drawn at rest: a 2 kg ball on the floor, a 0.5 kg ball on it, both
/// contacts touching, K = 1e8. The contacts close at rest (1e-16 m/s) and then follow the
/// largest approach speed as they settle; the impact's duration was kept from the first speed
/// (seconds), so the step stayed at a fiftieth of an impact for 5.5 s after the balls came to
/// rest: 90,274 steps and 86,022 factorizations over 10 s. Each raise of the speed is a new
/// impact with its own duration, and once settled the contacts cost what free bodies cost
/// (10,000 steps of 1 ms). At rest: penetrations (m g/K)^(2/3) of the loads 2.5 g and 0.5 g.
#[test]
fn two_balls_drawn_resting_on_each_other_settle_at_the_free_step() {
    let text = r#"
[model]
name = "stack"
gravity = [0.0, -9.81]
[[point_masses]]
name = "low"
mass = 2.0
position = [0.0, 0.1]
[[point_masses]]
name = "top"
mass = 0.5
position = [0.0, 0.25]
[[contacts]]
name = "floor"
type = "circle_plane"
point1 = [0.0, 0.0]
normal = [0.0, 1.0]
body2 = "low"
radius2 = 0.1
stiffness = 1e8
restitution = 0.5
[[contacts]]
name = "pair"
type = "circle_circle"
body1 = "low"
radius1 = 0.1
body2 = "top"
radius2 = 0.05
stiffness = 1e8
restitution = 0.5
[[outputs]]
name = "floor_depth"
quantity = "penetration"
contact = "floor"
[[outputs]]
name = "pair_depth"
quantity = "penetration"
contact = "pair"
"#;
    let model = Model::parse(text, "stack.toml").unwrap();
    let mut sim = simulation_with(&model, &[], |_| {});
    sim.step_to(10.0).unwrap();
    let steps = sim.statistics().steps;
    let (floor, pair) = (output(&mut sim, "floor_depth"), output(&mut sim, "pair_depth"));
    let expected = |load: f64| (load * G / 1e8).powf(2.0 / 3.0);
    println!(
        "stack: {steps} steps, {} factorizations; penetrations {floor:.6e} ({:.6e}), {pair:.6e} ({:.6e})",
        sim.statistics().factorizations,
        expected(2.5),
        expected(0.5)
    );
    assert!(steps < 11_000, "{steps} steps");
    assert!((floor / expected(2.5) - 1.0).abs() < 1e-6 && (pair / expected(0.5) - 1.0).abs() < 1e-6);
}
