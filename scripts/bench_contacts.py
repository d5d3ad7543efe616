#!/usr/bin/env python3
"""Many contacts: a box of balls, each pair and each ball against the floor and two walls in
contact, with the force method and the constraint method, two `flexfmu` binaries measured in
one run.

    scripts/bench_contacts.py BASELINE [CANDIDATE] [--balls 30] [--repeat 3]

The model (written to a temporary directory): `--balls` point masses of 0.1 kg, radius 0.05 m,
in rows of eight 0.11 m apart (a little jitter, random horizontal speeds up to 1 m/s, seed 1)
falling under gravity into a box 1 m wide; restitution 0.5; Hertz stiffness 1e7 N/m^1.5 for the
force method. That is n (n - 1) / 2 + 3 n contacts, most of them open at any time. The
force method runs 0.5 s, the constraint method 0.1 s (before the balls pile up; a pile of
balls held by constraint contacts takes many short steps, docs/solver.md). For each method
both binaries run alternately `--repeat` times; the table gives the fastest wall time of each,
the ratio (candidate / baseline), the steps and the largest difference of the balls' positions
between the two (0: identical; the balls' collisions make the motion chaotic, so a round-off
difference grows). CANDIDATE defaults to target/release/flexfmu.
"""
import argparse
import csv
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def box_of_balls(n, method):
    rng = random.Random(1)
    r, width, columns = 0.05, 1.0, 8
    out = ['[model]\nname = "box_of_balls"\ngravity = [0.0, -9.81]\n']
    for i in range(n):
        x = -width / 2 + 0.1 + (i % columns) * 0.11 + rng.uniform(-0.004, 0.004)
        y = 0.1 + (i // columns) * 0.12
        out.append(f'[[point_masses]]\nname = "b{i}"\nmass = 0.1\nposition = [{x:.4f}, {y:.4f}]\n'
                   f'velocity = [{rng.uniform(-1, 1):.3f}, 0.0]\n')

    def contact(name, kind, keys):
        law = "stiffness = 1e7\n" if method == "force" else ""
        out.append(f'[[contacts]]\nname = "{name}"\ntype = "{kind}"\nmethod = "{method}"\n'
                   f'restitution = 0.5\n{law}{keys}')

    for i in range(n):
        for name, point, normal in [("floor", (0.0, 0.0), (0.0, 1.0)), ("left", (-width / 2, 0.0), (1.0, 0.0)),
                                    ("right", (width / 2, 0.0), (-1.0, 0.0))]:
            contact(f"{name}{i}", "circle_plane", f'point1 = [{point[0]}, {point[1]}]\n'
                    f'normal = [{normal[0]}, {normal[1]}]\nbody2 = "b{i}"\nradius2 = {r}\n')
    for i in range(n):
        for j in range(i + 1, n):
            contact(f"c{i}_{j}", "circle_circle", f'body1 = "b{i}"\nradius1 = {r}\nbody2 = "b{j}"\nradius2 = {r}\n')
    for i in range(n):
        out.append(f'[[outputs]]\nname = "x{i}"\nquantity = "x"\nbody = "b{i}"\n')
        out.append(f'[[outputs]]\nname = "y{i}"\nquantity = "y"\nbody = "b{i}"\n')
    out.append('[[outputs]]\nname = "energy"\nquantity = "energy_total"\n')
    return "\n".join(out)


def run(binary, model, stop, out):
    start = time.perf_counter()
    done = subprocess.run([binary, "simulate", model, "-o", out, "--stop-time", str(stop), "--output-interval",
                           "0.01"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{binary} on {model} failed:\n{done.stderr}")
    steps = done.stdout.split(" steps")[0].rsplit(" ", 1)[-1]
    return elapsed, steps


def largest_difference(a, b):
    with open(a) as fa, open(b) as fb:
        ra, rb = list(csv.DictReader(fa)), list(csv.DictReader(fb))
    return max(abs(float(x[k]) - float(y[k])) for x, y in zip(ra, rb) for k in x if k[0] in "xy")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("baseline")
    ap.add_argument("candidate", nargs="?", default=os.path.join(ROOT, "target", "release", "flexfmu"))
    ap.add_argument("--balls", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.balls
    print(f"{n} balls, {n * (n - 1) // 2 + 3 * n} contacts\n")
    print("| method | simulated | steps (baseline) | baseline s | candidate s | ratio | largest position difference |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for method, stop in [("force", 0.5), ("constraint", 0.1)]:
            model = os.path.join(tmp, f"{method}.toml")
            with open(model, "w") as f:
                f.write(box_of_balls(n, method))
            a, b = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
            times = {a: [], b: []}
            for _ in range(args.repeat):
                ta, steps = run(args.baseline, model, stop, a)
                times[a].append(ta)
                times[b].append(run(args.candidate, model, stop, b)[0])
            ta, tb = min(times[a]), min(times[b])
            same = f"{largest_difference(a, b):.1e} m"
            print(f"| {method} | {stop} s | {steps} | {ta:.3f} | {tb:.3f} | {tb / ta:.3f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
