# Samsa — the two commands: `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
# The libFuzzer targets (tests/fuzz/) build with clang, ASan and UBSan in a dir
# of their own; `make test` runs each for FUZZ_SMOKE_SECONDS.
FUZZ_DIR ?= build-fuzz
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_SECONDS ?= 1800
JOBS ?= $(shell nproc)
SHARED_PROTOCOL ?= ../shared/kafka-protocol

.PHONY: all deps build fuzz-build fuzz run test unit integration faults regen format bench deb clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# A one-node cluster on localhost:9092 with data in ./data. Builds only the
# broker binary (not the tests), so a first run is quick.
run: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target samsa
	exec $(BUILD_DIR)/samsa server config/server.properties

$(FUZZ_DIR)/build.ninja:
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_CXX_COMPILER=clang++ -DSAMSA_FUZZ=ON -DSAMSA_TESTS=OFF -DSAMSA_BENCH=OFF

fuzz-build: deps $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz

# A long run of every fuzz target: make fuzz FUZZ_SECONDS=1800
fuzz: fuzz-build
	scripts/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# Unit tests (ctest), integration tests (pytest against real processes) and a
# short run of every fuzz target; ends with one line "N passed, N failed".
test: build fuzz-build
	@scripts/setup-clients.sh $(BUILD_DIR)/clients
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) scripts/run-tests.sh $(BUILD_DIR)

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

integration: build
	SAMSA_BIN=$(abspath $(BUILD_DIR))/samsa /usr/bin/python3 -m pytest -q tests/integration

# Fault runs (tests/faults, docs/faults.md), as root: a cluster in network
# namespaces under partitions, loss, kills and pauses, checked for lost or
# duplicated acknowledged writes. Quick (about 2 minutes) by default;
# FULL=1: 10 runs of 5 minutes per nemesis. NEMESIS=kind[,kind] SEED=n
# DURATION=s RUNS=n replay or narrow a run (a report prints its command);
# CONTROLLERS=3: separate roles, 3 controller-only nodes beside the brokers.
faults: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target samsa
	@scripts/setup-clients.sh $(BUILD_DIR)/clients
	SAMSA_BIN=$${SAMSA_BIN:-$(abspath $(BUILD_DIR))/samsa} /usr/bin/python3 tests/faults/run.py \
	    $(if $(FULL),--full) $(if $(NEMESIS),--nemesis $(NEMESIS)) $(if $(SEED),--seed $(SEED)) \
	    $(if $(DURATION),--duration $(DURATION)) $(if $(RUNS),--runs $(RUNS)) \
	    $(if $(CONTROLLERS),--controllers $(CONTROLLERS))

# Re-generate the protocol codecs from Kafka's JSON schemas.
regen:
	/usr/bin/python3 tools/protogen/protogen.py --schemas $(SHARED_PROTOCOL) --out src/protocol/generated --tests-out tests/unit/protocol/generated

format:
	git ls-files '*.cc' '*.h' | grep -v '/generated/' | xargs clang-format -i

bench: build
	@ls $(BUILD_DIR)/*_bench >/dev/null 2>&1 && for b in $(BUILD_DIR)/*_bench; do $$b; done || echo "no benchmarks built"

# The Debian package (docs/install.md): a build configured for /usr, then CPack.
DEB_DIR ?= build-deb
deb: deps
	cmake -S . -B $(DEB_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	    -DSAMSA_TESTS=OFF -DSAMSA_BENCH=OFF
	cmake --build $(DEB_DIR) -j $(JOBS) --target samsa
	cd $(DEB_DIR) && cpack -G DEB

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR)
