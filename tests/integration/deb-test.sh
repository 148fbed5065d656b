#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make deb-test: the package `make deb` built, installed with apt, run on the
# test cluster from Slurm's own PluginDir, and purged. Changes the system
# (that is what it tests): the package is always purged at the end, and a
# qosdeny.conf the site had in /etc/slurm is left as it was.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
export QD_SUITE=deb
mkdir -p "$QD_RESULTS"

deb=$(ls "$QD_BUILD"/deb-pkg/qosdeny_*.deb 2>/dev/null | head -n 1)
conf=/etc/slurm/qosdeny.conf
# Slurm's PluginDir: slurm-wlm/ for Debian's packages, slurm/ for
# SchedMD's (the Makefile's PLUGINDIR).
libdir=$(pkg-config --variable=libdir slurm 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
plugdir=$libdir/slurm-wlm
[ -d "$plugdir" ] || plugdir=$libdir/slurm
# The daemons' packages: slurmctld and slurmd, or SchedMD's slurm-smd-*.
smd=""
[ "$(dpkg-query -W -f '${db:Status-Status}' slurm-smd-slurmctld 2>/dev/null)" = installed ] &&
	smd=slurm-smd-
site_conf=""
[ -e "$conf" ] && site_conf=$(mktemp) && cp -p "$conf" "$site_conf"

apt_q() { DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" >/dev/null 2>&1; }
installed() { [ "$(dpkg-query -W -f '${db:Status-Status}' qosdeny 2>/dev/null)" == installed ]; }

cleanup() {
	installed && apt_q purge qosdeny
	if [ -n "$site_conf" ]; then
		cp -p "$site_conf" "$conf"
		rm -f "$site_conf"
	fi
}
trap cleanup EXIT

if [ -z "$deb" ]; then
	fail "make deb built a package in $QD_BUILD/deb-pkg"
	finish
	exit 1
fi
pass "make deb built $(basename "$deb")"

# --- a site's own qosdeny.conf is never overwritten, nor purged ----------
mkdir -p /etc/slurm
printf '# the site'"'"'s own\nEnforce=no\n' >"$conf"
mine=$(md5sum <"$conf")
check "apt installs the package" apt_q install "$deb"
assert_eq "an existing qosdeny.conf is kept" "$mine" "$(md5sum <"$conf")"
check "apt purges it" apt_q purge qosdeny
assert_eq "purge leaves the site's qosdeny.conf" "$mine" "$(md5sum <"$conf")"
rm -f "$conf"

# --- installed where Slurm looks, depending on this exact Slurm ---------
# pam_qosdeny.so goes where this release's own PAM modules are.
pamdir=$(dirname "$(dpkg-query -L libpam-modules | grep '/pam_unix\.so$' | head -n 1)")
check "apt installs it where there is no qosdeny.conf" apt_q install "$deb"
for f in "$plugdir/job_submit_qosdeny.so" "$plugdir/spank_qosdeny.so" \
	"$plugdir/site_factor_qosdeny.so" "$pamdir/pam_qosdeny.so" \
	/usr/bin/qosdeny /usr/share/man/man1/qosdeny.1.gz \
	/usr/share/man/man5/qosdeny.conf.5.gz; do
	check "the package installs $f" [ -e "$f" ]
done
assert_contains "qosdeny --version answers" "qosdeny" "$(qosdeny --version 2>&1)"
check "the example qosdeny.conf is in place and valid" qosdeny check "$conf"
for p in "${smd}slurmctld" "${smd}slurmd"; do
	v=$(dpkg-query -W -f '${Version}' "$p")
	assert_contains "it depends on $p $v exactly" "$p (= $v)" \
		"$(dpkg-query -W -f '${Depends}' qosdeny)"
	assert_contains "and breaks with any other $p" "$p (>> $v)" \
		"$(dpkg-query -W -f '${Breaks}' qosdeny)"
done
# hiredis is loaded when first needed, not linked: named by hand.
hiredis_pkg=$(dpkg-query -S "$(readlink -f "$(cc -print-file-name=libhiredis.so)")" |
	sed -n '1s/:.*//p')
assert_contains "it depends on $hiredis_pkg, which it loads" "$hiredis_pkg (>= " \
	"$(dpkg-query -W -f '${Depends}' qosdeny)"

# --- the installed plugins run: PluginDir is Slurm's own alone ----------
# Clients load plugins too: the directory must be readable to the users.
empty=$(mktemp -d)
chmod 755 "$empty"
QD_PLUGINDIR=$empty bash "$here/run.sh" "$here/t_scenario.sh" \
	"$here/t_gpu_binding.sh"
check "the suite's scenario and GPU binding pass with the package's plugins" \
	[ $? -eq 0 ]
rmdir "$empty"

# --- purge takes everything away, the example policy with it ------------
check "apt purges it" apt_q purge qosdeny
for f in "$plugdir/job_submit_qosdeny.so" "$plugdir/spank_qosdeny.so" \
	"$plugdir/site_factor_qosdeny.so" "$pamdir/pam_qosdeny.so" \
	/usr/bin/qosdeny "$conf"; do
	check "purge removes $f" [ ! -e "$f" ]
done
finish
