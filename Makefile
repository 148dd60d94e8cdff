# Convenience entry points; the build itself is meson's.
#   make check   install missing packages, build, run every test (on
#                dbus-daemon), the tests of suite 'bus' again on dbus-broker,
#                the units under a real systemd in a container (both buses), then
#                everything that runs our code built with clang's
#                AddressSanitizer + UndefinedBehaviorSanitizer (the fuzz
#                targets fuzz for FUZZ_SECONDS=30 there);
#                VALGRIND=1 adds a pass under valgrind memcheck, beside the
#                dbus-broker one (not the clients' and the floods' tests:
#                tests/meson.build says why)
#   make demo    build and run rdmad on a simulated host, show it through busctl
#   make package-check  build the Debian package (debian/), install, run, purge it
#   make rpm     build the RPMs (rdmad.spec) into build-rpm/ from a git archive
#   make rpm-check  build them in a temporary topdir, rpmlint them, compare
#                them with the Debian packages, run their scriptlets on a root
# Each installs only the Debian packages it needs (tools/install-deps TARGET),
# and leaves no service started or enabled. RDMAD_TEST_BUS=dbus-broker runs
# the tests, the demo and the benchmark on dbus-broker instead of dbus-daemon.

BUILD     ?= build
BUILD_SAN ?= build-san
BUILD_DEMO ?= build-demo
MESON     ?= meson

SAN_FLAGS = -Db_sanitize=address,undefined -Db_lundef=false \
            -Dc_args=-fno-sanitize-recover=all -Dc_link_args=-fno-sanitize-recover=all

.PHONY: all deps deps-demo deps-package deps-rpm rpm rpm-check build build-san check check-gcc check-broker check-broker-valgrind check-systemd check-san valgrind demo bench bench-baseline clean package-check

all: build

# What the tests need (and the build, the benchmark); the demo and the
# package need less, each its own list.
deps:
	./tools/install-deps check
deps-demo:
	./tools/install-deps demo
deps-package:
	./tools/install-deps package
deps-rpm:
	./tools/install-deps rpm

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) -Dwerror=true -Dexporter=enabled

$(BUILD_SAN)/build.ninja:
	CC=clang $(MESON) setup $(BUILD_SAN) -Dwerror=true -Dexporter=enabled $(SAN_FLAGS)

# Each pass says when it begins: what it costs, in CI's log.
BEGINS = @echo "== $@ begins at $$(date -u +%T)"

build: deps $(BUILD)/build.ninja
	$(BEGINS)
	$(MESON) compile -C $(BUILD)

build-san: deps $(BUILD_SAN)/build.ninja
	$(BEGINS)
	$(MESON) compile -C $(BUILD_SAN)

check-gcc: build
	$(BEGINS)
	$(MESON) test -C $(BUILD) --print-errorlogs

# The tests whose outcome the bus daemon can change (suite 'bus': policy,
# limits, signal delivery, departures, activation, polkitd) again on
# dbus-broker (Fedora's and RHEL's system bus), on the gcc build; its own
# log, testlog-dbus-broker.json.
check-broker: build
	$(BEGINS)
	RDMAD_TEST_BUS=dbus-broker $(MESON) test -C $(BUILD) --suite bus --print-errorlogs \
		--logbase testlog-dbus-broker

# The units under Debian's real systemd, booted as PID 1 of a throwaway
# container on each bus (tests/systemd): the Debian package built once for
# both; its own log, testlog-systemd.json (meson adds the setup's name).
# Needs root, cgroup2, overlayfs.
SYSTEMD_DEBS = $(CURDIR)/$(BUILD)/systemd-debs
check-systemd: build deps-package
	$(BEGINS)
	rm -rf $(SYSTEMD_DEBS)
	./tests/systemd/test-systemd.sh --build-debs $(SYSTEMD_DEBS)
	RDMAD_DEBS=$(SYSTEMD_DEBS) $(MESON) test -C $(BUILD) --setup=systemd --suite systemd --print-errorlogs \
		--logbase testlog

# Everything that runs code of ours built with the sanitizers: not the
# shell scripts of the installed layout, the rules (promtool) or the Python
# client's tests (python3 drives the same rdmad paths as the C tests).
# test-floods' flood of clients during uevents runs at valgrind's size
# there: the sanitizers look for memory errors on its paths, which 20
# clients and 400 uevents take as 100 and 2000 do; the gcc and dbus-broker
# passes judge the load.
check-san: build-san
	$(BEGINS)
	RDMAD_FLOOD_CLIENTS=20 RDMAD_FLOOD_EVENTS=400 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	$(MESON) test -C $(BUILD_SAN) --print-errorlogs --no-suite service --no-suite rules --no-suite layout \
		--no-suite python

# make check VALGRIND=1: a fourth pass, everything under valgrind memcheck
# (CI does this); test-floods' attack rows skip there (they say so): their
# floods take minutes under a slow rdmad, and what they could find there
# is memory, which the ASan + UBSan pass checks on the same rows.
# It runs beside check-broker (check-broker-valgrind): valgrind keeps about
# one CPU busy, the broker pass mostly waits for its buses and daemons, and
# each test has a bus, a testbed and a directory of its own and holds under
# load (tools/stress-tests). 9 min for both, not 6.5 + 8 one after the other.
check: check-gcc $(if $(filter 1,$(VALGRIND)),check-broker-valgrind,check-broker) check-systemd check-san

valgrind: build
	$(BEGINS)
	$(MESON) test -C $(BUILD) --print-errorlogs --setup=valgrind

# The valgrind pass's console goes to a file and is printed after the broker
# pass's, so that neither interleaves the other; both fail the target. The
# broker pass shares the machine with valgrind here, so it judges no latency
# (RDMAD_TEST_BESIDE); check-gcc judges it.
check-broker-valgrind: build
	$(BEGINS)
	@echo "make valgrind beside make check-broker (its console: $(BUILD)/meson-logs/valgrind-console.txt)"
	@$(MESON) test -C $(BUILD) --no-rebuild --print-errorlogs --setup=valgrind \
		> $(BUILD)/meson-logs/valgrind-console.txt 2>&1 & valgrind=$$!; \
	RDMAD_TEST_BESIDE=valgrind $(MAKE) --no-print-directory check-broker; broker=$$?; \
	wait $$valgrind; status=$$?; \
	cat $(BUILD)/meson-logs/valgrind-console.txt; \
	[ $$broker = 0 ] && [ $$status = 0 ]

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_DEMO) $(BUILD_RPM)

# Only what the demo runs: not the tests, fuzzers or the benchmark, so a
# build directory of its own without them (and without the exporter).
$(BUILD_DEMO)/build.ninja:
	$(MESON) setup $(BUILD_DEMO) -Dwerror=true -Dtests=false -Dexporter=disabled

demo: deps-demo $(BUILD_DEMO)/build.ninja
	$(MESON) compile -C $(BUILD_DEMO) daemon/rdmad rdmactl/rdmactl
	./tools/demo $(BUILD_DEMO)

# The Debian package: dpkg-buildpackage -us -uc -b, lintian, then installed
# on this machine, checked, run on a simulated host, removed and purged
# (tests/service/test-package.sh). Leaves the host as it found it.
# RDMAD_DEBS=DIR: packages built so already (make check-systemd's).
package-check: deps-package
	./tests/service/test-package.sh $(CURDIR)

# The RPMs of rdmad.spec (rdmad, rdmad-exporter, python3-rdmad, the source
# RPM), built by rpmbuild from a git archive of the checkout (tools/build-rpm);
# BUILD_RPM/RPMS/*/ holds them. rpm-check: the same in a temporary topdir,
# then rpmlint (rdmad.rpmlintrc names what it keeps), the payloads against
# the Debian packages (RDMAD_DEBS=DIR: .debs already built from this tree),
# the scriptlets against a root (tests/service/test-rpm.sh). Installs nothing.
BUILD_RPM ?= build-rpm
rpm: deps-rpm
	rm -rf $(BUILD_RPM)
	./tools/build-rpm $(BUILD_RPM)
rpm-check: deps-rpm
	./tests/service/test-rpm.sh $(CURDIR)

# Benchmarks (not tests): N dual-port devices at N = 64, 512, 2048 by default;
# then rdmad-exporter against node_exporter on the same hosts; then the
# Python clients against an sts.rdma-style walk on 512 devices; then
# ResolveAddress on 2048 devices (root; skipped, status 77, without).
BENCH_ARGS ?=
bench: build
	cd $(BUILD) && RDMAD_BINARY=$(CURDIR)/$(BUILD)/daemon/rdmad SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		LD_PRELOAD=libumockdev-preload.so.0 ./bench/bench $(BENCH_ARGS)
	cd $(BUILD) && RDMAD_BINARY=$(CURDIR)/$(BUILD)/daemon/rdmad SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		RDMAD_EXPORTER_BINARY=$(CURDIR)/$(BUILD)/exporter/rdmad-exporter \
		./bench/bench-exporter $(BENCH_ARGS)
	/usr/bin/python3 bench/bench-python.py $(BUILD) 512
	cd $(BUILD) && RDMAD_BINARY=$(CURDIR)/$(BUILD)/daemon/rdmad SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		LD_PRELOAD=libumockdev-preload.so.0 ./bench/bench-resolve 2048 || [ $$? = 77 ]

# This rdmad beside one built at BASELINE (a git revision), in turns in one
# run: start-up, GetManagedObjects, Get against its floor, verbs events and
# idle (bench/bench-baseline.sh). BENCH_ARGS: the number of devices (2048).
BASELINE ?= 6504597
bench-baseline: build
	./bench/bench-baseline.sh $(BASELINE) $(BUILD) $(BENCH_ARGS)
