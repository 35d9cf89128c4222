# Sourced by Scripts/demo.sh, Scripts/test.sh and Scripts/install.sh: makes sure what Trove builds and runs with is
# on the machine, installing what is missing where that is allowed, and saying exactly what to run where it is not.

# The Debian/Ubuntu packages Trove itself needs: SQLite's headers and pkg-config to build, OpenBLAS to score.
TROVE_PACKAGES=(libsqlite3-dev libpq-dev pkg-config libopenblas0)
# PDF: poppler's pdftotext and pdftohtml (run as programs, never linked) and poppler-data, without which Chinese and
# Japanese PDFs come out empty; bubblewrap confines the extraction worker where the kernel allows it.
TROVE_PACKAGES+=(poppler-utils poppler-data bubblewrap)
# --ocr (opt-in): tesseract reads scanned PDFs' pages, which pdftoppm (poppler-utils) renders.
TROVE_PACKAGES+=(tesseract-ocr tesseract-ocr-eng)
# HTML (and EPUB chapters, mail bodies): libxml2's headers, for its HTML parser (linked, MIT).
TROVE_PACKAGES+=(libxml2-dev)
# DOCX, ODT, PPTX, EPUB: zlib's headers, for Trove's own zip reader over its raw inflate.
TROVE_PACKAGES+=(zlib1g-dev)
# Text files in legacy encodings (Latin-1, Shift_JIS, GB18030, …): uchardet detects the charset, glibc's iconv reads it.
TROVE_PACKAGES+=(libuchardet-dev)
# trove web's HTTP server: libmicrohttpd's headers (linked, LGPL-2.1+).
TROVE_PACKAGES+=(libmicrohttpd-dev)

# require_packages PKG…: installs the missing ones with apt-get, as root or through sudo (asking for a password
# only on a terminal); anything else prints the command to run and exits 69 (a prerequisite is unavailable).
require_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q ' installed$' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local command="apt-get install ${missing[*]}"
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing packages ${missing[*]}, and this is not a Debian or Ubuntu machine (no apt-get):" \
            "install their equivalents, then run this again" >&2
        exit 69
    fi
    local as=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
            as=(sudo)
        else
            echo "error: missing packages ${missing[*]} — install them, then run this again:" >&2
            echo "    sudo $command" >&2
            exit 69
        fi
    fi
    echo "installing ${missing[*]} (${as[*]:-as root}: apt-get install)…" >&2
    if ! { "${as[@]}" apt-get update -qq && "${as[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        "${missing[@]}"; } >&2; then
        echo "error: could not install ${missing[*]} — install them, then run this again:" >&2
        echo "    ${as[*]:+${as[*]} }$command" >&2
        exit 69
    fi
}

# require_swift: the Swift toolchain cannot come from apt; say where it comes from.
require_swift() {
    command -v swift >/dev/null 2>&1 && return 0
    echo "error: no swift on PATH — install Swift 6 for Linux (https://swift.org/install), then run this again" >&2
    exit 69
}
