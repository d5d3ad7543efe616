#!/usr/bin/env python3
"""A run that fails mid-way through FMPy's simulate_fmu (tests/suite/c_api.rs checks the same
status through the C API).

    scripts/fmpy_discard.py target/release/flexfmu OUT_DIR

Builds an FMI 2.0 FMU of a point mass pushed by ln(0.5 - t), whose force is not finite from
t = 0.5 s: the step across it fails, the FMU returns fmi2Discard and says it wants to terminate
(fmi2Terminated), and FMPy returns the rows up to the last successful time instead of raising.
(FMPy 0.3.32's FMI 3.0 loop raises on any fmi3Discard before it reads terminateSimulation; the
FMI 3.0 FMU's answer, Discard with terminateSimulation and lastSuccessfulTime, is checked
through the C API in tests/suite/fmi3_c_api.rs.) Checked: the last row's time is that of the failure, just
before 0.5 s; every row equals `flexfmu simulate`'s CSV row at the same time (the failed run
keeps its rows too); the mass has moved as the integral of the force says (x = int int
ln(0.5 - s) ds dt, in closed form) to the Newton tolerance and the method's error.
Exits non-zero on failure.
"""
import csv
import math
import os
import subprocess
import sys

from fmpy import simulate_fmu

MODEL = """[model]
name = "failing_push"
[solver]
stop_time = 1.0
output_interval = 0.01
[[point_masses]]
name = "p"
mass = 1.0
position = [0.0, 0.0]
velocity = [0.0, 0.0]
[[loads]]
type = "force"
body = "p"
direction = [1.0, 0.0]
value = "ln(0.5 - t)"
[[outputs]]
name = "x"
quantity = "x"
body = "p"
"""


def exact_x(t):
    # x'' = ln(a - t), x(0) = x'(0) = 0, a = 0.5: with u = a - t,
    # x'(t) = -(u ln u - u) + (a ln a - a), x(t) = (u^2/2 ln u - 3 u^2/4) - (a^2/2 ln a - 3 a^2/4)
    #   + (a ln a - a) t.
    a, u = 0.5, 0.5 - t
    f = lambda w: w * w / 2 * math.log(w) - 0.75 * w * w
    return f(u) - f(a) + (a * math.log(a) - a) * t


def main():
    exe, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    model = os.path.join(out, "failing_push.toml")
    with open(model, "w") as f:
        f.write(MODEL)
    csv_path = os.path.join(out, "failing_push.csv")
    run = subprocess.run([exe, "simulate", model, "-o", csv_path], capture_output=True, text=True)
    if run.returncode != 1:
        print(f"flexfmu simulate should fail with exit code 1, got {run.returncode}: {run.stderr}")
        return 1
    with open(csv_path) as f:
        rows = {round(float(r["time"]), 9): float(r["x"]) for r in csv.DictReader(f)}
    failed = False
    for version in ["2"]:
        fmu = os.path.join(out, f"failing_push_fmi{version}.fmu")
        subprocess.run([exe, "build", model, "-o", fmu, "--fmi-version", version], check=True, capture_output=True)
        try:
            result = simulate_fmu(fmu, fmi_type="CoSimulation", output_interval=0.01, stop_time=1.0)
        except Exception as e:  # noqa: BLE001 - any exception is the failure checked for
            print(f"FMI {version}: simulate_fmu raised {type(e).__name__}: {e}")
            failed = True
            continue
        last = result[-1]
        grid = [r for r in result if round(float(r["time"]), 9) in rows]
        mismatch = max(abs(float(r["x"]) - rows[round(float(r["time"]), 9)]) for r in grid)
        error = max(abs(float(r["x"]) - exact_x(float(r["time"]))) for r in result)
        print(f"FMI {version}: {len(result)} rows, the last at t = {last['time']:.9f} s, x = {last['x']:.6e} m; "
              f"rows against simulate's CSV: largest difference {mismatch:.1e} m over {len(grid)} rows; "
              f"against the closed form: {error:.1e} m")
        failed |= not (0.49 <= last["time"] < 0.5)
        failed |= len(grid) < 49 or mismatch != 0.0
        failed |= error > 1e-4
    print("ok" if not failed else "FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
