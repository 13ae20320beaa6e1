#!/usr/bin/env bash
# Prepares the clients of tests/clients that do not come ready from Debian, in
# DIR (default build/clients), never in the source tree:
#   kafkajs   from npm, at the version tests/clients/kafkajs/package.json pins
#   sarama    the test program, built with Debian's Go and Debian's sarama
#             (GOPATH mode, no module downloads)
#   librdkafka 2.15.1 (KIP-848 consumer groups), built from the copy the npm
#             package @confluentinc/kafka-javascript 1.10.1 bundles; Debian's
#             python3-confluent-kafka loads it through LD_LIBRARY_PATH
# Each client's own steps are tests/clients/<client>/setup.sh DIR/<client>.
# Idempotent: a step whose output is newer than its inputs is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/clients}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
for setup in tests/clients/*/setup.sh; do
    [ -e "$setup" ] || continue
    client=$(basename "$(dirname "$setup")")
    mkdir -p "$dir/$client"
    bash "$setup" "$dir/$client"
done
