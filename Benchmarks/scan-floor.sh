#!/bin/bash
# The warm scan's kernels (CTroveScan) and OpenBLAS's sgemv against the read floor of the same matrix, in turn in one
# process (Benchmarks/scan_floor.c), at 100k and 1M rows of 384 floats (or SIZES), ROUNDS rounds each.
#
#   Benchmarks/scan-floor.sh [ROUNDS [SIZES]]      (defaults: 15, "100000 1000000")
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
sizes=${2:-100000 1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CC:-clang}" -O2 -I Sources/CTroveScan/include Benchmarks/scan_floor.c Sources/CTroveScan/trove_scan.c -lpthread \
    -l:libopenblas.so.0 -o "$work/scan_floor"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, kernel $(uname -r);" \
    "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
    echo
    echo "## $n × 384, $rounds rounds"
    echo
    "$work/scan_floor" "$n" 384 "$rounds"
done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
