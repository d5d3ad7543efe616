//! What an `fmi2Component` points to: the core instance, with the FMI 2 specifics around it
//! (the logger callback, the resource URI, the C strings `fmi2GetString` hands out).

use std::ffi::{CString, c_char, c_int};

use super::resource::resource_path;
use super::types::{CallbackFunctions, FMI2_CO_SIMULATION, FMI2_MODEL_EXCHANGE};
use crate::fmu::log::{Category, Logger};
use crate::fmu::{Instance, Status};

pub struct Component {
    pub core: Instance,
    /// The choices of every string parameter as C strings (empty for other parameters):
    /// `fmi2GetString` hands out pointers into these, valid as long as the instance.
    choice_texts: Vec<Vec<CString>>,
}

/// `s` as a C string (NUL characters become spaces).
pub fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// Call the importer's logger with "%s" and the text ('#' escaped as "##"; it marks value
/// references).
pub fn log_with(callbacks: &CallbackFunctions, name: &CString, status: Status, category: Category, message: &str) {
    let Some(logger) = callbacks.logger else { return };
    let text = c_text(&message.replace('#', "##"));
    let cat = c_text(category.name());
    // SAFETY: the importer's logger, called with valid NUL-terminated strings and a "%s"
    // format consuming exactly one string argument.
    unsafe {
        logger(
            callbacks.component_environment,
            name.as_ptr(),
            status as c_int,
            cat.as_ptr(),
            c"%s".as_ptr(),
            text.as_ptr(),
        );
    }
}

impl Component {
    /// fmi2Instantiate after the NULL checks; the error is logged already.
    pub fn instantiate(
        name: &str,
        fmu_type: c_int,
        fmu_guid: &str,
        resources: Option<&str>,
        callbacks: CallbackFunctions,
        logging_on: bool,
    ) -> Option<Component> {
        let cname = c_text(name);
        let fail = |msg: String| {
            log_with(&callbacks, &cname, Status::Error, Category::StatusError, &format!("fmi2Instantiate: {msg}"));
            None
        };
        if name.trim().is_empty() {
            return fail("instanceName must not be empty".into());
        }
        match fmu_type {
            FMI2_CO_SIMULATION => {}
            FMI2_MODEL_EXCHANGE => return fail("this FMU supports Co-Simulation only, not Model Exchange".into()),
            other => return fail(format!("unknown fmuType {other}")),
        }
        let Some(uri) = resources.filter(|s| !s.is_empty()) else {
            return fail("fmuResourceLocation is missing; the model is read from resources/model.toml".into());
        };
        let dir = match resource_path(uri) {
            Ok(d) => d,
            Err(e) => return fail(e),
        };
        let logger_name = cname.clone();
        let logger: Logger = Box::new(move |status: Status, category: Category, message: &str| {
            log_with(&callbacks, &logger_name, status, category, message)
        });
        let core = match Instance::instantiate(&dir, fmu_guid, logger, logging_on) {
            Ok(core) => core,
            Err(e) => return fail(e),
        };
        let choice_texts =
            core.model().parameters.iter().map(|p| p.choices.iter().map(|c| c_text(c)).collect()).collect();
        Some(Component { core, choice_texts })
    }

    /// fmi2GetString: pointers to the instance's copies of the current choices.
    pub fn get_strings(&mut self, function: &str, vrs: &[u32], out: &mut [*const c_char]) -> Status {
        for (k, vr) in vrs.iter().enumerate() {
            let (i, choice) = match self.core.string_choice(function, *vr) {
                Ok(x) => x,
                Err(s) => return s,
            };
            let Some(text) = self.choice_texts.get(i).and_then(|t| t.get(choice)) else {
                return self
                    .core
                    .error(&format!("{function}: value reference {vr} has no valid value (internal error)"));
            };
            out[k] = text.as_ptr();
        }
        Status::Ok
    }
}
