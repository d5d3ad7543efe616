#!/usr/bin/env python3
"""The corpus of benchmark problems through the FMUs in FMPy.

Reads tests/corpus/references.toml (the manifest tests/suite/corpus.rs asserts on the library), takes
each model's FMI 2.0 FMU from DIR (default target/validate/, built by scripts/validate_fmu.py;
built with `flexfmu build` when missing), simulates it with fmpy.simulate_fmu as Co-Simulation
at the FMU's DefaultExperiment (output interval = stepSize) and asserts every check.

Usage: scripts/fmpy_corpus.py [DIR]
"""
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
from fmpy import read_model_description, simulate_fmu

ROOT = Path(__file__).resolve().parent.parent


def fmu_of(model, out, path=None):
    """target/validate/MODEL.fmu of models/MODEL.toml, or built from `path` (tests/corpus/)."""
    fmu = out / f"{model}.fmu"
    if path or not fmu.exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(ROOT / "target/release/flexfmu"), "build", str(ROOT / (path or f"models/{model}.toml")),
                        "-o", str(fmu)], check=True, stdout=subprocess.DEVNULL)
    return fmu


def run(fmu):
    experiment = read_model_description(str(fmu)).defaultExperiment
    return simulate_fmu(str(fmu), fmi_type="CoSimulation", start_time=float(experiment.startTime or 0.0),
                        stop_time=float(experiment.stopTime), output_interval=float(experiment.stepSize))


def work_balance(check, t, energy, rate, result):
    """(E(end) - E(0) - W) / W, W the work of the torque `table` (or output `force`) on `rate` (trapezoid rule)."""
    if "force" in check:
        power = np.array(result[check["force"]], dtype=float) * rate
    else:
        table = np.array(check["table"], dtype=float)
        power = np.interp(t, table[:, 0], table[:, 1]) * rate
    work = float(np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(t)))
    print(f"  work of the table {work:.6f} J")
    return (energy[-1] - energy[0] - work) / work


def measure(check, t, y, result):
    metric = check["metric"]
    if metric == "work_balance":
        return work_balance(check, t, y, np.array(result[check["rate"]], dtype=float), result)
    if metric == "at":
        k = np.flatnonzero(np.abs(t - check["time"]) < 1e-9)
        assert len(k), f"{check['time']} is not an output time"
        return y[k[0]]
    window = (t >= check.get("from", -np.inf) - 1e-12) & (t <= check.get("to", np.inf) + 1e-12)
    if metric == "max":
        return y[window].max()
    if metric == "min":
        return y[window].min()
    if metric == "drift":
        return np.abs(y - y[0]).max()
    if metric == "interval":
        at = lambda i: measure({**check, "metric": "crossing", "index": i}, t, y, result)
        return at(check["index2"]) - at(check["index"])
    if metric == "crossing":
        found = 0
        for k in range(1, len(y)):
            a, b = y[k - 1] - check["level"], y[k] - check["level"]
            if a * b < 0.0 or (b == 0.0 and a != 0.0):
                found += 1
                if found == check["index"]:
                    return t[k - 1] + (t[k] - t[k - 1]) * a / (a - b)
        raise AssertionError(f"only {found} crossings of {check['level']}")
    raise AssertionError(f"unknown metric {metric}")


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target/validate"
    checks = tomllib.loads((ROOT / "tests/corpus/references.toml").read_text())["check"]
    results, failures = {}, []
    for check in checks:
        model = check["model"]
        if model not in results:
            results[model] = run(fmu_of(model, out, check.get("path")))
        r = results[model]
        y = np.array(r[check["output"]], dtype=float)
        if "subtract" in check:
            y = y - np.array(r[check["subtract"]], dtype=float)
        value = measure(check, np.array(r["time"], dtype=float), y, r)
        bound = check["atol"] if "atol" in check else check["rtol"] * abs(check["reference"])
        error = abs(value - check["reference"])
        line = (f"{model} {check['output']} {check['metric']}: measured {value:.10e}, reference "
                f"{check['reference']:.10e}, error {error:.2e} (bound {bound:.1e})")
        print(line)
        if not error <= bound:
            failures.append(line)
    if failures:
        sys.exit("missed references:\n" + "\n".join(failures))
    print(f"all {len(checks)} corpus checks meet their references through FMPy ({len(results)} FMUs)")


if __name__ == "__main__":
    main()
