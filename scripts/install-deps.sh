#!/usr/bin/env bash
# Installs every Debian package Samsa needs to build, test and benchmark.
# Idempotent: only missing packages are installed. Run as root.
set -euo pipefail

build_packages=(
  g++ cmake make ninja-build pkg-config python3 clang-format
  libasio-dev zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev libssl-dev libxxhash-dev
  libspdlog-dev libfmt-dev libcli11-dev librdkafka-dev libcivetweb-dev nlohmann-json3-dev
  libsystemd-dev libre2-dev
)
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-dev
  kcat python3-confluent-kafka python3-pytest
  python3-kafka python3-prometheus-client iproute2 nftables libfaketime chromium chromium-driver python3-selenium golang-go golang-github-shopify-sarama-dev
)

want=("${build_packages[@]}")
if [ "${1:-}" != "--build-only" ]; then
  want+=("${test_packages[@]}")
  # kafkajs comes from npm (scripts/setup-clients.sh); a machine whose Node.js
  # did not come from Debian keeps its own npm.
  command -v npm >/dev/null 2>&1 || want+=(nodejs npm)
fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo $0) to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
