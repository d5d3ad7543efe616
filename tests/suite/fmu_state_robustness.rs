//! Issue 18 items 5, 6, 7 through the C entry points (in-process, as tests/suite/c_api.rs): a
//! non-ASCII resource URI, damaged FMU states (cut, corrupted, non-finite, of another
//! layout, a bounded fuzz loop) and outputs after a step that overflows.

use std::ffi::{CString, c_char, c_int, c_void};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use flexfmu::export::variables::{Variables, guid};
use flexfmu::fmi2::api::*;
use flexfmu::fmi2::types::CallbackFunctions;
use flexfmu::fmu::state::FmuState;
use flexfmu::model::Model;
use flexfmu::simulation::blob;

use crate::common;
use common::c_logger::{Messages, callbacks};

const OK: c_int = 0;
const WARNING: c_int = 1;
const DISCARD: c_int = 2;
const ERROR: c_int = 3;
const FATAL: c_int = 4;

struct Fixture {
    _dir: tempfile::TempDir,
    uri: String,
    model: Model,
    vars: Variables,
}

fn fixture(name: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let resources = dir.path().join("resources");
    let model = common::fmu::example_resources(&resources, name);
    let vars = Variables::new(&model).unwrap();
    Fixture { _dir: dir, uri: format!("file://{}", resources.display()), model, vars }
}

unsafe fn instantiate(uri: &str, guid: &str, cb: &CallbackFunctions) -> *mut c_void {
    let (name, guid, uri) = (CString::new("inst").unwrap(), CString::new(guid).unwrap(), CString::new(uri).unwrap());
    unsafe { fmi2Instantiate(name.as_ptr(), 1, guid.as_ptr(), uri.as_ptr(), cb, 0, 0) }
}

/// An initialized instance at t = 0.
unsafe fn start(f: &Fixture, cb: &CallbackFunctions) -> *mut c_void {
    let c = unsafe { instantiate(&f.uri, &guid(&f.model.source), cb) };
    assert!(!c.is_null());
    unsafe {
        assert_eq!(fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(fmi2EnterInitializationMode(c), OK);
        assert_eq!(fmi2ExitInitializationMode(c), OK);
    }
    c
}

fn outputs(f: &Fixture) -> Vec<u32> {
    f.vars.outputs().map(|v| v.vr).collect()
}

/// The serialized FMU state of `c`.
unsafe fn serialize(c: *mut c_void) -> Vec<u8> {
    let mut state: *mut c_void = null_mut();
    let mut size = 0usize;
    unsafe {
        assert_eq!(fmi2GetFMUstate(c, &mut state), OK);
        assert_eq!(fmi2SerializedFMUstateSize(c, state, &mut size), OK);
        let mut bytes = vec![0u8; size];
        assert_eq!(fmi2SerializeFMUstate(c, state, bytes.as_mut_ptr() as *mut c_char, size), OK);
        assert_eq!(fmi2FreeFMUstate(c, &mut state), OK);
        bytes
    }
}

/// Deserialize and set `bytes`: the status of the first call that refused it, or OK.
unsafe fn restore(c: *mut c_void, bytes: &[u8]) -> c_int {
    let mut state: *mut c_void = null_mut();
    unsafe {
        let status = fmi2DeSerializeFMUstate(c, bytes.as_ptr() as *const c_char, bytes.len(), &mut state);
        if status != OK {
            return status;
        }
        let status = fmi2SetFMUstate(c, state);
        assert_eq!(fmi2FreeFMUstate(c, &mut state), OK);
        status
    }
}

/// The blob with its payload replaced (length and checksum made consistent again).
fn reseal(bytes: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut b = bytes[..24].to_vec();
    b[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    b[20..24].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    b.extend_from_slice(payload);
    b
}

fn no_panic_logged(messages: &Messages) {
    let m = messages.lock().unwrap();
    assert!(!m.iter().any(|(st, _, text)| *st == FATAL || text.contains("panic")), "{m:?}");
}

#[test]
fn non_ascii_resource_uri_is_refused_with_a_reason() {
    let f = fixture("mass_spring");
    let messages = Messages::default();
    let cb = callbacks(&messages);
    for uri in ["abcdé", "é", "filé:///tmp", "file://hôte/tmp/resources"] {
        let c = unsafe { instantiate(uri, &guid(&f.model.source), &cb) };
        assert!(c.is_null(), "{uri}");
    }
    let m = messages.lock().unwrap();
    assert!(
        m.iter().any(|(st, cat, text)| *st == ERROR
            && cat == "logStatusError"
            && text.contains("fmi2Instantiate: unsupported resource location 'abcdé'")),
        "{m:?}"
    );
    assert!(!m.iter().any(|(_, _, text)| text.contains("panic")), "{m:?}");
}

#[test]
fn cut_corrupted_and_non_finite_states_are_refused() {
    let f = fixture("crank_slider");
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let out = outputs(&f);
    unsafe {
        let c = start(&f, &cb);
        for k in 0..20 {
            assert_eq!(fmi2DoStep(c, k as f64 * 1e-3, 1e-3, 1), OK);
        }
        let bytes = serialize(c);
        let mut before = vec![0.0; out.len()];
        assert_eq!(fmi2GetReal(c, out.as_ptr(), out.len(), before.as_mut_ptr()), OK);

        // Issue 18 item 6: a cut blob (286 of its bytes, and every other length) is refused.
        for cut in [0, 8, 23, 24, 286.min(bytes.len() - 1), bytes.len() / 2, bytes.len() - 1] {
            messages.lock().unwrap().clear();
            assert_eq!(restore(c, &bytes[..cut]), ERROR, "cut at {cut}");
            let m = messages.lock().unwrap();
            assert!(m.iter().any(|(st, _, t)| *st == ERROR && t.starts_with("fmi2DeSerializeFMUstate: ")), "{m:?}");
        }
        // A flipped payload byte fails the checksum; another layout version is named.
        let mut flipped = bytes.clone();
        flipped[bytes.len() - 3] ^= 1;
        assert_eq!(restore(c, &flipped), ERROR);
        let mut other = bytes.clone();
        other[8] = 99;
        messages.lock().unwrap().clear();
        assert_eq!(restore(c, &other), ERROR);
        assert!(messages.lock().unwrap().iter().any(|(_, _, t)| t.contains("layout version 99")));

        // Non-finite times, sealed with a valid checksum, are refused field by field.
        let state: FmuState = blob::decode(&bytes).unwrap();
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut s = state.clone();
            s.last_successful_time = x;
            messages.lock().unwrap().clear();
            assert_eq!(restore(c, &blob::encode(&s)), ERROR, "last successful time {x}");
            assert!(messages.lock().unwrap().iter().any(|(_, _, t)| t.contains("last successful time")));
            let mut s = state.clone();
            s.start_time = x;
            assert_eq!(restore(c, &blob::encode(&s)), ERROR, "start time {x}");
        }
        let mut s = state.clone();
        s.inputs.push(0.0);
        assert_eq!(restore(c, &blob::encode(&s)), ERROR, "an extra input");
        let mut s = state.clone();
        s.guid = "{another}".into();
        assert_eq!(restore(c, &blob::encode(&s)), ERROR, "another GUID");
        // Snapshot fields that do not fit the model, or are not finite.
        let mut s = state.clone();
        s.simulation.as_mut().unwrap().state_mut().q.push(0.0);
        messages.lock().unwrap().clear();
        assert_eq!(restore(c, &blob::encode(&s)), ERROR, "an extra coordinate");
        assert!(messages.lock().unwrap().iter().any(|(_, _, t)| t.contains("different model")));
        for x in [f64::NAN, f64::INFINITY] {
            let mut s = state.clone();
            s.simulation.as_mut().unwrap().state_mut().v[0] = x;
            assert_eq!(restore(c, &blob::encode(&s)), ERROR, "v[0] = {x}");
            let mut s = state.clone();
            s.simulation.as_mut().unwrap().state_mut().t = x;
            assert_eq!(restore(c, &blob::encode(&s)), ERROR, "snapshot time {x}");
        }
        let mut s = state.clone();
        s.simulation = None;
        assert_eq!(restore(c, &blob::encode(&s)), ERROR, "a stepping state without its simulation");

        // Nothing of it reached the instance: the same outputs, and it steps on.
        let mut after = vec![0.0; out.len()];
        assert_eq!(fmi2GetReal(c, out.as_ptr(), out.len(), after.as_mut_ptr()), OK);
        assert_eq!(
            before.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            after.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(fmi2DoStep(c, 20e-3, 1e-3, 1), OK);
        // The intact blob restores.
        assert_eq!(restore(c, &bytes), OK);
        fmi2FreeInstance(c);
    }
    no_panic_logged(&messages);
}

/// xorshift64*: a seeded generator, so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn fuzzed_states_are_refused_or_step_without_panic() {
    // crank_slider_contact: a state with contact history (impact speed, onset).
    let f = fixture("crank_slider_contact");
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let out = outputs(&f);
    let budget = Duration::from_secs(4);
    let begin = Instant::now();
    let (mut refused, mut restored, mut tried) = (0, 0, 0);
    unsafe {
        let c = start(&f, &cb);
        for k in 0..30 {
            assert_eq!(fmi2DoStep(c, k as f64 * 1e-3, 1e-3, 1), OK);
        }
        let bytes = serialize(c);
        let payload = &bytes[24..];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        while begin.elapsed() < budget && tried < 5000 {
            tried += 1;
            let mut p = payload.to_vec();
            match rng.below(5) {
                // Flip bits, overwrite bytes, cut, insert, or damage the raw blob.
                0 => {
                    for _ in 0..1 + rng.below(4) {
                        let i = rng.below(p.len());
                        p[i] ^= 1 << rng.below(8);
                    }
                }
                1 => {
                    let i = rng.below(p.len());
                    for b in p.iter_mut().skip(i).take(1 + rng.below(16)) {
                        *b = [0x00, 0xff, 0x7f, 0x80][rng.below(4)];
                    }
                }
                2 => p.truncate(rng.below(p.len())),
                3 => {
                    let i = rng.below(p.len());
                    p.insert(i, rng.next() as u8);
                }
                _ => {
                    let mut raw = bytes.clone();
                    let i = rng.below(raw.len());
                    raw[i] ^= 1 << rng.below(8);
                    raw.truncate(raw.len() - rng.below(3));
                    p = raw;
                }
            }
            let blob = if p.len() > 24 && p[..8] == bytes[..8] { p } else { reseal(&bytes, &p) };
            match restore(c, &blob) {
                OK => {
                    restored += 1;
                    // A state that is accepted steps (or fails a step) cleanly. Settings that
                    // are valid but make a step expensive (a mutated internal step of 1e-200 s)
                    // are left to the step budget; this loop steps cheap states only.
                    let state: FmuState = blob::decode(&blob).unwrap();
                    let cheap = |s: &flexfmu::simulation::SolverSettings| s.step >= 1e-5 && s.max_iterations <= 100;
                    if !(cheap(&state.settings) && state.simulation.as_ref().is_some_and(|s| cheap(&s.settings()))) {
                        assert_eq!(restore(c, &bytes), OK);
                        continue;
                    }
                    let mut t = 0.0;
                    // A state of another lifecycle phase (a mutated phase byte) may not answer
                    // status queries (fmi2Error), and then does not step either.
                    let status = fmi2GetRealStatus(c, 2, &mut t);
                    assert!(status == OK || status == ERROR, "GetRealStatus {status}");
                    if status == ERROR {
                        assert_eq!(restore(c, &bytes), OK);
                        continue;
                    }
                    // A mutated state may be valid and still far from physics (a body at an
                    // absurd speed overruns its contact): the step warns (fmi2Warning).
                    let status = fmi2DoStep(c, t, 1e-3, 1);
                    assert!(
                        status == OK || status == WARNING || status == DISCARD || status == ERROR,
                        "DoStep {status}"
                    );
                    let mut v = vec![0.0; out.len()];
                    let status = fmi2GetReal(c, out.as_ptr(), out.len(), v.as_mut_ptr());
                    assert!(status == OK || status == ERROR, "GetReal {status}");
                    // Back to the intact state for the next mutation.
                    assert_eq!(restore(c, &bytes), OK);
                }
                ERROR => refused += 1,
                other => panic!("restore returned {other}"),
            }
        }
        fmi2FreeInstance(c);
    }
    println!("{tried} mutated states in {:?}: {refused} refused, {restored} restored", begin.elapsed());
    assert!(tried >= 200, "only {tried} mutations in the time budget");
    no_panic_logged(&messages);
}

#[test]
fn outputs_of_the_last_good_state_stay_readable_after_an_overflowing_step() {
    // Issue 18 item 7: crank_torque = 1e300 makes energy_total overflow.
    let f = fixture("crank_slider");
    let messages = Messages::default();
    let cb = callbacks(&messages);
    let out = outputs(&f);
    let torque = f.vars.list.iter().find(|v| v.name == "crank_torque").unwrap().vr;
    unsafe {
        let c = start(&f, &cb);
        for k in 0..5 {
            assert_eq!(fmi2DoStep(c, k as f64 * 1e-3, 1e-3, 1), OK);
        }
        let mut good = vec![0.0; out.len()];
        assert_eq!(fmi2GetReal(c, out.as_ptr(), out.len(), good.as_mut_ptr()), OK);
        assert_eq!(fmi2SetReal(c, [torque].as_ptr(), 1, [1e300].as_ptr()), OK);
        assert_eq!(fmi2DoStep(c, 5e-3, 1e-3, 1), DISCARD);
        let mut t = f64::NAN;
        assert_eq!(fmi2GetRealStatus(c, 2, &mut t), OK);
        assert!(t.is_finite() && (5e-3..=6e-3).contains(&t), "last successful time {t}");
        let mut v = vec![f64::NAN; out.len()];
        assert_eq!(fmi2GetReal(c, out.as_ptr(), out.len(), v.as_mut_ptr()), OK, "{:?}", messages.lock().unwrap());
        assert!(v.iter().all(|x| x.is_finite()), "{v:?}");
        if t == 5e-3 {
            assert_eq!(
                good.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        // The state at the failure is a good state: it serializes and restores.
        let bytes = serialize(c);
        assert_eq!(restore(c, &bytes), OK);
        fmi2FreeInstance(c);
    }
    no_panic_logged(&messages);
}
