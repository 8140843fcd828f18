# cuwheel: the two entry points are `make demo` and `make test`; each does its
# own set-up (Debian packages, configure, build) on a fresh machine.

BUILD      ?= build
TEST_BUILD ?= build-test
DEMO_BUILD ?= build-demo
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 10
FUZZ_TARGETS = $(basename $(notdir $(wildcard fuzz/fuzz_*.cc)))

.PHONY: all deps build demo test fuzz-smoke clean fixtures bench wheel python-tests example

all: build

deps:
	@bash scripts/bootstrap.sh

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUWHEEL_TESTS=ON

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the embedded default: the project's own fixture wheel and
# libraries, then the CUDA toolkit's libraries when a toolkit is installed.
# Builds only what the demo runs (a Release CLI, no test binaries), its
# log in $(DEMO_BUILD)/build.log, shown when the build fails.
demo: deps
	@bash scripts/build-quiet.sh $(DEMO_BUILD) cuwheel -DCMAKE_BUILD_TYPE=Release -DCUWHEEL_TESTS=OFF
	@bash scripts/demo.sh $(DEMO_BUILD)/cuwheel

# The worked example (examples/dual-major/README.md): the seeds' whole
# pipeline on a core wheel and CUDA 12 / CUDA 13 plugin wheels, built from
# source (needs PyPI the first time and the CUDA 13 toolkit). `make test`
# runs its short form on the committed wheels.
example: deps
	@bash scripts/build-quiet.sh $(DEMO_BUILD) cuwheel -DCMAKE_BUILD_TYPE=Release -DCUWHEEL_TESTS=OFF
	bash examples/dual-major/flow.sh --cuwheel $(DEMO_BUILD)/cuwheel

# Every test: unit tests, golden cuobjdump comparisons and CLI end-to-end
# tests under AddressSanitizer + UndefinedBehaviorSanitizer, then each fuzz
# target for a bounded time over the committed corpus. One tree serves both:
# clang compiles every object once with the sanitizers and libFuzzer's
# coverage hooks; the fuzz targets link libFuzzer, the rest does not.
TEST_CONFIGURE = cmake -S . -B $(TEST_BUILD) -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
	-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
	-DCUWHEEL_SANITIZE=ON -DCUWHEEL_FUZZ=ON -DCUWHEEL_TESTS=ON

test: deps
	$(TEST_CONFIGURE)
	cmake --build $(TEST_BUILD) -j $(JOBS)
	cd $(TEST_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)
	bash scripts/fuzz-smoke.sh $(TEST_BUILD) $(FUZZ_SECONDS)
	bash scripts/python-tests.sh build-wheel

# The wheel from this checkout (pyproject.toml, scikit-build-core), built
# in Release, installed into a fresh virtual environment and tested there
# (scripts/python-tests.sh); the wheel is left in build-wheel-release/dist/.
# It links this machine's libraries: a linux_x86_64 wheel, not yet manylinux.
wheel: deps
	WHEEL_BUILD_TYPE=Release bash scripts/python-tests.sh build-wheel-release

python-tests: deps
	bash scripts/python-tests.sh build-wheel

fuzz-smoke: deps
	$(TEST_CONFIGURE)
	cmake --build $(TEST_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS)
	bash scripts/fuzz-smoke.sh $(TEST_BUILD) $(FUZZ_SECONDS)

# Rebuilds the committed fixtures and golden listings (needs nvcc and
# cuobjdump; not part of `make test`).
fixtures:
	bash tests/fixtures/build.sh

bench: build
	bash bench/run.sh $(BUILD)/cuwheel

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(DEMO_BUILD)
