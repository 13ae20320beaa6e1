#!/usr/bin/env bash
# Builds librdkafka 2.15.1 (a KIP-848 capable client: group.protocol=consumer)
# into DIR (called by scripts/setup-clients.sh with DIR = <build>/clients/librdkafka).
# The sources are the copy @confluentinc/kafka-javascript 1.10.1 bundles under
# deps/librdkafka, fetched with `npm pack` from the npm registry; the library is
# built with the -dev packages scripts/install-deps.sh installs (zlib, OpenSSL,
# zstd, lz4). Debian's python3-confluent-kafka loads it through
#   LD_LIBRARY_PATH=DIR/package/deps/librdkafka/src
# (tests/clients/test_librdkafka_next.py runs its clients that way, in
# subprocesses). Nothing is written to the source tree.
# Skipped when DIR/package/deps/librdkafka/src/librdkafka.so.1 exists and
# reports version 2.15.1.
set -euo pipefail
dir=${1:?usage: setup.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pkg=@confluentinc/kafka-javascript
pkg_version=1.10.1
want=2.15.1
rdk="$dir/package/deps/librdkafka"
lib="$rdk/src/librdkafka.so.1"

lib_version() {
    python3 -c 'import ctypes, sys
f = ctypes.CDLL(sys.argv[1]).rd_kafka_version_str
f.restype = ctypes.c_char_p
print(f().decode())' "$1" 2>/dev/null || true
}

if [ -f "$lib" ] && [ "$(lib_version "$lib")" = "$want" ]; then
    echo "librdkafka: $want in $rdk"
    exit 0
fi

for tool in npm make gcc g++ pkg-config; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "librdkafka: $tool not found (scripts/install-deps.sh installs it)" >&2
        exit 1
    fi
done

cd "$dir"
tarball=confluentinc-kafka-javascript-$pkg_version.tgz
if [ ! -f "$tarball" ]; then
    echo "librdkafka: fetching $pkg@$pkg_version from npm"
    # npm checks the tarball against the registry's integrity hash.
    npm pack "$pkg@$pkg_version" --no-audit --no-fund --loglevel=error \
        --no-update-notifier >/dev/null
fi
rm -rf package
tar xzf "$tarball"
test -x "$rdk/configure"

echo "librdkafka: building $want in $rdk"
cd "$rdk"
# The logs go in DIR, outside the source directory: mklove's configure loads
# every configure.* file beside it as a module.
# Optional dependencies the tests do not use are off so the result does not
# depend on what else the machine has: GSSAPI (libsasl2), the HTTP client
# (libcurl, OIDC only). --no-download: no mklove modules from the network.
if ! ./configure --no-download --disable-gssapi --disable-curl \
        --enable-zlib --enable-ssl --enable-zstd >"$dir/rdk-configure.txt" 2>&1; then
    tail -30 "$dir/rdk-configure.txt" >&2
    echo "librdkafka: configure failed, see $dir/rdk-configure.txt" >&2
    exit 1
fi
if ! make -j"${JOBS:-2}" libs >"$dir/rdk-make.txt" 2>&1; then
    tail -30 "$dir/rdk-make.txt" >&2
    echo "librdkafka: make failed, see $dir/rdk-make.txt" >&2
    exit 1
fi
got=$(lib_version "$lib")
if [ "$got" != "$want" ]; then
    echo "librdkafka: $lib reports version '$got', expected $want" >&2
    exit 1
fi
echo "librdkafka: $want in $rdk"
