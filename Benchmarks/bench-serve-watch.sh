#!/usr/bin/env bash
# Searches through `trove serve --watch` while its watch embeds new files with the built-in model: the wall time of
# each one-shot `trove search` (which asks the server), idle and then until the watch's passes have taken in 1,000
# cranfield abstracts dropped into the watched copy of Corpora/. Each binary given runs in turn, ROUNDS times, so two
# builds compare side by side in one run.
#   Benchmarks/bench-serve-watch.sh [ROUNDS] [TROVE ...]   (default: 2 rounds of .build/release/trove)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
shift || true
binaries=("$@")
if [ ${#binaries[@]} -eq 0 ]; then
    swift build -c release --product trove >&2
    binaries=("$PWD/.build/release/trove")
fi
abstracts=../shared/datasets/cranfield/docs
[ -d "$abstracts" ] || { echo "needs $abstracts (the cranfield collection)" >&2; exit 69; }
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# The wall time of one search through the server, in ms.
search_ms() {
    local start
    start=$(date +%s%N)
    "$1" search -n 3 "how to descale a kettle" >/dev/null 2>&1
    echo $((($(date +%s%N) - start) / 1000000))
}

# How many new files the watch's passes have taken in, from its log.
taken() { grep -oE '[0-9]+ new' "$1" | awk '{ total += $1 } END { print total + 0 }'; }

for round in $(seq 1 "$rounds"); do
    for trove in "${binaries[@]}"; do
        rm -rf "$work/notes" "$work/index.sqlite"*
        cp -r Corpora "$work/notes"
        export TROVE_INDEX=$work/index.sqlite TROVE_EMBED_THREADS=$(nproc)
        "$trove" index --quiet --provider builtin "$work/notes" >/dev/null 2>&1
        "$trove" serve --watch >/dev/null 2>"$work/serve.log" &
        server=$!
        until [ -S "$work/index.sqlite.sock" ]; do sleep 0.1; done
        sleep 2
        idle=()
        for _ in $(seq 1 10); do idle+=("$(search_ms "$trove")"); done
        mkdir "$work/notes/cranfield"
        for file in $(ls "$abstracts" | head -1000); do cp "$abstracts/$file" "$work/notes/cranfield/$file.md"; done
        busy=()
        stop=$(($(date +%s) + 300))
        while [ "$(taken "$work/serve.log")" -lt 1000 ] && [ "$(date +%s)" -lt "$stop" ]; do
            busy+=("$(search_ms "$trove")")
        done
        kill -INT "$server"
        wait "$server" 2>/dev/null || true
        server=
        python3 - "$trove" "${idle[*]}" "${busy[*]}" "$work/serve.log" <<'EOF'
import re, statistics, sys
trove, idle, busy, log = sys.argv[1], [int(x) for x in sys.argv[2].split()], [int(x) for x in sys.argv[3].split()], sys.argv[4]
passes = [(int(c), float(s)) for c, s in re.findall(r"(\d+) chunks embedded, \d+ reused[^\n]* in ([\d.]+) s", open(log).read())]
chunks, seconds = sum(c for c, _ in passes[1:]), sum(s for _, s in passes[1:])  # after the catch-up pass
q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
print(f"{trove}: idle p50 {statistics.median(idle):.0f} ms; while the passes embedded ({len(busy)} searches) p50 "
      f"{statistics.median(busy):.0f} ms, p90 {q(busy, .9)} ms, max {max(busy)} ms; the passes {chunks} chunks in "
      f"{seconds:.1f} s")
EOF
    done
done
