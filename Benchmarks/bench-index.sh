#!/usr/bin/env bash
# The whole `trove index --embedder builtin` of Corpora/ ×COPIES (default 10), each copy's files with a line of their
# own appended (so each copy embeds its files' last passages again and reuses the rest), into a fresh index once per
# precision, alternating, ROUNDS times (default 2): crawl, chunking, embedding and SQLite, release build.
#   Benchmarks/bench-index.sh [COPIES] [ROUNDS]      PRECISIONS="fp32 auto" (default) picks the modes compared
# Prints per run: chunks embedded and reused, wall and CPU seconds (user + sys), chunks embedded per CPU-second.
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-10}
rounds=${2:-2}
swift build -c release --product trove >&2
trove=$PWD/.build/release/trove
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for copy in $(seq 1 "$copies"); do
    cp -r Corpora "$work/docs-$copy"
    find "$work/docs-$copy" -type f | while read -r file; do printf '\ncopy %s of this file.\n' "$copy" >> "$file"; done
done
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, kernel $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Corpora/ ×$copies: $(find "$work"/docs-* -type f | wc -l) files"
for round in $(seq 1 "$rounds"); do
    for precision in ${PRECISIONS:-fp32 auto}; do
        rm -f "$work/index.sqlite"*
        /usr/bin/time -f '%e %U %S' -o "$work/time" \
            "$trove" index --embedder builtin --precision "$precision" --index "$work/index.sqlite" --json -q \
            "$work"/docs-* > "$work/summary.json"
        python3 - "$precision" "$round" "$work/summary.json" "$work/time" <<'PY'
import json, sys
precision, round_, summary, timing = sys.argv[1:]
s = json.load(open(summary))
wall, user, system = map(float, open(timing).read().split()[-3:])
embedded, reused = s["chunks_embedded"], s["chunks_reused"]
cpu = user + system
print(f"round {round_}, {precision}: {embedded} chunks embedded, {reused} reused; {wall:.2f} s wall, "
      f"{cpu:.2f} CPU-seconds; {embedded / cpu:.1f} chunks embedded per CPU-second, {embedded / wall:.0f} chunks/s wall")
PY
    done
done
