//! `flexfmu animate` in headless Chromium (Debian's `chromium`; scripts/setup installs it): for
//! a planar model (the corotational pendulum) and a spatial one (the heavy top) the page loads
//! without errors, draws its frame at `?t=0` and `?t=0.5`, and the screenshots differ where the
//! mechanism moved: the drawn tip (body) is at its place in its own screenshot and not in the
//! other. Without a runnable `chromium` the tests fail and say so.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::cli::{EXE, simulate_with_states};
const WIDTH: u32 = 800;
const HEIGHT: u32 = 600;

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(format!("{name}.toml"))
}

fn require_chromium() {
    let ok = Command::new("chromium").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "`chromium --version` does not run: these tests need Debian's chromium package (scripts/setup installs it)"
    );
}

/// Run headless Chromium on `url` with `extra` arguments, in its own profile directory (tests
/// run in parallel): (stdout, stderr).
fn chromium(dir: &Path, url: &str, extra: &[String]) -> (String, String) {
    let profile = tempfile::tempdir_in(dir).unwrap();
    let o = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--force-device-scale-factor=1", "--hide-scrollbars"])
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--enable-logging=stderr", "--v=0"])
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(o.status.success(), "chromium failed on {url}: {err}");
    (out, err)
}

/// What the page reports at `?t=time`: the screen position of `element` and the screenshot.
struct View {
    point: [f64; 2],
    pixels: Vec<[u8; 3]>,
}

fn view(dir: &Path, html: &Path, time: &str, element: &str) -> View {
    // A fixed canvas: Chromium's viewport is not the same with --dump-dom as with --screenshot.
    let url = format!("file://{}?t={time}&width={WIDTH}&height={}", html.display(), HEIGHT - 60);
    let (dom, log) = chromium(dir, &url, &["--virtual-time-budget=3000".into(), "--dump-dom".into()]);
    // Console errors of the page (Chromium logs them as "CONSOLE" lines) and the page's own
    // error handler (#status) must both be silent.
    for line in log.lines() {
        assert!(!(line.contains("CONSOLE") && line.contains("ERROR")), "console error at t = {time}: {line}");
        assert!(!line.contains("Uncaught"), "uncaught exception at t = {time}: {line}");
    }
    let status = dom.split("<span id=\"status\"").nth(1).expect("#status in the DOM");
    let status = &status[..status.find("</span>").unwrap()];
    assert!(status.contains("data-errors=\"0\"") && status.ends_with(">ok"), "page status at t = {time}: {status}");
    let points = status.split("data-points=\"").nth(1).unwrap();
    let points: serde_json::Value = serde_json::from_str(&points[..points.find('"').unwrap()].replace("&quot;", "\""))
        .expect("data-points is JSON");
    let p = &points[element];
    let point = [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()];

    let png = dir.join(format!("{}_{time}.png", html.file_stem().unwrap().to_string_lossy()));
    chromium(dir, &url, &[format!("--screenshot={}", png.display())]);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (WIDTH, HEIGHT), "screenshot size");
    let bpp = info.line_size / info.width as usize;
    let pixels = buf[..info.buffer_size()].chunks(bpp).map(|c| [c[0], c[1], c[2]]).collect();
    View { point, pixels }
}

/// Whether something is drawn (a pixel darker than the white background) within 3 px of `p`.
fn drawn_near(v: &View, p: [f64; 2]) -> bool {
    let (x0, y0) = (p[0].round() as i64, p[1].round() as i64);
    (-3..=3).any(|dy| {
        (-3..=3).any(|dx| {
            let (x, y) = (x0 + dx, y0 + dy);
            (0..WIDTH as i64).contains(&x)
                && (0..HEIGHT as i64).contains(&y)
                && v.pixels[(y * WIDTH as i64 + x) as usize].iter().any(|&c| c < 160)
        })
    })
}

/// Simulate `name` for 0.5 s with --states, animate it and compare the views at 0 and 0.5 s.
fn check(name: &str, element: &str) -> (View, View) {
    let dir = tempfile::tempdir().unwrap();
    let html = animated(dir.path(), name);
    let (start, end) = (view(dir.path(), &html, "0", element), view(dir.path(), &html, "0.5", element));
    let moved = (end.point[0] - start.point[0]).hypot(end.point[1] - start.point[1]);
    assert!(moved > 20.0, "{element} moved {moved} px on screen");
    assert!(drawn_near(&start, start.point), "{element} drawn at t = 0 at {:?}", start.point);
    assert!(drawn_near(&end, end.point), "{element} drawn at t = 0.5 at {:?}", end.point);
    assert!(!drawn_near(&start, end.point), "at t = 0 nothing is where {element} is at t = 0.5");
    assert!(!drawn_near(&end, start.point), "at t = 0.5 nothing is where {element} was at t = 0");
    (start, end)
}

/// `name` simulated for 0.5 s with --states and animated into `dir/<name>.html`.
fn animated(dir: &Path, name: &str) -> PathBuf {
    require_chromium();
    let (csv, json, html) = (dir.join("out.csv"), dir.join("s.json"), dir.join(format!("{name}.html")));
    simulate_with_states(&model(name), &csv, &json, "0.5");
    let o = Command::new(EXE)
        .args(["animate".as_ref(), json.as_os_str(), "-o".as_ref(), html.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("http://") && !page.contains("https://"), "the page loads nothing from the network");
    html
}

/// The dropped ball touches the floor at 0.3193 s (free fall from 0.5 m above contact) and
/// bounces off within 2 ms: the contact ring (red, #e03020) is drawn at t = 0.32 s, around the
/// ball, and not at t = 0.25 s in free fall.
#[test]
fn contact_flashes() {
    let dir = tempfile::tempdir().unwrap();
    let html = animated(dir.path(), "ball_drop");
    let red = |v: &View| -> Vec<usize> {
        (0..v.pixels.len()).filter(|&i| matches!(v.pixels[i], [r, g, b] if r > 190 && g < 110 && b < 100)).collect()
    };
    let falling = view(dir.path(), &html, "0.25", "ball");
    assert!(red(&falling).is_empty(), "no contact ring in free fall");
    let touching = view(dir.path(), &html, "0.32", "ball");
    let ring = red(&touching);
    assert!(ring.len() > 50, "contact ring drawn: {} red pixels", ring.len());
    let w = WIDTH as usize;
    for i in ring {
        let (x, y) = ((i % w) as f64, (i / w) as f64);
        let d = (x - touching.point[0]).hypot(y - touching.point[1]);
        assert!(d < 80.0, "red pixel ({x}, {y}) {d} px from the ball at {:?}", touching.point);
    }
}

/// The pendulum falls from horizontal: at 0.5 s its tip is below the pin (screen y grows down).
#[test]
fn planar_pendulum_falls_on_screen() {
    let (start, end) = check("pendulum_corotational", "arm.end");
    assert!(end.point[1] > start.point[1] + 100.0, "tip {:?} -> {:?}", start.point, end.point);
}

/// The heavy top precesses by 0.5 rad in 0.5 s: its centre of mass moves on screen.
#[test]
fn spatial_top_precesses_on_screen() {
    check("heavy_top", "top");
}

/// A states file that is not one is refused with its reason.
#[test]
fn not_a_states_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"format\": \"other\"}").unwrap();
    let o = Command::new(EXE)
        .args(["animate".as_ref(), bad.as_os_str(), "-o".as_ref(), dir.path().join("v.html").as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a states file"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A states file whose frames do not fit its scene is refused before a page is written (a
/// probe's edited files animated with null positions or a script error): a frame short of a
/// body, a dimension of 7, a negative radius. The file `simulate --states` writes animates.
#[test]
fn a_states_file_whose_frames_do_not_fit_its_scene_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, good) =
        simulate_with_states(&model("ball_drop"), &dir.path().join("s.csv"), &dir.path().join("s.json"), "0.05");
    let animate = |value: &serde_json::Value| {
        let file = dir.path().join("edited.json");
        std::fs::write(&file, value.to_string()).unwrap();
        let o = Command::new(EXE)
            .args(["animate".as_ref(), file.as_os_str(), "-o".as_ref(), dir.path().join("v.html").as_os_str()])
            .output()
            .unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    assert_eq!(animate(&good).0, Some(0));
    let mut short = good.clone();
    short["frames"][1]["bodies"].as_array_mut().unwrap().pop();
    let mut dimension = good.clone();
    dimension["scene"]["dimension"] = 7.into();
    let mut radius = good.clone();
    radius["scene"]["bodies"][0]["radius"] = (-1.0).into();
    // A time going back and a ground plane without a normal (a later probe's edits).
    let mut back = good.clone();
    back["frames"][1]["t"] = (-1.0).into();
    let mut plane = good.clone();
    plane["scene"]["ground_planes"][0]["normal"] = serde_json::json!([0.0, 0.0]);
    for (edited, reason) in [
        (short, "frame 1: its bodies do not fit"),
        (dimension, "dimension must be 2 or 3, got 7"),
        (radius, "radius is negative"),
        (back, "frame 1: its time -1 is before the frame above's 0"),
        (plane, "a ground plane's normal is zero"),
    ] {
        let (code, stderr) = animate(&edited);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains(reason), "{reason}: {stderr}");
    }
}

/// The checks above can fail: a page whose frames lack their data reports the exception in
/// #status and the title, and Chromium logs it as an uncaught console error.
#[test]
fn a_page_error_is_caught() {
    require_chromium();
    let dir = tempfile::tempdir().unwrap();
    let (csv, json, html) = (dir.path().join("o.csv"), dir.path().join("s.json"), dir.path().join("v.html"));
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), model("pendulum").as_os_str(), "--stop-time".as_ref(), "0.1".as_ref()])
        .args(["--states".as_ref(), json.as_os_str(), "-o".as_ref(), csv.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(EXE)
        .args(["animate".as_ref(), json.as_os_str(), "-o".as_ref(), html.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&html).unwrap().replacen("\"frames\":[", "\"frames\":[{\"t\":0},", 1);
    std::fs::write(&html, page).unwrap();
    let url = format!("file://{}", html.display());
    let (dom, log) = chromium(dir.path(), &url, &["--virtual-time-budget=3000".into(), "--dump-dom".into()]);
    assert!(dom.contains("data-errors=\"1\"") && dom.contains("<title>ERROR: "), "{dom}");
    assert!(log.lines().any(|l| l.contains("CONSOLE") && l.contains("Uncaught")), "{log}");
}

/// A model is simulated on the spot (its frames are the output times: 0.3 s at the model's
/// 0.01 s gives 31); a states file given with a model must be that model's.
#[test]
fn a_model_is_simulated_and_states_must_match_their_model() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("v.html");
    let m = model("pendulum_corotational");
    let o = Command::new(EXE)
        .args(["animate".as_ref(), m.as_os_str(), "--stop-time".as_ref(), "0.3".as_ref(), "-o".as_ref()])
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("31 frames"), "{}", String::from_utf8_lossy(&o.stdout));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<script id=\"states\" type=\"application/json\">{\"model\":\"pendulum_corotational\""));

    let (csv, json) = (dir.path().join("o.csv"), dir.path().join("s.json"));
    let o = Command::new(EXE)
        .args(["simulate".as_ref(), model("pendulum").as_os_str(), "--stop-time".as_ref(), "0.05".as_ref()])
        .args(["--states".as_ref(), json.as_os_str(), "-o".as_ref(), csv.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(EXE)
        .args(["animate".as_ref(), m.as_os_str(), json.as_os_str(), "-o".as_ref(), html.as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("holds states of model 'pendulum'"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Ctrl-C during `animate MODEL.toml` removes the scratch directory of the states it simulates
/// however it comes: once while the model is still loading (that ended the process at once and
/// left the directory behind), or twice (the second ends the process at once). The command
/// exits with 130, writes no page and names no file of the removed directory (it had said
/// "<scratch>/outputs.csv holds the results"). The model is large enough (60,000 point masses)
/// that its loading outlasts the test's reaction to the directory's appearance.
#[cfg(unix)]
#[test]
fn an_interrupted_animate_leaves_no_scratch_directory() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let mut text =
        String::from("[model]\nname = \"many\"\n\n[solver]\nstep = 1e-3\nstop_time = 10.0\noutput_interval = 1e-3\n");
    for i in 0..60_000 {
        text += &format!("[[point_masses]]\nname = \"p{i}\"\nmass = 1.0\nposition = [{i}.0, 0.0]\n");
    }
    text += "[[outputs]]\nname = \"x\"\nquantity = \"x\"\nbody = \"p0\"\n";
    let model = dir.path().join("many.toml");
    std::fs::write(&model, text).unwrap();
    for signals in [1, 2] {
        let temp = tempfile::tempdir_in(dir.path()).unwrap();
        let page = dir.path().join("view.html");
        let child = Command::new(EXE)
            .arg("animate")
            .arg(&model)
            .arg("-o")
            .arg(&page)
            .env("TMPDIR", temp.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // As soon as the scratch directory is made.
        let start = Instant::now();
        while std::fs::read_dir(temp.path()).unwrap().next().is_none() {
            assert!(start.elapsed().as_secs() < 60, "no scratch directory made");
            std::thread::sleep(Duration::from_micros(200));
        }
        for _ in 0..signals {
            // SAFETY: signalling a child process this test started.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signals} Ctrl-C: {stderr}");
        let left: Vec<_> = std::fs::read_dir(temp.path()).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(left.is_empty(), "{signals} Ctrl-C left {left:?}");
        assert!(!page.exists(), "{signals} Ctrl-C wrote a page");
        assert!(!stderr.contains("flexfmu-animate"), "{signals} Ctrl-C: {stderr}");
        if signals == 1 {
            assert!(stderr.contains("interrupted at t = ") && stderr.contains("no page written"), "{stderr}");
        }
    }
}
