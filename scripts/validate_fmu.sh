#!/usr/bin/env bash
# Build every models/*.toml into an FMI 2.0 and an FMI 3.0 FMU, check each with `fmpy validate`
# (must print "No problems found"), simulate it with FMPy as Co-Simulation and compare the
# result with `flexfmu simulate` at the same output interval.
#
# Usage: scripts/validate_fmu.sh [OUTDIR]
#   FMPY    command that runs FMPy (default: "$PYTHON -m fmpy", e.g. FMPY="/tmp/fmpyvenv/bin/python -m fmpy")
#   PYTHON  python for FMPy and the comparison (default: /tmp/fmpyvenv/bin/python if present, else python3)
#   RTOL    allowed difference relative to each column's largest magnitude (default 1e-9)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/target/validate}"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x /tmp/fmpyvenv/bin/python ]]; then PYTHON=/tmp/fmpyvenv/bin/python; else PYTHON=python3; fi
fi
FMPY="${FMPY:-$PYTHON -m fmpy}"
RTOL="${RTOL:-1e-9}"
mkdir -p "$out"

(cd "$root" && cargo build --release --quiet)
flexfmu="$root/target/release/flexfmu"

compare() {
  "$PYTHON" - "$1" "$2" "$RTOL" <<'PY'
import csv, sys
def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip().strip('"') for h in rows[0]]
    data = [[float(x) for x in r] for r in rows[1:] if r]
    return header, data
(ha, a), (hb, b), rtol = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
if ha != hb:
    sys.exit(f"columns differ: {ha} vs {hb}")
if len(a) != len(b):
    sys.exit(f"row counts differ: {len(a)} vs {len(b)}")
worst = 0.0
for j, name in enumerate(ha):
    scale = max(1e-300, max(abs(r[j]) for r in a + b))
    err = max(abs(ra[j] - rb[j]) for ra, rb in zip(a, b)) / scale
    worst = max(worst, err)
    if err > rtol:
        sys.exit(f"column {name}: relative difference {err:.3e} > {rtol}")
print(f"  {len(a)} rows x {len(ha)} columns agree (max relative difference {worst:.3e})")
PY
}

status=0
# The generic binary exports the 34 FMI 2.0 common + co-simulation functions, the 75 functions
# of fmi3Functions.h, and nothing else.
exports="$(nm -D --defined-only "$root/target/release/libflexfmu.so" | awk '$2 == "T" {print $3}' | sort)"
if [[ "$(grep -c '^fmi2' <<<"$exports")" -ne 34 || "$(grep -c '^fmi3' <<<"$exports")" -ne 75 \
  || -n "$(grep -v '^fmi[23]' <<<"$exports")" ]]; then
  echo "exported symbols are not exactly the 34 FMI 2.0 and 75 FMI 3.0 functions:"; echo "$exports"; status=1
else
  echo "== libflexfmu.so exports exactly the 34 FMI 2.0 CS functions and the 75 FMI 3.0 functions"
fi
for model in "$root"/models/*.toml; do
  name="$(basename "$model" .toml)"
  "$flexfmu" simulate "$model" -o "$out/${name}_flexfmu.csv" >/dev/null
  for version in 2 3; do
    # FMI 2.0: NAME.fmu and NAME_fmpy.csv (scripts/test reads target/validate/NAME.fmu);
    # FMI 3.0: NAME_fmi3.fmu and NAME_fmi3_fmpy.csv.
    if [[ $version -eq 3 ]]; then suffix="_fmi3"; else suffix=""; fi
    fmu="$out/${name}${suffix}.fmu"
    echo "== $name (FMI $version)"
    "$flexfmu" build --fmi-version "$version" "$model" -o "$fmu"
    "$flexfmu" check "$fmu"
    report="$($FMPY validate "$fmu" 2>&1 || true)"
    echo "  fmpy validate: $report"
    if ! grep -q "No problems found" <<<"$report"; then status=1; continue; fi
    # Both at the FMU's DefaultExperiment stepSize (= the model's output_interval), given to FMPy
    # explicitly: by default it doubles the interval while the run would exceed 1000 steps.
    interval="$("$PYTHON" -c 'import sys, zipfile, xml.etree.ElementTree as ET
print(ET.fromstring(zipfile.ZipFile(sys.argv[1]).read("modelDescription.xml")).find("DefaultExperiment").get("stepSize"))' "$fmu")"
    $FMPY simulate "$fmu" --interface-type CoSimulation --output-interval "$interval" \
      --output-file "$out/${name}${suffix}_fmpy.csv"
    if ! compare "$out/${name}${suffix}_fmpy.csv" "$out/${name}_flexfmu.csv"; then status=1; fi
  done
  # The same core behind both APIs: FMPy's results of the two FMUs are the same bytes.
  if cmp -s "$out/${name}_fmpy.csv" "$out/${name}_fmi3_fmpy.csv"; then
    echo "  FMI 3 result = FMI 2 result, bit for bit"
  else
    echo "  FMI 3 result differs from the FMI 2 result"; status=1
  fi
done
if [[ $status -eq 0 ]]; then echo "all FMUs valid and consistent"; else echo "FAILED"; fi
exit $status
