#!/usr/bin/env python3
"""Assembly time against model size: generates models of n bodies and times `flexfmu check`
(parse + assembly + consistent initial state) as CPU time (user + sys) of the child, which
stays meaningful on a loaded machine where wall time does not.

  benches/assembly_scaling.py [path/to/flexfmu] [--sizes 25000,50000,100000]

Three families, each with every body named by a joint or spring and an output:
  point_masses   n point masses, each on a prismatic joint to ground, an output each 100
  rigid_springs  n/2 rigid bodies, each on a spring to ground
  floating       n/10 floating-frame beams (2 modes), each pinned at a point of its axis
                 and pushed by a force there (names looked up per joint and load)
Linear assembly shows as a constant time per body across the sizes.
"""
import os
import resource
import subprocess
import sys
import tempfile


def point_masses(n):
    t = ['[model]\nname = "many"\ngravity = [0.0, -9.81]\n']
    t += [f'[[point_masses]]\nname = "p{i}"\nmass = 1.0\nposition = [{i}.0, 0.0]\n' for i in range(n)]
    t += [
        f'[[joints]]\nname = "j{i}"\ntype = "prismatic"\nbody1 = "ground"\nbody2 = "p{i}"\n'
        f'point = [{i}.0, 0.0]\naxis = [1.0, 0.0]\n'
        for i in range(n)
    ]
    t += [f'[[outputs]]\nname = "x{i}"\nquantity = "x"\nbody = "p{i}"\n' for i in range(0, n, 100)]
    return "".join(t)


def rigid_springs(n):
    n = n // 2
    t = ['[model]\nname = "many"\ngravity = [0.0, -9.81]\n']
    t += [f'[[rigid_bodies]]\nname = "r{i}"\nmass = 1.0\ninertia = 0.1\nposition = [{i}.5, 0.0]\n' for i in range(n)]
    t += [
        f'[[springs]]\nname = "s{i}"\nbody1 = "ground"\npoint1 = [{i}.0, 1.0]\nbody2 = "r{i}"\nstiffness = 10.0\n'
        for i in range(n)
    ]
    return "".join(t)


def floating(n):
    m = max(n // 10, 1)
    t = ['[model]\nname = "many"\n']
    for i in range(m):
        t.append(
            f'[[beams]]\nname = "b{i}"\nformulation = "floating_frame"\nmodes = 2\nstart = [{2 * i}.0, 0.0]\n'
            f'end = [{2 * i + 1}.0, 0.0]\nsection = {{ area = 1e-4, inertia = 1e-9 }}\n'
            f'material = {{ E = 2e11, nu = 0.3, rho = 7800.0 }}\n'
        )
    for i in range(m):
        t.append(
            f'[[joints]]\nname = "j{i}"\ntype = "revolute"\nbody1 = "ground"\nbody2 = "b{i}"\npoint = [{2 * i}.5, 0.0]\n'
        )
        t.append(f'[[loads]]\ntype = "force"\nbody = "b{i}.end"\ndirection = [0.0, 1.0]\nvalue = 1.0\n')
        t.append(f'[[outputs]]\nname = "y{i}"\nquantity = "y"\nbody = "b{i}.end"\n')
    return "".join(t)


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    args = sys.argv[1:]
    exe = "target/release/flexfmu"
    sizes = [25000, 50000, 100000]
    while args:
        a = args.pop(0)
        if a == "--sizes":
            sizes = [int(s) for s in args.pop(0).split(",")]
        else:
            exe = a
    print(f"{'family':<14} {'n':>8} {'cpu s':>8} {'us/body':>8}")
    with tempfile.TemporaryDirectory() as d:
        for family in (point_masses, rigid_springs, floating):
            for n in sizes:
                path = os.path.join(d, f"{family.__name__}_{n}.toml")
                with open(path, "w") as f:
                    f.write(family(n))
                s = cpu_seconds([exe, "check", path])
                bodies = {floating: max(n // 10, 1), rigid_springs: n // 2}.get(family, n)
                print(f"{family.__name__:<14} {bodies:>8} {s:>8.2f} {1e6 * s / bodies:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
