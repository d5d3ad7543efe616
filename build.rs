//! Embeds the generic FMU binary (this crate's cdylib) into the `flexfmu` executable, so that
//! an installed `flexfmu` (`cargo install`, the Python wheel) builds FMUs with nothing beside it.
//!
//! The library target has the crate types rlib and cdylib, so the rustc run that compiles it
//! for the executable also links the cdylib, into the `deps` directory of the same build.
//! Cargo compiles an executable only after its library's compilation has finished (it links
//! against it), so the executable can `include_bytes!` that cdylib: one build, no second
//! compilation of the library. This script only names the file, in the environment variable
//! `FLEXFMU_EMBEDDED_FMU_BINARY` that `src/cli/build.rs` includes. Controlled by:
//! - `FLEXFMU_EMBED_BINARY=PATH`: embed this prebuilt library instead;
//! - `FLEXFMU_EMBED=0`: embed nothing (contributors' builds: `build` then uses the
//!   `libflexfmu.so` that cargo puts beside the executable); `FLEXFMU_EMBED=1` embeds also in
//!   debug builds, which otherwise embed nothing.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=FLEXFMU_EMBED");
    println!("cargo:rerun-if-env-changed=FLEXFMU_EMBED_BINARY");
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let embed = env::var("FLEXFMU_EMBED").ok();
    let binary = if let Some(path) = env::var_os("FLEXFMU_EMBED_BINARY") {
        PathBuf::from(path)
    } else if embed.as_deref() == Some("0") || (embed.is_none() && env::var("PROFILE").as_deref() != Ok("release")) {
        let none = out_dir.join("no_fmu_binary");
        std::fs::write(&none, []).expect("write an empty FMU binary");
        none
    } else {
        library_of_this_build(&out_dir)
    };
    println!("cargo:rustc-env=FLEXFMU_EMBEDDED_FMU_BINARY={}", binary.display());
}

/// The cdylib this build links from the library target: `<profile dir>/deps/libflexfmu.so`
/// (`.dylib`, `flexfmu.dll`), where `OUT_DIR` is `<profile dir>/build/<package>-<hash>/out`.
/// Until the library is linked an empty file stands there: `cargo check` and `cargo clippy`
/// compile the executable without linking the library, so they see (and embed) nothing;
/// a build's link of the library replaces it before the executable is compiled.
fn library_of_this_build(out_dir: &Path) -> PathBuf {
    let (prefix, suffix) = match env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("windows") => ("", "dll"),
        Ok("macos") => ("lib", "dylib"),
        _ => ("lib", "so"),
    };
    let profile_dir = out_dir.ancestors().nth(3).expect("OUT_DIR is <profile dir>/build/<package>/out");
    let deps = profile_dir.join("deps");
    let library = deps.join(format!("{prefix}flexfmu.{suffix}"));
    if !library.exists() {
        std::fs::create_dir_all(&deps).expect("create the deps directory");
        std::fs::write(&library, []).expect("write the placeholder of the FMU binary");
    }
    library
}
