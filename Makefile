# ksnap: top-level build.  `make demo` and `make check` do all the set-up
# they need (packages, debug kernel) on a fresh Debian 12 machine.

.PHONY: all setup debug-kernel modules modules-debug tools unit fuzz kunit \
	guest-tests check demo bench style sparse install clean

all: modules tools

setup:
	@scripts/setup

# ksnap.ko against Debian's headers (linux-headers-amd64): build/mod/debian/
modules:
	scripts/build-module debian

# ksnap.ko and the KUnit module against the debug kernel: build/mod/debug/
modules-debug:
	scripts/build-module debug

# ksnapd and friends: build/bin/
tools:
	$(MAKE) -C userspace

# cmocka unit tests for userspace logic, and ksnap-verify's damage tests
unit:
	$(MAKE) -C userspace check

# libFuzzer over ksnap-verify's parser: a short run with a fixed seed
fuzz:
	$(MAKE) -C userspace fuzz

# KUnit suites, in a guest on the debug kernel
kunit: modules-debug tools
	tests/run-kunit

# Integration tests, in guests on both kernels
guest-tests: modules modules-debug tools
	tests/run-guest-tests

# The debug kernel is built once per machine (about 7 minutes) and cached.
debug-kernel:
	@scripts/debug-kernel >/dev/null

check: setup
	$(MAKE) debug-kernel
	$(MAKE) all
	$(MAKE) style
	$(MAKE) sparse
	$(MAKE) unit
	$(MAKE) fuzz
	$(MAKE) kunit
	$(MAKE) guest-tests

demo: setup
	$(MAKE) all
	scripts/demo

# Cost, timing and throughput figures into bench/results/ (about 8 minutes):
# the sampler against a userspace poller in a guest, ksnapd end to end, and
# the writer natively against memcpy and adler32.  Figures, not assertions.
bench: setup
	$(MAKE) all
	scripts/bench

# checkpatch --strict over the module, its KUnit tests and the ABI header
style:
	scripts/style

# sparse (C=2: every file) and W=1 over the module; any finding fails
sparse:
	@mkdir -p build
	@scripts/build-module debian C=2 W=1 > build/sparse.log 2>&1 || { cat build/sparse.log; exit 1; }
	@if grep -E '(warning|error):' build/sparse.log; then echo "sparse: findings above (build/sparse.log)"; exit 1; fi
	@echo "sparse: clean (C=2 W=1)"

# On a real machine: the module for the running kernel is installed by hand
# (see README); this installs the userspace parts.
PREFIX ?= /usr/local
install: tools
	install -D -m 0755 build/bin/ksnapd $(DESTDIR)$(PREFIX)/sbin/ksnapd
	install -D -m 0755 build/bin/ksnap-verify $(DESTDIR)$(PREFIX)/bin/ksnap-verify
	install -D -m 0644 userspace/ksnapd.8 $(DESTDIR)$(PREFIX)/share/man/man8/ksnapd.8
	install -D -m 0644 userspace/ksnap-verify.1 $(DESTDIR)$(PREFIX)/share/man/man1/ksnap-verify.1
	install -D -m 0644 userspace/ksnapd.service $(DESTDIR)/etc/systemd/system/ksnapd.service

clean:
	rm -rf build
	$(MAKE) -C userspace clean
