# spank_qosdeny.so, the node-side GPU binding and GPU usage reporting, and
# the unit tests of its parts. Included by the Makefile after its own
# variables (CORE_LIB, CORE_CFLAGS, ASAN_CORE_LIB among them).
#
# The parts without SPANK types (cgroups, GPU lists, plugstack options,
# usage reporting) go into libqosdeny_spank.a, which both the plugin and the
# tests link, so the tests run without slurmstepd. Usage reporting uses the
# core (records, spool, Redis), so the plugin links libqosdeny_core.a, which
# loads hiredis when first needed (shared/usage/hiredis_lib.h). For the
# Makefile: SPANK_SO and SPANK_UNIT_BIN (all of which are also in UNIT_BIN)
# belong in `all`.

SPANK_CFLAGS   := -Ispank $(CORE_CFLAGS)
SPANK_LIB_SRC  := spank/paths.c spank/cgroup.c spank/cgroup_v1.c \
                  spank/cgroup_v2.c spank/cgroup_bpf.c spank/cgroup_file.c \
                  spank/cgroup_locate.c spank/cgroup_deny.c \
                  spank/gpu_devices.c \
                  spank/usage_job.c spank/usage_site.c spank/usage_report.c \
                  spank/job_qos.c spank/adopt.c spank/step_cgroup.c \
                  spank/slurm_cmd.c spank/job_end_ask.c
SPANK_LIBS     := $(CORE_LIB) -lm
SPANK_LIB_OBJ  := $(SPANK_LIB_SRC:%.c=$(B)/%.o)
SPANK_LIB      := $(B)/libqosdeny_spank.a
SPANK_PLUG_SRC := $(filter-out $(SPANK_LIB_SRC),$(wildcard spank/*.c))
SPANK_PLUG_OBJ := $(SPANK_PLUG_SRC:%.c=$(B)/%.o)
SPANK_SO       := $(B)/spank_qosdeny.so
SPANK_MAP      := spank/spank_qosdeny.map

SPANK_UNIT_SRC := $(wildcard tests/unit/test_cgroup*.c \
                    tests/unit/test_spank_*.c tests/unit/test_gpu_devices*.c \
                    tests/unit/test_usage_report*.c tests/unit/test_job_qos.c)
SPANK_UNIT_BIN := $(SPANK_UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# test_spank_plugin and test_usage_report_plugin load the .so; the others
# link the parts.
SPANK_PLUG_TEST  := $(B)/tests/test_spank_plugin \
                    $(B)/tests/test_usage_report_plugin
SPANK_PART_TESTS := $(filter-out $(SPANK_PLUG_TEST),$(SPANK_UNIT_BIN))

$(B)/spank/%.o: spank/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(SPANK_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) -c -o $@ $<

$(SPANK_LIB): $(SPANK_LIB_OBJ)
	@rm -f $@
	$(Q_AR)ar rcs $@ $^

# Only the SPANK entry points are exported (spank_qosdeny.map); the spank_*
# and slurm_* functions it calls are slurmstepd's, resolved when loaded.
$(SPANK_SO): $(SPANK_PLUG_OBJ) $(SPANK_LIB) $(CORE_LIB) $(SPANK_MAP)
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $(SPANK_PLUG_OBJ) \
		$(SPANK_LIB) $(SPANK_LIBS) \
		-Wl,--version-script=$(SPANK_MAP)

# Explicit (static pattern) rules, so they win over the Makefile's generic
# test rule.
$(SPANK_PART_TESTS): $(B)/tests/%: tests/unit/%.c $(SPANK_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(SPANK_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< $(SPANK_LIB) \
		$(SPANK_LIBS) $(HIREDIS_LIBS) -lcriterion

# The plugin as slurmstepd loads it, with the spank_* and slurm_* functions
# it calls stubbed in the test and exported to it (-rdynamic).
$(SPANK_PLUG_TEST): $(B)/tests/%: tests/unit/%.c $(SPANK_SO) $(SPANK_LIB) \
		$(CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_SO))"' $(CPPFLAGS) $(QD_CFLAGS) \
		$(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -rdynamic -o $@ $< \
		$(SPANK_LIB) $(CORE_LIB) -ldl -lcriterion $(HIREDIS_LIBS)

# The same under the sanitizers, for the Makefile's unit-asan.
ifdef ASAN_B
SPANK_ASAN_LIB  := $(ASAN_B)/libqosdeny_spank.a
SPANK_ASAN_SO   := $(ASAN_B)/spank_qosdeny.so
SPANK_ASAN_PART := $(SPANK_PART_TESTS:$(B)/tests/%=$(ASAN_B)/tests/%)
SPANK_ASAN_PLUG := $(SPANK_PLUG_TEST:$(B)/tests/%=$(ASAN_B)/tests/%)

$(ASAN_B)/spank/%.o: spank/%.c
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(SPANK_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) -c -o $@ $<

$(SPANK_ASAN_LIB): $(SPANK_LIB_SRC:%.c=$(ASAN_B)/%.o)
	@rm -f $@
	$(Q_AR)ar rcs $@ $^

$(SPANK_ASAN_SO): $(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(SPANK_ASAN_LIB) \
		$(ASAN_CORE_LIB) $(SPANK_MAP)
	$(Q_LD)$(CC) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ \
		$(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(SPANK_ASAN_LIB) \
		$(ASAN_CORE_LIB) -lm \
		-Wl,--version-script=$(SPANK_MAP)

$(SPANK_ASAN_PART): $(ASAN_B)/tests/%: tests/unit/%.c $(SPANK_ASAN_LIB) \
		$(ASAN_CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(SPANK_CFLAGS) $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(SPANK_ASAN_LIB) $(ASAN_CORE_LIB) $(HIREDIS_LIBS) -lm -lcriterion

$(SPANK_ASAN_PLUG): $(ASAN_B)/tests/%: tests/unit/%.c $(SPANK_ASAN_SO) \
		$(SPANK_ASAN_LIB) $(ASAN_CORE_LIB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_ASAN_SO))"' $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -rdynamic \
		-o $@ $< $(SPANK_ASAN_LIB) $(ASAN_CORE_LIB) -ldl -lcriterion \
		$(HIREDIS_LIBS)
endif
