// Player of a `flexfmu simulate --states` file, inlined by `flexfmu animate` (src/cli/animate.rs).
// Planar models are drawn to scale in the x-y plane; spatial ones with a perspective camera that
// orbits the scene (drag: turn, wheel: zoom). URL parameters: ?t=TIME shows the frame nearest
// TIME, ?play=1 starts playing, ?width=W&height=H fixes the canvas size (pixels). The element #status reads "ok" once a frame is drawn, or the
// errors the page met; its data-points attribute holds the drawn screen positions of every body
// and beam end of the shown frame (for tests).
"use strict";

const errors = [];
function report() {
  const status = document.getElementById("status");
  status.dataset.errors = String(errors.length);
  status.textContent = errors.length ? "errors: " + errors.join("; ") : "ok";
  if (errors.length) document.title = "ERROR: " + errors.join("; ");
}
window.addEventListener("error", (e) => { errors.push(String(e.message)); report(); });
window.addEventListener("unhandledrejection", (e) => { errors.push(String(e.reason)); report(); });

const data = JSON.parse(document.getElementById("states").textContent);
const scene = data.scene;
const frames = data.frames;
const spatial = scene.dimension === 3;
const canvas = document.getElementById("view");
const ctx = canvas.getContext("2d");
const slider = document.getElementById("slider");
const playButton = document.getElementById("play");
const timeLabel = document.getElementById("time");
const COLORS = { beam: "#1f5fbf", body: "#333", contact: "#e03020", ground: "#888", trail: "#bbb" };

// Rotation matrix (columns: body axes in global coordinates) of Euler parameters e0..e3:
// R = (2 e0^2 - 1) I + 2 (e e^T + e0 [e~]) (Nikravesh 1988, eq. 6.19).
function rotation(e0, e1, e2, e3) {
  return [
    [2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
    [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
    [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1],
  ];
}

// Every point the model occupies in one frame (global coordinates, 3 components).
function framePoints(f) {
  const pts = [];
  f.bodies.forEach((b) => pts.push([b[0], b[1], spatial ? b[2] : 0]));
  f.beams.forEach((beam) => beam.curve.forEach((p) => pts.push([p[0], p[1], 0])));
  return pts;
}

// The bounding box over all frames fixes the view: the scene does not jump while playing.
const lo = [Infinity, Infinity, Infinity];
const hi = [-Infinity, -Infinity, -Infinity];
frames.forEach((f) => framePoints(f).forEach((p) => {
  for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], p[i]); hi[i] = Math.max(hi[i], p[i]); }
}));
if (spatial) for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], 0); hi[i] = Math.max(hi[i], 0); }
const centre = lo.map((l, i) => 0.5 * (l + hi[i]));
const extent = Math.max(1e-6, ...hi.map((h, i) => h - lo[i]));
const radiusMax = Math.max(0, ...scene.bodies.map((b) => b.radius || 0));
const axisLength = 0.15 * extent;

const camera = { yaw: -0.6, pitch: 0.45, distance: 3 * (extent + radiusMax) };

// Screen position (pixels) of a global point.
function project(p) {
  const w = canvas.width, h = canvas.height;
  if (!spatial) {
    const span = extent + 2 * radiusMax;
    const scale = 0.85 * Math.min(w, h) / span;
    return [w / 2 + scale * (p[0] - centre[0]), h / 2 - scale * (p[1] - centre[1]), scale];
  }
  // Camera frame: z up; yaw about z, then pitch about the camera's horizontal axis.
  const x = p[0] - centre[0], y = p[1] - centre[1], z = (p[2] || 0) - centre[2];
  const cy = Math.cos(camera.yaw), sy = Math.sin(camera.yaw);
  const cp = Math.cos(camera.pitch), sp = Math.sin(camera.pitch);
  const right = cy * x + sy * y;
  const forward = -sy * x + cy * y;
  const up = cp * z - sp * forward;
  const depth = cp * forward + sp * z;
  // Pinhole camera at `distance` from the centre: the initial distance fits the scene.
  const focal = 0.9 * Math.min(w, h);
  const scale = 3 * focal / Math.max(1e-9 * extent, camera.distance + depth);
  return [w / 2 + scale * right, h / 2 - scale * up, scale];
}

function line(a, b, color, width) {
  const p = project(a), q = project(b);
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.beginPath();
  ctx.moveTo(p[0], p[1]);
  ctx.lineTo(q[0], q[1]);
  ctx.stroke();
}

function dot(p, radius, color) {
  const s = project(p);
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(s[0], s[1], radius, 0, 2 * Math.PI);
  ctx.fill();
}

// Global position of a named body or beam node in frame f (for contacts), or null.
function positionOf(name, f) {
  const i = scene.bodies.findIndex((b) => b.name === name);
  if (i >= 0) { const b = f.bodies[i]; return [b[0], b[1], spatial ? b[2] : 0]; }
  for (let k = 0; k < scene.beams.length; k++) {
    const beam = scene.beams[k], curve = f.beams[k].curve;
    const j = beam.nodes.indexOf(name);
    if (j >= 0 && beam.formulation !== "floating_frame") return [curve[j][0], curve[j][1], 0];
    if (name === beam.name + ".start") return [curve[0][0], curve[0][1], 0];
    if (name === beam.name + ".end") { const p = curve[curve.length - 1]; return [p[0], p[1], 0]; }
  }
  return null;
}

function drawGround() {
  if (spatial) {
    // Global axes at the origin.
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]].forEach((u, i) =>
      line([0, 0, 0], u.map((c) => c * axisLength), ["#d88", "#8c8", "#88d"][i], 1));
    return;
  }
  scene.ground_planes.forEach((g) => {
    const t = [-g.normal[1], g.normal[0]], L = 2 * extent;
    const a = [g.point[0] - L * t[0], g.point[1] - L * t[1], 0];
    const b = [g.point[0] + L * t[0], g.point[1] + L * t[1], 0];
    line(a, b, COLORS.ground, 2);
  });
}

function drawBodies(f) {
  scene.bodies.forEach((body, i) => {
    const c = f.bodies[i];
    const p = [c[0], c[1], spatial ? c[2] : 0];
    if (body.radius) {
      const s = project(p);
      ctx.strokeStyle = COLORS.body;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(s[0], s[1], body.radius * s[2], 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (body.kind === "rigid_body") {
      const ct = Math.cos(c[2]), st = Math.sin(c[2]);
      line(p, [p[0] + axisLength * ct, p[1] + axisLength * st, 0], "#c33", 2);
      line(p, [p[0] - axisLength * st, p[1] + axisLength * ct, 0], "#3a3", 2);
    } else if (body.kind === "spatial_body") {
      const R = rotation(c[3], c[4], c[5], c[6]);
      line([0, 0, 0], p, COLORS.trail, 1);
      for (let k = 0; k < 3; k++) {
        const tip = [0, 1, 2].map((r) => p[r] + axisLength * R[r][k]);
        line(p, tip, ["#c33", "#3a3", "#33c"][k], 2.5);
      }
    }
    dot(p, 4, COLORS.body);
  });
}

function drawBeams(f) {
  scene.beams.forEach((beam, k) => {
    const curve = f.beams[k].curve;
    ctx.strokeStyle = COLORS.beam;
    ctx.lineWidth = 4;
    ctx.beginPath();
    curve.forEach((q, j) => {
      const s = project([q[0], q[1], 0]);
      if (j === 0) ctx.moveTo(s[0], s[1]); else ctx.lineTo(s[0], s[1]);
    });
    ctx.stroke();
    if (beam.formulation !== "floating_frame") curve.forEach((q) => dot([q[0], q[1], 0], 2.5, "#0a2f6f"));
  });
}

// Contacts flash while closed: a red ring around the touching body. Impacts can last a
// millisecond, shorter than a drawn frame while playing, so a contact closed in any frame
// passed since the last drawing flashes too and fades over FLASH_MS of wall time.
const FLASH_MS = 400;
const flashedAt = scene.contacts.map(() => -Infinity);
function drawContacts(f, now) {
  scene.contacts.forEach((c, i) => {
    const fade = f.contacts[i] ? 1 : 1 - (now - flashedAt[i]) / FLASH_MS;
    if (fade <= 0) return;
    const p = positionOf(c.body2, f) || positionOf(c.body1, f);
    if (!p) return;
    const body = scene.bodies.find((b) => b.name === c.body2);
    const s = project(p);
    const r = Math.max(10, (body && body.radius ? body.radius * s[2] : 0) + 6);
    ctx.strokeStyle = COLORS.contact;
    ctx.globalAlpha = fade;
    ctx.lineWidth = 4;
    ctx.beginPath();
    ctx.arc(s[0], s[1], r, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.globalAlpha = 1;
  });
}

const params = new URLSearchParams(window.location.search);
let current = 0;
// Draw frame k; `passed` are the frames played through since the last drawing (their
// contacts flash).
function draw(k, passed = []) {
  const now = performance.now();
  passed.forEach((j) => frames[j].contacts.forEach((closed, i) => { if (closed) flashedAt[i] = now; }));
  current = k;
  const f = frames[k];
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  drawGround();
  drawBeams(f);
  drawBodies(f);
  drawContacts(f, now);
  slider.value = String(k);
  timeLabel.textContent = "t = " + f.t.toFixed(4) + " s";
  const points = {};
  scene.bodies.forEach((b, i) => {
    const c = f.bodies[i];
    points[b.name] = project([c[0], c[1], spatial ? c[2] : 0]).slice(0, 2);
  });
  scene.beams.forEach((b, i) => {
    const curve = f.beams[i].curve, end = curve[curve.length - 1];
    points[b.name + ".end"] = project([end[0], end[1], 0]).slice(0, 2);
  });
  document.getElementById("status").dataset.points = JSON.stringify(points);
  report();
}

// The canvas fills the window above the controls, or has the size ?width=W&height=H asks for
// (fixed sizes make screenshots comparable whatever window the browser has).
function resize() {
  canvas.width = Number(params.get("width")) || window.innerWidth;
  canvas.height = Number(params.get("height")) || window.innerHeight - document.getElementById("controls").offsetHeight;
  draw(current);
}

function nearest(t) {
  let best = 0;
  frames.forEach((f, k) => { if (Math.abs(f.t - t) < Math.abs(frames[best].t - t)) best = k; });
  return best;
}

// Playing follows the wall clock: one second of animation is one second of model time.
let playing = false, playStart = 0, playFrom = 0;
function tick(now) {
  if (!playing) return;
  const t = playFrom + (now - playStart) / 1000;
  const tEnd = frames[frames.length - 1].t;
  if (t > tEnd) { playFrom = frames[0].t; playStart = now; draw(0); }
  else {
    const k = nearest(t);
    const passed = [];
    for (let j = current + 1; j <= k; j++) passed.push(j);
    draw(k, passed);
  }
  requestAnimationFrame(tick);
}
function setPlaying(on) {
  playing = on;
  playButton.textContent = on ? "pause" : "play";
  if (on) { playStart = performance.now(); playFrom = frames[current].t; requestAnimationFrame(tick); }
}

slider.max = String(frames.length - 1);
slider.addEventListener("input", () => { setPlaying(false); draw(Number(slider.value)); });
playButton.addEventListener("click", () => setPlaying(!playing));
window.addEventListener("resize", resize);
if (spatial) {
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = [e.clientX, e.clientY]; });
  window.addEventListener("mouseup", () => { drag = null; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    camera.yaw -= 0.01 * (e.clientX - drag[0]);
    camera.pitch = Math.max(-1.5, Math.min(1.5, camera.pitch + 0.01 * (e.clientY - drag[1])));
    drag = [e.clientX, e.clientY];
    draw(current);
  });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    camera.distance *= Math.exp(0.001 * e.deltaY);
    draw(current);
  }, { passive: false });
}

document.title = data.model + " - flexfmu animate";
current = params.has("t") ? nearest(Number(params.get("t"))) : 0;
resize();
if (params.get("play") === "1") setPlaying(true);
