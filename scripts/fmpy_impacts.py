#!/usr/bin/env python3
"""Impact times through FMPy do not depend on the communication step (issue 6).

    scripts/fmpy_impacts.py target/validate/ball_drop.fmu [more FMUs of ball models ...]

Each FMU (a ball of radius r under gravity g = 9.81 bouncing on the plane y = 0, outputs `y`,
`vy`, `contact_state`) is co-simulated by FMPy with communication steps 1e-4, 1e-3, 1e-2 and
0.1 s. At every 0.1 s sample in free flight, the free-flight parabola through (y, vy) gives the
times of the previous and the next contact (y = r); they must agree with the 1e-4 s run within
1 ms. Exits non-zero otherwise, so CI runs it as a check.
"""
import math
import sys

from fmpy import read_model_description, simulate_fmu

G = 9.81
STEPS = [1e-4, 1e-3, 1e-2, 0.1]
SAMPLE = 0.1
TOLERANCE = 1e-3


def contact_times(fmu, dt, r):
    """{sample index: (previous contact time, next contact time)} at the 0.1 s samples in flight."""
    res = simulate_fmu(fmu, fmi_type="CoSimulation", step_size=dt, output_interval=dt, output=["y", "vy", "contact_state"])
    out = {}
    for row in res:
        k = round(row["time"] / SAMPLE)
        if abs(row["time"] - k * SAMPLE) > 1e-9 or row["contact_state"] > 0.5 or k == 0:
            continue
        y, vy = row["y"], row["vy"]
        vs = math.sqrt(vy * vy + 2.0 * G * (y - r))
        out[k] = (row["time"] - (vs - vy) / G, row["time"] + (vy + vs) / G)
    return out


def main():
    failed = False
    for fmu in sys.argv[1:]:
        md = read_model_description(fmu)
        r = next(float(v.start) for v in md.modelVariables if v.name == "r")
        runs = {dt: contact_times(fmu, dt, r) for dt in STEPS}
        reference = runs[STEPS[0]]
        for dt in STEPS[1:]:
            common = sorted(set(reference) & set(runs[dt]))
            worst = max(max(abs(a - b) for a, b in zip(reference[k], runs[dt][k])) for k in common)
            ok = worst < TOLERANCE and len(common) >= 5
            failed |= not ok
            print(f"{md.modelName}: communication step {dt:g} s: {len(common)} flight samples, worst contact-time difference to 1e-4 s: {worst:.2e} s {'ok' if ok else 'FAILED'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
