//! FMI 2.0 C API.
