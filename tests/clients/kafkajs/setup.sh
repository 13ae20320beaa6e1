#!/usr/bin/env bash
# Installs kafkajs, at the exact version package.json pins and package-lock.json
# locks, into DIR (called by scripts/setup-clients.sh with DIR =
# <build>/clients/kafkajs). Nothing npm writes goes into the source tree.
# Skipped when DIR/node_modules/kafkajs exists and the lock file is unchanged.
set -euo pipefail
dir=${1:?usage: setup.sh DIR}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
if [ -d "$dir/node_modules/kafkajs" ] && cmp -s "$src/package-lock.json" "$dir/package-lock.json" \
        && cmp -s "$src/package.json" "$dir/package.json"; then
    exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dir/"
cd "$dir"
# npm keeps its cache under $HOME; logs and update checks off.
npm ci --no-audit --no-fund --loglevel=error --no-update-notifier >/dev/null
test -f node_modules/kafkajs/package.json
echo "kafkajs $(node -p 'require("./node_modules/kafkajs/package.json").version') in $dir"
