#!/usr/bin/env bash
# The built-in embedder against the numpy reference (../shared/tools/ollama-standin), in one run on this machine:
#   1. vectors of 200 cranfield chunks: numpy's vs TroveMiniLM's (cosine), 2. chunks/s and query latency, numpy
#   then Swift, then numpy again. Each picks its OpenBLAS kernel itself (numpy's bundled OpenBLAS knows the CPU;
#   Trove chooses Debian's from the CPU's instruction sets), so OPENBLAS_CORETYPE is left as the caller has it.
#   Benchmarks/bench-embed.sh [CHUNKS]   (default 96 for the speed runs)
# BASELINE=PATH runs another trove-bench (say, main's, built in another worktree) right after this one's, so a change
# is measured side by side with numpy and with what it replaces.
# STANDIN_PYTHON picks another interpreter than the stand-in's .venv (one with numpy, tokenizers and threadpoolctl,
# e.g. when the shared folder is read-only); MINILM_MODEL_DIR then points minilm.py at the model files.
set -euo pipefail
cd "$(dirname "$0")/.."
# The shared folder sits beside the repository, or beside its worktrees' folder.
shared=../shared
[ -d "$shared" ] || shared=../../shared
standin=$shared/tools/ollama-standin
dataset=$shared/datasets/cranfield
py=${STANDIN_PYTHON:-$standin/.venv/bin/python}
n=${1:-96}
swift build -c release --product trove-bench >&2
bench=.build/release/trove-bench
ref=$(mktemp)
trap 'rm -f "$ref"' EXIT

"$py" - "$standin" "$dataset" "$ref" <<'PY'
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from minilm import MiniLM
m = MiniLM(threads=2)
chunks = []
for p in sorted(Path(sys.argv[2], "docs").iterdir(), key=lambda p: int(p.stem)):
    ids = m.tokenize([p.read_text()])[0][1:-1]
    for s in range(0, len(ids), 198):
        chunks.append(m.detokenize(ids[s:s + 198]))
    if len(chunks) >= 200:
        break
chunks = chunks[:200]
v = m.embed(chunks)
json.dump([{"text": t, "vector": [float(x) for x in row]} for t, row in zip(chunks, v)], open(sys.argv[3], "w"))
PY
"$bench" embed --compare "$ref"

# numpy before and after Swift, so that both see the same load; Swift reports the best of 3 runs per thread count.
numpy() {
    for threads in 1 2; do
        echo "numpy, $threads threads ($1):"
        "$py" "$standin/bench_embed.py" --dataset "$dataset" --n "$n" --threads "$threads" | sed 's/^/  /'
    done
}
numpy before
echo "Swift TroveMiniLM:"
"$bench" embed --dataset "$dataset" --n "$n" --threads 1,2 --repeat 3 | sed 's/^/  /'
if [ -n "${BASELINE:-}" ]; then
    echo "Swift TroveMiniLM, baseline $BASELINE:"
    "$BASELINE" embed --dataset "$dataset" --n "$n" --threads 1,2 --repeat 3 | sed 's/^/  /'
fi
numpy after
