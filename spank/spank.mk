# spank_qosdeny.so, the node-side GPU binding, and the unit tests of its
# parts. Included by the Makefile after its own variables; until then:
#   make -f Makefile -f spank/spank.mk build/spank_qosdeny.so
#
# The parts without SPANK types (cgroups, GPU lists, plugstack options) go
# into libqosdeny_spank.a, which both the plugin and the tests link, so the
# tests run without slurmstepd. For the Makefile: SPANK_SO and
# SPANK_UNIT_BIN (all of which are also in UNIT_BIN) belong in `all`.

SPANK_CFLAGS   := -Ispank
SPANK_LIB_SRC  := spank/paths.c spank/cgroup.c spank/cgroup_v1.c \
                  spank/cgroup_v2.c spank/gpu_devices.c spank/options.c
SPANK_LIB_OBJ  := $(SPANK_LIB_SRC:%.c=$(B)/%.o)
SPANK_LIB      := $(B)/libqosdeny_spank.a
SPANK_PLUG_SRC := $(filter-out $(SPANK_LIB_SRC),$(wildcard spank/*.c))
SPANK_PLUG_OBJ := $(SPANK_PLUG_SRC:%.c=$(B)/%.o)
SPANK_SO       := $(B)/spank_qosdeny.so
SPANK_MAP      := spank/spank_qosdeny.map

SPANK_UNIT_SRC := $(wildcard tests/unit/test_cgroup*.c \
                    tests/unit/test_spank_*.c tests/unit/test_gres_conf*.c)
SPANK_UNIT_BIN := $(SPANK_UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# test_spank_plugin loads the .so; the others link the parts.
SPANK_PLUG_TEST  := $(B)/tests/test_spank_plugin
SPANK_PART_TESTS := $(filter-out $(SPANK_PLUG_TEST),$(SPANK_UNIT_BIN))

$(B)/spank/%.o: spank/%.c $(wildcard spank/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SPANK_CFLAGS) -c -o $@ $<

$(SPANK_LIB): $(SPANK_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Only the SPANK entry points are exported (spank_qosdeny.map); the spank_*
# and slurm_* functions it calls are slurmstepd's, resolved when loaded.
$(SPANK_SO): $(SPANK_PLUG_OBJ) $(SPANK_LIB) $(SPANK_MAP)
	$(CC) -shared -o $@ $(SPANK_PLUG_OBJ) $(SPANK_LIB) \
		-Wl,--version-script=$(SPANK_MAP)

# Explicit (static pattern) rules, so they win over the Makefile's generic
# test rule.
$(SPANK_PART_TESTS): $(B)/tests/%: tests/unit/%.c $(SPANK_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SPANK_CFLAGS) -o $@ $< $(SPANK_LIB) -lcriterion

# The plugin as slurmstepd loads it, with the spank_* and slurm_* functions
# it calls stubbed in the test and exported to it (-rdynamic).
$(SPANK_PLUG_TEST): tests/unit/test_spank_plugin.c $(SPANK_SO) $(SPANK_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_SO))"' -rdynamic -o $@ $< \
		$(SPANK_LIB) -ldl -lcriterion

# The same under the sanitizers, for the Makefile's unit-asan.
ifdef ASAN_B
SPANK_ASAN_LIB  := $(ASAN_B)/libqosdeny_spank.a
SPANK_ASAN_SO   := $(ASAN_B)/spank_qosdeny.so
SPANK_ASAN_PART := $(SPANK_PART_TESTS:$(B)/tests/%=$(ASAN_B)/tests/%)
SPANK_ASAN_PLUG := $(ASAN_B)/tests/test_spank_plugin

$(ASAN_B)/spank/%.o: spank/%.c $(wildcard spank/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(SPANK_CFLAGS) -c -o $@ $<

$(SPANK_ASAN_LIB): $(SPANK_LIB_SRC:%.c=$(ASAN_B)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(SPANK_ASAN_SO): $(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(SPANK_ASAN_LIB) \
		$(SPANK_MAP)
	$(CC) $(ASAN_FLAGS) -shared -o $@ \
		$(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(SPANK_ASAN_LIB) \
		-Wl,--version-script=$(SPANK_MAP)

$(SPANK_ASAN_PART): $(ASAN_B)/tests/%: tests/unit/%.c $(SPANK_ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(SPANK_CFLAGS) -o $@ $< \
		$(SPANK_ASAN_LIB) -lcriterion

$(SPANK_ASAN_PLUG): tests/unit/test_spank_plugin.c $(SPANK_ASAN_SO) \
		$(SPANK_ASAN_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_ASAN_SO))"' -rdynamic \
		-o $@ $< $(SPANK_ASAN_LIB) -ldl -lcriterion
endif
