#!/usr/bin/env python3
"""flexfmu against Exudyn (C++ core, single thread) on the flexible pendulum of Ji et al. (2025),
section 3.1 (models/pendulum_corotational.toml: 1.2 m Timoshenko beam, E = 10 MPa, pinned,
released horizontal under gravity, 1 s).

    .venv/bin/python scripts/bench_exudyn_beams.py [--flexfmu target/release/flexfmu] [--update-readme] [--quick]

Exudyn models the same beam with its geometrically exact (Simo-Reissner) 2D beam element
(ObjectBeamGeometricallyExact2D: EA, EI, shear stiffness k G A with flexfmu's shear factor
10(1+nu)/(12+11 nu), rho A, rho I) and generalized-alpha (index 3). The two element
formulations differ (corotational Timoshenko vs geometrically exact with linear interpolation),
so the comparison is at equal accuracy: both codes converge to the same continuum solution,
checked first (both codes' refined meshes approach the reference), and each code is run over a
grid of meshes and steps; the error of a run is the largest tip distance over the 0.01 s
samples against the reference (flexfmu, 256 elements, TTBIF at 2e-5 s). For each target error
the cheapest run of each code that reaches it is compared (wall time of the solver call:
Exudyn's exu.SolveDynamic, flexfmu's `--stats-json` wall_time_s, which includes writing the
CSV). Both at their default Newton tolerances (Exudyn 1e-8 relative; with 1e-10 its Newton
iteration stalls at round-off on the 128-element mesh and the solver stops).

Then the pairing of the paper (4 elements; flexfmu TTBIF at 3e-4 s, whole process including
start-up, against Exudyn's solve at 1e-4 s) and the cost per step and per coordinate for 4 to
1000 elements over 0.1 s (flexfmu TTBIF 3e-4 s, Exudyn generalized-alpha 1e-4 s; the ratio
per simulated second is at that pairing).

With --cantilever, the same equal-accuracy comparison on the forced cantilever of
models/cantilever_corotational.toml (10 m steel Timoshenko beam 0.25 x 0.5 m, clamped, tip force
P0 sin(w t) with P0 = 1e7 N, w = 50 rad/s, 1 s; tip deflections of 1.4 m): in Exudyn the same
beam element clamped by three coordinate constraints, the force a LoadForceVector whose
magnitude is a symbolic user function (evaluated in C++, no Python callback); reference flexfmu,
160 elements, TTBIF at 5e-5 s; README block `bench_exudyn_cantilever`.

All numbers of one invocation come from the same run on the same machine; ratios, not absolute
times, are what the README reports.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_exudyn import replace_readme_block  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "models", "pendulum_corotational.toml")
CANTILEVER = os.path.join(ROOT, "models", "cantilever_corotational.toml")
SAMPLE = 0.01

# Ji et al. (2025) sec. 3.1, as in models/pendulum_corotational.toml.
L, B, H, E, NU, RHO, G = 1.2, 0.015, 0.01, 1.0e7, 0.3, 5540.0, 9.81

# The forced cantilever, as in models/cantilever_corotational.toml.
C_L, C_B, C_H, C_E, C_NU, C_RHO, C_P0, C_W = 10.0, 0.25, 0.5, 210.0e9, 0.3, 7850.0, 1.0e7, 50.0


def add_beam_chain(mbs, length, elements, width, height, young, nu, rho):
    """A straight chain of 2D geometrically exact beams along x from the origin (rectangular
    section width x height, Timoshenko shear factor 10(1+nu)/(12+11nu)): its nodes and beams."""
    from exudyn.itemInterface import NodeRigidBody2D, ObjectBeamGeometricallyExact2D

    shear_factor = 10 * (1 + nu) / (12 + 11 * nu)
    area, inertia = width * height, width * height**3 / 12
    shear_modulus = young / (2 * (1 + nu))
    le = length / elements
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[i * le, 0.0, 0.0])) for i in range(elements + 1)]
    beams = [mbs.AddObject(ObjectBeamGeometricallyExact2D(
        nodeNumbers=[nodes[i], nodes[i + 1]], length=le, massPerLength=rho * area, crossSectionInertia=rho * inertia,
        bendingStiffness=young * inertia, axialStiffness=young * area, shearStiffness=shear_factor * shear_modulus * area))
        for i in range(elements)]
    return nodes, beams


def hold_first_node(mbs, nodes, coordinates):
    """Coordinate constraints holding the first node's `coordinates` (0 x, 1 y, 2 rotation)."""
    from exudyn.itemInterface import CoordinateConstraint, MarkerNodeCoordinate, NodePointGround

    ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0])),
                                                coordinate=0))
    for c in coordinates:
        mbs.AddObject(CoordinateConstraint(markerNumbers=[ground, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=c))]))


def solve_dynamic(exu, mbs, t_end, h, rho_inf, write_period, sparse):
    """Exudyn's generalized-alpha (index 3, consistent initial accelerations) over t_end at step
    h, sensors stored every `write_period`, dense or sparse (Eigen) linear solver: the wall time
    of exu.SolveDynamic."""
    st = exu.SimulationSettings()
    ti = st.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = round(t_end / h)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.useIndex2Constraints = False
    ti.generalizedAlpha.computeInitialAccelerations = True
    st.solution.file.write = False
    st.solution.sensors.writePeriod = write_period
    st.show.statistics = False
    st.show.computationTime = False
    if sparse:
        st.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    t0 = time.perf_counter()
    exu.SolveDynamic(mbs, st)
    return time.perf_counter() - t0


def exudyn_cantilever_run(elements, h, t_end=1.0, rho_inf=0.0):
    """Tip position at the 0.01 s samples and the wall time of exu.SolveDynamic for the forced
    cantilever (dense solver up to 16 elements, sparse above, as for the pendulum)."""
    import exudyn as exu
    import numpy as np
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    from exudyn.itemInterface import LoadForceVector, MarkerNodePosition, SensorNode

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    nodes, _ = add_beam_chain(mbs, C_L, elements, C_B, C_H, C_E, C_NU, C_RHO)
    hold_first_node(mbs, nodes, (0, 1, 2))  # the clamp: x, y and rotation of the first node held
    esym = exu.symbolic

    def tip_force(mbs, t, load_vector):
        return [0.0, C_P0 * esym.sin(C_W * t), 0.0]

    load = mbs.AddLoad(LoadForceVector(markerNumber=mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1])),
                                       loadVector=[0.0, 0.0, 0.0]))
    symbolic = CreateSymbolicUserFunction(mbs, tip_force, "loadVectorUserFunction", load)  # kept alive to the solve
    mbs.SetLoadParameter(load, "loadVectorUserFunction", symbolic)
    sensor = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True, outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    # Every step stored (in memory: a negligible cost) and the tip interpolated linearly to the
    # samples: where its Newton iteration fails (fine meshes), Exudyn's automatic step size
    # (on by default) shrinks the step, and its steps leave the 0.01 s grid.
    wall = solve_dynamic(exu, mbs, t_end, h, rho_inf, h, elements > 16)
    rows = mbs.GetSensorStoredData(sensor)
    times = [k * SAMPLE for k in range(round(rows[-1][0] / SAMPLE) + 1)]
    x, y = np.interp(times, rows[:, 0], rows[:, 1]), np.interp(times, rows[:, 0], rows[:, 2])
    tip = {k: (float(x[k]), float(y[k])) for k in range(len(times))}
    return tip, wall


def exudyn_run(elements, h, t_end=1.0, rho_inf=0.0, sparse=None):
    """Tip position at the 0.01 s samples and the wall time of exu.SolveDynamic, with Exudyn's
    dense or sparse (Eigen) linear solver; by default the faster one for the mesh (dense up to
    16 elements, measured in the scaling table)."""
    import exudyn as exu
    from exudyn.itemInterface import LoadMassProportional, MarkerBodyMass, SensorNode

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    nodes, beams = add_beam_chain(mbs, L, elements, B, H, E, NU, RHO)
    for beam in beams:
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=beam)), loadVector=[0.0, -G, 0.0]))
    hold_first_node(mbs, nodes, (0, 1))  # the pin: x and y of the first node held
    sensor = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True, outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    wall = solve_dynamic(exu, mbs, t_end, h, rho_inf, SAMPLE, sparse if sparse is not None else elements > 16)
    rows = mbs.GetSensorStoredData(sensor)
    tip = {round(r[0] / SAMPLE): (r[1], r[2]) for r in rows if abs(r[0] / SAMPLE - round(r[0] / SAMPLE)) < 1e-6}
    return tip, wall


def flexfmu_run(exe, elements, h, t_end=1.0, method="ttbif", model=MODEL):
    """Tip position at the 0.01 s samples, the solver's wall time, the whole process's wall time
    and the statistics of one `flexfmu simulate` run at the model's defaults otherwise."""
    with tempfile.TemporaryDirectory() as d:
        out, stats = os.path.join(d, "out.csv"), os.path.join(d, "stats.json")
        t0 = time.perf_counter()
        subprocess.run([exe, "simulate", model, "-o", out, "--set", f"elements={elements}", "--step", repr(h),
                        "--integrator", method, "--stop-time", repr(t_end), "--output-interval", repr(SAMPLE),
                        "--stats-json", stats], check=True, stdout=subprocess.DEVNULL)
        process = time.perf_counter() - t0
        with open(out) as f:
            rows = list(csv.DictReader(f))
        with open(stats) as f:
            st = json.load(f)
    tip = {round(float(r["time"]) / SAMPLE): (float(r["tip_x"]), float(r["tip_y"])) for r in rows}
    return tip, st["wall_time_s"], process, st


def error(run, ref):
    """Largest tip distance over the common samples."""
    common = set(run) & set(ref)
    assert len(common) > 0.9 * len(ref), "samples missing"
    return max(math.dist(run[k], ref[k]) for k in common)


def cheapest(rows, target):
    """The cheapest (wall, label) among rows (error, wall, label) with error <= target."""
    ok = [(w, label) for e, w, label in rows if e <= target]
    return min(ok) if ok else None


def equal_accuracy_table(say, flex_rows, exu_rows, targets):
    say("| tip error target | flexfmu TTBIF: cheapest run | Exudyn generalized-alpha: cheapest run | speed-up |")
    say("|---|---|---|---|")
    for target in targets:
        f, x = cheapest(flex_rows, target), cheapest(exu_rows, target)
        fs = f"{f[1]}: {f[0] * 1e3:.0f} ms" if f else "not reached"
        xs = f"{x[1]}: {x[0] * 1e3:.0f} ms" if x else "not reached"
        ratio = f"{x[0] / f[0]:.1f}x" if f and x else "-"
        say(f"| {target:g} m | {fs} | {xs} | {ratio} |")


def cantilever(args, say):
    """The forced cantilever at equal accuracy (see the module's description)."""
    import exudyn

    run = lambda n, h: flexfmu_run(args.flexfmu, n, h, model=CANTILEVER)  # noqa: E731
    ref, *_ = run(160, 5e-5)
    fine = [20, 40] if args.quick else [20, 40, 80]
    flex_conv = [error(run(n, 5e-5)[0], ref) for n in fine]
    exu_conv = [error(exudyn_cantilever_run(n, 5e-5)[0], ref) for n in fine]
    say(f"Reference: flexfmu, 160 elements, TTBIF 5e-5 s. Largest tip distance to it over 1 s at 5e-5 s with "
        + ", ".join(f"{n}" for n in fine) + " elements: flexfmu "
        + " / ".join(f"{e:.1e}" for e in flex_conv) + " m, Exudyn "
        + " / ".join(f"{e:.1e}" for e in exu_conv) + f" m (Exudyn {exudyn.__version__}).")
    say()
    meshes = [5, 10, 20, 40] if args.quick else [5, 10, 20, 40, 80]
    flex_rows, exu_rows = [], []
    for n in meshes:
        for h in [1e-3, 3e-4, 1e-4]:
            tip, wall, _, _ = run(n, h)
            flex_rows.append((error(tip, ref), wall, f"{n} el., {h:g} s"))
        for h in [1e-3, 5e-4, 2e-4, 1e-4]:
            tip, wall = exudyn_cantilever_run(n, h)
            exu_rows.append((error(tip, ref), wall, f"{n} el., {h:g} s"))
    equal_accuracy_table(say, flex_rows, exu_rows, (1e-1, 3e-2, 1e-2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flexfmu", default=os.path.join(ROOT, "target", "release", "flexfmu"))
    ap.add_argument("--update-readme", action="store_true")
    ap.add_argument("--quick", action="store_true", help="smaller grids and scaling table (a smoke run)")
    ap.add_argument("--cantilever", action="store_true", help="the forced cantilever at equal accuracy instead")
    args = ap.parse_args()
    try:
        import exudyn  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "exudyn", "numpy"], check=True)
    import exudyn

    lines = []
    say = lambda s="": (print(s, flush=True), lines.append(s))  # noqa: E731
    if args.cantilever:
        cantilever(args, say)
        if args.update_readme:
            replace_readme_block("bench_exudyn_cantilever", "\n".join(lines))
        return

    # 1. The two codes converge to the same continuum solution.
    ref, *_ = flexfmu_run(args.flexfmu, 256, 2e-5)
    fine = [32, 64] if args.quick else [32, 64, 128]
    flex_conv = [error(flexfmu_run(args.flexfmu, n, 2e-5)[0], ref) for n in fine]
    exu_conv = [error(exudyn_run(n, 2e-5)[0], ref) for n in fine]
    say(f"Reference: flexfmu, 256 elements, TTBIF 2e-5 s. Largest tip distance to it over 1 s at 2e-5 s with "
        + ", ".join(f"{n}" for n in fine) + " elements: flexfmu "
        + " / ".join(f"{e:.1e}" for e in flex_conv) + " m, Exudyn "
        + " / ".join(f"{e:.1e}" for e in exu_conv) + f" m (both converge to it at second order in the mesh; "
        f"Exudyn {exudyn.__version__}).")
    say()

    # 2. Equal accuracy: each code over its own grid of meshes and steps.
    meshes = [8, 16, 32, 64] if args.quick else [8, 16, 32, 64, 128]
    flex_steps = [1e-3, 3e-4, 1e-4]
    exu_steps = [1e-3, 5e-4, 2e-4, 1e-4]  # Exudyn writes sensors only at its own steps: divisors of 0.01 s
    flex_rows, exu_rows = [], []
    for n in meshes:
        for h in flex_steps:
            tip, wall, _, _ = flexfmu_run(args.flexfmu, n, h)
            flex_rows.append((error(tip, ref), wall, f"{n} el., {h:g} s"))
        for h in exu_steps:
            tip, wall = exudyn_run(n, h)
            exu_rows.append((error(tip, ref), wall, f"{n} el., {h:g} s"))
    equal_accuracy_table(say, flex_rows, exu_rows, (3e-2, 1e-2, 3e-3))
    say()

    # 3. The paper's pairing: 4 elements, TTBIF 3e-4 s (whole process) vs generalized-alpha 1e-4 s (solve),
    # each the fastest of 5 alternating runs (single runs of a few tens of ms varied by 1.5x on shared cores).
    runs = [(flexfmu_run(args.flexfmu, 4, 3e-4), exudyn_run(4, 1e-4)) for _ in range(5)]
    wall = min(f[1] for f, _ in runs)
    process = min(f[2] for f, _ in runs)
    exu_wall = min(e[1] for _, e in runs)
    say(f"- 4 elements, 1 s (fastest of 5 runs each): flexfmu TTBIF 3e-4 s whole process {process * 1e3:.0f} ms "
        f"(solver {wall * 1e3:.0f} ms), Exudyn generalized-alpha 1e-4 s solve {exu_wall * 1e3:.0f} ms: ratio "
        f"{process / exu_wall:.2f} (solver alone {wall / exu_wall:.2f})")
    say()

    # 4. Cost per step and coordinate, 4..1024 elements over 0.1 s.
    say("Fastest of 3 runs per code and size:")
    say()
    say("| elements | coordinates | flexfmu µs/step | µs/(coordinate step) | Newton it./step | Exudyn µs/step, "
        "dense / sparse | per simulated second, flexfmu/Exudyn (faster solver) |")
    say("|---|---|---|---|---|---|---|")
    sizes = [4, 16, 64, 256] if args.quick else [4, 16, 64, 256, 1000]  # the model allows up to 1000
    for n in sizes:
        t_end = 0.1 if n <= 256 else 0.03
        # Each code's fastest of 3 runs (of 2 at 1000 elements).
        repeats = 3 if n <= 256 else 2
        flex = [flexfmu_run(args.flexfmu, n, 3e-4, t_end=t_end) for _ in range(repeats)]
        wall, st = min(f[1] for f in flex), flex[0][3]
        # Exudyn's dense solver only up to 256 elements (a dense LU of 3075 unknowns per step
        # takes seconds; the sparse one is faster from 16 elements on).
        solvers = (False, True) if n <= 256 else (True,)
        coords = 3 * (n + 1)
        per_step = wall / st["steps"] * 1e6
        try:
            exu_walls = [min(exudyn_run(n, 1e-4, t_end=t_end, sparse=sparse)[1] for _ in range(repeats))
                         for sparse in solvers]
        except exudyn.SolverError:  # reported, not hidden: its Newton iteration stops on this mesh
            say(f"| {n} | {coords} | {per_step:.0f} | {per_step / coords:.3f} | "
                f"{st['newton_iterations'] / st['steps']:.2f} | solver stopped | - |")
            continue
        exu_per_step = " / ".join(f"{w / round(t_end / 1e-4) * 1e6:.0f}" for w in exu_walls)
        if n > 256:
            exu_per_step = "- / " + exu_per_step
        say(f"| {n} | {coords} | {per_step:.0f} | {per_step / coords:.3f} | {st['newton_iterations'] / st['steps']:.2f} | "
            f"{exu_per_step} | {wall / min(exu_walls):.2f} |")

    if args.update_readme:
        replace_readme_block("bench_exudyn_beams", "\n".join(lines))


if __name__ == "__main__":
    main()
