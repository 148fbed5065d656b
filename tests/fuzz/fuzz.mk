# SPDX-License-Identifier: GPL-2.0-or-later
# libFuzzer targets for the parsers that see user or admin input
# (tests/fuzz/README.md). Included by tests/tests.mk from the main
# Makefile, which defines B and CORE_SRC; for a tree whose Makefile does not
# include it yet:
#     make -f Makefile -f tests/fuzz/fuzz.mk fuzz
#
#   make fuzz        build, then run each target FUZZ_SECONDS (default 60)
#   make fuzz-smoke  each target FUZZ_SMOKE_SECONDS (default 5); one
#                    "fuzz <target> <passed> <failed>" line per target in
#                    $(QD_RESULTS)/counts for tests/summary.sh
#   make fuzz-build  only build
#
# The targets are built with clang from the shared/*.c sources themselves,
# not from the gcc-built library: libFuzzer needs clang's coverage
# instrumentation in the code under test.

# Read once even when named both by -f and by the Makefile's include.
ifndef QD_FUZZ_MK
QD_FUZZ_MK := $(lastword $(MAKEFILE_LIST))

# The main Makefile's, should this be included before they are defined.
B             ?= build
CORE_SRC      ?= $(wildcard shared/*/*.c)

FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_B        := $(B)/fuzz
FUZZ_TARGETS  := fuzz_tres fuzz_policy fuzz_slurm_time fuzz_request \
                 fuzz_check fuzz_usage_record fuzz_options fuzz_gres \
                 fuzz_factor_params fuzz_slurm_output fuzz_redis_usage \
                 fuzz_prom_merge fuzz_gpu_count fuzz_redis_reply \
                 fuzz_slurmd_gres fuzz_gres_held
FUZZ_BIN      := $(addprefix $(FUZZ_B)/,$(FUZZ_TARGETS))
# Any sanitizer report or failed invariant stops the run as a crash.
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
                 -fno-omit-frame-pointer
# The hardening of the main build (its HARDEN_CFLAGS where the Makefile
# includes this file) but _FORTIFY_SOURCE, whose checked copies the
# sanitizers' interceptors do not see; the user's CPPFLAGS and LDFLAGS
# after these.
FUZZ_HARDEN   := $(or $(HARDEN_CFLAGS),-fstack-protector-strong \
                 -fstack-clash-protection -fcf-protection)
FUZZ_LDFLAGS  := -Wl,-z,relro,-z,now
FUZZ_CFLAGS   := -g -O1 -std=gnu11 -Wall -Wextra -U_FORTIFY_SOURCE \
                 -D_GNU_SOURCE $(QD_DEFS) $(CORE_CFLAGS) -Inode $(FUZZ_HARDEN) $(FUZZ_SAN)
FUZZ_CORE_OBJ := $(CORE_SRC:%.c=$(FUZZ_B)/%.o)
# Archives, as for the unit tests: a target links only the objects it
# uses, so core files with their own libraries (hiredis) stay out.
FUZZ_CORE_LIB := $(FUZZ_B)/libqosdeny_core.a
# The node's gres.conf parser (the plugstack options' parser is in
# shared/plugstack, with the core), its reader of squeue's QoS rows (with
# the command runner it calls), its count of a job's GPUs, and its reader
# of `slurmd -G`'s lines.
FUZZ_NODE_SRC := node/gpu_devices.c node/paths.c node/job_qos.c \
                 node/slurm_cmd.c node/usage_job.c node/slurmd_gres.c
FUZZ_NODE_OBJ := $(FUZZ_NODE_SRC:%.c=$(FUZZ_B)/%.o)
FUZZ_NODE_LIB := $(FUZZ_B)/libqosdeny_node.a

# Run from the make that is already running: the top Makefile, plus this
# file when the top one does not include it.
FUZZ_SUBMAKE  = $(MAKE) -s --no-print-directory -f $(firstword $(MAKEFILE_LIST)) \
                -f $(QD_FUZZ_MK) B=$(B)

.PHONY: fuzz fuzz-smoke fuzz-build

fuzz-build: $(FUZZ_BIN)

# The core only gets coverage counters (fuzzer-no-link); libFuzzer's main
# is linked into each target.
$(FUZZ_B)/shared/%.o: shared/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/node/%.o: node/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/spank/%.o: spank/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) \
		-fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_CORE_LIB): $(FUZZ_CORE_OBJ)
	@rm -f $@
	$(Q_AR)ar rcs $@ $^

$(FUZZ_NODE_LIB): $(FUZZ_NODE_OBJ)
	@rm -f $@
	$(Q_AR)ar rcs $@ $^

$(FUZZ_B)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_NODE_LIB) $(FUZZ_CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(DEPFLAGS) $(FUZZ_CFLAGS) $(CPPFLAGS) -fsanitize=fuzzer \
		$(FUZZ_LDFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_NODE_LIB) $(FUZZ_CORE_LIB)

# Every target runs even when an earlier one crashed; the run fails after.
fuzz: fuzz-build
	@rc=0; for t in $(FUZZ_TARGETS); do \
		B=$(B) sh tests/fuzz/run.sh $$t $(FUZZ_SECONDS) || rc=1; \
	done; exit $$rc

# Built target by target, so that one that does not build is counted as
# failed and the others still run.
fuzz-smoke:
	@mkdir -p $(QD_RESULTS)
	@rc=0; for t in $(FUZZ_TARGETS); do \
		if $(FUZZ_SUBMAKE) $(FUZZ_B)/$$t; then \
			B=$(B) QD_RESULTS=$(QD_RESULTS) \
				sh tests/fuzz/run.sh $$t $(FUZZ_SMOKE_SECONDS) \
				|| rc=1; \
		else \
			echo "fuzz $$t 0 1" >>$(QD_RESULTS)/counts; rc=1; \
		fi; \
	done; exit $$rc

endif
