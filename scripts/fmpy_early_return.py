#!/usr/bin/env python3
"""FMI 3.0 early return at contact events through FMPy (tests/suite/fmi3_early_return.rs does the same
through the C API).

    scripts/fmpy_early_return.py target/validate/ball_drop_fmi3.fmu [target/validate/mass_spring_fmi3.fmu]

The first FMU is a ball model (models/ball_drop.toml: released at rest with a gap h0 above the
floor, outputs `y`, `vy`) whose modelDescription claims mightReturnEarlyFromDoStep; FMPy's
simulate_fmu with early_return_allowed=True records a row at every early return. Checked: the
first early return is at the free-fall time sqrt(2 h0/g) (to 1e-9 s), the rows on the
communication grid agree with the run without early return to within the discretization error
(the difference between internal steps h and h/2). Further FMUs must not claim early return and
must give the same rows with and without it. Exits non-zero on failure.
"""
import math
import sys

from fmpy import read_model_description, simulate_fmu

G = 9.81
INTERVAL = 0.01


def run(fmu, early, **start):
    return simulate_fmu(fmu, fmi_type="CoSimulation", output_interval=INTERVAL, early_return_allowed=early,
                        start_values=start, output=["y", "vy"] if "y" in outputs(fmu) else None)


def outputs(fmu):
    return [v.name for v in read_model_description(fmu).modelVariables if v.causality == "output"]


def on_grid(t):
    return abs(t / INTERVAL - round(t / INTERVAL)) < 1e-9


def main():
    failed = False
    ball, others = sys.argv[1], sys.argv[2:]
    md = read_model_description(ball)
    assert md.coSimulation.mightReturnEarlyFromDoStep, "the ball FMU must claim mightReturnEarlyFromDoStep"
    h0 = next(float(v.start) for v in md.modelVariables if v.name == "h0")
    step = next(float(v.start) for v in md.modelVariables if v.name == "solver_step")
    early = run(ball, True)
    plain = run(ball, False)
    halved = run(ball, False, solver_step=step / 2)
    events = [row["time"] for row in early if not on_grid(row["time"])]
    free_fall = math.sqrt(2 * h0 / G)
    print(f"{md.modelName}: {len(events)} early returns, the first at {events[0]:.12f} s; "
          f"sqrt(2 h0/g) = {free_fall:.12f} s (difference {events[0] - free_fall:.2e} s)")
    failed |= abs(events[0] - free_fall) > 1e-9
    grid = [row for row in early if on_grid(row["time"])]
    failed |= len(grid) != len(plain) or any(abs(a["time"] - b["time"]) > 1e-12 for a, b in zip(grid, plain))
    for name in ["y", "vy"]:
        d = max(abs(a[name] - b[name]) for a, b in zip(grid, plain))
        ref = max(abs(a[name] - b[name]) for a, b in zip(halved, plain))
        print(f"  {name}: early return vs none {d:.2e}; internal step h/2 vs h {ref:.2e}")
        failed |= not d < ref
    for fmu in others:
        md = read_model_description(fmu)
        a, b = run(fmu, True), run(fmu, False)
        same = len(a) == len(b) and all(tuple(x) == tuple(y) for x, y in zip(a, b))
        print(f"{md.modelName}: mightReturnEarlyFromDoStep={md.coSimulation.mightReturnEarlyFromDoStep}, "
              f"{len(a)} rows with early return allowed, identical to without: {same}")
        failed |= md.coSimulation.mightReturnEarlyFromDoStep or not same
    print("FAILED" if failed else "ok")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
