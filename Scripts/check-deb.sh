#!/usr/bin/env bash
# Checks the Debian packages on a clean Debian 12 as a new user meets them: Scripts/check-deb.sh [DEB…]
#
# Without arguments it builds them first (Scripts/package-deb.sh). Then it makes a clean bookworm root with
# debootstrap (minbase, from $DEBIAN_MIRROR, default deb.debian.org), installs the packages there with
# apt-get install ./trove_*.deb ./trove-model-*.deb (with man-db and bash-completion, as a desktop has them), and,
# as an ordinary user with no network at all (a network namespace of its own): indexes Corpora/, searches it, asks
# it with --extractive, reads `man trove` and tab-completes `trove ind` in bash. Last, apt-get purge must leave no
# file of the packages behind. Needs root (debootstrap, chroot, unshare) and a few minutes; not part of
# Scripts/test.sh. Exits 1 at the first check that fails, saying which. TROVE_CHECK_BASE=DIR copies DIR instead of
# running debootstrap: a root debootstrap made the same way and never used (debootstrap takes minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/requirements.sh

if [ "$(id -u)" -ne 0 ]; then
    echo "error: debootstrap, chroot and unshare need root — run: sudo Scripts/check-deb.sh" >&2
    exit 77
fi
require_packages debootstrap
if [ $# -eq 0 ]; then mapfile -t debs < <(Scripts/package-deb.sh); else debs=("$@"); fi
for deb in "${debs[@]}"; do [ -f "$deb" ] || { echo "error: no such package: $deb" >&2; exit 66; }; done

root=$(mktemp -d /var/tmp/trove-check-deb.XXXXXX)
cleanup() {
    for mount in "$root/dev" "$root/proc"; do mountpoint -q "$mount" && umount -l "$mount"; done
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
inside() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
# As the user maya, with no network: a network namespace holds only a loopback that is down.
as_user() {
    unshare --net chroot --userspec=maya:maya "$root" \
        env -i HOME=/home/maya USER=maya PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=dumb bash -c "cd ~ && $1"
}

if [ -n "${TROVE_CHECK_BASE:-}" ]; then
    step "a copy of $TROVE_CHECK_BASE (debootstrap --variant=minbase bookworm) in $root"
    cp -a "$TROVE_CHECK_BASE/." "$root/"
else
    step "debootstrap bookworm (minbase) into $root"
    debootstrap --variant=minbase bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
fi
echo "Debian $(cat "$root/etc/debian_version")"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"

step "apt-get install ${debs[*]##*/} (and man-db, bash-completion)"
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
inside apt-get update -qq
inside bash -c 'apt-get install -y -qq /tmp/debs/*.deb man-db bash-completion >/dev/null'
inside dpkg-query -W -f='${Package} ${Version} ${Status}\n' trove trove-model-all-minilm-l6-v2
mapfile -t owned < <(inside dpkg -L trove trove-model-all-minilm-l6-v2 | while read -r path; do
    [ -f "$root$path" ] && echo "$path"; done)
echo "${#owned[@]} files installed"

step "an ordinary user, no network"
inside useradd -m -s /bin/bash maya
cp -r Corpora "$root/home/maya/Corpora"
inside chown -R maya:maya /home/maya/Corpora
as_user 'getent hosts deb.debian.org >/dev/null && echo "network: reachable" || echo "network: none (as planned)"'

step "trove index Corpora"
index=$(as_user 'trove index Corpora 2>&1') || fail "trove index exited $?: $index"
echo "$index"
grep -q "^new index at /home/maya/.local/share/trove/index.sqlite" <<<"$index" \
    || fail "no line saying where the index lives"
grep -q "so this new index uses Trove's built-in model, all-MiniLM-L6-v2 (English" <<<"$index" \
    || fail "no note of the built-in model"
grep -q "^38 new, .* with all-minilm-l6-v2 in" <<<"$index" || fail "Corpora/ was not indexed with the built-in model"

step "trove search \"my basil is drooping\""
search=$(as_user 'trove search -n 3 "my basil is drooping"') || fail "trove search exited $?"
echo "$search"
grep -q "^Corpora/personal/houseplants.md:" <<<"$search" || fail "the houseplants note is not the first hit"

step "trove ask --extractive \"who gets paged at night?\""
ask=$(as_user 'trove ask --extractive "who gets paged at night?" 2>&1') || fail "trove ask exited $?: $ask"
echo "$ask" | head -12
grep -q "oncall-handbook.md" <<<"$ask" || fail "the answer does not cite the on-call handbook"

step "trove status, trove doctor"
as_user 'trove status && trove doctor' || fail "trove status or doctor failed"

step "man trove"
man=$(as_user 'MANPAGER=cat MANWIDTH=100 man trove 2>&1') || fail "man trove exited $?: $man"
echo "$man" | head -8
grep -q "trove index" <<<"$man" || fail "man trove does not describe trove index"

step "bash: trove ind<TAB>"
completion=$(as_user 'source /usr/share/bash-completion/bash_completion
    COMP_WORDS=(trove ind); COMP_CWORD=1; COMP_LINE="trove ind"; COMP_POINT=${#COMP_LINE}
    _completion_loader trove
    function=$(complete -p trove | sed -n "s/.*-F \([^ ]*\).*/\1/p")
    "$function" trove ind trove
    echo "${COMPREPLY[*]}"') || fail "bash completion failed: $completion"
echo "completes to: $completion"
[ "$completion" = index ] || fail "trove ind<TAB> completed to '$completion', not 'index'"

step "apt-get purge trove trove-model-all-minilm-l6-v2"
inside apt-get purge -y -qq trove trove-model-all-minilm-l6-v2 >/dev/null
left=()
for path in "${owned[@]}"; do [ -e "$root$path" ] && left+=("$path"); done
mapfile -t named < <(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./home -o -path ./tmp \) \
    -prune -o -name '*trove*' -print)
if [ ${#left[@]} -gt 0 ] || [ ${#named[@]} -gt 0 ]; then
    printf 'left behind: %s\n' "${left[@]}" "${named[@]}" >&2
    fail "apt-get purge left files behind"
fi
echo "nothing of trove is left outside the user's home (which keeps the user's own index)"
step "all checks passed"
