# SPDX-License-Identifier: GPL-2.0-or-later
# qosdeny: submit-time QoS caps, GPU binding and GPU fair share for Slurm.
#
#   make            build what make install installs: the four plugins
#                   and the tool (Slurm's, hiredis' and PAM's headers)
#   make tests      the unit tests and the integration tests' programs
#   make check      install what is missing, then run every test on every
#                   Slurm version (SLURM=24.11 for one; see docs/versions.md)
#   make demo       the worked example on a throwaway cluster
#   make bench      decision path, GPU usage reporting, task launch,
#                   slurmctld memory, submissions -> tests/bench/
#   make install    PREFIX, DESTDIR, PLUGINDIR honoured (make uninstall
#                   takes it away again, qosdeny.conf left)
#   make clean      what make compiled; make distclean: all of build/
#   make deb        the qosdeny Debian package for this release and its
#                   Slurm, in $(B)/deb-pkg (lintian-checked)

# `make` alone builds `all`, whatever the included .mk files define first.
.DEFAULT_GOAL := all

PREFIX    ?= /usr/local
# Debian's Slurm keeps its plugins in slurm-wlm/, SchedMD's build in slurm/.
SLURM_LIBDIR := $(shell pkg-config --variable=libdir slurm 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
PLUGINDIR ?= $(firstword $(wildcard $(SLURM_LIBDIR)/slurm-wlm $(SLURM_LIBDIR)/slurm) \
                         $(SLURM_LIBDIR)/slurm-wlm)
SYSCONFDIR ?= /etc/slurm
DESTDIR   ?=
VERSION   := 0.1.0

# B: this Slurm version's build. The suites of other versions build under
# build/<Debian release> inside their chroot (tests/chroot/suite.sh).
B         ?= build
export QD_BUILD := $(abspath $(B))
# Where the suites write their "suite name passed failed" lines.
export QD_RESULTS ?= $(QD_BUILD)/results
CC        ?= cc
# The user's CPPFLAGS, CFLAGS and LDFLAGS (make's command line or the
# environment, dpkg-buildflags' in make deb) come after the Makefile's own
# QD_* flags in every compile and link line, so that theirs win: CFLAGS=-O0
# drops the optimisation, never the hardening.
CFLAGS    ?= -O2 -g
QD_DEFS   := -D_GNU_SOURCE -DQD_VERSION='"$(VERSION)"' \
             -DQD_SYSCONFDIR='"$(SYSCONFDIR)"' \
             -DQD_TOOL_INSTALLED='"$(PREFIX)/bin/qosdeny"'
# Hardening of everything built here, the five installed binaries first
# (tests/build/hardening.sh checks them; docs/install.md, "Hardening"). _FORTIFY_SOURCE=3
# needs gcc 12 and optimisation. -U first: a compiler that defines it
# already says nothing, and neither does a CPPFLAGS with its own level,
# undefined again in front of it.
FORTIFY    = -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 $(if $(findstring \
             _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),-U_FORTIFY_SOURCE)
# -fcf-protection (CET) is x86's alone.
HARDEN_CFLAGS := -fstack-protector-strong -fstack-clash-protection \
                 $(if $(filter x86_64-% i386-% i486-% i586-% i686-%,$(shell \
                   $(CC) -dumpmachine)),-fcf-protection)
QD_CPPFLAGS = $(FORTIFY) $(QD_DEFS)
# The sanitizer builds: the same without _FORTIFY_SOURCE, whose checked
# copies ASan's interceptors do not see.
QD_SAN_CPPFLAGS = -U_FORTIFY_SOURCE $(QD_DEFS)
QD_CFLAGS := -std=gnu11 -Wall -Wextra -fPIC $(HARDEN_CFLAGS)
QD_LDFLAGS := -Wl,-z,relro,-z,now
# shared/ holds five parts of the core: policy/ (the submit-time checks),
# usage/ (usage records, spool, Redis, fair share), plugstack/ (the
# spank_qosdeny.so line's one parser, for the plugin, the tool and the site
# factor), metrics/ (what the daemons count and the Prometheus text they
# write it in) and common/ (what all read: slurm.conf and plugstack.conf,
# text files, error strings).
CORE_DIRS := shared/common shared/policy shared/usage shared/plugstack \
             shared/metrics
CORE_CFLAGS := $(CORE_DIRS:%=-I%)
# TLS to Redis (redis_tls_*, docs/high-availability.md "TLS") where hiredis has
# hiredis_ssl: 1.0 and later (Debian 13's); Debian 12's 0.14 has none, and
# a build there refuses those options.
HAVE_TLS := $(and $(wildcard /usr/include/hiredis/hiredis_ssl.h),$(wildcard \
              /usr/include/openssl/ssl.h))
QD_DEFS += $(if $(HAVE_TLS),-DQD_HAVE_TLS)
# hiredis, and hiredis_ssl with OpenSSL, are not linked into what qosdeny
# installs: shared/usage/hiredis_lib.c loads them when a process first talks
# to Redis (docs/performance.md "Launch cost"), by the sonames of the
# libraries the build would link. The unit tests' Redis fakes link them.
soname = $(shell { objdump -p "$$($(CC) -print-file-name=lib$(1).so)" | \
           sed -n 's/^ *SONAME *//p'; } 2>/dev/null)
QD_DEFS += -DQD_HIREDIS_SONAME='"$(call soname,hiredis)"' \
           $(if $(HAVE_TLS),-DQD_HIREDIS_SSL_SONAME='"$(call \
             soname,hiredis_ssl)"' -DQD_SSL_SONAME='"$(call soname,ssl)"')
HIREDIS_LIBS := $(if $(HAVE_TLS),-lhiredis_ssl -lssl -lcrypto) -lhiredis
# Header dependencies: each compile writes TARGET.d, included at the end.
DEPFLAGS   = -MMD -MP -MF $@.d

# Quiet rules, as Linux's and Slurm's builds print them ("  CC  file.o");
# V=1 shows the full command lines.
ifneq ($(V),1)
Q_CC = @printf '  %-7s %s\n' CC $@;
Q_LD = @printf '  %-7s %s\n' LD $@;
Q_AR = @printf '  %-7s %s\n' AR $@;
Q_GEN = @printf '  %-7s %s\n' GEN $@;
Q_OUT = >/dev/null
MAKEFLAGS += --no-print-directory
endif

# Slurm's internal headers (job_desc_msg_t, assoc_mgr, locks) for the
# job_submit adapter: Debian's source package of the installed slurm-wlm,
# fetched once into $(B)/slurm-src, or a tree the user already has.
SLURM_SRC ?= $(B)/slurm-src
# Slurm's headers define _GNU_SOURCE empty (24.11's gres.h through
# slurmstepd_job.h): the same empty definition here keeps them quiet.
SLURM_CFLAGS := -U_GNU_SOURCE -D_GNU_SOURCE= \
                -I$(B)/slurm-config -I$(SLURM_SRC) -I/usr/include

CORE_SRC  := $(wildcard $(CORE_DIRS:%=%/*.c))
CORE_OBJ  := $(CORE_SRC:%.c=$(B)/%.o)
CORE_LIB  := $(B)/libqosdeny_core.a

JS_SRC    := $(wildcard job_submit/*.c)
JS_OBJ    := $(JS_SRC:%.c=$(B)/%.o)
JS_SO     := $(B)/job_submit_qosdeny.so

# The tool: main.c, the commands and what they share in tools/, the
# doctor's checks in tools/doctor/ (docs/development.md, Source layout).
TOOL_DIRS := tools tools/doctor
TOOL_SRC  := $(wildcard $(TOOL_DIRS:%=%/*.c))
TOOL_OBJ  := $(TOOL_SRC:%.c=$(B)/%.o)
TOOL      := $(B)/qosdeny

# The unit tests of the slurmctld adapters' parts (test_decide,
# test_refresh) are built against Slurm's internal headers, as the plugins
# are. CTLD_TESTS=no leaves them out: a build without Slurm's source tree,
# which builds the node side alone (make check's of Debian's 26.05 packages,
# docs/development.md "Running the tests").
CTLD_TESTS ?= yes
CTLD_UNIT_SRC := tests/unit/test_decide.c tests/unit/test_refresh.c
UNIT_SRC  := $(filter-out $(if $(filter no,$(CTLD_TESTS)),$(CTLD_UNIT_SRC)), \
               $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# The unit tests that build against this version's Slurm or load what
# does (the SPANK plugin, the tool): the rest are the same code on the
# same toolchain wherever two versions share a Debian release, so make
# check runs them once per release (UNIT_SET=slurm, tests/check/parallel.sh).
SLURM_UNIT_SRC := $(filter $(CTLD_UNIT_SRC) tests/unit/test_spank_plugin.c \
                    tests/unit/test_usage_report_plugin.c \
                    tests/unit/test_cmd_share_flush.c,$(UNIT_SRC))

# The core and its unit tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer: any report fails the test.
ASAN_B    := $(B)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
ASAN_CORE_OBJ := $(CORE_SRC:%.c=$(ASAN_B)/%.o)
ASAN_CORE_LIB := $(ASAN_B)/libqosdeny_core.a
ASAN_UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(ASAN_B)/tests/%)

# The integration tests' programs: a Redis proxy that loses replies,
# clients that submit with a forged SPANK environment or another user's uid,
# or many jobs from one process (t_memory.sh).
HELPER_BIN := $(B)/tests/redis_drop_proxy $(B)/tests/forge_submit \
              $(B)/tests/submit_as_uid $(B)/tests/submit_many

# job_submit_qosdeny.so and the core under ASan and UBSan, for a slurmctld
# with the compiler's own ASan runtime preloaded (make integration-asan).
# gcc's UBSan runtime, loaded beside ASan's, writes its reports to stderr
# whatever its log_path (slurmctld's is /dev/null): UBSan traps instead,
# and ASan (handle_sigill) reports the trap with its stack in its log.
# ASAN_CTLD_DIR is the cluster's plugin directory: it also holds the plain
# spank_qosdeny.so, since slurmd and slurmstepd run without the runtime,
# and the tool its job prolog runs.
ASAN_RT         ?= $(realpath $(shell $(CC) -print-file-name=libasan.so))
ASAN_CTLD_B     := $(B)/asan-ctld
ASAN_CTLD_FLAGS := -fsanitize=address,undefined \
                   -fsanitize-undefined-trap-on-error -fno-omit-frame-pointer
# The core goes in as an archive, as in the plain plugins: an object the
# plugin never calls (the Redis client's) is left out, not left with
# symbols that BIND_NOW (-z now) must resolve at dlopen.
ASAN_CTLD_CORE_LIB := $(ASAN_CTLD_B)/libqosdeny_core.a
ASAN_CTLD_OBJ   := $(JS_SRC:%.c=$(ASAN_CTLD_B)/%.o)
ASAN_CTLD_DIR   := $(ASAN_CTLD_B)/plugins

BENCH_SRC := tests/bench/bench_decision.c
BENCH_BIN := $(B)/tests/bench_decision
# Usage records per second into Redis and the job epilog's reporting cost.
USAGE_BENCH_BIN := $(B)/tests/bench_usage
# site_factor/qosdeny's table work and lookups, in process.
SF_BENCH_BIN := $(B)/tests/bench_site_factor
# Queues held jobs through libslurm, for the submission benchmark.
FILL_QUEUE := $(B)/tests/fill_queue

# A missing build dependency stops here with one line naming the Debian
# package, before any compiler error. The goals that install them
# themselves (make deps) are left alone; all and install, the plugins, the
# tool and the Slurm headers alone (what make deb builds), need no test
# framework.
BUILD_DEPS := slurm/slurm.h=libslurm-dev hiredis/hiredis.h=libhiredis-dev \
              security/pam_ext.h=libpam0g-dev
TEST_DEPS  := criterion/criterion.h=libcriterion-dev
# slurm-from-source installs the Slurm whose headers the others need.
SELF_DEPS_GOALS := deps check check-here check-core check-quick demo bench bench-plugin deb \
                   distclean uninstall pam-uninstall \
                   deb-test deb-test-if-packaged build-test clean format format-check fuzz \
                   fuzz-smoke fuzz-build slurm-from-source check-gpu-node check-vm-25.11 \
                   check-vm-26.05
GOALS := $(or $(MAKECMDGOALS),all)
ifneq ($(filter-out $(SELF_DEPS_GOALS),$(GOALS)),)
NEEDED  := $(BUILD_DEPS) \
           $(if $(filter-out all install pam-install %/slurm-config/config.h %.so %/qosdeny,$(GOALS)),$(TEST_DEPS))
MISSING := $(firstword $(foreach d,$(NEEDED),$(if \
             $(wildcard /usr/include/$(firstword $(subst =, ,$(d)))),,$(d))))
ifneq ($(MISSING),)
$(error $(firstword $(subst =, ,$(MISSING))) not found: install Debian's $(lastword $(subst =, ,$(MISSING))), or run make deps (as root) for every build dependency)
endif
endif

include node/node.mk
include spank/spank.mk
include site_factor/site_factor.mk
include pam/pam.mk

.PHONY: all install uninstall deps format format-check clean distclean
# What make install installs, and nothing of the tests (make tests).
all: $(CORE_LIB) $(JS_SO) $(SF_SO) $(SPANK_SO) $(PAM_SO) $(TOOL)

# Every object, in each of the three builds of the same sources: this one
# ($(B), hardened), the unit tests' under ASan and UBSan ($(ASAN_B)) and
# slurmctld's plugins under ASan with UBSan trapping ($(ASAN_CTLD_B)). A
# build gives its preprocessor flags, the _FORTIFY_SOURCE level or none, and
# its sanitizer flags, after the user's CFLAGS; a source folder its include
# paths (FOLDER_CFLAGS_<folder>), the same in every build.
FOLDER_CFLAGS_shared      = $(CORE_CFLAGS)
FOLDER_CFLAGS_job_submit  = $(CORE_CFLAGS) $(SLURM_CFLAGS)
FOLDER_CFLAGS_site_factor = $(SF_CFLAGS)
FOLDER_CFLAGS_node        = $(NODE_CFLAGS)
FOLDER_CFLAGS_spank       = $(SPANK_CFLAGS)
FOLDER_CFLAGS_pam         = $(PAM_CFLAGS)
# The tool's doctor checks a node with the plugin's own parts (plugstack
# options, GPU lists, cgroups): it links libqosdeny_node.a. Both tool
# folders are searched: cmd_doctor.c includes the doctor's headers, and the
# doctor's files ctld_limits.h and libslurm_compat.h from tools/.
FOLDER_CFLAGS_tools       = $(TOOL_DIRS:%=-I%) $(NODE_CFLAGS)

# $(1): a build directory; $(2): its preprocessor flags; $(3): its
# sanitizer flags.
define object_rule
$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(Q_CC)$$(CC) $$(DEPFLAGS) $(2) \
		$$(FOLDER_CFLAGS_$$(firstword $$(subst /, ,$$*))) $$(CPPFLAGS) \
		$$(QD_CFLAGS) $$(CFLAGS)$(if $(3), $(3)) -c -o $$@ $$<
endef
$(eval $(call object_rule,$(B),$$(QD_CPPFLAGS)))
$(eval $(call object_rule,$(ASAN_B),$$(QD_SAN_CPPFLAGS),$$(ASAN_FLAGS)))
$(eval $(call object_rule,$(ASAN_CTLD_B),$$(QD_SAN_CPPFLAGS),$$(ASAN_CTLD_FLAGS)))

# The slurmctld adapters read Slurm's configured headers.
$(JS_OBJ) $(ASAN_CTLD_OBJ) $(SF_OBJ) $(ASAN_SF_OBJ): $(B)/slurm-config/config.h

# Every library, in any build: its objects are listed with it, as
# prerequisites without a recipe.
$(CORE_LIB): $(CORE_OBJ)
$(ASAN_CORE_LIB): $(ASAN_CORE_OBJ)
$(ASAN_CTLD_CORE_LIB): $(CORE_SRC:%.c=$(ASAN_CTLD_B)/%.o)
$(B)/%.a:
	@rm -f $@
	$(Q_AR)ar rcs $@ $^

$(B)/slurm-config/config.h: job_submit/get-slurm-source.sh \
		$(wildcard /usr/include/slurm/slurm_version.h /usr/sbin/slurmctld)
	$(Q_GEN)SLURM_SRC=$(SLURM_SRC) B=$(B) sh job_submit/get-slurm-source.sh $(Q_OUT)

# Only the plugin's entry points are exported (job_submit_qosdeny.map).
$(JS_SO): $(JS_OBJ) $(CORE_LIB) job_submit/job_submit_qosdeny.map
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $(JS_OBJ) $(CORE_LIB) \
		-Wl,--version-script=job_submit/job_submit_qosdeny.map

$(TOOL): $(TOOL_OBJ) $(NODE_LIB) $(CORE_LIB)
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(NODE_LIB) $(CORE_LIB) -lslurm -lm

# The tool's end-to-end tests run this build's qosdeny (B differs per
# Slurm version).
$(B)/tests/test_cmd_share_flush $(ASAN_B)/tests/test_cmd_share_flush: \
	TEST_DEFS := -DQD_TOOL_PATH='"$(abspath $(TOOL))"'

# The doctor's output and text readers, compiled into their unit test.
DOCTOR_PURE := tools/doctor/doctor_output.c tools/doctor/doctor_text.c
$(B)/tests/test_doctor $(ASAN_B)/tests/test_doctor: $(DOCTOR_PURE)
$(B)/tests/test_doctor $(ASAN_B)/tests/test_doctor: \
	TEST_DEFS := -Itools/doctor $(DOCTOR_PURE)

# The SCAN bound's test builds redis_usage.c in with a bound of 1,000
# batches, which a fake server reaches in 1,000 round trips, not 100,000.
$(B)/tests/test_redis_scan $(ASAN_B)/tests/test_redis_scan: \
	shared/usage/redis_usage.c
$(B)/tests/test_redis_scan $(ASAN_B)/tests/test_redis_scan: \
	TEST_DEFS := -DSCAN_BATCHES_MAX=1000 shared/usage/redis_usage.c

# The unit tests link hiredis for their Redis fakes, except the test of
# its loading on demand, which must find it unloaded as the plugins do.
TEST_LIBS = $(HIREDIS_LIBS)
$(B)/tests/test_hiredis_lib $(ASAN_B)/tests/test_hiredis_lib: TEST_LIBS :=

# A test of a slurmctld adapter's parts: the test links their objects and
# the core as the plugin does, and libslurm for the Slurm calls slurmctld
# would answer; slurmctld's own globals and functions are the test's.
# $(1): a build directory; $(2): its preprocessor flags; $(3): its sanitizer
# flags; $(4): the test; $(5): the objects; $(6): their folder's include
# paths; $(7): more libraries.
define ctld_test_rule
$(5:%=$(1)/%): $(B)/slurm-config/config.h
$(1)/tests/$(4): tests/unit/$(4).c $(5:%=$(1)/%) $(1)/libqosdeny_core.a \
		$(B)/slurm-config/config.h
	@mkdir -p $$(@D)
	$$(Q_CC)$$(CC) $$(DEPFLAGS) $(2) $(6) $$(CPPFLAGS) $$(QD_CFLAGS) \
		$$(CFLAGS) $(3) $$(QD_LDFLAGS) $$(LDFLAGS) -o $$@ $$< \
		$(5:%=$(1)/%) $(1)/libqosdeny_core.a -lslurm -lcriterion $(7)
endef
DECIDE_OBJ  := $(addprefix job_submit/,decide.o assoc_view.o slurm_fields.o \
                 partition_gpus.o)
REFRESH_OBJ := site_factor/refresh.o site_factor/snapshot.o site_factor/metrics_sf.o
DECIDE_CFLAGS = $(FOLDER_CFLAGS_job_submit) -Ijob_submit
$(eval $(call ctld_test_rule,$(B),$$(QD_CPPFLAGS),,test_decide,$(DECIDE_OBJ),$$(DECIDE_CFLAGS),-lm))
$(eval $(call ctld_test_rule,$(ASAN_B),$$(QD_SAN_CPPFLAGS),$$(ASAN_FLAGS),test_decide,$(DECIDE_OBJ),$$(DECIDE_CFLAGS),-lm))
$(eval $(call ctld_test_rule,$(B),$$(QD_CPPFLAGS),,test_refresh,$(REFRESH_OBJ),$$(SF_CFLAGS),$$(HIREDIS_LIBS) -lm -pthread))
$(eval $(call ctld_test_rule,$(ASAN_B),$$(QD_SAN_CPPFLAGS),$$(ASAN_FLAGS),test_refresh,$(REFRESH_OBJ),$$(SF_CFLAGS),$$(HIREDIS_LIBS) -lm -pthread))
$(B)/tests/test_%: tests/unit/test_%.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(TEST_DEFS) $(CORE_CFLAGS) \
		$(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(CORE_LIB) -lcriterion $(TEST_LIBS) -lm

$(ASAN_B)/tests/test_%: tests/unit/test_%.c $(ASAN_CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(TEST_DEFS) $(CORE_CFLAGS) \
		$(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) $(QD_LDFLAGS) \
		$(LDFLAGS) -o $@ $< $(ASAN_CORE_LIB) -lcriterion $(TEST_LIBS) -lm

$(B)/tests/forge_submit $(B)/tests/submit_as_uid \
$(B)/tests/submit_many: HELPER_LIBS := -lslurm
$(B)/tests/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) \
		$(QD_LDFLAGS) $(LDFLAGS) -o $@ $< $(HELPER_LIBS)

$(ASAN_CTLD_DIR)/job_submit_qosdeny.so: $(ASAN_CTLD_OBJ) $(ASAN_CTLD_CORE_LIB) \
		job_submit/job_submit_qosdeny.map
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(ASAN_CTLD_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ \
		$(ASAN_CTLD_OBJ) $(ASAN_CTLD_CORE_LIB) \
		-Wl,--version-script=job_submit/job_submit_qosdeny.map

$(ASAN_CTLD_DIR)/spank_qosdeny.so: $(SPANK_SO)
	@mkdir -p $(@D)
	cp $< $@

# The tool beside it, as in the build tree: the job prolog finds it there
# (node/job_held.h) on nodes where jobs may hold shares.
$(ASAN_CTLD_DIR)/qosdeny: $(TOOL)
	@mkdir -p $(@D)
	cp $< $@

$(BENCH_BIN): $(BENCH_SRC) $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CORE_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $(BENCH_SRC) \
		$(CORE_LIB)

$(USAGE_BENCH_BIN): tests/bench/bench_usage.c $(NODE_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(NODE_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< $(NODE_LIB) \
		$(NODE_LIBS)

$(SF_BENCH_BIN): tests/bench/bench_site_factor.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CORE_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< $(CORE_LIB) \
		-lm -pthread

# The launch benchmark's stand-in for any plugin with job prolog and epilog.
HOOKS_ONLY_SO := $(B)/tests/spank_hooks_only.so
$(HOOKS_ONLY_SO): tests/bench/spank_hooks_only.c
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) \
		$(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $<

# dlopen's cost per library in a fresh process, for the launch benchmark;
# with libm, which srun and slurmstepd have loaded already.
LOAD_COST := $(B)/tests/load_cost
$(LOAD_COST): tests/bench/load_cost.c
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) \
		$(QD_LDFLAGS) $(LDFLAGS) -rdynamic -o $@ $< -Wl,--no-as-needed -lm

$(FILL_QUEUE): tests/bench/fill_queue.c tests/helpers/slurm_ids.h
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(CPPFLAGS) $(QD_CFLAGS) $(CFLAGS) \
		$(QD_LDFLAGS) $(LDFLAGS) -o $@ $< -lslurm

# Installs Debian's packages and the test users where missing (root).
deps:
	sh tests/cluster/install-deps.sh

install: $(JS_SO) $(SF_SO) $(SPANK_SO) $(TOOL) pam-install
	install -D -m 0755 $(JS_SO) $(DESTDIR)$(PLUGINDIR)/job_submit_qosdeny.so
	install -D -m 0755 $(SF_SO) \
		$(DESTDIR)$(PLUGINDIR)/site_factor_qosdeny.so
	install -D -m 0755 $(SPANK_SO) $(DESTDIR)$(PLUGINDIR)/spank_qosdeny.so
	install -D -m 0755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/qosdeny
	install -D -m 0644 docs/man/qosdeny.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/qosdeny.1
	install -D -m 0644 docs/man/qosdeny.conf.5 \
		$(DESTDIR)$(PREFIX)/share/man/man5/qosdeny.conf.5
	install -D -m 0644 conf.example/grafana-qosdeny.json \
		$(DESTDIR)$(PREFIX)/share/qosdeny/grafana-qosdeny.json
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/qosdeny.conf ]; then \
		echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/qosdeny.conf"; \
	else \
		install -D -m 0644 conf.example/qosdeny.conf \
			$(DESTDIR)$(SYSCONFDIR)/qosdeny.conf; \
	fi

FORMAT_FILES := $(wildcard shared/*/*.[ch] job_submit/*.[ch] site_factor/*.[ch] node/*.[ch] spank/*.[ch] pam/*.[ch] \
                 $(TOOL_DIRS:%=%/*.[ch]) tests/unit/*.[ch] tests/bench/*.[ch] \
                 tests/helpers/*.[ch] tests/gpu-node/*.[ch] \
                 tests/fuzz/*.[ch])
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

# What make compiled in $(B): objects, libraries, plugins, programs, tests,
# the sanitizer and fuzz builds, make deb's tree and package, test results.
# Kept for the next build: Slurm's sources and headers ($(B)/slurm-src,
# $(B)/slurm-config), SchedMD's Slurm packages ($(B)/slurm-debs), the test
# clusters' files; the other Slurm versions' builds (build/<release>:
# tests/chroot/make-in.sh VERSION clean). make distclean removes the rest.
clean:
	rm -rf $(addprefix $(B)/,shared job_submit site_factor node spank pam \
		tools tests) $(CORE_LIB) $(NODE_LIB) $(JS_SO) $(SF_SO) $(SPANK_SO) \
		$(PAM_SO) $(TOOL) $(B)/*.so $(B)/*.a $(ASAN_B) $(ASAN_CTLD_B) \
		$(FUZZ_B) $(DEB_B) $(B)/results

# clean, then the whole build directory: fetched Slurm sources, every
# version's build, the chroots, VM images and the GPU node's runtime. A
# chroot may still have mounts (the checkout itself, bind-mounted inside):
# each is removed by chroot.sh destroy, which unmounts first and deletes
# nothing while anything is mounted, and nothing is removed while anything
# below build/ is still mounted. From the host, as root where chroots exist.
CHROOT_BASES := build/gpu-node/builder build/gpu-node build/chroot
distclean: clean
	@if ischroot 2>/dev/null; then \
		echo "make distclean: run it on the host, not in a chroot" >&2; \
		exit 1; fi
	@for base in $(CHROOT_BASES); do for d in $$base/*/; do \
		[ -e "$$d.qd-ready" ] || [ -d "$${d}usr" ] || continue; \
		echo "chroot.sh destroy $$(basename $$d) ($$base)"; \
		QD_CHROOT_BASE=$(CURDIR)/$$base bash tests/chroot/chroot.sh \
			destroy "$$(basename $$d)" || exit 1; \
	done; done
	@for d in $(sort $(abspath build $(B))); do \
		m=$$(awk -v d="$$d" '$$5 == d || index($$5, d "/") == 1 { print $$5 }' \
			/proc/self/mountinfo); \
		[ -z "$$m" ] || { echo "make distclean: still mounted, not deleting:" \
			$$m >&2; exit 1; }; \
	done
	rm -rf --one-file-system $(B) build

# What make install put in place (PREFIX, DESTDIR, PLUGINDIR as there),
# files only: the directories are shared with Slurm and the system, and a
# site's qosdeny.conf is its policy, never removed.
uninstall: pam-uninstall
	rm -f $(DESTDIR)$(PLUGINDIR)/job_submit_qosdeny.so \
		$(DESTDIR)$(PLUGINDIR)/site_factor_qosdeny.so \
		$(DESTDIR)$(PLUGINDIR)/spank_qosdeny.so \
		$(DESTDIR)$(PREFIX)/bin/qosdeny \
		$(DESTDIR)$(PREFIX)/share/man/man1/qosdeny.1 \
		$(DESTDIR)$(PREFIX)/share/man/man5/qosdeny.conf.5 \
		$(DESTDIR)$(PREFIX)/share/qosdeny/grafana-qosdeny.json
	-rmdir $(DESTDIR)$(PREFIX)/share/qosdeny 2>/dev/null

# make check, unit, bench, deb, demo and the others that run tests.
include tests/tests.mk

# The header dependencies the compiler wrote (DEPFLAGS), for the objects
# and programs of this build directory.
DEP_DIRS := shared/* job_submit site_factor node spank pam $(TOOL_DIRS) tests
-include $(wildcard $(foreach b,$(B) $(ASAN_B) $(ASAN_CTLD_B) $(FUZZ_B),\
                      $(DEP_DIRS:%=$(b)/%/*.d)) $(FUZZ_B)/*.d)
