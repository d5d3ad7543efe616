#!/usr/bin/env python3
"""The impact beam (models/impact_beam.toml, Guo et al. 2017 sec. 4) against a baseline
revision of flexfmu, measured in one run.

    .venv/bin/python scripts/bench_impact_beam.py [--baseline REV] [--flexfmu BIN] [--repeat 3] [--update-readme]

Builds the baseline revision (default 4c6a7e8, main before the floating-frame beam's forces
came from its inertia shape integrals) in a temporary git worktree (its target directory is
kept under target/bench-baseline-REV, so a second run does not build again), then runs both
binaries alternately `--repeat` times on each case and reports the fastest solver wall time
(`--stats-json` wall_time_s) of each and their ratio. "Same accuracy" is checked, not assumed:
the table gives both runs' steps and Newton iterations, the largest difference between their
outputs, and each run's angle error against a run at a quarter of the step (2.5e-6 s).

Cases: the model's two contact methods on its own settings (HHT rho_inf 0.8, step 1e-5 s,
0.7 s), and the constraint method with rho_inf 1 over 1.5 s (the case of issue 21).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_exudyn import replace_readme_block  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "models", "impact_beam.toml")
CASES = [
    ("force (default), HHT 0.8, 0.7 s", ["--set", "contact=force"]),
    ("constraint, HHT 0.8, 0.7 s", ["--set", "contact=constraint"]),
    ("constraint, HHT 1.0, 1.5 s", ["--set", "contact=constraint", "--rho-inf", "1", "--stop-time", "1.5"]),
]


def build_baseline(rev):
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True)
    sha = sha.stdout.strip()
    target = os.path.join(ROOT, "target", f"bench-baseline-{sha}")
    binary = os.path.join(target, "release", "flexfmu")
    if os.path.exists(binary):
        return binary, sha
    tree = tempfile.mkdtemp(prefix="flexfmu-baseline-")
    os.rmdir(tree)
    subprocess.run(["git", "worktree", "add", "--detach", tree, sha], cwd=ROOT, check=True, capture_output=True)
    try:
        env = dict(os.environ, CARGO_TARGET_DIR=target, FLEXFMU_EMBED="0")
        print(f"building the baseline {sha} ...", file=sys.stderr, flush=True)
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "flexfmu"], cwd=tree, env=env, check=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=ROOT, check=False)
        shutil.rmtree(tree, ignore_errors=True)
    return binary, sha


def run(binary, extra, out, stats):
    args = [binary, "simulate", MODEL, "-o", out, "--stats-json", stats] + extra
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr}")
    with open(stats) as f:
        return json.load(f)


def largest_differences(a, b):
    with open(a) as fa, open(b) as fb:
        ra, rb = list(csv.reader(fa)), list(csv.reader(fb))
    if ra[0] != rb[0] or len(ra) != len(rb):
        sys.exit(f"{a} and {b} differ in their columns or rows")
    out = {}
    for j, name in enumerate(ra[0]):
        if name in ("angle", "tip_y", "energy_total"):
            out[name] = max(abs(float(x[j]) - float(y[j])) for x, y in zip(ra[1:], rb[1:]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="4c6a7e8")
    ap.add_argument("--flexfmu", default=os.path.join(ROOT, "target", "release", "flexfmu"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--update-readme", action="store_true")
    args = ap.parse_args()
    baseline, sha = build_baseline(args.baseline)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for label, extra in CASES:
            best = {}
            stats = {}
            for _ in range(args.repeat):
                for who, binary in (("baseline", baseline), ("flexfmu", args.flexfmu)):
                    s = run(binary, extra, os.path.join(d, f"{who}.csv"), os.path.join(d, f"{who}.json"))
                    best[who] = min(best.get(who, float("inf")), s["wall_time_s"])
                    stats[who] = s
            diff = largest_differences(os.path.join(d, "baseline.csv"), os.path.join(d, "flexfmu.csv"))
            reference = os.path.join(d, "reference.csv")
            run(args.flexfmu, extra + ["--step", "2.5e-6"], reference, os.path.join(d, "reference.json"))
            error = {who: largest_differences(os.path.join(d, f"{who}.csv"), reference)["angle"] for who in best}
            s = stats["flexfmu"]
            rows.append(
                f"| {label} | {stats['baseline']['steps']} / {s['steps']} | "
                f"{stats['baseline']['newton_iterations']} / {s['newton_iterations']} | "
                f"{best['baseline']:.2f} s | {best['flexfmu']:.2f} s | {best['baseline'] / best['flexfmu']:.1f}x | "
                f"{diff['angle']:.1e} rad, {diff['tip_y']:.1e} m, {diff['energy_total']:.1e} J | "
                f"{error['baseline']:.2e} / {error['flexfmu']:.2e} rad |"
            )
            print(rows[-1], flush=True)
    text = "\n".join(
        [
            f"| run (`models/impact_beam.toml`) | steps, {sha} / now | Newton it., {sha} / now | {sha} | now | speed-up | "
            "largest output difference (angle, tip_y, energy) | angle error vs step 2.5e-6 s, "
            f"{sha} / now |",
            "|---|---|---|---|---|---|---|---|",
        ]
        + rows
    )
    text += f"\n\nSolver wall time, fastest of {args.repeat} alternating runs of each binary, one run on 2 shared cores."
    print(text)
    if args.update_readme:
        replace_readme_block("bench_impact_beam", text)


if __name__ == "__main__":
    main()
