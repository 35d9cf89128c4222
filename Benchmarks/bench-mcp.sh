#!/usr/bin/env bash
# p50 of a `search` tool call through the official MCP Python SDK (../shared/tools/mcp-client), Corpora/, built-in
# embedder, after the first call; ping and a keyword search beside it in the same run, the 20 queries of
# Tests/Fixtures/corpus-queries.tsv in turn. Usage: Benchmarks/bench-mcp.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-200}
client=../shared/tools/mcp-client
[ -x "$client/.venv/bin/python" ] || bash "$client/setup.sh" >&2
swift build -c release --product trove >&2
index=$(mktemp -d)/corpora.sqlite
.build/release/trove index --quiet --embedder builtin --index "$index" Corpora >&2
"$client/.venv/bin/python" Tests/MCPClient/sdk_checks.py bench "$rounds" Tests/Fixtures/corpus-queries.tsv -- \
    .build/release/trove mcp --index "$index" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("| call | p50 ms | p90 ms | min ms |   (%d rounds; first search %.0f ms)" % (r["calls"], r["first_search_ms"]))
print("|---|---|---|---|")
for kind in ("ping", "search keyword", "search"):
    k = r[kind]
    print("| %s | %.1f | %.1f | %.1f |" % (kind, k["p50_ms"], k["p90_ms"], k["min_ms"]))'
rm -f "$index" "$index".*
