#!/usr/bin/env bash
# Builds Trove's libFuzzer targets with the toolchain's -sanitize=fuzzer (plus AddressSanitizer) and runs each for
# SECONDS (default 60) from its committed seed corpus in Fuzz/corpus/TARGET. Any crash, trap, leak or hang
# (over 10 s for one input) fails the script; the input that did it is left in .build/fuzz/crashes/TARGET/.
#
#   Scripts/fuzz.sh                 # every target, 60 s each
#   Scripts/fuzz.sh 5               # the short pass CI runs
#   Scripts/fuzz.sh 600 chunker     # one target, 10 minutes
#   FUZZ_SEED=1 Scripts/fuzz.sh 5   # the same mutations every run (the test command's pass: a CI failure is a
#                                   # change of code, not a new random draw; long campaigns stay random)
#
# Each target is its harness (Fuzz/TARGET/Harness.swift) compiled into one module with the sources it tests, so it
# reaches their internal and package declarations exactly as the tests do. New inputs libFuzzer finds go to
# .build/fuzz/corpus/TARGET (a working copy), never into the committed seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
all=(ndjson sse gitignore fts5 vectors-header safetensors chunker jsonrpc serve serve-reply pdftext zip ooxml odf epub web html mime ipynb)
targets=("${@:-${all[@]}}")
out=.build/fuzz
mkdir -p "$out"

# Test fixtures that seed a target too (read, never written: new inputs go to the first folder), so that real files
# are not kept twice in the repository.
fixture_seeds() {
    case "$1" in
        html) echo Tests/TroveExtractTests/Fixtures/html ;;
        mime) echo Tests/TroveExtractTests/Fixtures/mail ;;
    esac
}

sources() {
    case "$1" in
        ndjson) echo Sources/Ollama/NDJSONFramer.swift ;;
        sse) echo Sources/OpenAICompatible/SSEFramer.swift ;;
        gitignore | chunker) find Sources/TroveIngest -name '*.swift' | sort ;;
        # The whole store, its PostgreSQL half (Sources/TroveStore/Postgres, libpq) included.
        fts5 | vectors-header) find Sources/TroveStore -name '*.swift' | sort ;;
        safetensors) echo Sources/TroveMiniLM/{SafeTensors,SafeTensorsHeader,MiniLMError,FileIdentity,ModelFolder}.swift ;;
        # The framer and the JSON value come from TroveSystem, built for every target.
        jsonrpc) echo Sources/TroveMCP/JSONRPC.swift ;;
        # The protocol's types, its checks and its hand-written wire; what they import comes from modules() below.
        serve | serve-reply) echo Sources/TroveServe/{Protocol,Protocol+Checks,Admission,Wire}.swift ;;
        # The readers of poppler's output and the builder they write with; TroveIngest comes from modules().
        pdftext) echo Sources/TroveExtract/PDF/{PDFText,PDFOutline}.swift Sources/TroveExtract/DocumentBuilder.swift ;;
        # The zip reader alone; then the readers of each container format with the XML layer, the text flow and the
        # builder they write with (zlib through Sources/CZlib's module map; TroveIngest comes from modules()).
        zip) echo Sources/TroveExtract/Zip/*.swift Fuzz/shared/ContainerChecks.swift ;;
        ooxml) echo Sources/TroveExtract/{Zip,XML,OOXML}/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        odf) echo Sources/TroveExtract/{Zip,XML,ODF}/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        epub) echo Sources/TroveExtract/{Zip,XML,EPUB,HTML}/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        # The markup readers with the builder they write with (libxml2 through Sources/CLibXML2; TroveIngest, with its
        # charset decoding, comes from modules()); mail reads HTML parts through the HTML reader.
        html) echo Sources/TroveExtract/HTML/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        mime) echo Sources/TroveExtract/{Mail,HTML}/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        ipynb) echo Sources/TroveExtract/Notebook/*.swift Sources/TroveExtract/{DocumentBuilder,DocumentExtractor}.swift Fuzz/shared/ContainerChecks.swift ;;
        # trove web's server on libmicrohttpd, its guard and its query reading (libmicrohttpd through Sources/CMicroHTTPD).
        web) echo Sources/TroveWeb/{HTTPMessage,HTTPServer,Listener,Access,WebResponses,QueryArguments}.swift ;;
        *) echo "unknown fuzz target '$1' — one of: ${all[*]}" >&2; exit 64 ;;
    esac
}

# A C target of ours (Sources/NAME: its .c files, its headers in include/): built once, instrumented the same way,
# with the module map SwiftPM would generate for it. TroveStore links CTroveFTS (the FTS5 extensions), TroveSearch
# CTroveScan (the scan kernels).
cmodule() {
    local name="$1" dir="$out/$1" objects=() source object
    mkdir -p "$dir"
    for source in Sources/"$name"/*.c; do
        object="$dir/$(basename "${source%.c}").o"
        if [ ! -f "$object" ] || [ -n "$(find "$source" Sources/"$name"/include -newer "$object" 2>/dev/null)" ]; then
            clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/"$name"/include -c "$source" -o "$object"
        fi
        objects+=("$object")
    done
    {
        printf 'module %s {\n' "$name"
        for header in "$PWD"/Sources/"$name"/include/*.h; do printf '    header "%s"\n' "$header"; done
        printf '    export *\n}\n'
    } >"$dir/module.modulemap"
    echo "-I $dir ${objects[*]} -lm"
}

# TroveStore's PostgreSQL half imports libpq through Sources/CPostgres (its header path from pkg-config).
pq_flags() {
    echo "-I Sources/CPostgres $(pkg-config --cflags-only-I libpq | sed 's/-I/-Xcc -I/g')"
}

# The other system libraries our sources import, each through its module map in Sources/: uchardet (TroveIngest's
# encoding detection), libxml2 (the HTML reader), zlib (the zip reader); their header paths from pkg-config.
system_flags() {
    echo "-I Sources/CUchardet -I Sources/CLibXML2 -I Sources/CZlib -I Sources/CMicroHTTPD" \
        "$(pkg-config --cflags-only-I uchardet libxml-2.0 zlib | sed 's/-I/-Xcc -I/g')"
}

# A module the harness imports (TroveKit's request types import TroveStore, TroveSearch and TroveIngest): built
# once, instrumented like the harness, so libFuzzer sees coverage inside it and ASan checks it. From all the sources
# of Sources/NAME, or from the FILEs named, under the target's name: what the fuzzed sources use of TroveKit (the
# request types) and of TroveOutput (the output style), without the rest of either and all it imports.
module() {
    local name="$1" dir="$out/modules"
    shift
    local files=("$@")
    [ ${#files[@]} -gt 0 ] || mapfile -t files < <(find "Sources/$name" -name '*.swift' | sort)
    # Our C targets' module maps (cmodule) are where TroveStore and TroveSearch find them; a folder may still be empty.
    mkdir -p "$dir" "$out/CTroveFTS" "$out/CTroveScan"
    if [ ! -f "$dir/$name.o" ] || [ -n "$(find "${files[@]}" -newer "$dir/$name.o" 2>/dev/null)" ]; then
        rm -f "$dir/$name.o"
        swiftc -O -g -parse-as-library -sanitize=fuzzer,address -package-name Trove -module-name "$name" -wmo \
            -emit-module -emit-module-path "$dir/$name.swiftmodule" -I "$dir" -I "$out/CTroveFTS" -I "$out/CTroveScan" \
            -I Sources/CSQLite \
            $(pq_flags) $(system_flags) -c "${files[@]}" -o "$dir/$name.o" 2>&1 | grep -v "ld.gold: warning" >&2 || true
        [ -f "$dir/$name.o" ] || { echo "cannot build module $name for fuzzing" >&2; exit 1; }
    fi
    echo "$dir/$name.o"
}

# The modules a target imports, built in dependency order, and what linking them needs.
modules() {
    case "$1" in
        serve)
            local fts scan
            fts=$(cmodule CTroveFTS)
            scan=$(cmodule CTroveScan)
            local objects=(
                "$(module TroveBLAS)" "$(module TroveSearch)" "$(module TroveIngest)"
                "$(module TroveStore)"
                "$(module TroveKit Sources/TroveKit/Double+PlainText.swift Sources/TroveKit/Providers/Provider.swift \
                    Sources/TroveKit/Search/{SearchRequest,SearchRequest+Checks,SearchRequestError}.swift \
                    Sources/TroveKit/Search/{SearchMode,FusionMethod,SearchHit,SearchFilter,VectorScan}.swift)"
                "$(module TroveOutput Sources/TroveOutput/OutputStyle.swift)"
            )
            echo "${objects[*]} $fts $scan"
            ;;
    esac
}

# Leaks inside the toolchain's libraries (each named and explained in the file) are not findings.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

failed=()
for target in "${targets[@]}"; do
    files=$(sources "$target")
    binary="$out/$target"
    # Rebuilt only when a source or the harness is newer than the binary.
    if [ ! -x "$binary" ] || [ -n "$(find $files Sources/CTroveFTS Sources/CTroveScan "$out/modules" "Fuzz/$target/Harness.swift" -newer "$binary" 2>/dev/null)" ]; then
        echo "building $target" >&2
        rm -f "$binary"  # a failed build must fail the run, not leave an old binary to fuzz
        # Every target's sources may use the ground floor, TroveSystem (it imports nothing of ours).
        extra="-I $out/modules $(module TroveSystem)"
        case "$target" in
            fts5 | vectors-header) extra="$extra $(cmodule CTroveFTS)" ;;
            serve | serve-reply) extra="$extra $(modules serve)" ;;
            pdftext) extra="$extra $(module TroveIngest)" ;;
            zip | ooxml | odf | epub | html | mime | ipynb) extra="$extra $(module TroveIngest)" ;;
        esac
        # -O with -sanitize=fuzzer: libFuzzer's coverage counters guide it; ASan catches any out-of-bounds read.
        swiftc -O -g -parse-as-library -sanitize=fuzzer,address -package-name Trove -module-name FuzzTarget \
            -I Sources/CSQLite -lsqlite3 $(pq_flags) -lpq $(system_flags) -luchardet -lxml2 -lz -lmicrohttpd $extra $files "Fuzz/$target/Harness.swift" -o "$binary" 2>&1 \
            | grep -v "ld.gold: warning: Cannot export local symbol" >&2 || true
        [ -x "$binary" ] || { echo "cannot build fuzz target $target" >&2; exit 1; }
    fi
    corpus="$out/corpus/$target"
    crashes="$out/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    echo "fuzzing $target for ${seconds} s" >&2
    log="$out/$target.log"
    if "$binary" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$corpus" "Fuzz/corpus/$target" $(fixture_seeds "$target") >"$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
        cover=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
        echo "  $target: ok, $runs executions, $cover" >&2
    else
        echo "  $target: FAILED — see $log; the input is in $crashes/" >&2
        tail -30 "$log" >&2
        failed+=("$target")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found failures in: ${failed[*]}" >&2
    exit 1
fi
