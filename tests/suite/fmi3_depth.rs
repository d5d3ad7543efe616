//! The FMI depth features through the FMI 3.0 entry points, checked against the FMI 2.0 ones
//! (both versions share the value references and the core, so they must agree exactly):
//! `<ModelStructure>` dependencies, fmi3GetOutputDerivatives, fmi3GetDirectionalDerivative,
//! and tunable parameters set in Step Mode (this FMU has no Event Mode, so FMI 3.0.1 lets a
//! tunable parameter change at communication points).

use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::ptr::null;
use std::sync::Mutex;

use flexfmu::export::model_description::model_description_of;
use flexfmu::export::model_description3::model_description3_of;
use flexfmu::export::variables::{Role, Variables, guid};
use flexfmu::fmi2::api as f2;
use flexfmu::fmi3::api::*;
use flexfmu::fmi3::derivatives::*;
use flexfmu::fmi3::values::*;
use flexfmu::model::Model;
use quick_xml::events::Event;

use crate::common;
use common::c_logger::callbacks;

const OK: c_int = 0;
const ERROR: c_int = 3;

type Messages = Mutex<Vec<(c_int, String, String)>>;

unsafe extern "C" fn log3(env: *mut c_void, status: c_int, category: *const c_char, message: *const c_char) {
    let messages = unsafe { &*(env as *const Messages) };
    let category = unsafe { CStr::from_ptr(category) }.to_string_lossy().into_owned();
    let text = unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned();
    messages.lock().unwrap().push((status, category, text));
}

fn models() -> Vec<PathBuf> {
    common::sim::example_paths()
}

/// (section, unknown, dependencies, kinds) of every `<ModelStructure>` element with a
/// `dependencies` attribute, as text.
fn structure(xml: &str, tags: &[&str]) -> Vec<(String, String, String, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found = Vec::new();
    let mut section = String::new();
    loop {
        match reader.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(e) => section = String::from_utf8_lossy(e.name().as_ref()).into_owned(),
            Event::Empty(e) => {
                let tag = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if !tags.contains(&tag.as_str()) {
                    continue;
                }
                let attrs: BTreeMap<String, String> = e
                    .attributes()
                    .map(|a| {
                        let a = a.unwrap();
                        (String::from_utf8_lossy(a.key.as_ref()).into_owned(), a.unescape_value().unwrap().into_owned())
                    })
                    .collect();
                let unknown = attrs.get("valueReference").or(attrs.get("index")).unwrap().clone();
                let (deps, kinds) = (attrs["dependencies"].clone(), attrs["dependenciesKind"].clone());
                let name = if tag == "Unknown" { section.clone() } else { tag };
                found.push((name, unknown, deps, kinds));
            }
            _ => {}
        }
    }
    found
}

/// FMI 2 names variables by 1-based index (= value reference + 1 here), FMI 3 by value
/// reference: the same sets, the same kinds, for every output of every model.
#[test]
fn declared_dependencies_equal_the_fmi2_ones_for_every_model() {
    let mut with_inputs = 0;
    for path in models() {
        let model = Model::load(&path).unwrap();
        let vars = Variables::new(&model).unwrap();
        let md2 = structure(&model_description_of(&model, &vars).unwrap(), &["Unknown"]);
        let md3 = structure(&model_description3_of(&model, &vars).unwrap(), &["Output", "InitialUnknown"]);
        let shift = |list: &str| {
            list.split_whitespace().map(|i| (i.parse::<u32>().unwrap() - 1).to_string()).collect::<Vec<_>>().join(" ")
        };
        let from2: Vec<_> = md2
            .iter()
            .map(|(s, u, d, k)| {
                let s = if s == "Outputs" { "Output" } else { "InitialUnknown" };
                (s.to_string(), shift(u), shift(d), k.clone())
            })
            .collect();
        assert_eq!(md3, from2, "{}", path.display());
        let outputs = vars.outputs().count();
        assert_eq!(md3.len(), 2 * outputs, "{}", path.display());
        if md3.iter().any(|(s, _, d, _)| s == "Output" && !d.is_empty()) {
            with_inputs += 1;
        }
        for (_, _, d, k) in &md3 {
            assert_eq!(d.split_whitespace().count(), k.split_whitespace().count());
            assert!(k.split_whitespace().all(|k| k == "dependent"));
        }
    }
    assert!(with_inputs >= 2, "{with_inputs} models with direct input dependencies");
}

/// One model instantiated through both APIs from the same resources, initialized at t = 0.
struct Pair {
    c2: *mut c_void,
    c3: *mut c_void,
    vars: Variables,
    m2: Box<common::c_logger::Messages>,
    m3: Box<Messages>,
    _dir: tempfile::TempDir,
}

impl Pair {
    fn new(name: &str) -> Pair {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        let model = common::fmu::example_resources(&resources, name);
        let (m2, m3) = (Box::new(common::c_logger::Messages::default()), Box::new(Messages::default()));
        let cb = Box::leak(Box::new(callbacks(&m2)));
        let (n, g) = (CString::new(name).unwrap(), CString::new(guid(&model.source)).unwrap());
        let uri = CString::new(format!("file://{}", resources.display())).unwrap();
        let path = CString::new(format!("{}/", resources.display())).unwrap();
        let c2 = unsafe { f2::fmi2Instantiate(n.as_ptr(), 1, g.as_ptr(), uri.as_ptr(), cb, 0, 0) };
        let env = &*m3 as *const Messages as *mut c_void;
        let c3 = unsafe {
            fmi3InstantiateCoSimulation(
                n.as_ptr(),
                g.as_ptr(),
                path.as_ptr(),
                0,
                0,
                0,
                0,
                null(),
                0,
                env,
                Some(log3),
                None,
            )
        };
        assert!(!c2.is_null() && !c3.is_null());
        unsafe {
            assert_eq!(f2::fmi2SetupExperiment(c2, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(f2::fmi2EnterInitializationMode(c2), OK);
            assert_eq!(f2::fmi2ExitInitializationMode(c2), OK);
            assert_eq!(fmi3EnterInitializationMode(c3, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(fmi3ExitInitializationMode(c3), OK);
        }
        Pair { c2, c3, vars: Variables::new(&model).unwrap(), m2, m3, _dir: dir }
    }

    fn vr(&self, name: &str) -> u32 {
        self.vars.list.iter().find(|v| v.name == name).unwrap().vr
    }

    fn vrs(&self, role: fn(&Role) -> bool) -> Vec<u32> {
        self.vars.list.iter().filter(|v| role(&v.role)).map(|v| v.vr).collect()
    }

    fn step(&self, t: f64, h: f64) {
        let (mut event, mut terminate, mut early, mut last) = (0u8, 0u8, 0u8, 0.0);
        unsafe {
            assert_eq!(f2::fmi2DoStep(self.c2, t, h, 1), OK);
            assert_eq!(fmi3DoStep(self.c3, t, h, 1, &mut event, &mut terminate, &mut early, &mut last), OK);
        }
    }

    fn get3(&self, vrs: &[u32]) -> Vec<f64> {
        let mut v = vec![f64::NAN; vrs.len()];
        assert_eq!(unsafe { fmi3GetFloat64(self.c3, vrs.as_ptr(), vrs.len(), v.as_mut_ptr(), v.len()) }, OK);
        v
    }

    fn set3(&self, vr: u32, x: f64) -> c_int {
        unsafe { fmi3SetFloat64(self.c3, [vr].as_ptr(), 1, [x].as_ptr(), 1) }
    }

    fn last3(&self) -> (c_int, String) {
        self.m3.lock().unwrap().last().map(|m| (m.0, m.2.clone())).unwrap_or_default()
    }

    /// Every output derivative of orders 1 and 2 through both APIs, one at a time, as bits;
    /// one that cannot be computed is an error in both, with the same reason. Also all
    /// available ones in one fmi3 call.
    fn output_derivatives(&self) -> (Vec<u64>, Vec<u64>) {
        let outputs = self.vrs(|r| matches!(r, Role::Output(_)));
        let (mut a, mut b, mut vrs, mut orders) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for vr in outputs {
            for order in [1, 2] {
                let (mut x2, mut x3) = (f64::NAN, f64::NAN);
                let s2 = unsafe { f2::fmi2GetRealOutputDerivatives(self.c2, &vr, 1, &order, &mut x2) };
                let s3 = unsafe { fmi3GetOutputDerivatives(self.c3, &vr, 1, &order, &mut x3, 1) };
                assert_eq!(s2, s3, "{vr} order {order}: {:?}", self.last3());
                if s2 == OK {
                    assert!(x3.is_finite());
                    a.push(x2.to_bits());
                    b.push(x3.to_bits());
                    vrs.push(vr);
                    orders.push(order);
                } else {
                    let m2 = self.m2.lock().unwrap().last().unwrap().2.replace("fmi2GetRealOutputDerivatives", "");
                    assert_eq!(self.last3().1.replace("fmi3GetOutputDerivatives", ""), m2);
                }
            }
        }
        let mut all = vec![f64::NAN; vrs.len()];
        let s = unsafe {
            fmi3GetOutputDerivatives(self.c3, vrs.as_ptr(), vrs.len(), orders.as_ptr(), all.as_mut_ptr(), all.len())
        };
        assert_eq!(s, OK, "{:?}", self.last3());
        assert_eq!(all.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), b);
        (a, b)
    }

    /// J seed for every output, one input at a time (seed 1) and all inputs at once
    /// (seeds 1, -2, 3, ...), through both APIs, as bits.
    fn directional_derivatives(&self) -> (Vec<u64>, Vec<u64>) {
        let outputs = self.vrs(|r| matches!(r, Role::Output(_)));
        let inputs = self.vrs(|r| matches!(r, Role::Input(_)));
        let mut seeds: Vec<(Vec<u32>, Vec<f64>)> = inputs.iter().map(|&i| (vec![i], vec![1.0])).collect();
        seeds.push((
            inputs.clone(),
            (0..inputs.len()).map(|k| (k as f64 + 1.0) * if k % 2 == 0 { 1.0 } else { -2.0 }).collect(),
        ));
        let (mut all2, mut all3) = (Vec::new(), Vec::new());
        for (knowns, seed) in seeds {
            let (mut a, mut b) = (vec![f64::NAN; outputs.len()], vec![f64::NAN; outputs.len()]);
            unsafe {
                assert_eq!(
                    f2::fmi2GetDirectionalDerivative(
                        self.c2,
                        outputs.as_ptr(),
                        outputs.len(),
                        knowns.as_ptr(),
                        knowns.len(),
                        seed.as_ptr(),
                        a.as_mut_ptr()
                    ),
                    OK
                );
                assert_eq!(
                    fmi3GetDirectionalDerivative(
                        self.c3,
                        outputs.as_ptr(),
                        outputs.len(),
                        knowns.as_ptr(),
                        knowns.len(),
                        seed.as_ptr(),
                        seed.len(),
                        b.as_mut_ptr(),
                        b.len()
                    ),
                    OK,
                    "{:?}",
                    self.last3()
                );
            }
            all2.extend(a.iter().map(|x| x.to_bits()));
            all3.extend(b.iter().map(|x| x.to_bits()));
        }
        (all2, all3)
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        unsafe {
            f2::fmi2FreeInstance(self.c2);
            fmi3FreeInstance(self.c3);
        }
    }
}

/// At t = 0 and after 37 steps of 0.01 s the FMI 3 functions return the FMI 2 values bit
/// for bit (they are the same core functions; fmu_derivatives.rs checks those against
/// finite differences and the analytic da/dF = 1/m of mass_spring, asserted here as well).
#[test]
fn derivatives_equal_the_fmi2_ones_bit_for_bit() {
    for model in ["mass_spring", "pendulum", "crank_slider"] {
        let p = Pair::new(model);
        let (mut compared, mut derivatives) = (0, 0);
        for k in 0..=37 {
            if k == 0 || k == 37 {
                let (a, b) = p.output_derivatives();
                assert_eq!(a, b, "{model}: output derivatives at step {k}");
                assert!(a.len() >= 2, "{model}: {} output derivatives", a.len());
                derivatives += a.len();
                let (a, b) = p.directional_derivatives();
                assert_eq!(a, b, "{model}: directional derivatives at step {k}");
                compared += a.len();
            }
            if k < 37 {
                p.step(k as f64 * 0.01, 0.01);
            }
        }
        eprintln!("{model}: {derivatives} output and {compared} directional derivatives equal bit for bit");
    }
    let p = Pair::new("mass_spring");
    let (a, force) = (p.vr("a"), p.vr("force"));
    let mut x = f64::NAN;
    let s = unsafe { fmi3GetDirectionalDerivative(p.c3, &a, 1, &force, 1, &1.0, 1, &mut x, 1) };
    assert_eq!(s, OK);
    assert!((x - 1.0).abs() < 1e-12, "da/dF = 1/m = 1, got {x}");
}

#[test]
fn bad_derivative_calls_are_errors_with_a_reason() {
    let p = Pair::new("mass_spring");
    let (a, force, k) = (p.vr("a"), p.vr("force"), p.vr("k"));
    let mut x = [f64::NAN; 2];
    unsafe {
        assert_eq!(fmi3GetOutputDerivatives(p.c3, &a, 1, &3, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("no derivative of order 3"), "{:?}", p.last3());
        assert_eq!(fmi3GetOutputDerivatives(p.c3, &a, 1, &1, x.as_mut_ptr(), 2), ERROR);
        assert!(p.last3().1.contains("nValues = 2"), "{:?}", p.last3());
        assert_eq!(fmi3GetOutputDerivatives(p.c3, &force, 1, &1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("is not an output"), "{:?}", p.last3());
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &k, 1, &1.0, 1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("a known in Initialization Mode only"), "{:?}", p.last3());
        // The independent variable and a solver setting are named as such (a probe was told
        // "unknown value reference" and "not an input or a parameter").
        let time = p.vars.list.len() as u32;
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &time, 1, &1.0, 1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("time (value reference"), "{:?}", p.last3());
        let step = p.vr("solver_step");
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &step, 1, &1.0, 1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("is a solver setting"), "{:?}", p.last3());
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &force, 1, &1.0, 2, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("nSeed must equal nKnowns"), "{:?}", p.last3());
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &force, 1, null(), 1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("NULL argument"), "{:?}", p.last3());
        // Still usable (x' = v); after fmi3Terminate directional derivatives stay readable.
        let (pos, vel) = (p.vr("x"), p.vr("v"));
        assert_eq!(fmi3GetOutputDerivatives(p.c3, &pos, 1, &1, x.as_mut_ptr(), 1), OK);
        assert_eq!(x[0], p.get3(&[vel])[0]);
        assert_eq!(fmi3Terminate(p.c3), OK);
        assert_eq!(fmi3GetDirectionalDerivative(p.c3, &a, 1, &force, 1, &1.0, 1, x.as_mut_ptr(), 1), OK);
        assert_eq!(fmi3Reset(p.c3), OK);
        assert_eq!(fmi3GetOutputDerivatives(p.c3, &pos, 1, &1, x.as_mut_ptr(), 1), ERROR);
        assert!(p.last3().1.contains("Illegal call sequence"), "{:?}", p.last3());
    }
}

/// mass_spring: k is tunable, x0 fixed (fmu_tunable.rs checks the tuned motion against the
/// analytic oscillator through FMI 2). Set k = 100 N/m in Step Mode at t = 0.5 s in both
/// versions: the FMI 3 run follows the FMI 2 run bit for bit and leaves the untuned one;
/// x0 is refused with the reason, nothing changes.
#[test]
fn a_tunable_parameter_set_in_step_mode_takes_effect_and_a_fixed_one_is_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = Model::load(&root.join("models/mass_spring.toml")).unwrap();
    let xml = model_description3_of(&model, &Variables::new(&model).unwrap()).unwrap();
    let declared = |name: &str| {
        let start = xml.find(&format!(r#"name="{name}""#)).unwrap();
        xml[start..start + xml[start..].find("/>").unwrap()].to_string()
    };
    assert!(declared("k").contains(r#"causality="parameter" variability="tunable""#), "{}", declared("k"));
    assert!(declared("x0").contains(r#"variability="fixed""#), "{}", declared("x0"));

    let tuned = Pair::new("mass_spring");
    let plain = Pair::new("mass_spring");
    let (x, v, k, x0) = (tuned.vr("x"), tuned.vr("v"), tuned.vr("k"), tuned.vr("x0"));
    for i in 0..50 {
        tuned.step(i as f64 * 0.01, 0.01);
        plain.step(i as f64 * 0.01, 0.01);
    }
    let before = tuned.get3(&[x, v]);
    assert_eq!(tuned.set3(k, 100.0), OK, "{:?}", tuned.last3());
    assert_eq!(unsafe { f2::fmi2SetReal(tuned.c2, &k, 1, &100.0) }, OK);
    assert_eq!(tuned.get3(&[k, x, v]), [100.0, before[0], before[1]], "the state is kept");

    assert_eq!(tuned.set3(x0, 0.2), ERROR);
    let (status, message) = tuned.last3();
    assert_eq!(status, ERROR);
    assert!(message.contains("x0 is fixed") && message.contains("fmi3ExitInitializationMode"), "{message}");
    assert_eq!(tuned.get3(&[x0, x, v]), [0.1, before[0], before[1]]);

    for i in 50..60 {
        tuned.step(i as f64 * 0.01, 0.01);
        plain.step(i as f64 * 0.01, 0.01);
        let mut x2 = f64::NAN;
        assert_eq!(unsafe { f2::fmi2GetReal(tuned.c2, &x, 1, &mut x2) }, OK);
        assert_eq!(tuned.get3(&[x])[0].to_bits(), x2.to_bits(), "step {i}");
        assert_ne!(tuned.get3(&[x]), plain.get3(&[x]), "step {i}");
    }
}
