//! scripts/setup decides whether to install libclang by what bindgen (clang-sys) loads:
//! `libclang.so`, `libclang.so.N` or `libclang-N.so[.M]`, a regular file or a link to one.
//! `libclang-cpp.so.N` (another library, present on machines with LLVM but no libclang) and
//! dangling links must not count: a fresh Debian 12 with only libclang-cpp14 skipped the
//! install and the tests' `fmi` crate failed with "Unable to find libclang".

use std::path::Path;
use std::process::Command;

/// Run `scripts/setup --probe-libclang` over exactly `dirs`; the library found, if any.
fn probe(dirs: &[&Path]) -> Option<String> {
    let setup = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/setup");
    let joined = dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(":");
    let out = Command::new(setup).arg("--probe-libclang").env("LIBCLANG_SEARCH_DIRS", joined).output().unwrap();
    let found = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert_eq!(out.status.success(), !found.is_empty(), "exit status agrees with the output: {found:?}");
    out.status.success().then_some(found)
}

fn touch(dir: &Path, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, b"\x7fELF").unwrap();
    p
}

#[test]
fn libclang_cpp_alone_is_not_libclang() {
    let d = tempfile::tempdir().unwrap();
    touch(d.path(), "libclang-cpp.so.14");
    touch(d.path(), "libclang-cpp.so");
    touch(d.path(), "libclangBasic.a");
    assert_eq!(probe(&[d.path()]), None);
}

#[test]
fn a_dangling_link_is_not_libclang() {
    let d = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(d.path().join("libclang-14.so.1"), d.path().join("libclang.so")).unwrap();
    assert_eq!(probe(&[d.path()]), None);
}

#[test]
fn the_names_bindgen_loads_are_found() {
    for name in ["libclang.so", "libclang.so.1", "libclang-14.so.1", "libclang-14.0.6.so", "libclang-17.so"] {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), "libclang-cpp.so.14");
        let lib = touch(d.path(), name);
        assert_eq!(probe(&[d.path()]), Some(lib.display().to_string()), "{name}");
    }
}

#[test]
fn a_link_to_the_library_counts_and_later_directories_are_searched() {
    let empty = tempfile::tempdir().unwrap();
    let d = tempfile::tempdir().unwrap();
    let real = touch(d.path(), "libclang-14.so.1");
    std::os::unix::fs::symlink(&real, d.path().join("libclang.so")).unwrap();
    let found = probe(&[empty.path(), Path::new("/nonexistent"), d.path()]).unwrap();
    assert!(found.starts_with(&d.path().display().to_string()), "{found}");
}

/// Run `scripts/setup --probe-chromium` with `dir` first on PATH: its output if it succeeds.
fn probe_chromium(dir: &Path) -> Option<String> {
    let setup = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/setup");
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash").arg(setup).arg("--probe-chromium").env("PATH", path).output().unwrap();
    out.status.success().then(|| String::from_utf8(out.stdout).unwrap().trim().to_string())
}

fn fake_chromium(dir: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("chromium");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The chromium step installs unless the exact thing the tests run works: `chromium
/// --version` from PATH. A chromium that fails to start (missing libraries) does not count,
/// even if another one is later on PATH: the first is what the tests would run.
#[test]
fn chromium_counts_only_if_it_runs() {
    let d = tempfile::tempdir().unwrap();
    fake_chromium(d.path(), "echo 'Chromium 1.2.3'");
    assert_eq!(probe_chromium(d.path()).as_deref(), Some("Chromium 1.2.3"));
    let d = tempfile::tempdir().unwrap();
    fake_chromium(d.path(), "echo 'error while loading shared libraries' >&2; exit 127");
    assert_eq!(probe_chromium(d.path()), None);
}
