//! Embeds the generic FMU binary (this crate's cdylib) into the `flexfmu` executable, so that
//! an installed `flexfmu` (`cargo install`, the Python wheel) builds FMUs with nothing beside it.
//!
//! The cdylib of the same crate cannot be a dependency of its own binary, so a release build
//! runs a nested `cargo build --lib` of this package into `$OUT_DIR/fmu-target` and embeds the
//! result. Controlled by environment variables:
//! - `FLEXFMU_EMBED_BINARY=PATH`: embed this prebuilt library instead (no nested build);
//! - `FLEXFMU_EMBED=0`: embed nothing (contributors' builds: `build` then uses the
//!   `libflexfmu.so` that cargo puts beside the executable); `FLEXFMU_EMBED=1` forces the
//!   nested build also in debug builds, which otherwise embed nothing.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FLEXFMU_EMBED");
    println!("cargo:rerun-if-env-changed=FLEXFMU_EMBED_BINARY");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=fmu-template");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let embed = env::var("FLEXFMU_EMBED").ok();
    let bytes = if let Some(path) = env::var_os("FLEXFMU_EMBED_BINARY") {
        println!("cargo:rerun-if-changed={}", Path::new(&path).display());
        std::fs::read(&path).unwrap_or_else(|e| panic!("FLEXFMU_EMBED_BINARY={path:?}: {e}"))
    } else if embed.as_deref() == Some("0") || (embed.is_none() && env::var("PROFILE").as_deref() != Ok("release")) {
        Vec::new()
    } else {
        nested_build(&out_dir)
    };
    std::fs::write(out_dir.join("fmu_binary"), bytes).expect("write the embedded FMU binary");
}

/// `cargo build --lib` of this package with the same profile and target; returns the cdylib.
fn nested_build(out_dir: &Path) -> Vec<u8> {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let target = env::var("TARGET").unwrap();
    let profile = env::var("PROFILE").unwrap();
    let target_dir = nested_target_dir(out_dir, &target);
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--lib", "--offline", "--target", &target])
        .arg("--manifest-path")
        .arg(manifest_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env("FLEXFMU_EMBED", "0"); // the nested build embeds nothing itself
    if profile == "release" {
        cmd.arg("--release");
    }
    if manifest_dir.join("Cargo.lock").is_file() {
        cmd.arg("--locked");
    }
    let status = cmd.status().expect("run the nested cargo build of the FMU binary");
    assert!(status.success(), "the nested build of the FMU binary failed ({status})");
    let (prefix, suffix) = match env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("windows") => ("", "dll"),
        Ok("macos") => ("lib", "dylib"),
        _ => ("lib", "so"),
    };
    let lib = target_dir.join(&target).join(if profile == "release" { "release" } else { "debug" });
    let lib = lib.join(format!("{prefix}flexfmu.{suffix}"));
    std::fs::read(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()))
}

/// Where the nested build puts its files: `fmu-nested` beside the outer build's profile
/// directories, so that successive release builds (the wheel, `cargo install`, a developer's
/// `cargo build --release`) share the compiled dependencies instead of compiling them again
/// inside each build script's `OUT_DIR`. Cargo's lock on that directory serialises concurrent
/// nested builds. `OUT_DIR` is `<target-dir>/[<triple>/]<profile>/build/<package>-<hash>/out`;
/// anything else falls back to a directory inside `OUT_DIR`.
fn nested_target_dir(out_dir: &Path, target: &str) -> PathBuf {
    let target_dir = out_dir.ancestors().nth(4).and_then(|dir| match dir.file_name() {
        Some(name) if name == target => dir.parent(),
        _ => Some(dir),
    });
    match target_dir {
        Some(dir) if out_dir.ancestors().nth(2).and_then(Path::file_name) == Some("build".as_ref()) => {
            dir.join("fmu-nested")
        }
        _ => out_dir.join("fmu-target"),
    }
}
