# pam_qosdeny.so: ssh sessions adopted into a job (pam_slurm_adopt) joined
# to the confinement spank_qosdeny.so's extern step prepared (pam/
# pam_qosdeny.c). Links the cgroup module and the records from
# libqosdeny_spank.a (spank/spank.mk), which need nothing of Slurm's.

PAM_SO    := $(B)/pam_qosdeny.so
PAM_MAP   := pam/pam_qosdeny.map
PAMDIR    ?= /lib/$(shell $(CC) -print-multiarch)/security

$(B)/pam/%.o: pam/%.c $(wildcard spank/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ispank -c -o $@ $<

$(PAM_SO): $(B)/pam/pam_qosdeny.o $(SPANK_LIB) $(PAM_MAP)
	$(CC) -shared -o $@ $(B)/pam/pam_qosdeny.o $(SPANK_LIB) -lpam \
		-Wl,--version-script=$(PAM_MAP)

.PHONY: pam-install
pam-install: $(PAM_SO)
	install -D -m 0644 $(PAM_SO) $(DESTDIR)$(PAMDIR)/pam_qosdeny.so
