#!/usr/bin/env python3
"""The sweep of `flexfmu sweep`, fanned out over a Dask distributed cluster whose workers run the
model's FMU with FMPy (docs/cli.md, "sweep on a Dask cluster").

    sweep_dask.py MODEL.toml -o DIR [--set NAME=v1,v2,...|NAME=first:last:count ...]
        [--stop-time T] [--output-interval DT] [--metric NAME=end|max|min|mean ...]
        [--fmu MODEL.fmu] [--flexfmu PATH] [--scheduler ADDRESS] [--workers N]
        [--compare TABLE.csv [--rtol R]]

The grid, the run order and the metrics are those of `flexfmu sweep` (src/cli/sweep_grid.rs,
src/cli/metric.rs). Without --scheduler a LocalCluster of --workers processes runs the sweep;
with it, the cluster at ADDRESS (tcp://host:8786). The FMU (built with `flexfmu build` unless
--fmu gives one) is sent to the workers as bytes, so they need no shared file system, only
FMPy. DIR/sweep.csv has the layout of flexfmu sweep's table. --compare checks it against a
table of `flexfmu sweep` (same grid): every cell within R (default 1e-9) relative to its
column's largest magnitude; prints the largest difference.
"""

import argparse
import csv
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

STATISTICS = ("end", "max", "min", "mean")


def linspace(first, last, count):
    """`count` values from first to last, both included exactly (sweep_grid::linspace)."""
    return [first if i == 0 else last if i + 1 == count else first + (last - first) * i / (count - 1)
            for i in range(count)]


def axis(spec):
    """(parameter, values) of NAME=v1,v2,... | NAME=first:last:count | NAME=v."""
    if "=" not in spec:
        sys.exit(f"--set expects NAME=v1,v2,... or NAME=first:last:count, got '{spec}'")
    name, values = (s.strip() for s in spec.split("=", 1))
    parts = values.split(":")
    if len(parts) == 3:
        count = int(parts[2])
        if count < 1:
            sys.exit(f"--set {spec}: the count must be a positive integer")
        return name, linspace(float(parts[0]), float(parts[1]), count)
    try:
        return name, [float(v) for v in values.split(",")]
    except ValueError:
        sys.exit(f"--set {spec}: this script sweeps numeric parameters only")


def grid(axes):
    """The runs, the first axis varying slowest: one {name: value} per run."""
    runs = [{}]
    for name, values in axes:
        runs = [dict(run, **{name: v}) for run in runs for v in values]
    return runs


def metric(spec):
    if "=" not in spec or spec.split("=", 1)[1].strip() not in STATISTICS:
        sys.exit(f"--metric expects NAME=end|max|min|mean, got '{spec}'")
    name, stat = (s.strip() for s in spec.split("=", 1))
    return name, stat


def evaluate(stat, time, values):
    """As src/cli/metric.rs: the last value, the extremes, or the trapezoidal time mean."""
    if stat == "end":
        return values[-1]
    if stat == "max":
        return max(values)
    if stat == "min":
        return min(values)
    span = time[-1] - time[0]
    if span <= 0:
        return values[0]
    area = sum(0.5 * (values[k] + values[k + 1]) * (time[k + 1] - time[k]) for k in range(len(time) - 1))
    return area / span


def run_on_worker(fmu_bytes, digest, parameters, stop_time, output_interval, metrics):
    """One run on a worker: the FMU written once per worker process, simulated with FMPy as
    Co-Simulation at the output interval, the metrics of its outputs."""
    from fmpy import simulate_fmu

    path = Path(tempfile.gettempdir()) / f"flexfmu-sweep-{os.getpid()}-{digest}.fmu"
    if not path.exists():
        partial = path.with_suffix(".part")
        partial.write_bytes(fmu_bytes)
        partial.replace(path)
    outputs = sorted({name for name, _ in metrics})
    result = simulate_fmu(str(path), fmi_type="CoSimulation", stop_time=stop_time, step_size=output_interval,
                          output_interval=output_interval, start_values=parameters, output=outputs)
    time = list(result["time"])
    return [evaluate(stat, time, list(result[name])) for name, stat in metrics]


def model_description(fmu):
    return ET.fromstring(zipfile.ZipFile(fmu).read("modelDescription.xml"))


def compare(table, reference, rtol):
    """Largest difference of the metric cells relative to each column's largest magnitude."""
    def load(p):
        with open(p, newline="") as f:
            rows = list(csv.reader(f))
        return rows[0], [[float(c) for c in r] for r in rows[1:] if r]
    (ha, a), (hb, b) = load(table), load(reference)
    if ha != hb or len(a) != len(b):
        sys.exit(f"tables differ in shape: {ha} x {len(a)} vs {hb} x {len(b)}")
    worst = 0.0
    for j, name in enumerate(ha):
        scale = max(1e-300, max(abs(r[j]) for r in a + b))
        err = max(abs(ra[j] - rb[j]) for ra, rb in zip(a, b)) / scale
        worst = max(worst, err)
        if err > rtol:
            sys.exit(f"column {name}: relative difference {err:.3e} > {rtol} ({table} vs {reference})")
    print(f"{len(a)} runs x {len(ha)} columns agree with {reference} (max relative difference {worst:.3e})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--set", action="append", default=[], dest="sets")
    p.add_argument("--stop-time", type=float)
    p.add_argument("--output-interval", type=float)
    p.add_argument("--metric", action="append", default=[], dest="metrics")
    p.add_argument("--fmu", type=Path, help="the model's FMU (default: built with flexfmu build)")
    built = Path(__file__).resolve().parent.parent / "target/release/flexfmu"
    p.add_argument("--flexfmu", default=str(built) if built.exists() else (shutil.which("flexfmu") or "flexfmu"),
                   help="the flexfmu executable (default: this checkout's target/release/flexfmu, else flexfmu on PATH)")
    p.add_argument("--scheduler", help="address of a Dask scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    p.add_argument("--compare", type=Path, help="a sweep.csv of flexfmu sweep to check against")
    p.add_argument("--rtol", type=float, default=1e-9)
    args = p.parse_args()

    from dask.distributed import Client, LocalCluster

    args.output.mkdir(parents=True, exist_ok=True)
    fmu = args.fmu or args.output / (args.model.stem + ".fmu")
    if not args.fmu:
        subprocess.run([args.flexfmu, "build", str(args.model), "-o", str(fmu)], check=True, stdout=subprocess.DEVNULL)
    md = model_description(fmu)
    variables = {v.get("name"): v for v in md.iter("ScalarVariable")}
    axes = [axis(s) for s in args.sets]
    for name, _ in axes:
        if variables.get(name) is None or variables[name].get("causality") != "parameter":
            sys.exit(f"--set {name}: the FMU has no parameter '{name}'")
    outputs = [v.get("name") for v in md.iter("ScalarVariable") if v.get("causality") == "output"]
    metrics = [metric(m) for m in args.metrics] or [(o, "end") for o in outputs]
    for name, _ in metrics:
        if name not in outputs:
            sys.exit(f"--metric {name}: unknown output (the FMU has: {', '.join(outputs)})")
    experiment = md.find("DefaultExperiment")
    stop_time = args.stop_time if args.stop_time is not None else float(experiment.get("stopTime"))
    interval = args.output_interval or float(experiment.get("stepSize"))
    runs = grid(axes)

    fmu_bytes = Path(fmu).read_bytes()
    digest = hashlib.sha256(fmu_bytes).hexdigest()[:16]
    cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                                        processes=True, dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        shared = client.scatter(fmu_bytes, broadcast=True)
        futures = [client.submit(run_on_worker, shared, digest, run, stop_time, interval, metrics, pure=False)
                   for run in runs]
        results = client.gather(futures)
    if cluster is not None:
        cluster.close()

    table = args.output / "sweep.csv"
    with open(table, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["run"] + [name for name, _ in axes] + [f"{stat}({name})" for name, stat in metrics])
        for i, (run, values) in enumerate(zip(runs, results)):
            w.writerow([i + 1] + [repr(run[name]) for name, _ in axes] + [f"{v:.17e}" for v in values])
    where = args.scheduler or f"a LocalCluster of {args.workers} workers"
    print(f"{args.model.stem}: {len(runs)} runs on {where}, table {table}")
    if args.compare:
        compare(table, args.compare, args.rtol)


if __name__ == "__main__":
    main()
