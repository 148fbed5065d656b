# SPDX-License-Identifier: GPL-2.0-or-later
# pam_qosdeny.so: ssh sessions adopted into a job (pam_slurm_adopt) joined
# to the confinement spank_qosdeny.so's extern step prepared (pam/
# pam_qosdeny.c). Links the cgroup module and the records from
# libqosdeny_node.a (node/node.mk), which need nothing of Slurm's, and
# what they share with the rest from the core: the error formatter and the
# whole-file writer the records are written with (shared/common/errmsg.c,
# atomic_file.c, write_all.c), the names of the cgroup= modes the
# records hold (shared/plugstack/cgroup_mode.c), and the counts file the
# sessions are counted in for the node's metrics (shared/metrics/
# node_counts.c). Linked with -z defs: a symbol none of these resolve
# (an object of the node library that pulls in one of the core's not
# listed here) fails the build, not every ssh login as PAM loads it.

PAM_SO    := $(B)/pam_qosdeny.so
PAM_MAP   := pam/pam_qosdeny.map
PAM_CORE  := $(addprefix $(B)/shared/common/,errmsg.o atomic_file.o \
               write_all.o) $(B)/shared/plugstack/cgroup_mode.o \
             $(B)/shared/metrics/node_counts.o
# Where this release's own PAM modules are (dpkg knows the path it
# installed them under: /lib on Debian 12, /usr/lib from 13, whose merged
# /usr makes /lib an alias that packages may not use); /lib elsewhere.
PAM_MA    := $(shell $(CC) -print-multiarch)
PAMDIR    ?= $(shell d=/usr/lib/$(PAM_MA)/security; \
               dpkg-query -S $$d/pam_unix.so >/dev/null 2>&1 || \
               d=/lib/$(PAM_MA)/security; echo $$d)

# The adoption records' and the cgroup module's headers, which include
# the core's.
PAM_CFLAGS := $(NODE_CFLAGS)

$(PAM_SO): $(B)/pam/pam_qosdeny.o $(NODE_LIB) $(PAM_CORE) $(PAM_MAP)
	$(Q_LD)$(CC) $(QD_LDFLAGS) $(LDFLAGS) -shared -o $@ $(B)/pam/pam_qosdeny.o \
		$(NODE_LIB) $(PAM_CORE) -lpam -Wl,-z,defs \
		-Wl,--version-script=$(PAM_MAP)

.PHONY: pam-install pam-uninstall
pam-install: $(PAM_SO)
	install -D -m 0644 $(PAM_SO) $(DESTDIR)$(PAMDIR)/pam_qosdeny.so

# For the Makefile's uninstall.
pam-uninstall:
	rm -f $(DESTDIR)$(PAMDIR)/pam_qosdeny.so
