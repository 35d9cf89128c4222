#!/usr/bin/env bash
# Whole-process latency with the built-in model, side by side in one run, each row against
# `trove --version` (process start-up) timed in the same run:
#   trove embed of a short query; trove search (hybrid) on a cranfield index, cold and with `trove serve` running;
#   trove search on Corpora/ beside `llm similar` (simonw/llm + llm-ollama against the Ollama stand-in) on Corpora/,
#   all in turn, round by round (process start to exit with posix_spawn and wait4, as `hyperfine -N` times them);
# then the time the running server spends inside one search (`trove-bench warm`).
#   Benchmarks/bench-latency.sh [RUNS]          (default 30; `llm similar` gets a third of them)
#   TROVE=installed Benchmarks/bench-latency.sh (times the binary Scripts/install.sh makes, Swift runtime linked in,
#                                             installed under $LATENCY_DIR/prefix; TROVE=PATH times another build)
#   BASELINE=PATH Benchmarks/bench-latency.sh   (another trove binary, e.g. a build of the revision before, timed in
#                                             the same rounds: its own rows, its own `--version`, its own server on
#                                             a copy of the cranfield index)
# The indexes are built once under $LATENCY_DIR (default /tmp/trove-latency) and reused. The peer needs the
# `.venv`s of ../shared/tools/peer-llm and ../shared/tools/ollama-standin (their setup.sh); where the shared folder is
# read-only, copy the two folders, run setup.sh there and point PEER_LLM and STANDIN at the copies. Without them
# the peer rows are left out (and say so).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
[ -d "$shared" ] || shared=../../shared
runs=${1:-30}
work=${LATENCY_DIR:-/tmp/trove-latency}
peer=${PEER_LLM:-$shared/tools/peer-llm}
standin=${STANDIN:-$shared/tools/ollama-standin}
mkdir -p "$work"
swift build -c release --product trove >&2
swift build -c release --product trove-bench >&2
trove=${TROVE:-$PWD/.build/release/trove}
if [ "$trove" = installed ]; then
    Scripts/install.sh "$work/prefix" >&2
    trove=$work/prefix/bin/trove
fi
bench=$PWD/.build/release/trove-bench
cran=$work/cranfield.sqlite
corpora=$work/corpora.sqlite
[ -f "$cran" ] || "$trove" index --quiet --embedder builtin --index "$cran" "$shared/datasets/cranfield/docs"
[ -f "$corpora" ] || "$trove" index --quiet --embedder builtin --index "$corpora" Corpora
# Builds (once) the weights cache beside the model, so the timed runs find it as every later process does.
"$trove" embed --embedder builtin warm-up > /dev/null

cranQuery='what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft'
corporaQuery='my basil is drooping'
"$trove" serve --index "$cran" 2> "$work/serve.log" &
serve=$!
pids=$serve
trap 'kill $pids 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$cran.sock" ] && break; sleep 0.1; done

rows() {  # BINARY CRANFIELD_INDEX: the five commands, in the order of `names`
    printf '%s\n' "$1 --version" "$1 embed --embedder builtin 'hello world'" \
        "$1 search --cold --index $2 '$cranQuery'" "$1 search --index $2 '$cranQuery'" \
        "$1 search --cold --index $corpora '$corporaQuery'"
}
mapfile -t commands < <(rows "$trove" "$cran")
names=("trove --version" "trove embed (builtin, 2 words)" "trove search, cranfield, hybrid, cold"
    "trove search, cranfield, hybrid, trove serve running" "trove search, Corpora/, hybrid, cold")
if [ -n "${BASELINE:-}" ]; then
    baseCran=$work/cranfield-baseline.sqlite
    cp "$cran" "$baseCran"
    [ -f "$cran.vectors" ] && cp "$cran.vectors" "$baseCran.vectors"
    "$BASELINE" serve --index "$baseCran" 2> "$work/serve-baseline.log" &
    pids="$pids $!"
    for _ in $(seq 100); do [ -S "$baseCran.sock" ] && break; sleep 0.1; done
    mapfile -t -O 5 commands < <(rows "$BASELINE" "$baseCran")
    names+=("${names[@]/#/baseline: }")
fi
peerRuns=0
if [ -x "$peer/.venv/bin/llm" ] && [ -x "$standin/.venv/bin/python" ]; then
    port=$work/standin.port
    rm -f "$port"
    "$standin/.venv/bin/python" "$standin/ollama_standin.py" --port 0 --port-file "$port" --quiet &
    pids="$pids $!"
    for _ in $(seq 300); do [ -s "$port" ] && break; sleep 0.1; done
    export OLLAMA_HOST=http://127.0.0.1:$(cat "$port") LLM_USER_PATH=$work/llm
    mkdir -p "$LLM_USER_PATH"
    if ! "$peer/.venv/bin/llm" collections list 2>/dev/null | grep -q '^corpora'; then
        "$peer/.venv/bin/llm" embed-models list > /dev/null
        "$peer/.venv/bin/llm" embed-multi corpora --files Corpora '**/*' -m ollama/all-minilm --store >&2
    fi
    peerRuns=$(( (runs + 2) / 3 ))
else
    echo "peer rows left out: no $peer/.venv or $standin/.venv (run their setup.sh, or set PEER_LLM and STANDIN)" >&2
fi

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $trove ($(ldd "$trove" | grep -q libswiftCore && echo "Swift runtime linked dynamically" || echo "Swift runtime linked in"))"
echo "# OpenBLAS $("$trove" doctor --index "$cran" 2>&1 | sed -n 's/.*\(kernel [A-Za-z0-9]*\).*/\1/p' | head -1)"
# The commands run in turn, round after round (not each one's runs back to back, as hyperfine does), so a drift
# in the machine's state between rows cannot pass for a difference between them; the peer runs every third round.
peerCommand=""
[ "$peerRuns" = 0 ] || peerCommand="$peer/.venv/bin/llm similar corpora -n 10 -c '$corporaQuery'"
python3 - "$runs" "$work/times.json" "$peerCommand" "${commands[@]}" <<'PY'
import json, os, shlex, sys, time
runs, out, peer, commands = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
devnull = os.open(os.devnull, os.O_RDWR)
def run(command):
    argv = shlex.split(command)
    start = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e9
    if status != 0:
        sys.exit(f"exit status {status}: {command}")
    return wall, usage.ru_utime, usage.ru_stime
entries = commands + ([peer] if peer else [])
results = [{"command": c, "times": [], "user": [], "system": []} for c in entries]
warmup = 3
for round in range(-warmup, runs):
    # The peer first, in every third round, then one untimed run: its two seconds of Python leave the caches
    # to whatever runs next, which would otherwise always be the `--version` row everything is measured against.
    if peer and round % 3 == 0:
        timing = run(peer)
        if round >= 0:
            for key, value in zip(("times", "user", "system"), timing): results[-1][key].append(value)
        run(commands[0])
    for command, result in zip(commands, results):
        timing = run(command)
        if round >= 0:
            for key, value in zip(("times", "user", "system"), timing): result[key].append(value)
for result in results:
    result["user"] = sum(result["user"]) / len(result["user"])
    result["system"] = sum(result["system"]) / len(result["system"])
json.dump({"results": results}, open(out, "w"))
PY
python3 - "$work" "$peerRuns" "${names[@]}" <<'PY'
import json, statistics, sys, os
work, peer_runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = json.load(open(os.path.join(work, "times.json")))["results"]
if peer_runs:
    names = names + ["llm similar, Corpora/ (peer)"]
ms = lambda r: 1000 * statistics.median(r["times"])
corpora = ms(rows[4])
print("| command | median ms | min ms | − `--version` ms | user + sys ms |")
print("|---|---:|---:|---:|---:|")
for index, (name, r) in enumerate(zip(names, rows)):
    # Each binary's rows (five each, the peer last) against its own `--version`.
    version = rows[index // 5 * 5] if not name.startswith("llm") else rows[0]
    extra = f"{ms(r) - ms(version):+.1f}" if r is not version else ""
    print(f"| {name} | {ms(r):.1f} | {1000 * min(r['times']):.1f} | {extra} | {1000 * (r['user'] + r['system']):.1f} |")
if peer_runs:
    print(f"\n`llm similar` ÷ `trove search` on Corpora/ (medians): {ms(rows[-1]) / corpora:.1f}×")
PY
"$bench" warm --index "$cran" --query "$cranQuery" --runs 50
