#!/usr/bin/env bash
# Extraction speed per format (issue 27, item 9): PDF pages/s, HTML MB/s, DOCX/ODT/PPTX/EPUB/notebook files/s,
# through the real path (the extraction worker, confined where bubblewrap works), beside bare `pdftotext` on the same
# PDFs; then extraction's share of a whole `trove index` (built-in embedder) of a mixed folder. Every figure is in
# CPU seconds (user + system of the process tree, worker and tools included), which a loaded host inflates far less
# than wall-clock time; the best round's wall-clock seconds are printed beside them.
#
#   Benchmarks/bench-extract.sh [ROUNDS]        (default 3; needs /usr/bin/time, Debian's `time`; BIN=DIR: see below)
#
# The documents are real ones made by others: Debian's documentation packages, fetched with `apt-get download`
# into .build/bench-extract (the Ubuntu packaging guide as EPUB, libtasn1's manual as PDF, Debian's live-manual in
# English as PDF, EPUB, ODT and HTML, SQLite's HTML documentation and its PDF, python-docx's own template), and the
# committed test fixtures (the Shared MIME-info spec PDF, python-docx's, python-pptx's and odfpy's test files,
# nbformat's notebooks: Tests/TroveExtractTests/Fixtures).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
work=.build/bench-extract
docs=$work/documents
fixtures=Tests/TroveExtractTests/Fixtures
mkdir -p "$work/debs" "$docs"

packages=(ubuntu-packaging-guide-epub libtasn1-doc live-manual-pdf live-manual-epub live-manual-odf live-manual-html
    sqlite3-doc python3-docx)
if [ -z "$(ls "$docs")" ]; then
    if [ -z "$(ls "$work"/debs/*.deb 2>/dev/null)" ]; then
        (cd "$work/debs" && apt-get download "${packages[@]}" >&2) || {
            echo "note: apt-get download failed (offline?): nothing to measure" >&2
            exit 69
        }
    fi
    for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    # English only where a manual ships several languages (live-manual.en.epub, not .de.); every file of an
    # extracted format, flattened.
    find "$work/root" -type f \( -name '*.pdf' -o -name '*.epub' -o -name '*.odt' -o -name '*.docx' -o -name '*.html' \) \
        | grep -v -E '/[a-z]{2}(_[A-Z]{2})?/' | grep -v -E '\.(de|es|fr|it|ja|pl|pt_BR|ro|ca|ru)\.' \
        | while read -r file; do cp "$file" "$docs/$(echo "${file#"$work"/root/}" | tr / _)"; done
fi
echo "documents: $(ls "$docs" | sed 's/.*\.//' | sort | uniq -c | tr '\n' ' ')" >&2

# A scratch folder of its own, so the everyday debug build in .build is neither blocked nor thrown away; BIN=DIR
# uses release builds of trove and trove-bench already there instead.
if [ -n "${BIN:-}" ]; then
    bin=$BIN
else
    scratch=${SCRATCH:-.build/bench}
    swift build -c release --product trove --scratch-path "$scratch" >&2
    swift build -c release --product trove-bench --scratch-path "$scratch" >&2
    bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
fi
operands=("$docs" "$fixtures/pdf/shared-mime-info-spec.pdf" "$fixtures/docx" "$fixtures/odt" "$fixtures/pptx"
    "$fixtures/notebook")

echo "## $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r), $(nproc) vCPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/trove-bench" extract --rounds "$rounds" --trove "$bin/trove" "${operands[@]}"
echo "unconfined (no bubblewrap), same files:"
"$bin/trove-bench" extract --rounds "$rounds" --trove "$bin/trove" --unconfined "${operands[@]}" | tail -n +2

# Extraction's share of an indexing run: a mixed folder (every document but the HTML pages, of which the first 60)
# extracted once, against the whole `trove index` of it (fresh index, built-in embedder), both in CPU seconds.
share=$work/share
rm -rf "$share" && mkdir -p "$share"
ls "$docs" | grep -v '\.html$' | while read -r file; do cp "$docs/$file" "$share/"; done
ls "$docs" | grep '\.html$' | head -60 | while read -r file; do cp "$docs/$file" "$share/"; done
for folder in docx odt pptx notebook; do cp "$fixtures/$folder"/*.* "$share/"; done
rm -f "$share"/SOURCES.md
echo "extraction of the mixed folder ($(ls "$share" | wc -l) files), once:"
"$bin/trove-bench" extract --rounds 1 --trove "$bin/trove" "$share" | tail -1
index=$work/index.sqlite
rm -f "$index"*
format="trove index of the same folder (built-in embedder, fresh index): %U user + %S system CPU s, %e s wall"
/usr/bin/time -f "$format" "$bin/trove" index --index "$index" --embedder builtin "$share" >"$work/index.log" 2>&1 \
    || true
tail -2 "$work/index.log"
