//! The outcome of a call. FMI 2 (`fmi2Status`) and FMI 3 (`fmi3Status`) share these five
//! values and their numbers.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Status {
    Ok = 0,
    Warning = 1,
    Discard = 2,
    Error = 3,
    Fatal = 4,
}
