#!/usr/bin/env bash
# The main job, end to end: build trove, index Corpora/ and search it by meaning.
#
# Uses the Ollama at $OLLAMA_HOST (or 127.0.0.1:11434) when one answers, with $TROVE_EMBED_MODEL
# (default nomic-embed-text). Without Ollama it starts the project's Ollama stand-in
# (../shared/tools/ollama-standin: the real all-MiniLM-L6-v2 model behind Ollama's HTTP API) on a free port,
# and indexes with all-minilm.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build -c release --product trove >&2
trove=.build/release/trove
index=Indexes/demo.sqlite

host=${OLLAMA_HOST:-127.0.0.1:11434}
case "$host" in http://*|https://*) url=$host ;; *) url=http://$host ;; esac
if curl -fsS --max-time 2 "$url/api/version" >/dev/null 2>&1; then
    model=${TROVE_EMBED_MODEL:-nomic-embed-text}
    echo "using Ollama at $url with $model" >&2
else
    standin=../shared/tools/ollama-standin
    [ -d "$standin" ] || { echo "no Ollama at $url and no stand-in at $standin — start Ollama: ollama serve" >&2; exit 69; }
    bash "$standin/setup.sh" >&2
    portfile=$(mktemp)
    "$standin/.venv/bin/python" "$standin/ollama_standin.py" --port 0 --port-file "$portfile" --quiet &
    server=$!
    trap 'kill $server 2>/dev/null; rm -f "$portfile"' EXIT
    for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.1; done
    url=http://127.0.0.1:$(cat "$portfile")
    model=all-minilm
    echo "no Ollama running: using the all-MiniLM stand-in at $url" >&2
fi
export OLLAMA_HOST=$url

rm -f "$index" "$index-wal" "$index-shm"
"$trove" index --index "$index" --model "$model" Corpora
"$trove" status --index "$index"
for query in "${@:-how do I change the credentials for the payment provider}"; do
    echo
    echo "\$ trove search \"$query\""
    "$trove" search --index "$index" -n 3 "$query"
done
