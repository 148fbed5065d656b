# SPDX-License-Identifier: GPL-2.0-or-later
# spank_qosdeny.so, the node-side GPU binding and GPU usage reporting: the
# SPANK entry points here, the parts without SPANK types in
# libqosdeny_node.a (node/node.mk), and the unit tests that load the plugin.
# Included by the Makefile after node/node.mk. For the Makefile: SPANK_SO
# and SPANK_PLUG_TEST (also in UNIT_BIN) belong in `all`.

SPANK_CFLAGS   := -Ispank -Inode $(CORE_CFLAGS)
SPANK_PLUG_SRC := $(filter-out $(NODE_LIB_SRC),$(wildcard spank/*.c))
SPANK_PLUG_OBJ := $(SPANK_PLUG_SRC:%.c=$(B)/%.o)
SPANK_SO       := $(B)/spank_qosdeny.so
SPANK_MAP      := spank/spank_qosdeny.map

# test_spank_plugin and test_usage_report_plugin load the .so.
SPANK_PLUG_TEST := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard                      tests/unit/test_*_plugin.c))

# Only the SPANK entry points are exported (spank_qosdeny.map); the spank_*
# and slurm_* functions it calls are slurmstepd's, resolved when loaded.
$(SPANK_SO): $(SPANK_PLUG_OBJ) $(NODE_LIB) $(CORE_LIB) $(SPANK_MAP)
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $(SPANK_PLUG_OBJ) \
		$(NODE_LIB) $(NODE_LIBS) \
		-Wl,--version-script=$(SPANK_MAP)

# A file named as Slurm's gres/gpu plugin, which the tests map as
# slurmstepd does (tests/unit/gres_gpu_stub.c).
GRES_GPU_STUB := $(B)/tests/stub/gres_gpu.so
$(GRES_GPU_STUB): tests/unit/gres_gpu_stub.c
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(QD_CFLAGS) $(CFLAGS) -fPIC -shared -o $@ $<

# The plugin as slurmstepd loads it, with the spank_* and slurm_* functions
# it calls stubbed in the test and exported to it (-rdynamic).
$(SPANK_PLUG_TEST): $(B)/tests/%: tests/unit/%.c $(SPANK_SO) $(NODE_LIB) \
		$(CORE_LIB) $(GRES_GPU_STUB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_CPPFLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_SO))"' \
		-DQD_GRES_GPU_SO='"$(abspath $(GRES_GPU_STUB))"' $(CPPFLAGS) $(QD_CFLAGS) \
		$(CFLAGS) $(QD_LDFLAGS) $(LDFLAGS) -rdynamic -o $@ $< \
		$(NODE_LIB) $(CORE_LIB) -ldl -lcriterion $(HIREDIS_LIBS)

# The same under the sanitizers, for the Makefile's unit-asan.
SPANK_ASAN_SO   := $(ASAN_B)/spank_qosdeny.so
SPANK_ASAN_PLUG := $(SPANK_PLUG_TEST:$(B)/tests/%=$(ASAN_B)/tests/%)

$(SPANK_ASAN_SO): $(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(NODE_ASAN_LIB) \
		$(ASAN_CORE_LIB) $(SPANK_MAP)
	$(Q_LD)$(CC) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ \
		$(SPANK_PLUG_SRC:%.c=$(ASAN_B)/%.o) $(NODE_ASAN_LIB) \
		$(ASAN_CORE_LIB) -lm \
		-Wl,--version-script=$(SPANK_MAP)

$(SPANK_ASAN_PLUG): $(ASAN_B)/tests/%: tests/unit/%.c $(SPANK_ASAN_SO) \
		$(NODE_ASAN_LIB) $(ASAN_CORE_LIB) $(GRES_GPU_STUB)
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(DEPFLAGS) $(QD_SAN_CPPFLAGS) $(SPANK_CFLAGS) \
		-DQD_SPANK_SO='"$(abspath $(SPANK_ASAN_SO))"' \
		-DQD_GRES_GPU_SO='"$(abspath $(GRES_GPU_STUB))"' $(CPPFLAGS) \
		$(QD_CFLAGS) $(CFLAGS) $(ASAN_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -rdynamic \
		-o $@ $< $(NODE_ASAN_LIB) $(ASAN_CORE_LIB) -ldl -lcriterion \
		$(HIREDIS_LIBS)
