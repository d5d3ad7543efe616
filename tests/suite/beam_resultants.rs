//! A beam section given by its stress resultants (docs/model-file.md, `[[beams]]`: `EA`, `GA`,
//! `EI`; spatial `EA`, `GA` or `GAy` and `GAz`, `EIy`, `EIz`, `GJ`; with `mass_per_length`),
//! as published benchmarks give it. References:
//! - the same beam given by an equivalent geometry and material (E, nu, area, second moments,
//!   torsion constant, shear factor, mass per length, rotary inertia): the right-angle
//!   cantilever (Simo & Vu-Quoc 1988; EA = GA = 1e6 N, EI = GJ = 1e3 N m^2, rho A = 1 kg/m,
//!   rho J = 20, rho I = 10 kg m) moves bit for bit alike; the planar spin-up (Simo & Vu-Quoc
//!   1986; EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m) alike to round-off in every
//!   planar formulation (the geometric form's E I = (EA/A)(EI/EA A) is itself 1 ulp off EI);
//! - Euler-Bernoulli theory: clamped-free bending frequencies (beta_n L)^2 / (2 pi)
//!   sqrt(EI / (m L^4)), axial sqrt(EA / m) / (4 L) and torsion sqrt(GJ / J_x) / (4 L)
//!   (e.g. Meirovitch, Elements of Vibration Analysis);
//! - Timoshenko statics: a cantilever's tip deflection under a tip load P,
//!   P L^3 / (3 EI) + P L / GA, in each of a spatial beam's planes with its own EI and GA;
//! - located errors (file:line:column) for contradicting, missing and non-positive keys.

use std::process::Command;

use crate::common;
use flexfmu::analysis::statics::static_equilibrium;
use flexfmu::model::{Model, ModelError};
use flexfmu::simulation::{Simulation, SolverSettings};
use std::f64::consts::PI;

/// The right-angle cantilever of tests/corpus/right_angle_cantilever.toml with both arms'
/// `section` (and `material`, a line or empty) given, run for `stop` s.
fn right_angle_cantilever(section: &str, material: &str, formulation: &str, stop: f64) -> String {
    let arm = |name: &str, start: &str, end: &str| {
        format!(
            "[[beams]]\nname = \"{name}\"\nstart = {start}\nend = {end}\nelements = 4\n\
             formulation = \"{formulation}\"\nsection = {{ {section} }}\n{material}\n"
        )
    };
    format!(
        "[model]\nname = \"right_angle_cantilever\"\ndimension = 3\n\n[solver]\nstop_time = {stop}\n\
         output_interval = 0.05\n\n{}{}\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"arm1.start\"\npoint = [0.0, 0.0, 0.0]\n\n\
         [[joints]]\nname = \"elbow\"\ntype = \"fixed\"\nbody1 = \"arm1.end\"\nbody2 = \"arm2.start\"\n\
         point = [10.0, 0.0, 0.0]\n\n\
         [[loads]]\nname = \"F\"\ntype = \"force\"\nbody = \"arm1.end\"\ndirection = [0.0, 0.0, 1.0]\n\
         table = [[0.0, 0.0], [1.0, 50.0], [2.0, 0.0]]\n\n\
         [[outputs]]\nname = \"elbow_z\"\nquantity = \"z\"\nbody = \"arm1.end\"\n\n\
         [[outputs]]\nname = \"tip_x\"\nquantity = \"x\"\nbody = \"arm2.end\"\n\n\
         [[outputs]]\nname = \"tip_z\"\nquantity = \"z\"\nbody = \"arm2.end\"\n\n\
         [[outputs]]\nname = \"tip_wx\"\nquantity = \"wx\"\nbody = \"arm2.end\"\n\n\
         [[outputs]]\nname = \"energy_total\"\nquantity = \"energy_total\"\n\n\
         [[outputs]]\nname = \"energy_dissipated\"\nquantity = \"energy_dissipated\"\n",
        arm("arm1", "[0.0, 0.0, 0.0]", "[10.0, 0.0, 0.0]"),
        arm("arm2", "[10.0, 0.0, 0.0]", "[10.0, 10.0, 0.0]"),
    )
}

fn simulation(text: &str) -> Simulation {
    let model = Model::parse(text, "beam.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    Simulation::new(&model, &model.default_parameters(), SolverSettings::default(), 0.0)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The outputs at every `interval` from 0 to `stop` (the model's own settings).
fn history(text: &str, interval: f64, stop: f64) -> Vec<Vec<f64>> {
    let model = Model::parse(text, "beam.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let settings = SolverSettings::from_model(&model, &model.default_parameters()).unwrap();
    let mut sim = Simulation::new(&model, &model.default_parameters(), settings, 0.0).unwrap();
    let mut rows = vec![sim.output_values().unwrap().to_vec()];
    for k in 1..=(stop / interval).round() as usize {
        sim.step_to(k as f64 * interval).unwrap_or_else(|e| panic!("{e}\n{text}"));
        rows.push(sim.output_values().unwrap().to_vec());
    }
    rows
}

/// The largest difference of each output between two histories, relative to the output's
/// largest magnitude.
fn largest_relative_difference(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    (0..a[0].len())
        .map(|i| {
            let scale = a.iter().map(|r| r[i].abs()).fold(0.0, f64::max).max(1e-300);
            a.iter().zip(b).map(|(r, s)| (r[i] - s[i]).abs()).fold(0.0, f64::max) / scale
        })
        .fold(0.0, f64::max)
}

/// (1) A spatial beam given by its resultants is the beam given by the equivalent geometry and
/// material, bit for bit: the right-angle cantilever's data (G = E needs nu = -0.5 and the
/// shear factor 1; the torsion constant j = GJ / G), 2 s of the elbow impulse, Timoshenko and
/// Euler-Bernoulli, with and without Kelvin-Voigt damping (`material = { damping }` beside the
/// resultants). `GA` is `GAy` = `GAz` = GA, bit for bit.
#[test]
fn spatial_resultants_equal_the_equivalent_geometry_bit_for_bit() {
    let resultants = "EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0, \
                      rotary_inertia = [20.0, 10.0, 10.0]";
    let geometry = "area = 1.0, iy = 1e-3, iz = 1e-3, j = 1e-3, shear_factor = 1.0, mass_per_length = 1.0, \
                    rotary_inertia = [20.0, 10.0, 10.0]";
    for formulation in ["timoshenko", "euler_bernoulli"] {
        for damping in [None, Some(0.01)] {
            let (given, material) = match damping {
                Some(d) => (format!("material = {{ damping = {d} }}"), format!("damping = {d}, ")),
                None => (String::new(), String::new()),
            };
            let stop = 2.0;
            let a = history(&right_angle_cantilever(resultants, &given, formulation, stop), 0.05, stop);
            let b = history(
                &right_angle_cantilever(
                    geometry,
                    &format!("material = {{ {material}E = 1e6, nu = -0.5, rho = 1.0 }}"),
                    formulation,
                    stop,
                ),
                0.05,
                stop,
            );
            let last = a.last().unwrap();
            println!(
                "{formulation}, damping {damping:?}: at {stop} s elbow z {:.6} m, tip z {:.6} m",
                last[0], last[2]
            );
            assert!(last[0] > 1.0, "the impulse moves the elbow: {last:?}");
            let bits = |h: &[Vec<f64>]| h.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{formulation}, damping {damping:?}");
            if formulation == "timoshenko" && damping.is_none() {
                let split = resultants.replace("GA = 1e6", "GAy = 1e6, GAz = 1e6");
                let c = history(&right_angle_cantilever(&split, "", formulation, stop), 0.05, stop);
                assert_eq!(bits(&a), bits(&c), "GAy = GAz = GA");
            }
        }
    }
}

/// The spin-up model (models/spin_up.toml) with the beam's `section`, `material` and
/// `formulation` (and `elements = 10` or `modes = 4`) replaced.
fn spin_up(section: &str, material: &str, formulation: &str) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/models/spin_up.toml")).unwrap();
    let (from, to) = (text.find("[[beams]]").unwrap(), text.find("[[joints]]").unwrap());
    let size = if formulation == "floating_frame" { "modes = 4" } else { "elements = \"elements\"" };
    let beam = format!(
        "[[beams]]\nname = \"arm\"\nstart = [0.0, 0.0]\nend = [\"L\", 0.0]\n{size}\nsection = {{ {section} }}\n\
         {material}\nformulation = \"{formulation}\"\n\n"
    );
    let mut text = format!("{}{beam}{}", &text[..from], &text[to..]);
    if formulation == "floating_frame" {
        // Its tip's outputs are global (no `frame`).
        text = text.replace("frame = \"hub\"\n", "");
    }
    if !text.contains("\nA = ") {
        text = text.replacen("[parameters]\n", "[parameters]\nA = 1.0e-2\n", 1);
    }
    text
}

/// (2) A planar beam given by its resultants is the beam given by the equivalent geometry and
/// material, in every formulation: the spin-up's data (Simo & Vu-Quoc 1986) written as the
/// model wrote them before resultants existed, area A = 0.01 m^2, I = EI/EA A, E = EA/A,
/// rho = rhoA/A (and for shear, G A k = GA: nu = 0.3, shear factor 1, GA = EA/2.6), 2 s of the
/// spin-up. Round-off only: E I of that form is 1 ulp above EI, and Newton's iterates carry
/// the difference up to the solver tolerance (1e-10): measured largest differences, relative
/// to each output's largest value, 1.9e-9 (euler_bernoulli), 1.6e-9 (timoshenko), 3.4e-11
/// (ancf), 2e-16 (floating_frame). Written alike (area 1), the beam is the same bit for bit.
#[test]
fn planar_resultants_equal_the_equivalent_geometry_in_every_formulation() {
    for formulation in ["euler_bernoulli", "timoshenko", "ancf", "floating_frame"] {
        let resultants =
            spin_up("EA = \"EA\", GA = \"EA/2.6\", EI = \"EI\", mass_per_length = \"rhoA\"", "", formulation);
        let geometry = spin_up(
            "area = \"A\", inertia = \"EI/EA*A\", shear_factor = 1.0",
            "material = { E = \"EA/A\", nu = 0.3, rho = \"rhoA/A\" }",
            formulation,
        );
        let stop = 2.0;
        let (a, b) = (history(&resultants, 0.05, stop), history(&geometry, 0.05, stop));
        let difference = largest_relative_difference(&a, &b);
        println!(
            "{formulation}: tip deflection at {stop} s {:.6e} m; largest relative difference {difference:.1e}",
            a.last().unwrap()[4]
        );
        assert!(a.last().unwrap()[4].abs() > 1e-3, "{formulation}: the tip moves");
        assert!(difference < 1e-8, "{formulation}: {difference}");
    }
    // Given exactly alike (area 1, E = EA, I = EI/EA: E I = EI; rho = rhoA; the rotary inertia
    // given), an Euler-Bernoulli beam is the same bit for bit.
    let section = "rotary_inertia = 6e-4, mass_per_length = \"rhoA\"";
    let a = history(&spin_up(&format!("EA = \"EA\", EI = \"EI\", {section}"), "", "euler_bernoulli"), 0.05, 1.0);
    let b = history(
        &spin_up(
            &format!("area = 1.0, inertia = \"EI/EA\", {section}"),
            "material = { E = \"EA\", nu = 0.3, rho = 1.0 }",
            "euler_bernoulli",
        ),
        0.05,
        1.0,
    );
    let bits = |h: &[Vec<f64>]| h.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b), "euler_bernoulli, area 1");
}

/// The natural frequencies (Hz) of a model with its default settings.
fn frequencies(text: &str) -> Vec<f64> {
    simulation(text).natural_frequencies().unwrap()
}

fn nearest(f: &[f64], reference: f64) -> f64 {
    f.iter().copied().min_by(|x, y| (x - reference).abs().total_cmp(&(y - reference).abs())).unwrap()
}

/// (3) Natural frequencies of clamped-free beams given by their resultants against
/// Euler-Bernoulli theory (Timoshenko's for the shear-deformable formulations, with GA and the
/// rotary inertia m EI / EA): the spin-up's beam (L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N m^2,
/// m = 1.2 kg/m; slender: the homogeneous section's rotary inertia m EI / EA has a radius of
/// gyration of L / 447) in every planar formulation, first three bending modes and the first
/// axial one (the floating-frame beam's axial modes are its own assumed ones: bending only),
/// and a spatial beam with EIy != EIz, its torsion from GJ and the polar rotary inertia.
/// Measured: bending within 0.02 % (modes 1-3; Timoshenko's within 0.005 %), axial and torsion
/// within 0.026 % (20 elements), the floating-frame beam's bending to 1e-7.
#[test]
fn natural_frequencies_from_resultants_match_euler_bernoulli_theory() {
    let (l, ea, ei, m) = (10.0f64, 2.8e7f64, 1.4e4f64, 1.2f64);
    let bending = |ei: f64, beta_l: f64| beta_l * beta_l / (2.0 * PI) * (ei / (m * l.powi(4))).sqrt();
    let axial = (ea / m).sqrt() / (4.0 * l);
    let roots = [1.875_104_07, 4.694_091_13, 7.854_757_44];
    for (formulation, size) in [
        ("euler_bernoulli", "elements = 20"),
        ("timoshenko", "elements = 20"),
        ("ancf", "elements = 20"),
        ("floating_frame", "modes = 4"),
    ] {
        let text = format!(
            "[model]\nname = \"c\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [{l}, 0.0]\n{size}\n\
             formulation = \"{formulation}\"\nsection = {{ EA = {ea}, GA = {}, EI = {ei}, mass_per_length = {m} }}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n",
            ea / 2.6
        );
        let f = frequencies(&text);
        // Shear deformable (timoshenko, ancf): Timoshenko's beam with k G A = GA and the
        // rotary inertia m EI / EA (common::beam_theory), which lies 0.07 % below
        // Euler-Bernoulli's at mode 3.
        let theory: Vec<f64> = if formulation == "timoshenko" || formulation == "ancf" {
            let omega_max = 1.3 * (2.0 * PI) * bending(ei, roots[2]);
            common::beam_theory::timoshenko_frequencies(l, ei, ea / 2.6, m, m * ei / ea, omega_max, 3)
                .into_iter()
                .map(|w| w / (2.0 * PI))
                .collect()
        } else {
            roots.iter().map(|&r| bending(ei, r)).collect()
        };
        assert_eq!(theory.len(), 3, "{formulation}");
        let mut references: Vec<(String, f64)> =
            theory.iter().enumerate().map(|(n, &f)| (format!("bending mode {}", n + 1), f)).collect();
        if formulation != "floating_frame" {
            references.push(("axial mode 1".into(), axial));
        }
        for (what, reference) in references {
            let err = nearest(&f, reference) / reference - 1.0;
            println!(
                "{formulation} {what}: {:.5} Hz vs theory {reference:.5} Hz ({:+.4} %)",
                nearest(&f, reference),
                100.0 * err
            );
            assert!(err.abs() < 5e-4, "{formulation} {what}: {} vs {reference}", nearest(&f, reference));
        }
    }
    // Spatial: 2 m, EA = 2e8 N, EIy = 2e3, EIz = 8e3 N m^2, GJ = 1.5e3 N m^2, m = 2 kg/m,
    // polar rotary inertia 1e-2 kg m (the bending ones those of a homogeneous section,
    // m EI / EA: radii of gyration L / 630 and L / 316).
    let (l, ea, eiy, eiz, gj, m, jx) = (2.0f64, 2e8f64, 2e3f64, 8e3f64, 1.5e3f64, 2.0f64, 1e-2f64);
    let (gay, gaz) = (ea / 2.6, ea / 5.0);
    let bending = |ei: f64, beta_l: f64| beta_l * beta_l / (2.0 * PI) * (ei / (m * l.powi(4))).sqrt();
    let section = format!(
        "section = {{ EA = {ea}, GAy = {gay}, GAz = {gaz}, EIy = {eiy}, EIz = {eiz}, GJ = {gj}, mass_per_length = {m}, \
         rotary_inertia = [{jx}, {}, {}] }}",
        m * eiy / ea,
        m * eiz / ea
    );
    for formulation in ["euler_bernoulli", "timoshenko"] {
        let text = format!(
            "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
             end = [{l}, 0.0, 0.0]\nelements = 20\nformulation = \"{formulation}\"\n{section}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n"
        );
        let f = frequencies(&text);
        // Bending in each plane: Euler-Bernoulli, or (timoshenko) Timoshenko's beam with that
        // plane's EI, GA and rotary inertia: x-z bends about y (EIy) and shears along z (GAz).
        let plane = |ei: f64, ga: f64| -> Vec<f64> {
            if formulation == "euler_bernoulli" {
                return roots[..2].iter().map(|&r| bending(ei, r)).collect();
            }
            let omega_max = 1.3 * (2.0 * PI) * bending(ei, roots[1]);
            let omega = common::beam_theory::timoshenko_frequencies(l, ei, ga, m, m * ei / ea, omega_max, 2);
            omega.into_iter().map(|w| w / (2.0 * PI)).collect()
        };
        let (xz, xy) = (plane(eiy, gaz), plane(eiz, gay));
        assert_eq!((xz.len(), xy.len()), (2, 2), "{formulation}");
        let references = [
            ("bending x-z (EIy, GAz), mode 1", xz[0]),
            ("bending x-y (EIz, GAy), mode 1", xy[0]),
            ("bending x-z (EIy, GAz), mode 2", xz[1]),
            ("bending x-y (EIz, GAy), mode 2", xy[1]),
            ("torsion, mode 1", (gj / jx).sqrt() / (4.0 * l)),
            ("axial, mode 1", (ea / m).sqrt() / (4.0 * l)),
        ];
        for (what, reference) in references {
            let err = nearest(&f, reference) / reference - 1.0;
            println!(
                "spatial {formulation} {what}: {:.5} Hz vs theory {reference:.5} Hz ({:+.4} %)",
                nearest(&f, reference),
                100.0 * err
            );
            assert!(err.abs() < 5e-4, "spatial {formulation} {what}: {} vs {reference}", nearest(&f, reference));
        }
    }
    // The rotary inertia left out is the homogeneous section's, m / EA (EIy + EIz, EIy, EIz):
    // the frequencies of the section given by area, iy, iz, j and a density (E = 1e11 Pa,
    // nu = 0.3, shear factor 1 and GA = EA / 2.6), to the eigensolver's round-off (the spread
    // of the spectrum, 1e6 in omega^2, times 1e-16).
    let resultants = format!(
        "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
         end = [{l}, 0.0, 0.0]\nelements = 20\n\
         section = {{ EA = {ea}, GA = {}, EIy = {eiy}, EIz = {eiz}, GJ = {gj}, mass_per_length = {m} }}\n\
         [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n",
        ea / 2.6
    );
    let (e, a) = (1e11, ea / 1e11);
    let geometric = resultants.replacen(
        &resultants[resultants.find("section = ").unwrap()..resultants.find("\n[[joints]]").unwrap()],
        &format!(
            "section = {{ area = {a}, iy = {}, iz = {}, j = {}, shear_factor = 1.0 }}\n\
             material = {{ E = {e}, nu = 0.3, rho = {} }}",
            eiy / e,
            eiz / e,
            gj / (e / 2.6),
            m / a
        ),
        1,
    );
    let (default, geometric) = (frequencies(&resultants), frequencies(&geometric));
    let difference = default.iter().zip(&geometric).map(|(x, y)| (x / y - 1.0).abs()).fold(0.0, f64::max);
    println!("spatial: default rotary inertia vs density: largest relative difference {difference:.1e}");
    assert_eq!(default.len(), geometric.len());
    assert!(difference < 1e-8, "{difference}");
}

/// A spatial beam's shear stiffnesses along its section's axes, `GAy` and `GAz`, each with its
/// plane: a cantilever's tip deflection under a small tip load P along y is
/// P L^3 / (3 EIz) + P L / GAy and along z P L^3 / (3 EIy) + P L / GAz (Timoshenko; the
/// element is exact for end loads, the load small enough for the linear range). Stocky, so
/// that shear is 20 % and 40 % of the deflections; measured within 1e-6.
#[test]
fn spatial_shear_stiffness_along_each_section_axis() {
    let (l, ea, gay, gaz, eiy, eiz, gj, p) = (1.0f64, 1e8f64, 2e6f64, 1e6f64, 3e5f64, 4e5f64, 1e5f64, 1.0f64);
    for (direction, ei, ga, axis) in [("[0.0, 1.0, 0.0]", eiz, gay, 1), ("[0.0, 0.0, 1.0]", eiy, gaz, 2)] {
        let text = format!(
            "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
             end = [{l}, 0.0, 0.0]\nelements = 4\n\
             section = {{ EA = {ea}, GAy = {gay}, GAz = {gaz}, EIy = {eiy}, EIz = {eiz}, GJ = {gj}, \
             mass_per_length = 1.0 }}\n\
             [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n\
             [[loads]]\ntype = \"force\"\nbody = \"b.end\"\ndirection = {direction}\nvalue = \"{p}*t\"\n"
        );
        let sim = simulation(&text);
        let (mut q, mut lambda) = (sim.state().q.clone(), sim.state().lambda.clone());
        static_equilibrium(sim.system(), &mut q, &mut lambda, 1.0, 1e-12).unwrap();
        let tip = sim.system().body("b.node[4]").unwrap().x;
        let (bending, shear) = (p * l.powi(3) / (3.0 * ei), p * l / ga);
        let err = q[tip + axis] / (bending + shear) - 1.0;
        println!(
            "load along {direction}: tip {:.6e} m vs theory {:.6e} m (shear {:.0} %): {err:+.1e}",
            q[tip + axis],
            bending + shear,
            100.0 * shear / (bending + shear)
        );
        assert!(err.abs() < 1e-6, "{direction}: {} vs {}", q[tip + axis], bending + shear);
    }
}

/// The error of parsing and assembling `text`.
fn error(text: &str) -> ModelError {
    Model::parse(text, "bad.toml")
        .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
        .expect_err(text)
}

/// (line, column), 1-based, of the byte `offset` of `text`.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let line = text[..offset].matches('\n').count() + 1;
    (line, offset - text[..offset].rfind('\n').map_or(0, |n| n + 1) + 1)
}

/// `base` with `from` replaced by `to` must be refused with `message` at the first occurrence
/// of `at` in `to` (the offending value), or at the first `at` of the text when `to` lacks it.
fn refused_at(base: &str, from: &str, to: &str, at: &str, message: &str) {
    assert!(base.contains(from), "{from:?}");
    let text = base.replacen(from, to, 1);
    let offset = match to.find(at) {
        Some(k) => text.find(to).unwrap() + k,
        None => text.find(at).unwrap_or_else(|| panic!("{at:?}")),
    };
    let err = error(&text);
    println!("{to}: {err}");
    assert!(err.message.contains(message), "{to}: {err}");
    assert_eq!((err.line, err.column), position(&text, offset), "{to}: {err}");
}

/// (4) Located errors (file:line:column at the offending value, or at the section or material
/// table when a key is missing): a geometry key, a shear factor or the material's E, nu or rho
/// beside resultants; a missing mass per length, EA, EI, GA (Timoshenko, ANCF), GJ, one of GAy
/// and GAz, or a material for a geometric section; GA beside GAy; planar `EI` in a spatial
/// model and spatial keys in a planar one; non-positive values. An Euler-Bernoulli beam needs
/// no GA, and `material = { damping }` goes with resultants.
#[test]
fn resultant_keys_errors_are_located() {
    let planar = "[model]\nname = \"c\"\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0]\nend = [10.0, 0.0]\nelements = 4\n\
                  formulation = \"timoshenko\"\n\
                  section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2 }\n\
                  material = { damping = 0.01 }\n\
                  [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0]\n";
    assert!(
        Model::parse(planar, "ok.toml")
            .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
            .is_ok()
    );
    let section = "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2 }";
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2, area = 1e-2 }",
            "1e-2",
            "`section.area` contradicts the section's stress resultants (`EA` is given)",
        ),
        (
            section,
            "section = { width = 0.1, EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2 }",
            "0.1",
            "`section.width` contradicts",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2, shear_factor = 0.85 }",
            "0.85",
            "GA is the effective shear stiffness k G A",
        ),
        (
            "material = { damping = 0.01 }",
            "material = { E = 2.1e11, damping = 0.01 }",
            "2.1e11",
            "`material.E` contradicts the section's stress resultants",
        ),
        (
            "material = { damping = 0.01 }",
            "material = { nu = 0.3 }",
            "0.3",
            "with them the material takes only `damping`",
        ),
        ("material = { damping = 0.01 }", "material = { rho = 7850.0 }", "7850.0", "`material.rho` contradicts"),
        (section, "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4 }", "{", "needs `mass_per_length` (kg/m)"),
        (section, "section = { GA = 1e7, EI = 1.4e4, mass_per_length = 1.2 }", "{", "needs `EA` (the axial stiffness"),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, mass_per_length = 1.2 }",
            "{",
            "needs `EI` (the bending stiffness",
        ),
        (
            section,
            "section = { EA = 2.8e7, EI = 1.4e4, mass_per_length = 1.2 }",
            "{",
            "a timoshenko beam's section given by its stress resultants needs `GA`",
        ),
        (
            "formulation = \"timoshenko\"\nsection = { EA = 2.8e7, GA = 1e7,",
            "formulation = \"ancf\"\nsection = { EA = 2.8e7,",
            "{",
            "an ancf beam's section",
        ),
        (
            section,
            "section = { EA = -2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = 1.2 }",
            "-2.8e7",
            "EA must be positive, got -2.8e7",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 0.0, mass_per_length = 1.2 }",
            "0.0",
            "EI must be positive, got 0",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = \"-1e7\", EI = 1.4e4, mass_per_length = 1.2 }",
            "\"-1e7\"",
            "GA must be positive",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, mass_per_length = -1.2 }",
            "-1.2",
            "mass_per_length must be positive",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, EIz = 1.4e4, mass_per_length = 1.2 }",
            "1.4e4, m",
            "`section.EIz` applies to beams in spatial models (dimension = 3) (a planar section's resultants are EA, \
             GA and EI)",
        ),
        (
            section,
            "section = { EA = 2.8e7, GA = 1e7, EI = 1.4e4, GJ = 1e3, mass_per_length = 1.2 }",
            "1e3",
            "`section.GJ` applies to beams in spatial models",
        ),
    ];
    for &(from, to, at, message) in cases {
        refused_at(planar, from, to, at, message);
    }
    // Accepted: no GA on an Euler-Bernoulli beam (nor on a floating-frame one), no material.
    for (from, to) in [
        (
            "formulation = \"timoshenko\"\nsection = { EA = 2.8e7, GA = 1e7,",
            "formulation = \"euler_bernoulli\"\nsection = { EA = 2.8e7,",
        ),
        (
            "elements = 4\nformulation = \"timoshenko\"\nsection = { EA = 2.8e7, GA = 1e7,",
            "modes = 2\nformulation = \"floating_frame\"\nsection = { EA = 2.8e7,",
        ),
        ("material = { damping = 0.01 }\n", ""),
    ] {
        let text = planar.replacen(from, to, 1);
        assert_ne!(text, planar);
        Model::parse(&text, "ok.toml")
            .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
            .unwrap_or_else(|e| panic!("{to}: {e}"));
    }
    // A geometric section still needs its material: at the beam's name without one, at the
    // table without E.
    let geometric = planar.replacen(section, "section = { area = 1e-2, inertia = 5e-6 }", 1);
    refused_at(
        &geometric,
        "material = { damping = 0.01 }\n",
        "",
        "\"b\"",
        "the beam needs `material = { E, nu, rho }`",
    );
    refused_at(
        &geometric,
        "material = { damping = 0.01 }",
        "material = { nu = 0.3, rho = 7850.0 }",
        "{",
        "the material needs `E`",
    );

    let spatial = "[model]\nname = \"c\"\ndimension = 3\n[[beams]]\nname = \"b\"\nstart = [0.0, 0.0, 0.0]\n\
                   end = [10.0, 0.0, 0.0]\nelements = 4\n\
                   section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }\n\
                   [[joints]]\nname = \"clamp\"\ntype = \"fixed\"\nbody2 = \"b.start\"\npoint = [0.0, 0.0, 0.0]\n";
    assert!(
        Model::parse(spatial, "ok.toml")
            .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
            .is_ok()
    );
    let section = "section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }";
    let cases: &[(&str, &str, &str)] = &[
        (
            "section = { EA = 1e6, GA = 1e6, EI = 1e3, GJ = 1e3, mass_per_length = 1.0 }",
            "1e3, G",
            "in a spatial model the section gives `EIy` and `EIz`",
        ),
        (
            "section = { EA = 1e6, GA = 1e6, GAy = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }",
            "1e6, E",
            "`GAy` contradicts `GA`",
        ),
        (
            "section = { EA = 1e6, GAz = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }",
            "1e6, E",
            "`GAz` needs `GAy`",
        ),
        (
            "section = { EA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }",
            "{",
            "a timoshenko beam's section given by its stress resultants needs `GA`",
        ),
        (
            "section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, mass_per_length = 1.0 }",
            "{",
            "needs `GJ` (the torsional stiffness",
        ),
        ("section = { EA = 1e6, GA = 1e6, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }", "{", "needs `EIy`"),
        (
            "section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = -1e3, mass_per_length = 1.0 }",
            "-1e3",
            "GJ must be positive, got -1000",
        ),
        (
            "section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0, j = 1e-3 }",
            "1e-3",
            "`section.j` contradicts",
        ),
        (
            "section = { shape = \"circle\", EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, \
             mass_per_length = 1.0 }",
            "\"circle\"",
            "`section.shape` contradicts",
        ),
        (
            "section = { EA = 1e6, GA = 1e6, EIy = 1e3, EIz = 1e3, GJ = 1e3, mass_per_length = 1.0 }\n\
             material = { E = 1e6, nu = -0.5, rho = 1.0 }",
            "1e6, n",
            "`material.E` contradicts",
        ),
    ];
    for &(to, at, message) in cases {
        refused_at(spatial, section, to, at, message);
    }
    let text = spatial.replacen("elements = 4\n", "elements = 4\nformulation = \"euler_bernoulli\"\n", 1).replacen(
        "GA = 1e6, ",
        "",
        1,
    );
    Model::parse(&text, "ok.toml")
        .and_then(|m| flexfmu::mechanics::assemble::assemble(&m, &m.default_parameters()).map(|_| ()))
        .unwrap_or_else(|e| panic!("euler_bernoulli without GA: {e}"));

    // Through the command line: exit code 2 and file:line:column.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.toml");
    let text = planar.replacen("EA = 2.8e7", "EA = 0.0", 1);
    std::fs::write(&path, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flexfmu")).args(["check", path.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (line, column) = position(&text, text.find("0.0, GA").unwrap());
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("{}:{line}:{column}: EA must be positive, got 0", path.display())), "{stderr}");
}
