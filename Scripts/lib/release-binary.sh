# Sourced by Scripts/install.sh and Scripts/package-deb.sh: the one release build of trove that is installed or
# packaged.

# build_release_binary: builds trove in release mode with the Swift runtime linked in (--static-swift-stdlib, so it
# runs where no Swift toolchain is installed), recording the git commit and the build date for `trove --version`;
# sets $binary to its path. Fails when the binary still links the Swift runtime dynamically.
build_release_binary() {
    local commit date scratch
    commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    if [ "$commit" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then commit+="-modified"; fi
    date=$(date -u +%Y-%m-%d)
    # Its own scratch folder: the recorded commit and date change every C and Swift command line, which would
    # otherwise throw away the everyday build in .build.
    scratch=.build/install
    echo "building trove (release, Swift runtime linked in) at $commit…" >&2
    swift build -c release --product trove --static-swift-stdlib --scratch-path "$scratch" \
        -Xcc "-DTROVE_GIT_COMMIT=\"$commit\"" -Xcc "-DTROVE_BUILD_DATE=\"$date\"" >&2
    binary=$(swift build -c release --product trove --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/trove

    if ldd "$binary" | grep -q 'libswift\|libFoundation\|lib_Foundation\|libdispatch'; then
        echo "error: $binary still links the Swift runtime dynamically:" >&2
        ldd "$binary" | grep 'swift\|Foundation\|dispatch' >&2
        return 1
    fi
}
