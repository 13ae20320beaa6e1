#!/usr/bin/env bash
# Builds the sarama test program (tests/clients/sarama/*.go) into DIR/sarama-client
# with Debian's Go and Debian's sarama (golang-github-shopify-sarama-dev), in
# GOPATH mode: no go.mod, no module downloads, nothing written to the source tree.
# DIR/gopath/src/samsa-sarama-client is a symlink to this directory; the build
# cache is DIR/gocache. Skipped when the binary is newer than every .go file.
set -euo pipefail
dir=${1:?usage: setup.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$(cd "$(dirname "$0")" && pwd)
go=${GO:-/usr/bin/go}
bin="$dir/sarama-client"

if [ -x "$bin" ]; then
    stale=0
    for f in "$src"/*.go; do
        if [ "$f" -nt "$bin" ]; then stale=1; break; fi
    done
    if [ "$stale" = 0 ]; then
        echo "sarama: $bin is up to date"
        exit 0
    fi
fi

if [ ! -x "$go" ]; then
    echo "sarama: $go not found (install golang-go)" >&2
    exit 1
fi
if [ ! -d /usr/share/gocode/src/github.com/Shopify/sarama ]; then
    echo "sarama: /usr/share/gocode/src/github.com/Shopify/sarama not found" \
         "(install golang-github-shopify-sarama-dev)" >&2
    exit 1
fi

mkdir -p "$dir/gopath/src" "$dir/gocache"
ln -sfn "$src" "$dir/gopath/src/samsa-sarama-client"
echo "sarama: building $bin"
# cgo stays on: sarama's zstd codec is github.com/DataDog/zstd, a cgo package.
(cd "$dir" &&
    env GO111MODULE=off GOPATH="$dir/gopath:/usr/share/gocode" GOCACHE="$dir/gocache" \
        GOFLAGS= GOPROXY=off CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -Wno-deprecated-declarations" \
        "$go" build -o "$bin.tmp" samsa-sarama-client)
mv -f "$bin.tmp" "$bin"
