//! Issue 17 through FMI: the FMU of models/flexible_arm_torque.toml returned fmi2Discard at
//! t = 1.957 on its defaults. Driven by a real importer (the `fmi` crate) with communication
//! steps of 0.01 s, every fmi2DoStep to 2 s now succeeds and the energy balances the torque's
//! work (tests/suite/flexible_arm.rs explains W = -16 int_0^0.5 theta dt + 16 int_1^1.5 theta dt;
//! Simpson's rule on the 0.01 s samples differs from the 1 ms one by 1e-7 of W).

use flexfmu::model::Model;
use fmi::fmi2::instance::CoSimulation;

use crate::common;
use common::fmu::{Fmu, read};

#[test]
fn the_fmu_runs_the_arm_to_2_s_on_defaults_and_balances_energy() {
    let model =
        Model::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/models/flexible_arm_torque.toml")))
            .unwrap();
    let fmu = Fmu::build(&model);
    let vrs = [fmu.vr("link_angle"), fmu.vr("energy_total")];
    let mut inst = fmu.start("arm", None, |_| {});
    let h = 0.01;
    let (mut angle, mut energy) = (Vec::new(), Vec::new());
    let v = read(&mut inst, &vrs);
    angle.push(v[0]);
    energy.push(v[1]);
    for k in 0..200 {
        let t = k as f64 * h;
        inst.do_step(t, h, true).unwrap_or_else(|e| panic!("fmi2DoStep from t = {t}: {e:?}"));
        let v = read(&mut inst, &vrs);
        angle.push(v[0]);
        energy.push(v[1]);
    }
    let simpson = |y: &[f64]| {
        h / 3.0
            * (y[0]
                + y[y.len() - 1]
                + (1..y.len() - 1).map(|i| if i % 2 == 1 { 4.0 * y[i] } else { 2.0 * y[i] }).sum::<f64>())
    };
    let w = -16.0 * simpson(&angle[0..=50]) + 16.0 * simpson(&angle[100..=150]);
    let defect = (energy[200] - energy[0] - w) / w;
    eprintln!("FMU: work {w:.4} J, (dE - W)/W at 2 s {defect:.2e}");
    assert!(w > 40.0 && w < 55.0, "work {w}");
    assert!(defect.abs() < 1e-3, "energy balance at 2 s {defect:e}");
}
