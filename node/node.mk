# SPDX-License-Identifier: GPL-2.0-or-later
# libqosdeny_node.a: what a compute node does without Slurm's types, linked
# by spank_qosdeny.so (spank/spank.mk), pam_qosdeny.so (pam/pam.mk) and the
# qosdeny tool's doctor: the cgroup module, GPU lists from gres.conf, the
# adoption records, usage reporting and the scontrol calls it makes (docs/
# development.md, Source layout). Usage reporting uses the core (records, spool, Redis), so what
# links the library links libqosdeny_core.a, which loads hiredis when first
# needed (docs/performance.md "Launch cost"). Included by the Makefile after
# its own variables (CORE_LIB, CORE_CFLAGS, ASAN_B, ASAN_CORE_LIB among them).

NODE_CFLAGS  := -Inode $(CORE_CFLAGS)
NODE_LIB_SRC := $(wildcard node/*.c)
NODE_LIBS    := $(CORE_LIB) -lm
NODE_LIB     := $(B)/libqosdeny_node.a

# The unit tests of the library's parts, which link it and run without
# slurmstepd; the test_*_plugin ones load spank_qosdeny.so (spank/spank.mk).
NODE_UNIT_SRC := $(filter-out %_plugin.c,$(wildcard tests/unit/test_cgroup*.c \
                   tests/unit/test_spank_*.c tests/unit/test_gpu_devices*.c \
                   tests/unit/test_usage_report*.c tests/unit/test_job_qos.c \
                   tests/unit/test_slurmd_gres.c tests/unit/test_job_held.c \
                   tests/unit/test_job_weigh.c))
NODE_TESTS    := $(NODE_UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

# The objects of the library; the Makefile compiles and archives them.
$(NODE_LIB): $(NODE_LIB_SRC:%.c=$(B)/%.o)

# Explicit (static pattern) rules, so they win over the Makefile's generic
# test rule.
$(NODE_TESTS): $(B)/tests/%: tests/unit/%.c $(NODE_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(NODE_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< $(NODE_LIB) \
		$(NODE_LIBS) $(HIREDIS_LIBS) -lcriterion

# The same under the sanitizers, for the Makefile's unit-asan.
NODE_ASAN_LIB   := $(ASAN_B)/libqosdeny_node.a
NODE_ASAN_TESTS := $(NODE_TESTS:$(B)/tests/%=$(ASAN_B)/tests/%)

$(NODE_ASAN_LIB): $(NODE_LIB_SRC:%.c=$(ASAN_B)/%.o)

$(NODE_ASAN_TESTS): $(ASAN_B)/tests/%: tests/unit/%.c $(NODE_ASAN_LIB) \
		$(ASAN_CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(NODE_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(NODE_ASAN_LIB) $(ASAN_CORE_LIB) $(HIREDIS_LIBS) -lm -lcriterion
