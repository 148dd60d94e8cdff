# Convenience entry points; the build itself is meson's.
#   make check   install missing packages, build, run every test, then again
#                built with clang's AddressSanitizer + UndefinedBehaviorSanitizer
#                (the fuzz targets fuzz for FUZZ_SECONDS=30 there);
#                VALGRIND=1 adds a pass under valgrind memcheck
#   make demo    build and run rdmad on a simulated host, show it through busctl

BUILD     ?= build
BUILD_SAN ?= build-san
MESON     ?= meson

SAN_FLAGS = -Db_sanitize=address,undefined -Db_lundef=false \
            -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all

.PHONY: all deps build build-san check check-gcc check-san valgrind demo bench clean

all: build

deps:
	./tools/install-deps

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) -Dwerror=true -Dexporter=enabled

$(BUILD_SAN)/build.ninja:
	CC=clang $(MESON) setup $(BUILD_SAN) -Dwerror=true -Dexporter=enabled $(SAN_FLAGS)

build: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

build-san: deps $(BUILD_SAN)/build.ninja
	$(MESON) compile -C $(BUILD_SAN)

check-gcc: build
	$(MESON) test -C $(BUILD) --print-errorlogs

check-san: build-san
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	$(MESON) test -C $(BUILD_SAN) --print-errorlogs

# make check VALGRIND=1: a third pass, everything under valgrind memcheck (CI does this).
check: check-gcc check-san $(if $(filter 1,$(VALGRIND)),valgrind)

valgrind: build
	$(MESON) test -C $(BUILD) --print-errorlogs --setup=valgrind

clean:
	rm -rf $(BUILD) $(BUILD_SAN)

# Only what the demo runs: not the tests, fuzzers or the benchmark.
demo: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD) daemon/rdmad rdmactl/rdmactl
	./tools/demo $(BUILD)

# Benchmarks (not tests): N dual-port devices at N = 64, 512, 2048 by default;
# then rdmad-exporter against node_exporter on the same hosts.
BENCH_ARGS ?=
bench: build
	cd $(BUILD) && RDMAD_BINARY=$(CURDIR)/$(BUILD)/daemon/rdmad SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		LD_PRELOAD=libumockdev-preload.so.0 ./bench/bench $(BENCH_ARGS)
	cd $(BUILD) && RDMAD_BINARY=$(CURDIR)/$(BUILD)/daemon/rdmad SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		RDMAD_EXPORTER_BINARY=$(CURDIR)/$(BUILD)/exporter/rdmad-exporter \
		./bench/bench-exporter $(BENCH_ARGS)
