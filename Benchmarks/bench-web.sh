#!/usr/bin/env bash
# trove web measured in a real browser (headless Chromium through Selenium: Tests/Browser/web_checks.py --bench):
# a keystroke to the rendered hits on Corpora/ (built-in embedder, warm, each round one more character of one of ten
# queries), p50/p90 of N rounds; and each streamed token from the server receiving it (its received_ms) to the frame
# that shows it, with trove-bench fake-ollama as the chat model (one word every 20 ms). Also the page's size.
# Usage: Benchmarks/bench-web.sh [N]     (CONFIG=debug measures the debug build: an upper bound, built faster)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-100}
bash Tests/Browser/setup.sh >&2
config=${CONFIG:-release}
swift build -c "$config" --product trove >&2
swift build --product trove-bench >&2   # the fake chat model only paces words: a debug build will do
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
.build/$config/trove index --quiet --embedder builtin --index "$work/i.sqlite" Corpora >&2
.build/debug/trove-bench fake-ollama --port-file "$work/port" --delay-ms 20 &
until [ -s "$work/port" ]; do sleep 0.1; done
.build/$config/trove web --index "$work/i.sqlite" --ollama "http://127.0.0.1:$(cat "$work/port")" >"$work/url" 2>/dev/null &
until [ -s "$work/url" ]; do sleep 0.1; done
url=$(cat "$work/url")
base=${url%/#*}
size=0
for asset in / /app.js /app.css /favicon.svg; do
    size=$((size + $(curl -s "$base$asset" | wc -c)))
done
echo "page: $size bytes (HTML, CSS, JavaScript and icon, uncompressed)"
.build/browser-venv/bin/python Tests/Browser/web_checks.py "$url" "$work" --bench "$rounds"
