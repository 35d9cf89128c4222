#!/usr/bin/env bash
# Trove's vector search beside its peers, in one run on one machine:
#   1. ../shared/tools/peer-bench (numpy dot+argpartition, faiss IndexFlatIP, sqlite-vec vec0, a C + OpenBLAS
#      reference, and the memory-bandwidth floor), run from a private copy in Benchmarks/.peer-bench (git-ignored;
#      its venv gets numpy, faiss-cpu, sqlite-vec from PyPI on first use);
#   2. `trove-bench search` on the same N x d (warm single query p50/p95, 100-query sgemm batch);
#   3. `trove-bench cold` (fresh `trove search` process) on 100k x 768.
# Usage: Benchmarks/speed.sh [CONFIGS]        CONFIGS default 100000x384,100000x768 (peer-bench syntax)
# Results: Benchmarks/results/speed-<date>.md. Timings on a shared 2-core machine move by 2x: compare rows of one run.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIGS=${1:-100000x384,100000x768}
PEER_SRC=../shared/tools/peer-bench
PEER=Benchmarks/.peer-bench
OUT=Benchmarks/results/speed-$(date +%Y%m%d-%H%M).md
mkdir -p Benchmarks/results
if [ ! -d "$PEER" ]; then cp -r "$PEER_SRC" "$PEER"; fi
if [ ! -x "$PEER/.venv/bin/python" ]; then
    python3 -m venv "$PEER/.venv"
    "$PEER/.venv/bin/python" -m pip install -q numpy==2.4.6 faiss-cpu==1.15.1 sqlite-vec==0.1.9 \
        pysqlite3-binary==0.5.4.post2 threadpoolctl==3.8.0
    # run_peers.sh would install the HNSW peers too; they are not part of this comparison.
    cp "$PEER/requirements.txt" "$PEER/.venv/.requirements.installed"
fi
swift build -c release --product trove >&2
swift build -c release --product trove-bench >&2
SIZES=$(echo "$CONFIGS" | tr ',' '\n' | cut -dx -f1 | sort -un | paste -sd,)
DIMS=$(echo "$CONFIGS" | tr ',' '\n' | cut -dx -f2 | sort -un | paste -sd,)
{
    echo "# Search speed, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}"
    echo
    echo "## Peers (peer-bench: --configs $CONFIGS --peers c,numpy,faiss,sqlite-vec --no-cold)"
    echo
    (cd "$PEER" && bash run_peers.sh --configs "$CONFIGS" --peers c,numpy,faiss,sqlite-vec --no-cold \
        --sqlite-max-mb 400 --out results-trove >&2 && cat results-trove.md)
    echo
    # Trove picks OpenBLAS's kernel from the CPU's instruction sets (BENCHMARKS.md#openblas-kernel); the header line
    # names it.
    echo "## Trove (trove-bench search --sizes $SIZES --dims $DIMS --threads 1,2)"
    echo
    .build/release/trove-bench search --sizes "$SIZES" --dims "$DIMS" --threads 1,2 --queries 100
    echo
    echo "## Cold trove search (trove-bench cold --n 100000 --d 768)"
    echo
    .build/release/trove-bench cold --trove .build/release/trove --n 100000 --d 768 --runs 5
} | tee "$OUT"
echo "wrote $OUT" >&2
