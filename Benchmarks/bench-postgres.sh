#!/usr/bin/env bash
# PostgreSQL + pgvector measured for Trove's PostgreSQL store (issue 18), beside the SQLite + BLAS path in one run:
#   1. keyword ranking in PostgreSQL full text (ts_rank_cd, ts_rank with normalisations, BM25 from term statistics;
#      configurations simple / english / trove_english) on the four public sets, nDCG@10 as `trove-bench relevance
#      --suite` computes it, on the passages Trove's indexer makes (`trove-bench passages`), and query latency on
#      every set's passages ×5;
#   2. the same keyword ranking through Trove's SQLite keyword mode is in BENCHMARKS.md#search-relevance (its suite
#      needs the sets embedded, 15 min); `trove-bench search` below times Trove's exact BLAS scan at the same sizes;
#   3. vector search on synthetic clustered unit vectors, d 384: exact scan, HNSW (m 16 / ef_construction 64, and
#      m 32 / 128 up to 100k) build time, size, latency and recall@10 at ef_search 40/100/200, selective filters.
#   Benchmarks/bench-postgres.sh [relevance] [latency] [vector] [sqlite]   (default all; Markdown to stdout; ~25 min for
#   relevance, ~5 for latency, ~60 for vector at 1M on 2 loaded cores)
# Environment: SIZES (default 100000,1000000), PGBENCH_PORT (55440), PGBENCH_DATA (/tmp/trove-pgbench, removed
# at the end), PGBENCH_VENV (~/.cache/trove/bench-postgres-venv: psycopg + numpy, tooling only, never a Trove
# dependency), TROVE_BENCH (a trove-bench binary to use instead of building one). 1M vectors need ~4 GB disk and ~3 GB of memory for the HNSW build; on 2 loaded cores the 1M build
# takes tens of minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
[ -d "$shared" ] || shared=../../shared
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(relevance latency vector sqlite)
sizes=${SIZES:-100000,1000000}
port=${PGBENCH_PORT:-55440}
data=${PGBENCH_DATA:-/tmp/trove-pgbench}
venv=${PGBENCH_VENV:-$HOME/.cache/trove/bench-postgres-venv}
pg=$shared/tools/postgres

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c "import psycopg, numpy" 2>/dev/null ||
  "$venv/bin/pip" install --disable-pip-version-check -q "psycopg[binary]==3.3.9" "numpy==2.4.6"
bench=${TROVE_BENCH:-}
[ -n "$bench" ] || { swift build -c release --product trove-bench >&2; bench=$PWD/.build/release/trove-bench; }

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if printf '%s\n' "${parts[@]}" | grep -qx sqlite; then
  # Trove's exact scan (SQLite index loaded into one matrix, OpenBLAS sgemv per block) at the same sizes.
  "$bench" search --sizes "$sizes" --dims 384 --queries 50 --variants exact
fi
printf '%s\n' "${parts[@]}" | grep -qx -e relevance -e latency -e vector || exit 0

url=$(bash "$pg/start.sh" "$port" "$data")
trap 'bash "$pg/stop.sh" "$data" >&2 || true' EXIT
# A server sized for the measurement, as a deployment would be: the 1M heap (1.6 GB) in shared buffers, the HNSW
# graph built in memory (pgvector warns and slows down when it outgrows maintenance_work_mem), one parallel worker.
"$pg/.pginstall/bin/psql" "$url" -qc "ALTER SYSTEM SET shared_buffers = '4GB'" \
  -c "ALTER SYSTEM SET maintenance_work_mem = '6GB'" -c "ALTER SYSTEM SET max_parallel_maintenance_workers = 1" \
  -c "ALTER SYSTEM SET effective_cache_size = '12GB'" -c "ALTER SYSTEM SET work_mem = '64MB'"
as=()
[ "$(id -u)" != 0 ] || as=(runuser -u trovepg --)
"${as[@]}" "$pg/.pginstall/bin/pg_ctl" -D "$data" -w -l "$data/server.log" \
  -o "-h 127.0.0.1 -p $port -k $data" restart >&2
selected=()
for part in "${parts[@]}"; do [ "$part" = sqlite ] || selected+=("$part"); done
PYTHONPATH=Benchmarks "$venv/bin/python" -m bench_postgres --url "$url" --bench "$bench" \
  --suite "$shared/datasets" --sizes "$sizes" "${selected[@]}"
