#!/usr/bin/env bash
# Indexing throughput of one folder through three embedders that make the same vectors (all-MiniLM-L6-v2), in
# one run on this machine: the built-in embedder, the Ollama stand-in (../shared/tools/ollama-standin, numpy) and
# llama.cpp's own server (../shared/tools/llamacpp, the GGUF via /v1/embeddings). Each gets 2 threads.
#   Benchmarks/bench-providers.sh [FOLDER] [ROUNDS]   (default Corpora, 1 round; each round runs the three in turn)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
[ -d "$shared" ] || shared=../../shared
folder=${1:-Corpora}
rounds=${2:-1}
swift build -c release --product trove >&2
trove=$PWD/.build/release/trove
tmp=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
bash "$shared/tools/ollama-standin/setup.sh" >&2
bash "$shared/tools/llamacpp/setup.sh" >&2
"$shared/tools/ollama-standin/.venv/bin/python" "$shared/tools/ollama-standin/ollama_standin.py" --port 0 \
    --port-file "$tmp/standin.port" --quiet &
pids+=($!)
"$shared/tools/llamacpp/.venv/bin/python" "$shared/tools/llamacpp/serve.py" embed --port-file "$tmp/llama.port" \
    --threads 2 >/dev/null 2>&1 &
pids+=($!)
ready() { # FILE PATH: the server whose port is in FILE answers PATH
    for _ in $(seq 300); do
        if [ -s "$1" ] && curl -sf -m 2 "http://127.0.0.1:$(cat "$1")$2" >/dev/null; then return 0; fi
        sleep 0.2
    done
    echo "a server did not start: $1" >&2
    exit 1
}
ready "$tmp/standin.port" /api/version
ready "$tmp/llama.port" /health
export OLLAMA_HOST="http://127.0.0.1:$(cat "$tmp/standin.port")" TROVE_EMBED_THREADS=2 OMP_NUM_THREADS=2
base="http://127.0.0.1:$(cat "$tmp/llama.port")/v1"

measure() { # NAME ARGS…: index FOLDER into a new index, print a table row
    local name=$1
    shift
    rm -f "$tmp/$name.sqlite"*
    local start end
    start=$(date +%s.%N)
    "$trove" index --json --index "$tmp/$name.sqlite" "$@" "$folder" >"$tmp/$name.json"
    end=$(date +%s.%N)
    python3 - "$name" "$start" "$end" "$tmp/$name.json" <<'PY'
import json, sys
name, start, end, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
chunks = json.load(open(path))["chunks_embedded"]
seconds = end - start
print(f"| {name} | {chunks} | {seconds:.1f} | {chunks / seconds:.1f} |")
PY
}

echo "CPU: $(lscpu | grep 'Model name' | sed 's/.*: *//'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| embedder | chunks | seconds | chunks/s |"
echo "|---|---|---|---|"
for _ in $(seq "$rounds"); do
    measure builtin --provider builtin
    measure ollama-standin --provider ollama --model all-minilm
    measure llama.cpp --provider openai --model all-minilm --base-url "$base"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
