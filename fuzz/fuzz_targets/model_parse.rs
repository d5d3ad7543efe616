//! libFuzzer target: model text through the parser, the expression compiler and the
//! assembly (every expression compiled, the constant ones evaluated), and the same bytes as
//! one expression, parsed and evaluated. Any panic, stack overflow or unbounded allocation is
//! a finding; errors are fine.
//!
//! Run from this directory: `cargo +nightly fuzz run model_parse corpus/model_parse
//! ../models -- -dict=model.dict` (the models seed the corpus).

#![no_main]

use flexfmu::mechanics::assemble::assemble;
use flexfmu::model::Model;
use flexfmu::model::expr::{Expr, Symbol};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let resolve = |name: &str| match name {
        "t" => Some(Symbol::Time),
        "u" => Some(Symbol::Input(0)),
        "L" => Some(Symbol::Constant(2.0)),
        _ => None,
    };
    if let Ok(e) = Expr::parse(text, &resolve) {
        let _ = e.eval(0.5, &[1.5]);
    }
    if let Ok(model) = Model::parse(text, "fuzz.toml") {
        let _ = assemble(&model, &model.default_parameters());
    }
});
