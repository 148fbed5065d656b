#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The hardening of the five binaries qosdeny installs (job_submit_qosdeny.so,
# site_factor_qosdeny.so, spank_qosdeny.so, pam_qosdeny.so, qosdeny), read
# from the ELF files themselves with binutils' readelf, so that the check
# holds whatever compiler or make flags produced them:
#
#   hardening.sh FILE...          those files
#   hardening.sh PACKAGE.deb      the five, as the package installs them
#
# Executed, it counts as suite $QD_SUITE (default "hardening"); t_build.sh
# sources it for hardening_checks alone.
#
# Per binary:
#   - BIND_NOW (FLAGS BIND_NOW or FLAGS_1 NOW) and a GNU_RELRO segment:
#     -Wl,-z,relro,-z,now, the whole GOT read-only once loaded;
#   - __stack_chk_fail imported: -fstack-protector-strong put a canary in
#     at least one function (every one of the five has local arrays);
#   - _FORTIFY_SOURCE, two ways. A fortified call that stays a plain one
#     proves nothing (a memcpy or snprintf into a buffer of a size the
#     compiler cannot see is left unchecked, at any level), so the check
#     does not count plain memcpy and the like. Instead: (1) at least one
#     __*_chk import, for every binary not in QD_NOTHING_TO_FORTIFY (empty:
#     all five copy into buffers of known size); (2) none of the printf
#     family, which glibc's headers turn into __printf_chk and its kin
#     whatever the arguments once _FORTIFY_SOURCE is 2 or more: one plain
#     fprintf import means code built without fortification (or without
#     the optimisation it needs). -fstack-clash-protection and
#     -fcf-protection leave nothing readelf can tell apart in every build
#     (the CET note needs glibc's own start files built with it); t_build.sh
#     checks that the compiler lines carry them.
set -u

QD_NOTHING_TO_FORTIFY=${QD_NOTHING_TO_FORTIFY:-}
# Always __*_chk under _FORTIFY_SOURCE >= 2 (glibc's bits/stdio2.h and
# bits/syslog.h); gcc may still turn a printf into puts, which is fine.
QD_ALWAYS_FORTIFIED="printf fprintf vprintf vfprintf dprintf vdprintf
asprintf vasprintf obstack_printf obstack_vprintf syslog vsyslog"

# The symbols FILE imports, one a line, without their versions.
hardening_imports() {
	LC_ALL=C readelf --dyn-syms -W "$1" 2>/dev/null |
		awk '$7 == "UND" && $8 != "" { sub(/@.*/, "", $8); print $8 }' |
		sort -u
}

# hardening_checks NAME FILE: one `check` (tests/integration/lib.sh) per
# property.
hardening_checks() {
	local name=$1 f=$2 dyn phdr imports chk plain s
	if ! LC_ALL=C readelf -h "$f" >/dev/null 2>&1; then
		fail "$name: $f is an ELF file"
		return
	fi
	dyn=$(LC_ALL=C readelf -dW "$f")
	phdr=$(LC_ALL=C readelf -lW "$f")
	imports=$(hardening_imports "$f")
	check "$name: BIND_NOW (-z now)" \
		grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*[[:space:]]NOW' <<<"$dyn"
	check "$name: GNU_RELRO segment (-z relro)" \
		grep -q '^ *GNU_RELRO ' <<<"$phdr"
	check "$name: imports __stack_chk_fail (-fstack-protector-strong)" \
		grep -qx __stack_chk_fail <<<"$imports"
	chk=$(grep -E '^__.+_chk$' <<<"$imports" | grep -vx __stack_chk_fail |
		tr '\n' ' ')
	if [[ " $QD_NOTHING_TO_FORTIFY " == *" $name "* ]]; then
		pass "$name: nothing to fortify (QD_NOTHING_TO_FORTIFY)"
	else
		check "$name: imports fortified __*_chk functions (_FORTIFY_SOURCE)" \
			[ -n "$chk" ]
	fi
	plain=""
	for s in $QD_ALWAYS_FORTIFIED; do
		grep -qx "$s" <<<"$imports" && plain="$plain $s"
	done
	assert_eq "$name: no unfortified printf-family imports" "" "${plain# }"
}

# The package's five, where it installs them.
hardening_deb() {
	local deb=$1 root n f
	root=$(mktemp -d /tmp/qd-hardening.XXXXXX)
	# shellcheck disable=SC2064 # the directory of this call
	trap "rm -rf '$root'" EXIT
	if ! dpkg-deb -x "$deb" "$root"; then
		fail "dpkg-deb -x $(basename "$deb")"
		return
	fi
	for n in job_submit_qosdeny.so site_factor_qosdeny.so spank_qosdeny.so \
		pam_qosdeny.so qosdeny; do
		f=$(find "$root" -name "$n" -type f)
		if [ "$(grep -c . <<<"$f")" -ne 1 ]; then
			fail "$(basename "$deb") holds one $n (found: ${f:-none})"
			continue
		fi
		hardening_checks "$n" "$f"
	done
}

if [ "${BASH_SOURCE[0]}" == "$0" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	source "$here/../integration/lib.sh"
	export QD_SUITE=${QD_SUITE:-hardening}
	QD_RESULTS=${QD_RESULTS:-$QD_BUILD/results}
	if [ $# -eq 0 ]; then
		echo "usage: hardening.sh FILE... | PACKAGE.deb" >&2
		exit 2
	fi
	for a in "$@"; do
		case $a in
		*.deb) hardening_deb "$a" ;;
		*) hardening_checks "$(basename "$a")" "$a" ;;
		esac
	done
	finish
fi
