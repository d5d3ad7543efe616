//! `flexfmu build` and `flexfmu check` as a user runs them.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_flexfmu");

fn model() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mass_spring.toml")
}

/// The cdylib cargo built for the tests, in target/<profile>/.
fn binary() -> std::path::PathBuf {
    Path::new(EXE).parent().unwrap().join("libflexfmu.so")
}

#[test]
fn build_writes_a_complete_fmu_and_check_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = dir.path().join("ms.fmu");
    let out =
        Command::new(EXE).arg("build").arg(model()).arg("-o").arg(&fmu).arg("--binary").arg(binary()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let names: Vec<String> = zip.file_names().map(String::from).collect();
    for n in
        ["modelDescription.xml", "binaries/linux64/mass_spring.so", "resources/model.toml", "documentation/index.html"]
    {
        assert!(names.iter().any(|x| x == n), "{n} missing in {names:?}");
    }
    let mut text = String::new();
    zip.by_name("resources/model.toml").unwrap().read_to_string(&mut text).unwrap();
    assert_eq!(text, std::fs::read_to_string(model()).unwrap(), "model text verbatim");
    let mut doc = String::new();
    zip.by_name("documentation/index.html").unwrap().read_to_string(&mut doc).unwrap();
    assert!(doc.contains("<td>energy_total</td>") && doc.contains("solver_integrator"));
    let check = Command::new(EXE).arg("check").arg(&fmu).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let check = Command::new(EXE).arg("check").arg(model()).output().unwrap();
    assert!(check.status.success());

    // An FMU whose model text was edited no longer matches its modelDescription.xml; one whose
    // model has an error is told where, inside the FMU.
    let tamper = |file: &str, edit: &dyn Fn(&str) -> String| {
        let tampered = dir.path().join(file);
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
        let mut w = zip::ZipWriter::new(std::fs::File::create(&tampered).unwrap());
        for i in 0..zip.len() {
            let mut e = zip.by_index(i).unwrap();
            let mut data = Vec::new();
            e.read_to_end(&mut data).unwrap();
            if e.name() == "resources/model.toml" {
                data = edit(&String::from_utf8(data).unwrap()).into_bytes();
            }
            w.start_file(e.name().to_string(), zip::write::SimpleFileOptions::default()).unwrap();
            w.write_all(&data).unwrap();
        }
        w.finish().unwrap();
        Command::new(EXE).arg("check").arg(&tampered).output().unwrap()
    };
    let check = tamper("broken.fmu", &|text| text.replace("stiffness = \"k\"", "stiffness = -1.0"));
    let err = String::from_utf8_lossy(&check.stderr);
    let at = format!(
        "error: {}/resources/model.toml:43:13: stiffness must not be negative",
        dir.path().join("broken.fmu").display()
    );
    assert!(err.starts_with(&at), "{err}");
    let tampered = tamper("tampered.fmu", &|text| format!("{text}\n# edited\n"));
    assert!(!tampered.status.success());
}

#[test]
fn build_reports_a_missing_binary_and_model_errors() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = dir.path().join("x.fmu");
    let out = Command::new(EXE)
        .arg("build")
        .arg(model())
        .arg("-o")
        .arg(&fmu)
        .env("FLEXFMU_BINARY", dir.path().join("nope.so"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("FLEXFMU_BINARY"));
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[model]\nname = \"1x\"\n").unwrap();
    let out = Command::new(EXE).arg("build").arg(&bad).arg("-o").arg(&fmu).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "model errors exit with 2");
}

/// An FMU entry that unpacks to more than `MAX_FMU_ENTRY_BYTES` is refused by `check` once that
/// many bytes are read, whatever the zip declares (a 3 GB resources/model.toml packed into
/// 3 MB took 9 GB of memory): here one byte beyond the limit, of spaces that deflate packs
/// into a few hundred kB.
#[test]
fn check_refuses_an_entry_beyond_the_size_limit() {
    use flexfmu::limits::MAX_FMU_ENTRY_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let fmu = dir.path().join("bomb.fmu");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&fmu).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    zip.start_file("modelDescription.xml", options).unwrap();
    zip.write_all(b"<fmiModelDescription/>").unwrap();
    zip.start_file("resources/model.toml", options).unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..MAX_FMU_ENTRY_BYTES >> 20 {
        zip.write_all(&spaces).unwrap();
    }
    zip.write_all(b"\n").unwrap();
    zip.finish().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_flexfmu")).arg("check").arg(&fmu).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let limit = MAX_FMU_ENTRY_BYTES >> 20;
    assert!(stderr.contains(&format!("resources/model.toml unpacks to more than {limit} MiB")), "{stderr}");
}

/// A zip archive at `path` holding `entries` (name, contents).
fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, data) in entries {
        w.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap();
}

/// `info FMU.fmu` shows the model an FMU built by flexfmu carries, as `info MODEL.toml` shows
/// it; `info` and `check` say of a file named .fmu that is no such FMU what is wrong with it,
/// naming it, exit code 1: not a zip archive (random bytes, a text file renamed), no
/// modelDescription.xml, one that is not UTF-8, no resources/model.toml. `info` had read every
/// .fmu as a model file ("model file x.fmu is not UTF-8 text", a valid FMU included).
#[test]
fn info_reads_an_fmu_and_both_commands_say_what_is_wrong_with_one_that_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let fmu = dir.path().join("ms.fmu");
    let out =
        Command::new(EXE).arg("build").arg(model()).arg("-o").arg(&fmu).arg("--binary").arg(binary()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let from_fmu = Command::new(EXE).arg("info").arg(&fmu).output().unwrap();
    assert!(from_fmu.status.success(), "{}", String::from_utf8_lossy(&from_fmu.stderr));
    let from_model = Command::new(EXE).arg("info").arg(model()).output().unwrap();
    let fmu_text = String::from_utf8_lossy(&from_fmu.stdout).into_owned();
    let (version, rest) = fmu_text.split_once('\n').unwrap();
    assert_eq!(version, "FMI 2.0 Co-Simulation FMU");
    assert_eq!(rest, String::from_utf8_lossy(&from_model.stdout), "an FMI 2.0 FMU shows what its model file does");
    // An FMI 3.0 FMU in its own words (a probe was shown the FMI 2.0 view): instantiationToken,
    // Float64 and Int32, its time variable, fmi3 functions in descriptions.
    let fmu3 = dir.path().join("ms3.fmu");
    let out = Command::new(EXE)
        .args([
            "build".as_ref(),
            model().as_os_str(),
            "-o".as_ref(),
            fmu3.as_os_str(),
            "--fmi-version".as_ref(),
            "3".as_ref(),
        ])
        .arg("--binary")
        .arg(binary())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info3 = Command::new(EXE).arg("info").arg(&fmu3).output().unwrap();
    let text = String::from_utf8_lossy(&info3.stdout);
    assert!(text.starts_with("FMI 3.0 Co-Simulation FMU\n") && text.contains("\ninstantiationToken {"), "{text}");
    let row =
        |name: &str| text.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_default().to_string();
    assert!(row("time").contains("independent") && row("time").contains("Float64"), "{text}");
    assert!(row("k").contains("Float64") && row("solver_integrator").contains("Int32"), "{text}");
    assert!(row("solver_rtol").contains("fmi3EnterInitializationMode") && !text.contains("fmi2"), "{text}");

    let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(dir.path().join("random.fmu"), &random).unwrap();
    std::fs::write(dir.path().join("notes.fmu"), std::fs::read(model()).unwrap()).unwrap();
    zip_of(&dir.path().join("bare.fmu"), &[("documentation/index.html", b"<p>no model</p>")]);
    zip_of(
        &dir.path().join("latin1.fmu"),
        &[("modelDescription.xml", b"<fmiModelDescription description=\"caf\xe9\"/>")],
    );
    zip_of(&dir.path().join("foreign.fmu"), &[("modelDescription.xml", b"<fmiModelDescription/>")]);
    let cases = [
        ("random.fmu", "random.fmu is not an FMU: it is not a zip archive"),
        ("notes.fmu", "notes.fmu is not an FMU: it is not a zip archive"),
        ("bare.fmu", "bare.fmu is not an FMU: it has no modelDescription.xml"),
        ("latin1.fmu", "latin1.fmu/modelDescription.xml is not UTF-8 text"),
        ("foreign.fmu", "foreign.fmu has no resources/model.toml: it is not an FMU built by flexfmu"),
    ];
    for (file, message) in cases {
        for command in ["info", "check"] {
            let o = Command::new(EXE).arg(command).arg(dir.path().join(file)).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{command} {file}: {stderr}");
            assert!(stderr.contains(&format!("{}/{message}", dir.path().display())), "{command} {file}: {stderr}");
        }
    }
}

/// `-o` must name a .fmu file (a usage error before anything is written: `-o x.zip` was
/// written as asked), and a disk that fills up while the FMU is written is said in the
/// system's words (a probe's `-o /dev/full` printed the zip writer's debug text and "i/o
/// error").
#[test]
fn build_refuses_an_fmu_not_named_so_and_says_when_the_disk_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("x.zip");
    let out =
        Command::new(EXE).arg("build").arg(model()).arg("-o").arg(&zip).arg("--binary").arg(binary()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("an FMU is a .fmu file") && !zip.exists(), "{stderr}");
    let full = dir.path().join("full.fmu");
    std::os::unix::fs::symlink("/dev/full", &full).unwrap();
    let out = Command::new(EXE)
        .arg("build")
        .arg(model())
        .arg("-o")
        .arg(&full)
        .arg("--binary")
        .arg(binary())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot write") && stderr.contains("No space left on device"), "{stderr}");
    assert!(!stderr.contains("ZipWriter"), "{stderr}");
}
