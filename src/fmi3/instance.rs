//! What an `fmi3Instance` points to: the core instance with the FMI 3 specifics around it
//! (the logMessage callback, the resource path, the C strings `fmi3GetString` hands out,
//! the `time` variable).

use std::ffi::{CString, c_char, c_int};
use std::path::PathBuf;

use super::time_value_reference;
use super::types::{Fmi3InstanceEnvironment, LogMessage};
use crate::fmu::log::{Category, Logger};
use crate::fmu::{Instance, Status};

pub struct Fmi3Component {
    pub core: Instance,
    /// The value reference of the independent variable `time`.
    pub time_vr: u32,
    /// `earlyReturnAllowed` of fmi3InstantiateCoSimulation: fmi3DoStep may then end at the
    /// first event (contact onset or release) inside the step.
    pub early_return_allowed: bool,
    /// The choices of every string parameter as C strings: `fmi3GetString` hands out
    /// pointers into these, valid as long as the instance.
    choice_texts: Vec<Vec<CString>>,
}

/// `s` as a C string (NUL characters become spaces).
pub fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// The importer's logMessage callback with its environment; calls nothing when it is NULL.
#[derive(Clone, Copy)]
pub struct Callback {
    pub log_message: Option<LogMessage>,
    pub environment: Fmi3InstanceEnvironment,
}

impl Callback {
    pub fn log(&self, status: Status, category: Category, message: &str) {
        let Some(log_message) = self.log_message else { return };
        let (text, cat) = (c_text(message), c_text(category.name()));
        // SAFETY: the importer's callback, called with its environment and valid
        // NUL-terminated strings that outlive the call.
        unsafe { log_message(self.environment, status as c_int, cat.as_ptr(), text.as_ptr()) };
    }
}

/// `resourcePath` of fmi3Instantiate*: the absolute path of the extracted resources/
/// directory, a native path (not a URI as in FMI 2), usually with a trailing separator.
pub fn resource_dir(path: Option<&str>) -> Result<PathBuf, String> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return Err("resourcePath is missing; the model is read from resources/model.toml".into());
    };
    let dir = PathBuf::from(path);
    if !dir.is_absolute() {
        return Err(format!("resourcePath '{path}' is not an absolute path"));
    }
    Ok(dir)
}

impl Fmi3Component {
    /// fmi3InstantiateCoSimulation after the NULL and flag checks: load the model from the
    /// resources and check it against the instantiation token. The error is the reason.
    pub fn instantiate(
        token: &str,
        resources: Option<&str>,
        callback: Callback,
        logging_on: bool,
        early_return_allowed: bool,
    ) -> Result<Fmi3Component, String> {
        let dir = resource_dir(resources)?;
        // The core's few FMI 2 words, in FMI 3's: the step that fixes parameters is
        // fmi3ExitInitializationMode; the "GUID" is the instantiationToken.
        let logger: Logger = Box::new(move |status, category, message: &str| {
            callback.log(status, category, &message.replace("fmi2ExitInitializationMode", "fmi3ExitInitializationMode"))
        });
        let core = Instance::instantiate(&dir, token, logger, logging_on)
            .map_err(|e| e.replace("GUID mismatch", "instantiationToken mismatch"))?;
        let choice_texts =
            core.model().parameters.iter().map(|p| p.choices.iter().map(|c| c_text(c)).collect()).collect();
        let time_vr = time_value_reference(core.variables());
        Ok(Fmi3Component { core, time_vr, early_return_allowed, choice_texts })
    }

    /// fmi3GetString: pointers to the instance's copies of the current choices.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_paths() {
        assert_eq!(resource_dir(Some("/tmp/x y/resources/")).unwrap(), PathBuf::from("/tmp/x y/resources/"));
        assert!(resource_dir(Some("relative/resources")).is_err());
        assert!(resource_dir(Some("")).is_err());
        assert!(resource_dir(None).is_err());
    }
}
