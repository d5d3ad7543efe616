#!/usr/bin/env python3
"""Plot the accuracy-vs-cost table of `flexfmu compare MODEL.toml -o TABLE.json`.

Usage: scripts/plot_compare.py TABLE.json -o PLOT.png [--error end_error|max_error]
Two log-log panels: error against wall time and against Newton iterations, one line per
integrator (points are the compared steps). Needs matplotlib (scripts/setup puts it in .venv).
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table", help="JSON written by flexfmu compare -o")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--error", default="max_error", choices=["end_error", "max_error"])
    args = ap.parse_args()
    with open(args.table) as f:
        doc = json.load(f)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    methods = []
    for run in doc["runs"]:
        if run["integrator"] not in methods:
            methods.append(run["integrator"])
    for m in methods:
        runs = [r for r in doc["runs"] if r["integrator"] == m and r.get(args.error)]
        if not runs:
            continue
        label = f"{m} (rho_inf {runs[0]['rho_inf']})"
        err = [r[args.error] for r in runs]
        axes[0].loglog([r["wall_time_s"] for r in runs], err, "o-", label=label)
        axes[1].loglog([r["newton_iterations"] for r in runs], err, "o-", label=label)
    ref = doc["reference"]
    title = f"{doc['model']}, t = {doc['start_time']}..{doc['stop_time']} s; reference {ref['integrator']} h = {ref['step']:.3g} s"
    for ax, xlabel in zip(axes, ["wall time (s)", "Newton iterations"]):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"{args.error} (relative to output range)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
