#!/usr/bin/env bash
# Records the bundled parallel_for workload on knit's GNU-layout mock runtime
# and prints the application-level report.
set -euo pipefail
tree=${1:-build/native}
out="$tree/demo-measurement"
rm -rf "$out"
echo "== knit record -e CPUTIME@f2000 --runtime=mock-gomp -- parallel_for 200 (4 threads)"
OMP_NUM_THREADS=4 "$tree/bin/knit" record -e CPUTIME@f2000 --runtime=mock-gomp -o "$out" \
  -- "$tree/workloads/parallel_for" 200
echo
echo "== knit report $out"
"$tree/bin/knit" report "$out"
