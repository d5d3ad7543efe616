//! The FMI 2.0 callbacks for tests that call the C entry points in-process: a logger that
//! collects (status, category, message) and checks the logger contract.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::Mutex;

use flexfmu::fmi2::types::{CallbackFunctions, Logger};

/// What the FMU logged: (status, category, message).
pub type Messages = Mutex<Vec<(c_int, String, String)>>;

/// Reads the one "%s" argument the FMU passes. Declared non-variadic (defining C-variadic
/// functions is unstable); on x86_64/aarch64 Linux the variadic call passes the same registers.
unsafe extern "C" fn logger(
    env: *mut c_void,
    _name: *const c_char,
    status: c_int,
    category: *const c_char,
    format: *const c_char,
    arg: *const c_char,
) {
    let messages = unsafe { &*(env as *const Messages) };
    let format = unsafe { CStr::from_ptr(format) }.to_string_lossy().into_owned();
    assert_eq!(format, "%s", "the FMU must pass its text as an argument, not as the format");
    let category = unsafe { CStr::from_ptr(category) }.to_string_lossy().into_owned();
    let text = unsafe { CStr::from_ptr(arg) }.to_string_lossy().into_owned();
    messages.lock().unwrap().push((status, category, text));
}

/// Callbacks whose logger appends to `messages` (the component environment).
pub fn callbacks(messages: &Messages) -> CallbackFunctions {
    let logger: Logger = unsafe { std::mem::transmute(logger as unsafe extern "C" fn(_, _, _, _, _, _)) };
    CallbackFunctions {
        logger: Some(logger),
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: messages as *const Messages as *mut c_void,
    }
}

/// A model text as an FMU's `resources/model.toml` in a temporary directory, instantiated
/// in-process (fmi2Instantiate: co-simulation, logging on) with the callbacks `cb`, which
/// must outlive it; freed (fmi2FreeInstance) when dropped.
pub struct TextInstance {
    pub c: *mut c_void,
    _dir: tempfile::TempDir,
}

impl TextInstance {
    pub fn new(text: &str, cb: &CallbackFunctions) -> TextInstance {
        use flexfmu::fmi2::api::fmi2Instantiate;
        use std::ffi::CString;
        let dir = tempfile::tempdir().unwrap();
        let resources = dir.path().join("resources");
        std::fs::create_dir_all(&resources).unwrap();
        std::fs::write(resources.join("model.toml"), text).unwrap();
        let name = CString::new("inst").unwrap();
        let token = CString::new(flexfmu::export::variables::guid(text)).unwrap();
        let uri = CString::new(format!("file://{}", resources.display())).unwrap();
        let c = unsafe { fmi2Instantiate(name.as_ptr(), 1, token.as_ptr(), uri.as_ptr(), cb, 0, 1) };
        assert!(!c.is_null(), "fmi2Instantiate refused the model");
        TextInstance { c, _dir: dir }
    }

    /// fmi2SetupExperiment at t = 0 without tolerance or stop time, then initialization.
    pub fn initialize(&self) {
        use flexfmu::fmi2::api::*;
        unsafe {
            assert_eq!(fmi2SetupExperiment(self.c, 0, 0.0, 0.0, 0, 0.0), 0);
            assert_eq!(fmi2EnterInitializationMode(self.c), 0);
            assert_eq!(fmi2ExitInitializationMode(self.c), 0);
        }
    }
}

impl Drop for TextInstance {
    fn drop(&mut self) {
        unsafe { flexfmu::fmi2::api::fmi2FreeInstance(self.c) };
    }
}
