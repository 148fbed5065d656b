# SPDX-License-Identifier: GPL-2.0-or-later
# The tests, benchmarks, package and worked example, run from the top
# Makefile, which includes this file after its build rules (docs/
# development.md, Running the tests): what each goal runs is in the scripts
# under tests/; the programs they need are the Makefile's.

.PHONY: tests build-test check check-here check-core check-quick check-vm \
        deb-test-if-packaged deb-build-if-packaged deb-build docs-check \
        check-vm-25.11 check-vm-26.05 check-gpu-node slurm-from-source deb deb-test \
        bench-plugin unit unit-asan integration integration-asan demo bench

include tests/fuzz/fuzz.mk

# A fresh copy of the tree built as an administrator would (tests/build/).
build-test:
	@mkdir -p $(QD_RESULTS)
	bash tests/build/t_build.sh

# The documentation against the code (tests/docs/check.sh): every option,
# key, command and installed file documented, and reuse lint.
docs-check:
	@mkdir -p $(QD_RESULTS)
	bash tests/docs/check.sh

# The unit tests and the integration tests' programs: plain make (all)
# builds only what make install installs.
tests: $(UNIT_BIN) $(HELPER_BIN)

# UNIT_SET=slurm: only those that depend on the Slurm version (Makefile,
# SLURM_UNIT_SRC).
UNIT_SET ?= all
UNIT_RUN = $(if $(filter slurm,$(UNIT_SET)),$(SLURM_UNIT_SRC:tests/unit/%.c=$(B)/tests/%),$(UNIT_BIN))
unit: $(UNIT_BIN)
	@mkdir -p $(QD_RESULTS)
	sh tests/run-unit.sh $(UNIT_RUN)

unit-asan: $(ASAN_UNIT_BIN)
	@mkdir -p $(QD_RESULTS)
	ASAN_OPTIONS=detect_leaks=1 QD_SUITE=unit-asan \
		sh tests/run-unit.sh $(ASAN_UNIT_BIN)

integration: all $(HELPER_BIN)
	@mkdir -p $(QD_RESULTS)
	QD_CORE_EXTRAS=$(CORE_EXTRAS) bash tests/integration/run.sh $(QUICK_ARGS)

# The whole suite again, slurmctld loading the plugin built with ASan and
# UBSan; any sanitizer report fails it (tests/integration/asan.sh).
# QUICK_ARGS names tests, as for integration.
integration-asan: all $(HELPER_BIN) $(ASAN_CTLD_DIR)/job_submit_qosdeny.so \
		$(ASAN_CTLD_DIR)/site_factor_qosdeny.so \
		$(ASAN_CTLD_DIR)/spank_qosdeny.so $(ASAN_CTLD_DIR)/qosdeny
	@mkdir -p $(QD_RESULTS)
	QD_ASAN_RT=$(ASAN_RT) QD_PLUGINDIR=$(abspath $(ASAN_CTLD_DIR)) \
		QD_CORE_EXTRAS=$(CORE_EXTRAS) bash tests/integration/asan.sh $(QUICK_ARGS)

# The Slurm versions `make check` runs the whole suite on, each here when
# this host's Debian release ships it, else in a Debian chroot of the release
# that does (tests/chroot/suite.sh), side by side (tests/check/parallel.sh:
# each version's clusters in ports and cgroups of their own, the VMs and
# the version-independent parts in lanes of their own). 23.11, 25.11 and
# 26.05, whose source no Debian release ships, are built from SLURM_SRC
# where it names a tree of theirs, else from SchedMD's release tarball in
# QD_SLURM_TARBALLS (tests/chroot/slurm-tree.sh), and installed inside
# their chroot; without either, 23.11 and 25.11 are skipped and 26.05 runs
# on Debian's binary packages what they allow, as the summary says.
# `make check SLURM=24.11` runs one.
SLURM ?= 22.05 23.11 24.11 25.11 26.05

CHECK_RESULTS := $(QD_BUILD)/check-results
check:
	@QD_RESULTS=$(CHECK_RESULTS) bash tests/check/parallel.sh \
		"$(if $(filter command line environment,$(origin SLURM_SRC)),$(SLURM_SRC))" \
		$(SLURM)

# A change's own inner loop (docs/development.md): the build, the unit
# tests and a representative part of the integration suite against the
# Slurm installed here, in a few minutes. make check is still the gate.
QUICK_TESTS := t_scenario.sh t_counting.sh t_limits.sh t_gpu_binding.sh \
               t_usage.sh t_reload.sh
check-quick: deps
	$(MAKE) all tests
	@rm -rf $(QD_RESULTS)
	@+$(call check_part,unit)
	@+s=$$(date +%s); $(MAKE) integration \
		QUICK_ARGS="$(QUICK_TESTS:%=tests/integration/%)" || true; \
		echo "# check-quick: integration ($(QUICK_TESTS)) took $$(($$(date +%s) - s)) s"
	sh tests/summary.sh $(QD_RESULTS)

# The pure cgroup v2 node (tests/vm/README.md): the 24.11 build's
# spank_qosdeny.so in a qemu VM of the 24.11 chroot, Slurm on cgroup/v2.
check-vm:
	bash tests/chroot/make-in.sh 24.11 deps all
	@mkdir -p $(QD_RESULTS)
	bash tests/vm/run.sh

# The pure cgroup v2 node on Debian testing's Slurm 26.05 (tests/vm/README.md).
check-vm-26.05:
	bash tests/vm/image.sh 26.05 >/dev/null
	bash tests/chroot/chroot.sh run forky-deb make B=build/forky-deb \
		build/forky-deb/spank_qosdeny.so build/forky-deb/pam_qosdeny.so
	@mkdir -p $(QD_RESULTS)
	QD_VM_SLURM=26.05 bash tests/vm/run.sh t_lifecycle.sh t_suspend_restart.sh \
		t_v2_usage.sh t_v2_binding.sh t_v2_adopt.sh \
		t_v2_binding.sh@jobidpaths t_v2_adopt.sh@jobidpaths

# The pure cgroup v2 VM on Slurm 25.11, SchedMD's packages built from its
# source (slurm-tree.sh, slurm-debs.sh) in a root of its own: out of make
# check for its budget (docs/development.md, "Lanes").
check-vm-25.11:
	bash tests/vm/image.sh 25.11 >/dev/null
	bash tests/chroot/chroot.sh run trixie-smd-vm make B=build/trixie-smd-vm \
		build/trixie-smd-vm/spank_qosdeny.so build/trixie-smd-vm/pam_qosdeny.so
	@mkdir -p $(QD_RESULTS)
	QD_VM_SLURM=25.11 bash tests/vm/run.sh t_lifecycle.sh t_suspend_restart.sh \
		t_v2_usage.sh t_v2_binding.sh t_v2_adopt.sh

# The real-GPU check (tests/gpu-node/README.md): the runtime of one Slurm
# version (24.11, Debian 13 with this checkout's package; SLURM=26.05,
# Debian testing with the node-side plugins), rebuilt where missing or
# older than the sources, then the checks on this host (root, pure cgroup
# v2, with or without NVIDIA's driver). On a GPU node without network:
# copy that runtime and the checkout there and run tests/gpu-node/run.sh.
# Two runtimes do not fit one copy to a node: one version a run.
GPU_NODE_SLURM := $(if $(filter command line,$(origin SLURM)),$(filter 26.05,$(SLURM)))
GPU_NODE_SLURM := $(or $(GPU_NODE_SLURM),24.11)
GPU_NODE_RUNTIME := build/gpu-node/runtime-$(GPU_NODE_SLURM).tar.xz
check-gpu-node: $(GPU_NODE_RUNTIME)
	@mkdir -p $(QD_RESULTS)
	bash tests/gpu-node/run.sh $(GPU_NODE_RUNTIME)

$(GPU_NODE_RUNTIME): $(wildcard shared/*/*.[ch] job_submit/* site_factor/* \
		node/* spank/* pam/* tools/* tools/doctor/* debian/* docs/man/* \
		conf.example/*) \
		tests/gpu-node/runtime.sh tests/gpu-node/cuda_probe.c \
		tests/bench/spank_hooks_only.c Makefile
	bash tests/gpu-node/runtime.sh $(GPU_NODE_SLURM)

# SchedMD's own packages of a Slurm release (23.11, 25.11, 26.05: no
# Debian release ships their source), built from its source by
# tests/chroot/slurm-debs.sh into SLURM_DEBS, installed in the chroot
# make-in.sh runs this in; SLURM_SHA256, the tarball's the packages came
# from, keys what is installed there (tests/chroot/install-slurm.sh).
SLURM_DEBS ?= $(B)/slurm-debs
slurm-from-source:
	bash tests/chroot/install-slurm.sh $(SLURM_DEBS) $(SLURM_SHA256)

# One part of check-here: its failures are counted by its own suite, and
# its time is printed, so that make check's cost reads part by part
# (docs/development.md).
check_part = s=$$(date +%s); $(MAKE) $(1) || true; \
	echo "\# check-here: $(1) took $$(($$(date +%s) - s)) s"

# What does not change with the Slurm version: a fresh copy's build
# (build-test), the core's unit tests under the sanitizers, the fuzzers.
# make check runs it with the first version of its list only, in a lane of
# its own (tests/check/parallel.sh).
check-core: deps
	$(MAKE) all
	@+$(call check_part,build-test)
	@+$(call check_part,unit-asan)
	@+$(call check_part,fuzz-smoke)
	@+$(call check_part,docs-check)

# The whole suite against the Slurm installed here. CORE_EXTRAS=no leaves
# out what does not change with the Slurm version: check-core, the
# Sentinel failover drill (tests/integration/run.sh) and integration-asan's
# two long drills of the core's Redis code (tests/integration/asan.sh):
# make check runs them with the first version of its list only
# (docs/development.md), and runs these parts side by side.
# The integration part runs the tests integration-asan does not
# (tests/integration/split.sh): each test once.
CORE_EXTRAS ?= yes
check-here: export QD_SPLIT = plain
check-here: deps
	$(MAKE) all tests
	@+$(call check_part,unit)
ifneq ($(CORE_EXTRAS),no)
	@+$(MAKE) check-core
endif
	@+$(call check_part,integration)
	@+$(call check_part,integration-asan)
	@+$(call check_part,deb-test-if-packaged)

# deb-test or deb-build where this Slurm is installed from packages,
# Debian's (slurmctld) or SchedMD's (slurm-smd-slurmctld): none to depend
# on else.
deb-test-if-packaged deb-build-if-packaged:
	@+if dpkg-query -W -f '$${db:Status-Status}\n' slurmctld \
		slurm-smd-slurmctld 2>/dev/null | grep -qx installed; then \
		$(MAKE) $(@:-if-packaged=); \
	else \
		echo "$(@:-if-packaged=): skipped: this Slurm is not installed from packages"; \
	fi

# The build's lines go to a log, so that the worked example is all it shows.
demo: deps
	@mkdir -p $(B)
	@echo "make demo: building (log: $(B)/demo-build.log)"
	@$(MAKE) all >$(B)/demo-build.log 2>&1 || \
		{ tail -n 20 $(B)/demo-build.log; exit 1; }
	bash tests/demo.sh

bench: deps $(BENCH_BIN) $(USAGE_BENCH_BIN) $(SF_BENCH_BIN) $(FILL_QUEUE) $(JS_SO) $(SF_SO) $(SPANK_SO) $(HOOKS_ONLY_SO) $(LOAD_COST)
	bash tests/bench/usage.sh
	QD_EXTRA_PKGS=linux-perf sh tests/cluster/install-deps.sh
	bash tests/bench/launch.sh
	QD_MEMORY_SUBMISSIONS=20000 QD_MEMORY_OUT=tests/bench/memory.txt \
		bash tests/integration/run.sh tests/integration/t_memory.sh
	bash tests/bench/submit.sh
	$(SF_BENCH_BIN) | tee tests/bench/site_factor.txt
	$(MAKE) bench-plugin
	bash tests/bench/site_factor.sh
	bash tests/chroot/make-in.sh 24.11 bench-plugin BENCH_VERSION=-24.11

# The decision path and the time inside job_submit per submission (uprobes,
# beside job_submit/lua), for one Slurm version: make bench runs it here and
# in the 24.11 chroot (tests/bench/*-24.11.txt).
BENCH_VERSION ?=
bench-plugin: deps $(BENCH_BIN) $(FILL_QUEUE) $(JS_SO)
	$(BENCH_BIN) | tee tests/bench/decision$(BENCH_VERSION).txt
	QD_EXTRA_PKGS=linux-perf sh tests/cluster/install-deps.sh
	QD_BENCH_OUT=tests/bench/plugin_time$(BENCH_VERSION).txt \
		bash tests/bench/plugin_time.sh

# One binary package for the running Debian release and the Slurm it was
# built against: the Slurm version is in its revision, and it depends on
# that exact slurmctld or slurmd (debian/control). Built from a copy of
# the tree, so that dpkg-buildpackage's files stay out of the checkout.
DEB_B    := $(B)/deb-pkg
DEB_TREE := $(DEB_B)/qosdeny-$(VERSION)
deb:
	QD_DEPS=build QD_EXTRA_PKGS="debhelper lintian build-essential" \
		sh tests/cluster/install-deps.sh
	$(MAKE) $(B)/slurm-config/config.h
	rm -rf $(DEB_B)
	mkdir -p $(DEB_TREE)
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $(DEB_TREE)
	printf '%s\n' \
	  "qosdeny ($(VERSION)-1+slurm$$(cat $(B)/slurm-config/version)) $$(. /etc/os-release && echo $$VERSION_CODENAME); urgency=medium" \
	  "" "  * Built for Slurm $$(cat $(B)/slurm-config/version)." "" \
	  " -- qosdeny developers <qosdeny@example.org>  $$(date -R)" \
	  >$(DEB_TREE)/debian/changelog
	cd $(DEB_TREE) && SLURM_SRC=$(abspath $(SLURM_SRC)) \
		dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	lintian --fail-on error $(DEB_B)/*.changes
	@ls $(DEB_B)/*.deb

# The package built and checked: make deb's own failure (lintian's too) is
# one failed count; the hardening of the binaries in the package is
# checked before anything installs it.
deb-build:
	@mkdir -p $(QD_RESULTS)
	@if $(MAKE) deb; then r="1 0"; else r="0 1"; fi; \
		echo "deb make-deb $$r" >>$(QD_RESULTS)/counts
	@set -- $(DEB_B)/qosdeny_*.deb; if [ -e "$$1" ]; then \
		QD_SUITE=deb bash tests/build/hardening.sh "$$1" || true; fi

# The package installed with apt, run on the test cluster, purged. It is
# built first (deb-build) unless DEB_BUILT=yes says deb-build ran already:
# make check's lanes build it early, beside the clusters, and install it
# at the end, when nothing else uses the root (tests/check/parallel.sh).
DEB_BUILT ?= no
deb-test:
	@if [ "$(DEB_BUILT)" != yes ]; then $(MAKE) deb-build; fi
	bash tests/integration/deb-test.sh
