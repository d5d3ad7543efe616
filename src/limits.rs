//! The documented limits that keep hostile inputs from exhausting the stack, the memory or
//! the time of the host (README, "Limits"). A model file or call beyond one is refused with
//! an error, never a crash or a hang.

/// Deepest nesting of an expression in a model file: parentheses, unary signs, function
/// calls, `^` and each operator of a `+ - * /` chain count one level over the numbers and
/// names, which are one deep (`"a + b + c"` is three deep). Bounds the stack the parser and the evaluator use.
pub const MAX_EXPRESSION_DEPTH: usize = 100;
