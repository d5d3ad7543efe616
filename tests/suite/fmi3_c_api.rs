//! The FMI 3.0 entry points called directly (in-process): the Co-Simulation call sequence
//! (illegal calls → fmi3Error with a logged reason, the instance stays usable), instantiation
//! checks (instantiationToken, resourcePath, eventModeUsed, Model Exchange), the functions of
//! capabilities not claimed, typed getters and setters, and the FMU state serialization round
//! trip (a restored state continues bit for bit like the original run).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr::{null, null_mut};
use std::sync::Mutex;

use flexfmu::export::variables::{Variables, guid};
use flexfmu::fmi3::api::*;
use flexfmu::fmi3::not_claimed::*;
use flexfmu::fmi3::time_value_reference;
use flexfmu::fmi3::values::*;
use flexfmu::model::Model;

const OK: c_int = 0;
const ERROR: c_int = 3;

/// What the FMU logged: (status, category, message).
type Messages = Mutex<Vec<(c_int, String, String)>>;

unsafe extern "C" fn log_message(env: *mut c_void, status: c_int, category: *const c_char, message: *const c_char) {
    let messages = unsafe { &*(env as *const Messages) };
    let category = unsafe { CStr::from_ptr(category) }.to_string_lossy().into_owned();
    let text = unsafe { CStr::from_ptr(message) }.to_string_lossy().into_owned();
    messages.lock().unwrap().push((status, category, text));
}

struct Setup {
    _dir: tempfile::TempDir,
    resources: String,
    model: Model,
    vars: Variables,
    messages: Box<Messages>,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("with space").join("resources");
        let model = crate::common::fmu::example_resources(&resources, name);
        let vars = Variables::new(&model).unwrap();
        let resources = format!("{}/", resources.display());
        Setup { _dir: dir, resources, model, vars, messages: Box::default() }
    }

    fn env(&self) -> *mut c_void {
        &*self.messages as *const Messages as *mut c_void
    }

    fn instantiate_with(&self, token: &str, resources: &str, event_mode_used: bool) -> *mut c_void {
        let (name, token, res) =
            (CString::new("inst").unwrap(), CString::new(token).unwrap(), CString::new(resources).unwrap());
        unsafe {
            fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                res.as_ptr(),
                0,
                0,
                u8::from(event_mode_used),
                1,
                null(),
                0,
                self.env(),
                Some(log_message),
                None,
            )
        }
    }

    fn instantiate(&self) -> *mut c_void {
        let i = self.instantiate_with(&guid(&self.model.source), &self.resources, false);
        assert!(!i.is_null(), "{:?}", self.messages.lock().unwrap());
        i
    }

    fn vr(&self, name: &str) -> u32 {
        self.vars.list.iter().find(|v| v.name == name).unwrap().vr
    }

    /// The last message logged, which must be an error containing `text`; clears the log.
    fn expect_error(&self, text: &str) {
        let mut m = self.messages.lock().unwrap();
        let (status, category, message) =
            m.last().cloned().unwrap_or_else(|| panic!("nothing logged, expected {text}"));
        assert_eq!((status, category.as_str()), (ERROR, "logStatusError"), "{message}");
        assert!(message.contains(text), "{message:?} does not contain {text:?}");
        m.clear();
    }
}

unsafe fn initialize(i: *mut c_void, start: f64) -> c_int {
    unsafe {
        let s = fmi3EnterInitializationMode(i, 0, 0.0, start, 0, 0.0);
        if s != OK {
            return s;
        }
        fmi3ExitInitializationMode(i)
    }
}

unsafe fn do_step(i: *mut c_void, tc: f64, h: f64) -> (c_int, [u8; 3], f64) {
    let (mut event, mut terminate, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
    let s = unsafe { fmi3DoStep(i, tc, h, 1, &mut event, &mut terminate, &mut early, &mut last) };
    (s, [event, terminate, early], last)
}

unsafe fn get(i: *mut c_void, vrs: &[u32]) -> Vec<f64> {
    let mut v = vec![f64::NAN; vrs.len()];
    assert_eq!(unsafe { fmi3GetFloat64(i, vrs.as_ptr(), vrs.len(), v.as_mut_ptr(), v.len()) }, OK);
    v
}

#[test]
fn illegal_call_sequences_are_errors_with_a_reason() {
    let s = Setup::new("mass_spring");
    let i = s.instantiate();
    unsafe {
        // Instantiated: no step, no exit, no terminate.
        assert_eq!(do_step(i, 0.0, 0.01).0, ERROR);
        s.expect_error("fmi3DoStep: Illegal call sequence in state Instantiated");
        assert_eq!(fmi3ExitInitializationMode(i), ERROR);
        s.expect_error("fmi3ExitInitializationMode: Illegal call sequence");
        assert_eq!(fmi3Terminate(i), ERROR);
        s.expect_error("fmi3Terminate: Illegal call sequence");
        // Initialization Mode: not twice, no step, no terminate.
        assert_eq!(fmi3EnterInitializationMode(i, 0, 0.0, 0.0, 1, 1.0), OK);
        assert_eq!(fmi3EnterInitializationMode(i, 0, 0.0, 0.0, 0, 0.0), ERROR);
        s.expect_error("fmi3EnterInitializationMode: Illegal call sequence");
        assert_eq!(do_step(i, 0.0, 0.01).0, ERROR);
        s.expect_error("fmi3DoStep: Illegal call sequence in state Initialization Mode");
        assert_eq!(fmi3Terminate(i), ERROR);
        s.expect_error("fmi3Terminate: Illegal call sequence");
        // Step Mode directly (no Event Mode): fmi3EnterStepMode and fmi3EnterEventMode refused.
        assert_eq!(fmi3ExitInitializationMode(i), OK);
        assert_eq!(fmi3EnterStepMode(i), ERROR);
        s.expect_error("hasEventMode=false");
        assert_eq!(fmi3EnterEventMode(i), ERROR);
        s.expect_error("fmi3EnterEventMode: not supported");
        assert_eq!(fmi3EnterInitializationMode(i, 0, 0.0, 0.0, 0, 0.0), ERROR);
        s.expect_error("fmi3EnterInitializationMode: Illegal call sequence in state Step Mode");
        // A fixed parameter is fixed after initialization (x0: k is tunable since the FMI
        // depth features, as in tests/suite/fmu.rs).
        let x0 = s.vr("x0");
        assert_eq!(fmi3SetFloat64(i, &x0, 1, &0.2, 1), ERROR);
        s.expect_error(
            "x0 is fixed (it changes the model's structure or initial state); set it before fmi3ExitInitializationMode",
        );
        // Stepping works after all those errors; past stopTime (1.0) it does not.
        let (st, flags, last) = do_step(i, 0.0, 0.5);
        assert_eq!((st, flags, last), (OK, [0, 0, 0], 0.5));
        assert_eq!(do_step(i, 0.5, 0.6).0, ERROR);
        s.expect_error("goes past stopTime");
        assert_eq!(do_step(i, 0.4, 0.1).0, ERROR);
        s.expect_error("does not match the FMU time");
        // Terminated: no step, no set; values readable; reset back to Instantiated.
        assert_eq!(fmi3Terminate(i), OK);
        assert_eq!(do_step(i, 0.5, 0.1).0, ERROR);
        s.expect_error("fmi3DoStep: Illegal call sequence");
        let force = s.vr("force");
        assert_eq!(fmi3SetFloat64(i, &force, 1, &1.0, 1), ERROR);
        s.expect_error("fmi3SetFloat64: Illegal call sequence");
        assert_eq!(get(i, &[time_value_reference(&s.vars)]), vec![0.5]);
        assert_eq!(fmi3Reset(i), OK);
        assert_eq!(initialize(i, 0.0), OK);
        assert_eq!(do_step(i, 0.0, 0.25).0, OK);
        fmi3FreeInstance(i);
        // NULL instance: an error, nothing to log to.
        assert_eq!(fmi3Terminate(null_mut()), ERROR);
        fmi3FreeInstance(null_mut());
    }
}

#[test]
fn instantiation_checks() {
    let s = Setup::new("mass_spring");
    let token = guid(&s.model.source);
    assert!(s.instantiate_with("{00000000-0000-0000-0000-000000000000}", &s.resources, false).is_null());
    s.expect_error("instantiationToken mismatch");
    assert!(s.instantiate_with(&token, "resources/", false).is_null());
    s.expect_error("not an absolute path");
    assert!(s.instantiate_with(&token, &format!("file://{}", s.resources), false).is_null());
    s.expect_error("fmi3InstantiateCoSimulation");
    assert!(s.instantiate_with(&token, &s.resources, true).is_null());
    s.expect_error("eventModeUsed = true");
    let (name, tok, res) = (CString::new("me").unwrap(), CString::new(token).unwrap(), CString::new("/").unwrap());
    let me = unsafe {
        fmi3InstantiateModelExchange(name.as_ptr(), tok.as_ptr(), res.as_ptr(), 0, 0, s.env(), Some(log_message))
    };
    assert!(me.is_null());
    s.expect_error("Co-Simulation only");
    assert_eq!(unsafe { CStr::from_ptr(fmi3GetVersion()) }.to_str().unwrap(), "3.0");
}

#[test]
fn capabilities_not_claimed_are_errors_with_a_reason() {
    let s = Setup::new("mass_spring");
    let i = s.instantiate();
    unsafe {
        assert_eq!(initialize(i, 0.0), OK);
        let x = s.vr("x");
        let mut out = [0.0];
        // Output and directional derivatives are claimed now (tests/suite/fmi3_depth.rs); adjoint
        // derivatives are not.
        assert_eq!(fmi3GetAdjointDerivative(i, &x, 1, &x, 1, &1.0, 1, out.as_mut_ptr(), 1), ERROR);
        s.expect_error("providesAdjointDerivatives=false");
        let mut n = 0usize;
        assert_eq!(fmi3GetNumberOfContinuousStates(i, &mut n), ERROR);
        s.expect_error("not Model Exchange");
        assert_eq!(fmi3EnterConfigurationMode(i), ERROR);
        s.expect_error("no structural parameters");
        let mut b = 0u8;
        assert_eq!(fmi3GetBoolean(i, &x, 1, &mut b, 1), ERROR);
        s.expect_error("no variables of this type");
        // nValues must match: all variables are scalars.
        assert_eq!(fmi3GetFloat64(i, &x, 1, out.as_mut_ptr(), 2), ERROR);
        s.expect_error("nValues = 2");
        // A value reference of another type.
        let integrator = s.vr("solver_integrator");
        assert_eq!(fmi3GetFloat64(i, &integrator, 1, out.as_mut_ptr(), 1), ERROR);
        s.expect_error("(solver_integrator) is not of type Float64");
        let mut code = -1;
        assert_eq!(fmi3GetInt32(i, &integrator, 1, &mut code, 1), OK);
        assert_eq!(code, s.vars.get(integrator).unwrap().start.unwrap() as i32);
        // time is read, not set.
        let t = time_value_reference(&s.vars);
        assert_eq!(fmi3SetFloat64(i, &t, 1, &1.0, 1), ERROR);
        s.expect_error("independent variable");
        // Still usable.
        assert_eq!(do_step(i, 0.0, 0.1).0, OK);
        assert_eq!(get(i, &[t]), vec![0.1]);
        fmi3FreeInstance(i);
    }
}

#[test]
fn string_parameters_through_fmi3() {
    let s = Setup::new("impact_beam");
    let p = s.vars.list.iter().find(|v| !v.choices.is_empty()).expect("impact_beam has a string parameter");
    let i = s.instantiate();
    unsafe {
        let mut out: *const c_char = null();
        assert_eq!(fmi3GetString(i, &p.vr, 1, &mut out, 1), OK);
        assert_eq!(CStr::from_ptr(out).to_str().unwrap(), p.start_text().unwrap());
        let last = CString::new(p.choices.last().unwrap().as_str()).unwrap();
        assert_eq!(fmi3SetString(i, &p.vr, 1, &last.as_ptr(), 1), OK);
        assert_eq!(fmi3GetString(i, &p.vr, 1, &mut out, 1), OK);
        assert_eq!(CStr::from_ptr(out).to_str().unwrap(), p.choices.last().unwrap());
        fmi3FreeInstance(i);
    }
}

#[test]
fn serialized_fmu_state_round_trip_continues_bit_for_bit() {
    let s = Setup::new("crank_slider");
    let outputs: Vec<u32> = s.vars.outputs().map(|v| v.vr).collect();
    let h = 0.01;
    let a = s.instantiate();
    let b = s.instantiate();
    unsafe {
        assert_eq!(initialize(a, 0.0), OK);
        let mut t = 0.0;
        for _ in 0..10 {
            assert_eq!(do_step(a, t, h).0, OK);
            t += h;
        }
        // Get and serialize the state at t.
        let mut state: *mut c_void = null_mut();
        assert_eq!(fmi3GetFMUState(a, &mut state), OK);
        let mut size = 0usize;
        assert_eq!(fmi3SerializedFMUStateSize(a, state, &mut size), OK);
        assert!(size > 0);
        let mut bytes = vec![0u8; size];
        assert_eq!(fmi3SerializeFMUState(a, state, bytes.as_mut_ptr(), size - 1), ERROR);
        s.expect_error("too small");
        assert_eq!(fmi3SerializeFMUState(a, state, bytes.as_mut_ptr(), size), OK);
        assert_eq!(fmi3FreeFMUState(a, &mut state), OK);
        assert!(state.is_null());

        // The original run continues ...
        let t_saved = t;
        let mut original = Vec::new();
        for _ in 0..20 {
            assert_eq!(do_step(a, t, h).0, OK);
            t += h;
            original.extend(get(a, &outputs).iter().map(|x| x.to_bits()));
        }
        // ... and so does a fresh instance restored from the bytes (another instance, in
        // Instantiated: the state carries the lifecycle, Step Mode).
        let mut restored: *mut c_void = null_mut();
        assert_eq!(fmi3DeserializeFMUState(b, bytes.as_ptr(), bytes.len(), &mut restored), OK);
        assert_eq!(fmi3SetFMUState(b, restored), OK);
        assert_eq!(get(b, &[time_value_reference(&s.vars)]), vec![t_saved]);
        let mut t = t_saved;
        let mut again = Vec::new();
        for _ in 0..20 {
            assert_eq!(do_step(b, t, h).0, OK, "{:?}", s.messages.lock().unwrap());
            t += h;
            again.extend(get(b, &outputs).iter().map(|x| x.to_bits()));
        }
        assert_eq!(original, again);
        // Rewind the first instance with the same state: the same again.
        assert_eq!(fmi3SetFMUState(a, restored), OK);
        let mut t = t_saved;
        let mut rewound = Vec::new();
        for _ in 0..20 {
            assert_eq!(do_step(a, t, h).0, OK);
            t += h;
            rewound.extend(get(a, &outputs).iter().map(|x| x.to_bits()));
        }
        assert_eq!(original, rewound);
        // A corrupted blob is refused with its reason; nothing changes.
        let mut bad = bytes.clone();
        let n = bad.len();
        bad[n / 2] ^= 0xff;
        let mut refused: *mut c_void = null_mut();
        assert_eq!(fmi3DeserializeFMUState(b, bad.as_ptr(), bad.len(), &mut refused), ERROR);
        s.expect_error("fmi3DeserializeFMUState");
        assert!(refused.is_null());
        assert_eq!(fmi3FreeFMUState(a, &mut restored), OK);
        fmi3FreeInstance(a);
        fmi3FreeInstance(b);
    }
}

/// fmi3GetFMUState copies the state (as fmi2GetFMUstate, FMI 2.0.4 sec. 2.1.8): a master that
/// gets (and frees) one before every fmi3DoStep gets the outputs of one that does not, bit for
/// bit (models/crank_slider.toml, 200 steps of 0.01 s, the strict audit's case).
#[test]
fn getting_the_fmu_state_before_every_step_changes_nothing() {
    let s = Setup::new("crank_slider");
    let outputs: Vec<u32> = s.vars.outputs().map(|v| v.vr).collect();
    let run = |get_state: bool| unsafe {
        let i = s.instantiate();
        assert_eq!(initialize(i, 0.0), OK);
        let mut rows = Vec::new();
        for k in 0..200 {
            if get_state {
                let mut state: *mut c_void = null_mut();
                assert_eq!(fmi3GetFMUState(i, &mut state), OK);
                assert_eq!(fmi3FreeFMUState(i, &mut state), OK);
            }
            assert_eq!(do_step(i, k as f64 * 0.01, 0.01).0, OK);
            rows.push(get(i, &outputs).iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        }
        fmi3FreeInstance(i);
        rows
    };
    assert_eq!(run(true), run(false));
}

#[test]
fn a_discarded_step_reports_its_last_successful_time_and_ends_stepping() {
    let s = Setup::new("mass_spring");
    let i = s.instantiate();
    let t = time_value_reference(&s.vars);
    unsafe {
        assert_eq!(initialize(i, 0.0), OK);
        assert_eq!(do_step(i, 0.0, 0.25).0, OK);
        // 0.5 s at an internal step of 1e-7 s is 5e6 internal steps, above the budget of one
        // communication step (500,000): refused before any work, a Discard at t = 0.25.
        let step = s.vr("solver_step");
        assert_eq!(fmi3SetFloat64(i, &step, 1, &1e-7, 1), OK);
        let (status, [event, terminate, early], last) = do_step(i, 0.25, 0.5);
        assert_eq!((status, event, terminate, early, last), (2, 0, 1, 0, 0.25));
        // Step Discarded: values at the last successful time readable, no more steps or
        // sets, terminate allowed.
        assert_eq!(get(i, &[t]), vec![0.25]);
        assert_eq!(do_step(i, 0.25, 0.01).0, ERROR);
        s.expect_error("fmi3DoStep: Illegal call sequence in state Step Discarded");
        assert_eq!(fmi3SetFloat64(i, &step, 1, &1e-3, 1), ERROR);
        s.expect_error("fmi3SetFloat64: Illegal call sequence");
        assert_eq!(fmi3Terminate(i), OK);
        fmi3FreeInstance(i);
    }
}
