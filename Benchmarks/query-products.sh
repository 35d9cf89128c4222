#!/bin/bash
# One query's matrix products (Benchmarks/query_products.c) with this tree's in-place kernel against another
# revision's, in turn, ROUNDS times for each token count and lane count; prints a table of means (the mean of each
# run's mean pass) and of the best passes.
#
#   Benchmarks/query-products.sh [BASE_REVISION [ROUNDS]]      (defaults: HEAD~1, 4)
#   KERNEL=trove_sgemm_nt_avx512 Benchmarks/query-products.sh HEAD   (this tree's AVX-512 kernel against the
#                                                                     revision's AVX2 one)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
rounds=${2:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git show "$base:Sources/CTroveGEMM/trove_gemm.c" > "$work/base.c"
git show "$base:Sources/CTroveGEMM/include/trove_gemm.h" > "$work/trove_gemm.h"
cc=${CC:-clang}
"$cc" -O2 -DKERNEL="${KERNEL:-trove_sgemm_nt_avx2}" -I Sources/CTroveGEMM/include Benchmarks/query_products.c Sources/CTroveGEMM/trove_gemm.c -lpthread \
    -o "$work/new"
"$cc" -O2 -I "$work" Benchmarks/query_products.c "$work/base.c" -lpthread -o "$work/base"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# this tree (${KERNEL:-trove_sgemm_nt_avx2}) against $base ($(git rev-parse --short "$base")), $rounds rounds in turn"
for tokens in 8 20 32; do
    for lanes in 1 2; do
        for _ in $(seq "$rounds"); do
            "$work/base" "$tokens" "$lanes" base
            "$work/new" "$tokens" "$lanes" new
        done
    done
done | python3 -c '
import sys, collections
rows = collections.defaultdict(list)
for line in sys.stdin:
    label, tokens, lanes, mean, best, gmean, gbest = line.split("\t")
    rows[(int(tokens), int(lanes), label)].append((float(mean), float(best), float(gmean), float(gbest)))
print("| tokens | lanes | base ms (mean / best) | new ms (mean / best) | base GFLOP/s | new GFLOP/s | new ÷ base time |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for tokens, lanes in sorted({(t, l) for t, l, _ in rows}):
    b, n = rows[(tokens, lanes, "base")], rows[(tokens, lanes, "new")]
    mean = lambda runs, i: sum(r[i] for r in runs) / len(runs)
    best = lambda runs, i: min(r[i] for r in runs)
    print(f"| {tokens} | {lanes} | {mean(b, 0):.2f} / {best(b, 1):.2f} | {mean(n, 0):.2f} / {best(n, 1):.2f} "
          f"| {mean(b, 2):.1f} | {mean(n, 2):.1f} | {mean(n, 0) / mean(b, 0):.2f} |")
'
