"""Build every models/*.toml into an FMI 2.0 and an FMI 3.0 FMU, check each with FMPy's
validation (what `fmpy validate` runs: it must find no problem), simulate it with FMPy as
Co-Simulation and compare the result with `flexfmu simulate` at the same output interval; the
FMI 3.0 result must equal the FMI 2.0 one bit for bit. Also checks that libflexfmu.so exports
exactly the 34 FMI 2.0 and the 75 FMI 3.0 functions.

Models run in parallel (one worker per core); each model's report is printed in order.

    python scripts/validate_fmu.py [OUTDIR] [--rtol 1e-9] [--jobs N]

Outputs in OUTDIR (default target/validate): NAME.fmu / NAME_fmi3.fmu, NAME_flexfmu.csv,
NAME_fmpy.csv / NAME_fmi3_fmpy.csv (scripts/test reads some of these FMUs).
"""

import argparse
import os
import subprocess
import sys
import zipfile
import xml.etree.ElementTree as ET
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FLEXFMU = ROOT / "target" / "release" / "flexfmu"
LIBRARY = ROOT / "target" / "release" / "libflexfmu.so"


def run(*args):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout


def load_csv(path):
    with open(path) as f:
        header = [h.strip().strip('"') for h in f.readline().strip().split(",")]
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def compare(fmpy_result, csv_path, rtol):
    """Largest difference per column relative to the column's largest magnitude."""
    header, reference = load_csv(csv_path)
    names = list(fmpy_result.dtype.names)
    if names != header:
        raise RuntimeError(f"columns differ: {names} vs {header}")
    if len(fmpy_result) != len(reference):
        raise RuntimeError(f"row counts differ: {len(fmpy_result)} vs {len(reference)}")
    worst = 0.0
    for j, name in enumerate(names):
        a, b = fmpy_result[name].astype(float), reference[:, j]
        scale = max(1e-300, np.abs(a).max(), np.abs(b).max())
        err = np.abs(a - b).max() / scale
        worst = max(worst, err)
        if err > rtol:
            raise RuntimeError(f"column {name}: relative difference {err:.3e} > {rtol}")
    return f"{len(reference)} rows x {len(names)} columns agree (max relative difference {worst:.3e})"


def validate_model(model, out, rtol):
    """Returns (report lines, ok)."""
    from fmpy import simulate_fmu
    from fmpy.util import write_csv
    from fmpy.validation import validate_fmu

    name = model.stem
    lines, ok = [], True
    run(FLEXFMU, "simulate", model, "-o", out / f"{name}_flexfmu.csv")
    results = {}
    for version, suffix in ((2, ""), (3, "_fmi3")):
        fmu = out / f"{name}{suffix}.fmu"
        lines.append(f"== {name} (FMI {version})")
        try:
            lines.append(run(FLEXFMU, "build", "--fmi-version", version, model, "-o", fmu).rstrip())
            lines.append(run(FLEXFMU, "check", fmu).rstrip())
            problems = validate_fmu(str(fmu))
            # What `fmpy validate` runs and prints.
            lines.append("  fmpy validate: " + ("No problems found." if not problems else "; ".join(problems)))
            if problems:
                ok = False
                continue
            # At the FMU's DefaultExperiment stepSize (= the model's output_interval), given
            # explicitly: by default FMPy doubles the interval while a run exceeds 1000 steps.
            experiment = ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml")).find("DefaultExperiment")
            result = simulate_fmu(
                str(fmu),
                fmi_type="CoSimulation",
                output_interval=float(experiment.get("stepSize")),
            )
            results[version] = result
            write_csv(str(out / f"{name}{suffix}_fmpy.csv"), result)
            lines.append("  " + compare(result, out / f"{name}_flexfmu.csv", rtol))
        except Exception as e:  # a failed model is reported, the others still run
            lines.append(f"  FAILED: {e}")
            ok = False
    if 2 in results and 3 in results:
        # The same core behind both APIs: the two FMUs' results are the same bits.
        same = all(np.array_equal(results[2][c], results[3][c]) for c in results[2].dtype.names)
        lines.append("  FMI 3 result = FMI 2 result, bit for bit" if same else "  FMI 3 result differs from FMI 2")
        ok = ok and same
    return lines, ok


def exported_functions():
    """The defined dynamic symbols of libflexfmu.so: exactly the 34 FMI 2.0 CS and 75 FMI 3.0
    functions."""
    nm = run("nm", "-D", "--defined-only", LIBRARY)
    names = sorted(line.split()[2] for line in nm.splitlines() if len(line.split()) == 3 and line.split()[1] == "T")
    fmi2 = [n for n in names if n.startswith("fmi2")]
    fmi3 = [n for n in names if n.startswith("fmi3")]
    other = [n for n in names if not n.startswith(("fmi2", "fmi3"))]
    return len(fmi2) == 34 and len(fmi3) == 75 and not other, names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "target" / "validate"))
    parser.add_argument("--rtol", type=float, default=1e-9, help="allowed difference relative to a column's magnitude")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)

    exports_ok, names = exported_functions()
    if exports_ok:
        print("== libflexfmu.so exports exactly the 34 FMI 2.0 CS functions and the 75 FMI 3.0 functions")
    else:
        print("exported symbols are not exactly the 34 FMI 2.0 and 75 FMI 3.0 functions:", *names, sep="\n")
    models = sorted((ROOT / "models").glob("*.toml"))
    ok = exports_ok
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for lines, model_ok in pool.map(validate_model, models, [out] * len(models), [args.rtol] * len(models)):
            print("\n".join(lines), flush=True)
            ok = ok and model_ok
    print(f"all {2 * len(models)} FMUs valid and consistent" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
