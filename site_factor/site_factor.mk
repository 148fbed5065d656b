# SPDX-License-Identifier: GPL-2.0-or-later
# site_factor_qosdeny.so, GPU fair share in job priority
# (docs/fair-share.md): a slurmctld adapter like job_submit/, built against
# the same Slurm internal headers and sharing job_submit/slurm_compat.h,
# with the policy core and hiredis linked in. Included by the Makefile after its own
# variables (CORE_LIB, CORE_CFLAGS, SLURM_CFLAGS, ASAN_CTLD_*).

SF_SRC    := $(wildcard site_factor/*.c)
SF_OBJ    := $(SF_SRC:%.c=$(B)/%.o)
SF_SO     := $(B)/site_factor_qosdeny.so
SF_MAP    := site_factor/site_factor_qosdeny.map
SF_CFLAGS := -Isite_factor -Ijob_submit $(CORE_CFLAGS) $(SLURM_CFLAGS)

# Only the plugin's entry points are exported (site_factor_qosdeny.map).
$(SF_SO): $(SF_OBJ) $(CORE_LIB) $(SF_MAP)
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $(SF_OBJ) $(CORE_LIB) \
		-lm -pthread \
		-Wl,--version-script=$(SF_MAP)

# The same under ASan and UBSan for make integration-asan, beside the
# instrumented job_submit plugin.
ASAN_SF_OBJ := $(SF_SRC:%.c=$(ASAN_CTLD_B)/%.o)

$(ASAN_CTLD_DIR)/site_factor_qosdeny.so: $(ASAN_SF_OBJ) $(ASAN_CTLD_CORE_LIB) \
		$(SF_MAP)
	@mkdir -p $(@D)
	$(Q_LD)$(CC) $(ASAN_CTLD_FLAGS) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ \
		$(ASAN_SF_OBJ) $(ASAN_CTLD_CORE_LIB) -lm \
		-pthread -Wl,--version-script=$(SF_MAP)
