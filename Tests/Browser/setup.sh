#!/usr/bin/env bash
# Makes .build/browser-venv with Selenium (PyPI), the WebDriver client the browser tests drive Debian's chromium and
# chromium-driver with (Tests/TroveWebTests/BrowserTests.swift). Idempotent; a test tool only, never a dependency.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.build/browser-venv
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import selenium" 2>/dev/null; then exit 0; fi
mkdir -p .build
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==4.51.0"
