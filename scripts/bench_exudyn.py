#!/usr/bin/env python3
"""flexfmu against Exudyn (a C++ multibody code with a Python front end) on benchmark 3, the rigid
crank-slider (models/crank_slider.toml): the same model built in Exudyn, both codes run over a
range of steps, errors against one tight reference, wall time compared at equal accuracy.

    scripts/bench_exudyn.py [--flexfmu target/release/flexfmu] [--update-readme]

Needs `pip install exudyn numpy` in the Python that runs it (scripts/bench_exudyn.py installs
them into .venv when run as `.venv/bin/python scripts/bench_exudyn.py` and they are missing).
The error is the largest crank-angle difference over the 0.01 s samples of 2 s against
flexfmu TTBIF at h = 1e-5 s with Newton tolerance 1e-12; Exudyn's finest run is checked
against the same reference first (the two codes must agree on the physics). Wall time is the
solver call only (Exudyn: exu.SolveDynamic; flexfmu: `simulate --stats-json` wall_time_s,
which includes writing the CSV). Both use a relative Newton tolerance of 1e-10.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "models", "crank_slider.toml")
T_END = 2.0
SAMPLE = 0.01

# Benchmark 3 (shared/benchmarks.md), as in models/crank_slider.toml.
R, L, M_CRANK, M_ROD, M_SLIDER = 0.15, 0.30, 1.0, 1.0, 1.0
K, C, X_FREE, G = 200.0, 2.0, 0.30, 9.81
THETA0, OMEGA0 = math.pi / 3, 2 * math.pi


def exudyn_run(h, rho_inf=0.5, index2=False):
    """Crank angle at the 0.01 s samples and the wall time of one Exudyn run."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, CoordinateSpringDamper, LoadMassProportional, MarkerBodyMass,
                                      MarkerBodyPosition, MarkerNodeCoordinate, MassPoint2D, NodePoint2D, NodePointGround,
                                      NodeRigidBody2D, ObjectGround, ObjectRigidBody2D, RevoluteJoint2D, SensorNode)

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    s, c = math.sin(THETA0), math.cos(THETA0)
    root = math.sqrt(L * L - (R * s) ** 2)
    xs = R * c + root
    phi = math.atan2(-R * s, root)
    # Consistent velocities (the flexfmu assembler solves them from the constraints).
    va = (-R * s * OMEGA0, R * c * OMEGA0)
    phi_dot = -R * c * OMEGA0 / (L * math.cos(phi))
    vb = (va[0] - L * math.sin(phi) * phi_dot, 0.0)
    ground = mbs.AddObject(ObjectGround())
    n_crank = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[R / 2 * c, R / 2 * s, THETA0], initialVelocities=[va[0] / 2, va[1] / 2, OMEGA0]))
    crank = mbs.AddObject(ObjectRigidBody2D(nodeNumber=n_crank, mass=M_CRANK, inertia=M_CRANK * R * R / 12))
    n_rod = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[(R * c + xs) / 2, R * s / 2, phi], initialVelocities=[(va[0] + vb[0]) / 2, va[1] / 2, phi_dot]))
    rod = mbs.AddObject(ObjectRigidBody2D(nodeNumber=n_rod, mass=M_ROD, inertia=M_ROD * L * L / 12))
    n_slider = mbs.AddNode(NodePoint2D(referenceCoordinates=[xs, 0.0], initialVelocities=[vb[0], 0.0]))
    slider = mbs.AddObject(MassPoint2D(nodeNumber=n_slider, mass=M_SLIDER))
    at = lambda body, x: mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=[x, 0.0, 0.0]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(ground, 0.0), at(crank, -R / 2)]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(crank, R / 2), at(rod, -L / 2)]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(rod, L / 2), at(slider, 0.0)]))
    n_ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    m_ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n_ground, coordinate=0))
    m_sx = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n_slider, coordinate=0))
    m_sy = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=n_slider, coordinate=1))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[m_ground, m_sy]))
    # Node coordinates are displacements from the reference: zero force at x = X_FREE.
    mbs.AddObject(CoordinateSpringDamper(markerNumbers=[m_ground, m_sx], stiffness=K, damping=C, offset=X_FREE - xs))
    for body in (crank, rod, slider):
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)), loadVector=[0.0, -G, 0.0]))
    # Rotation of a 2D node: the rotation vector (0, 0, angle).
    sensor = mbs.AddSensor(SensorNode(nodeNumber=n_crank, storeInternal=True, outputVariableType=exu.OutputVariableType.Rotation))
    mbs.Assemble()

    data, wall = solve(exu, mbs, sensor, h, T_END, rho_inf, index2)
    return {round(t / SAMPLE): v[-1] for t, v in data}, wall


def solve(exu, mbs, sensor, h, t_end, rho_inf, index2=False):
    """exu.SolveDynamic with the settings of the comparison: the sensor rows (t, values) at the
    0.01 s samples and the wall time."""
    st = exu.SimulationSettings()
    ti = st.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = round(t_end / h)
    ti.verboseMode = 0
    ti.newton.relativeTolerance = 1e-10
    ti.newton.absoluteTolerance = 1e-12
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.useIndex2Constraints = index2
    ti.generalizedAlpha.computeInitialAccelerations = True
    st.solution.file.write = False
    st.solution.sensors.writePeriod = SAMPLE
    st.show.statistics = False
    st.show.computationTime = False
    t0 = time.perf_counter()
    exu.SolveDynamic(mbs, st)
    wall = time.perf_counter() - t0
    return [(row[0], row[1:]) for row in mbs.GetSensorStoredData(sensor) if abs(row[0] / SAMPLE - round(row[0] / SAMPLE)) < 1e-6], wall


def flexfmu_run(exe, h, method, tolerance=1e-10):
    with tempfile.TemporaryDirectory() as d:
        out, stats = os.path.join(d, "out.csv"), os.path.join(d, "stats.json")
        subprocess.run([exe, "simulate", MODEL, "-o", out, "--stop-time", str(T_END), "--step", repr(h), "--integrator", method,
                        "--tolerance", repr(tolerance), "--output-interval", repr(SAMPLE), "--stats-json", stats],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            rows = list(csv.DictReader(f))
        with open(stats) as f:
            wall = json.load(f)["wall_time_s"]
    return {round(float(r["time"]) / SAMPLE): float(r["crank_angle"]) for r in rows}, wall


def error(run, ref):
    common = set(run) & set(ref)
    assert len(common) > 0.9 * len(ref), "samples missing"
    return max(abs(run[k] - ref[k]) for k in common)


def wall_at(rows, target):
    """Wall time at error `target` by log-log interpolation between the bracketing runs."""
    pts = sorted((e, w) for e, w in rows if e > 0)
    for (e1, w1), (e2, w2) in zip(pts, pts[1:]):
        if e1 <= target <= e2:
            f = math.log(target / e1) / math.log(e2 / e1)
            return math.exp(math.log(w1) + f * (math.log(w2) - math.log(w1)))
    return None


def replace_readme_block(tag, text):
    """Replace what stands between `<!-- TAG begin -->` and `<!-- TAG end -->` in README.md."""
    path = os.path.join(ROOT, "README.md")
    with open(path) as f:
        readme = f.read()
    begin, end = f"<!-- {tag} begin -->", f"<!-- {tag} end -->"
    i, j = readme.index(begin) + len(begin), readme.index(end)
    with open(path, "w") as f:
        f.write(readme[:i] + "\n" + text + "\n" + readme[j:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flexfmu", default=os.path.join(ROOT, "target", "release", "flexfmu"))
    ap.add_argument("--update-readme", action="store_true")
    args = ap.parse_args()
    try:
        import exudyn  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "exudyn", "numpy"], check=True)
    import exudyn

    ref, _ = flexfmu_run(args.flexfmu, 1e-5, "ttbif", tolerance=1e-12)
    check, _ = exudyn_run(1e-5)
    agreement = error(check, ref)
    print(f"Exudyn {exudyn.__version__} generalized-alpha h = 1e-5 vs flexfmu TTBIF h = 1e-5: max crank-angle difference {agreement:.2e} rad")
    if agreement > 1e-6:
        sys.exit("the two models disagree: fix the Exudyn model before comparing costs")

    steps = [5e-3 / 2**k for k in range(6)]  # each divides the 0.01 s sampling
    runs = {
        "flexfmu TTBIF (rho_inf 0.5)": [flexfmu_run(args.flexfmu, h, "ttbif") for h in steps],
        "flexfmu generalized-alpha (0.5)": [flexfmu_run(args.flexfmu, h, "generalized-alpha") for h in steps],
        "Exudyn generalized-alpha (0.5, index 3)": [exudyn_run(h) for h in steps],
    }
    table = ["| code, method | " + " | ".join(f"h = {h:g}" for h in steps) + " |", "|---|" + "---|" * len(steps)]
    costs = {}
    for name, results in runs.items():
        rows = [(error(r, ref), w) for r, w in results]
        costs[name] = rows
        table.append(f"| {name} | " + " | ".join(f"{e:.1e} rad, {w * 1e3:.1f} ms" for e, w in rows) + " |")
    lines = table + [""]
    base = "Exudyn generalized-alpha (0.5, index 3)"
    for target in (1e-3, 1e-4, 1e-5):
        ref_wall = wall_at(costs[base], target)
        parts = []
        for name in runs:
            w = wall_at(costs[name], target)
            if w is not None and ref_wall is not None:
                parts.append(f"{name} {ref_wall / w:.1f}x")
        if parts:
            lines.append(f"- speed at crank-angle error {target:g} rad, relative to Exudyn (higher is faster): " + ", ".join(parts))
    lines.append(f"- cross-check: Exudyn at h = 1e-5 agrees with the flexfmu reference to {agreement:.1e} rad")
    text = "\n".join(lines)
    print(text)
    if args.update_readme:
        replace_readme_block("bench_exudyn", text)


if __name__ == "__main__":
    main()
