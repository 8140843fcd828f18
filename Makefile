# cuwheel: the two entry points are `make demo` and `make test`; each does its
# own set-up (Debian packages, configure, build) on a fresh machine.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 10
# Only the fuzz targets are built in the fuzz tree (not the CLI or tests).
FUZZ_TARGETS = $(basename $(notdir $(wildcard fuzz/fuzz_*.cc)))

.PHONY: all deps build demo test unit-asan fuzz-smoke clean fixtures bench

all: build

deps:
	@bash scripts/bootstrap.sh

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUWHEEL_TESTS=ON

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default: the project's own fixture wheel and
# libraries, then the CUDA toolkit's libraries when a toolkit is installed.
demo: build
	@bash scripts/demo.sh $(BUILD)/cuwheel

# Every test: unit tests, golden cuobjdump comparisons and CLI end-to-end
# tests under AddressSanitizer + UndefinedBehaviorSanitizer, then each fuzz
# target for a bounded time over the committed corpus.
test: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUWHEEL_SANITIZE=ON -DCUWHEEL_TESTS=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)
	$(MAKE) fuzz-smoke

fuzz-smoke: deps
	CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUWHEEL_FUZZ=ON -DCUWHEEL_TESTS=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)
	bash scripts/fuzz-smoke.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# Rebuilds the committed fixtures and golden listings (needs nvcc and
# cuobjdump; not part of `make test`).
fixtures:
	bash tests/fixtures/build.sh

bench: build
	bash bench/run.sh $(BUILD)/cuwheel

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
