# SPDX-License-Identifier: MIT
# ksnap: top-level build.  `make demo` and `make check` do all the set-up
# they need (packages, debug kernel) on a fresh Debian 12 machine.

.PHONY: all setup debug-kernel modules modules-all modules-debug modules-arm64 \
	tools tools-arm64 unit \
	plot-check fuzz kunit guest-tests check demo bench style sparse install \
	clean deb deb-arm64 system-tests check-quick check-all setup-demo setup-deb \
	update-kernels

# The kernel `make` builds ksnap.ko for, and the kernels the guest and
# KUnit targets test (scripts/kernel --list): Debian's are fetched into
# the cache the first time, the debug kernels built there; nothing is
# installed into the host.  The check tiers pick their own set.
KSNAP_KERNEL ?= 6.1
KSNAP_KERNELS ?= $(shell scripts/kernel --all)
export KSNAP_KERNELS
# The kernels ksnap.ko is cross-built for, never booted (scripts/kernel
# --cross): Debian 12's arm64 6.1 and 6.12 and Debian 13's 6.12, their
# headers fetched likewise.
KSNAP_CROSS_KERNELS ?= $(shell scripts/kernel --cross)

all: modules tools

# The host's packages (tools only, never a kernel): `make demo` installs
# what it needs, the check targets the rest (scripts/setup).
setup:
	@scripts/setup check

setup-demo:
	@scripts/setup demo

# Only what `make deb` needs (debian/control's Build-Depends, git, lintian)
setup-deb:
	@scripts/setup deb

# ksnap.ko for KSNAP_KERNEL: build/mod/<name>/ (make KSNAP_KERNEL=6.12)
modules:
	scripts/build-module $(KSNAP_KERNEL)

# ksnap.ko for every kernel of KSNAP_KERNELS (debug kernels are built
# first, once per machine), then for those of KSNAP_CROSS_KERNELS
modules-all:
	@for k in $(KSNAP_KERNELS); do \
		echo "== ksnap.ko for $$k"; \
		scripts/build-module $$k || exit 1; \
	done
	@$(MAKE) -s --no-print-directory modules-arm64 \
		KSNAP_CROSS_KERNELS="$(KSNAP_CROSS_KERNELS)"

# ksnap.ko cross-built for each kernel of KSNAP_CROSS_KERNELS with the
# aarch64-linux-gnu gcc each was built with (Debian 12's gcc-12; Debian
# 13's gcc-14 in a Debian 13 root filesystem: scripts/toolchain, as root):
# build/mod/NAME/.  W=1, sparse over every file (C=2) and a
# compiler warning is an error (no object is left behind to hide it from
# the next build); any finding, modpost's too, fails.
modules-arm64:
	@mkdir -p build
	@for k in $(KSNAP_CROSS_KERNELS); do \
		scripts/build-module $$k KCFLAGS=-Werror W=1 C=2 > build/module-$$k.log 2>&1 || { cat build/module-$$k.log; echo "ksnap.ko: the build for $$k failed (build/module-$$k.log)"; exit 1; }; \
		if grep -E '(warning|error|WARNING):|C=[12] specified, but' build/module-$$k.log; then echo "ksnap.ko: findings above for $$k (build/module-$$k.log)"; exit 1; fi; \
		echo "ksnap.ko: clean on $$k (cross-built, W=1, sparse)"; \
	done

# Rewrite scripts/kernel-pins with the newest version of each Debian
# kernel's suites, for a person to review and commit; the next build or
# test run fetches what changed.
update-kernels:
	scripts/kernel --update-pins

# ksnap.ko and the KUnit module against the 6.1 debug kernel: build/mod/debug/
modules-debug:
	scripts/build-module debug

# ksnapd and friends: build/bin/
tools:
	$(MAKE) -C userspace

# ksnapd and friends cross-built for arm64 guests: build/arm64/bin/, with
# aarch64-linux-gnu-gcc against Debian 12's arm64 libraries unpacked into
# the cache (scripts/arm64-root)
tools-arm64:
	$(MAKE) -C userspace BUILD=../build/arm64 AR=aarch64-linux-gnu-ar \
		CC="aarch64-linux-gnu-gcc --sysroot=$$(scripts/arm64-root)"

# cmocka unit tests for userspace logic, and ksnap-verify's damage tests
unit:
	$(MAKE) -C userspace check

# ksnap-plot: its pages from generated streams (sizes, damage, bad input),
# opened in headless Chromium (Debian's, driven by playwright-core, which
# scripts/setup installs into build/plot-node); about 20 s
plot-check:
	$(MAKE) -C userspace plot-check

# libFuzzer over ksnap-verify's parser: a short run with a fixed seed
fuzz:
	$(MAKE) -C userspace fuzz

# The guests need no cross-built module.
kunit guest-tests: KSNAP_CROSS_KERNELS =

# KUnit suites, in a guest on each debug kernel of KSNAP_KERNELS
kunit: modules-all tools
	@for k in $(filter debug%,$(KSNAP_KERNELS)); do \
		tests/run-kunit --kernel $$k || exit 1; \
	done

# Integration tests, in guests on every kernel of KSNAP_KERNELS
guest-tests: modules-all tools
	tests/run-guest-tests

# The debug kernels are built once per machine (5 to 10 minutes each) and
# cached.
debug-kernel:
	@for k in $(filter debug%,$(KSNAP_KERNELS)); do \
		scripts/kernel $$k >/dev/null || exit 1; \
	done

# The test tiers (scripts/check explains each, docs/hacking.md their
# times): each step's time against its budget is printed at the end.
#   check-quick  a few minutes: style, unit, a short fuzz run, one 6.1 guest
#   check        what CI runs: every build, the Debian kernels' suites, the
#                6.1 debug kernel's KUnit and concurrency tests, the system
#                tests' core on Debian 12 and 13
#   check-all    every kernel with every test, the soaks, every system test
# The tiers' own kernel sets, unless KSNAP_KERNELS is given (in the
# environment or on the command line), not this file's default.
CHECK_KERNELS = $(if $(filter file,$(origin KSNAP_KERNELS)),,$(KSNAP_KERNELS))
check-quick: setup
	KSNAP_KERNELS="$(CHECK_KERNELS)" scripts/check quick

check: setup
	KSNAP_KERNELS="$(CHECK_KERNELS)" scripts/check ci

check-all: setup
	KSNAP_KERNELS="$(CHECK_KERNELS)" scripts/check all

# The Debian packages ksnap-dkms and ksnapd in build/deb/
# (dpkg-buildpackage -us -uc -b in a copy of the tree, then lintian)
deb:
	scripts/system-deb

# The same packages cross-built for arm64 in build/deb-arm64/ (in a cached
# Debian 12 chroot, as root; without their tests)
deb-arm64:
	scripts/deb-arm64

# The packages installed with apt-get into real Debian 12 and 13 systems
# (root filesystems made with mmdebstrap, cached; DKMS builds the module
# in a chroot of each) and booted with systemd: the unit, the module's
# options, the stream through journald, restart, purge, upgrade, and a
# kernel upgrade on Debian 12 (tests/system/run)
system-tests: deb
	tests/system/run

demo: setup-demo
	$(MAKE) all
	scripts/demo

# Cost, timing and throughput figures into bench/results/ (see
# bench/README.md for the duration): the floor, scale and pipeline tables,
# the sampler against a userspace poller and ksnapd end to end, in guests
# on each kernel of BENCH_KERNELS, and the writer natively against memcpy
# and adler32.  Figures, not assertions.
BENCH_KERNELS ?= 6.1 6.12
bench: setup
	$(MAKE) all
	@for k in $(BENCH_KERNELS); do \
		scripts/build-module $$k || exit 1; \
	done
	scripts/bench $(addprefix --kernel ,$(BENCH_KERNELS))

# checkpatch --strict over the module, its KUnit tests, the bench's floor
# module and the ABI header; scripts/depcheck over userspace/ (no cycle
# between its files, no library using a program's folder) and over kmod/
# (no cycle between its files, from the module's objects for 6.1); the manual
# pages rendered without a groff warning (scripts/man-check); the
# documents' shell examples against the code, after its own self-test
# (tests/docs/check-examples)
style:
	scripts/style

# sparse (C=2: every file) and W=1 over the module, against the oldest,
# the default and the newest kernels' headers (5.10, 6.1, 6.12, 7.3; 7.2
# too in check-all), each with its own compiler; any finding fails, and
# so does a kernel whose kbuild skipped sparse
SPARSE_KERNELS ?= 5.10 6.1 6.12 7.3
sparse:
	@mkdir -p build
	@for k in $(SPARSE_KERNELS); do \
		scripts/build-module $$k C=2 W=1 > build/sparse-$$k.log 2>&1 || { cat build/sparse-$$k.log; exit 1; }; \
		if grep -E '(warning|error):|C=[12] specified, but' build/sparse-$$k.log; then echo "sparse: findings above (build/sparse-$$k.log)"; exit 1; fi; \
		echo "sparse: clean on $$k (C=2 W=1)"; \
	done

# On a real machine: the module for the running kernel is installed by hand
# (see README.md, "Install"); this installs the userspace parts, the unit
# (ExecStart at $(PREFIX)/sbin/ksnapd) and, unless they exist, the
# module's commented-out /etc/modprobe.d and /etc/modules-load.d files.
# The Debian packages (make deb) are the other way, with DKMS.
PREFIX ?= /usr/local
install: tools
	install -D -m 0755 build/bin/ksnapd $(DESTDIR)$(PREFIX)/sbin/ksnapd
	install -D -m 0755 build/bin/ksnap-verify $(DESTDIR)$(PREFIX)/bin/ksnap-verify
	install -D -m 0755 build/bin/ksnap-plot $(DESTDIR)$(PREFIX)/bin/ksnap-plot
	install -D -m 0644 man/ksnapd.8 $(DESTDIR)$(PREFIX)/share/man/man8/ksnapd.8
	install -D -m 0644 man/ksnap-verify.1 $(DESTDIR)$(PREFIX)/share/man/man1/ksnap-verify.1
	install -D -m 0644 man/ksnap-plot.1 $(DESTDIR)$(PREFIX)/share/man/man1/ksnap-plot.1
	install -D -m 0644 man/ksnap.4 $(DESTDIR)$(PREFIX)/share/man/man4/ksnap.4
	install -d $(DESTDIR)/etc/systemd/system
	sed 's|/usr/sbin/ksnapd|$(PREFIX)/sbin/ksnapd|' userspace/ksnapd/ksnapd.service \
		> $(DESTDIR)/etc/systemd/system/ksnapd.service
	@# The module's options and its loading at boot, both commented out
	@# as the package ships them; a file already there is the user's.
	@for f in modprobe.d:ksnap.modprobe.conf modules-load.d:ksnap.modules-load.conf; do \
		d=$(DESTDIR)/etc/$${f%%:*}/ksnap.conf; \
		[ -e "$$d" ] || install -D -m 0644 debian/$${f#*:} "$$d"; \
	done

clean:
	rm -rf build
	$(MAKE) -C userspace clean
