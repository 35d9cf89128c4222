#!/usr/bin/env bash
# Extraction speed per format (issue 27, item 9): PDF pages/s, HTML MB/s, DOCX/ODT/EPUB files/s, through the real
# path (the extraction worker, confined where bubblewrap works), beside bare `pdftotext` on the same PDFs in the same
# rounds; then extraction's share of a whole `trove index` of the same folder (built-in embedder).
#
#   Benchmarks/bench-extract.sh [ROUNDS]        (default 3)
#
# The documents are real ones made by others: Debian's documentation packages, fetched with `apt-get download`
# into .build/bench-extract (the Ubuntu packaging guide as PDF and EPUB, Debian's live-manual as PDF, EPUB, ODT and
# HTML, SQLite's HTML documentation, python-docx's own template).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
work=.build/bench-extract
docs=$work/documents
mkdir -p "$work/debs" "$docs"

packages=(ubuntu-packaging-guide-pdf ubuntu-packaging-guide-epub live-manual-pdf live-manual-epub live-manual-odf
    live-manual-html sqlite3-doc python3-docx)
if [ -z "$(ls "$docs")" ]; then
    (cd "$work/debs" && apt-get download "${packages[@]}" >&2) || {
        echo "note: apt-get download failed (offline?): nothing to measure" >&2
        exit 69
    }
    for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    # English only where a manual ships several languages; every file of an extracted format, flattened.
    find "$work/root" -type f \( -name '*.pdf' -o -name '*.epub' -o -name '*.odt' -o -name '*.docx' -o -name '*.html' \) \
        | grep -v -E 'live-manual\.[a-z]{2}(_[A-Z]{2})?\.|/[a-z]{2}(_[A-Z]{2})?/' | grep -v -E '\.(de|es|fr|it|ja|pl|pt_BR|ro|ca|ru)\.' \
        | while read -r file; do cp "$file" "$docs/$(echo "${file#"$work"/root/}" | tr / _)"; done
fi
echo "documents: $(ls "$docs" | sed 's/.*\.//' | sort | uniq -c | tr '\n' ' ')" >&2

# A scratch folder of its own, so the everyday debug build in .build is neither blocked nor thrown away.
scratch=${SCRATCH:-.build/bench}
swift build -c release --product trove --scratch-path "$scratch" >&2
swift build -c release --product trove-bench --scratch-path "$scratch" >&2
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)

echo "## $(date -u +%Y-%m-%d) $(git rev-parse --short HEAD), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), kernel $(uname -r), $(nproc) vCPUs"
"$bin/trove-bench" extract --rounds "$rounds" --trove "$bin/trove" "$docs"
echo "unconfined (no bubblewrap), same files:"
"$bin/trove-bench" extract --rounds "$rounds" --trove "$bin/trove" --unconfined "$docs" | tail -n +2

# Extraction's share of an indexing run: the whole `trove index` of the folder (fresh index, built-in embedder),
# against the extraction time of the same files measured above.
index=$work/index.sqlite
rm -f "$index"*
start=$(date +%s.%N)
"$bin/trove" index --index "$index" --embedder builtin "$docs" >"$work/index.log" 2>&1 || true
end=$(date +%s.%N)
echo "trove index of the same folder (built-in embedder, fresh index): $(echo "$end - $start" | bc) s"
echo "  its summary: $(tail -1 "$work/index.log")"
