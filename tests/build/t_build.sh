#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The build as an administrator meets it (docs/install.md): a copy of the
# checkout as a fresh clone has it, where plain `make` builds what `make
# install` installs and nothing of the tests, with no test framework
# installed (`make tests` builds those), with quiet lines (V=1 for the full
# ones), header dependencies that rebuild what a header change touches,
# hardened binaries (hardening.sh) whatever CFLAGS the user gives, make
# uninstall and make clean leaving nothing of theirs behind, and a missing
# build dependency named in one line with `make deps`.
# Run by make check-here (make build-test); counts as suite "build".
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../integration/lib.sh"
source "$here/hardening.sh"
export QD_SUITE=build

tmp=$(mktemp -d /tmp/qd-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/qosdeny
mkdir -p "$src"
# The tree as it is now, without its builds and history (as make deb copies
# it; git itself may be missing where this runs, as in the test chroots).
tar -C "$QD_ROOT" --exclude=./build --exclude=./.git -cf - . |
	tar -xf - -C "$src"
# The make that runs this one passes its variables (B among them) down.
unset MAKEFLAGS MFLAGS MAKELEVEL B
# make in the copy, as an administrator runs it there (not make -C, whose
# "Entering directory" lines are not what they see).
# Slurm's source tree of this build is reused (make SLURM_SRC=, as a site
# that builds Slurm itself does): 26.05 has no Debian source to fetch.
srcvar=()
[ -d "$QD_BUILD/slurm-src" ] && srcvar=(SLURM_SRC="$QD_BUILD/slurm-src")
mk() { (cd "$src" && make "${srcvar[@]}" "$@" 2>&1); }

# As on a build host without the test framework: its header named missing.
no_criterion=TEST_DEPS=criterion/qd-none.h=libcriterion-dev
plain=$(mk "$no_criterion")
rc=$?
assert_eq "plain make succeeds without the test framework" 0 "$rc"
[ "$rc" -eq 0 ] || echo "$plain" | tail -n 20
for f in job_submit_qosdeny.so site_factor_qosdeny.so spank_qosdeny.so \
	pam_qosdeny.so qosdeny; do
	check "plain make built build/$f" test -s "$src/build/$f"
done
check "and no test" test ! -e "$src/build/tests"
out=$(mk "$no_criterion" tests)
assert_eq "make tests needs the test framework" 2 "$?"
assert_contains "and names it" "install Debian's libcriterion-dev" "$out"
out=$(mk tests)
assert_eq "make tests succeeds" 0 "$?"
for f in tests/test_policy_parse tests/test_cgroup tests/redis_drop_proxy; do
	check "make tests built build/$f" test -s "$src/build/$f"
done
assert_contains "quiet lines name the object" \
	"  CC      build/shared/common/errmsg.o" "$plain"
check "no compiler command line without V=1" \
	bash -c '! grep -Eq "^(cc|gcc|clang) " <<<"$1"' _ "$plain$out"

# Calls between objects go one way (docs/development.md, Source layout):
# no loop among the objects each binary links. The slurmctld plugins, each
# with the same plugin_* symbols, are checked apart.
b=$src/build
for set in "shared node spank pam tools" "shared job_submit" \
	"shared site_factor"; do
	read -ra dirs <<<"$set"
	check "no call loop among the objects of ${set// /, }" \
		bash "$here/no_cycles.sh" "${dirs[@]/#/$b/}"
done

# The five installed binaries, as plain make built them.
for f in job_submit_qosdeny.so site_factor_qosdeny.so spank_qosdeny.so \
	pam_qosdeny.so qosdeny; do
	hardening_checks "$f" "$src/build/$f"
	# hiredis and OpenSSL are loaded when first needed, never with the
	# binary (docs/performance.md "Launch cost").
	check "$f links no hiredis nor OpenSSL" bash -c \
		'! LC_ALL=C readelf -dW "$1" | grep -E "NEEDED.*lib(hiredis|ssl|crypto)"' \
		_ "$src/build/$f"
done

out=$(mk)
check "a second make compiles nothing" \
	bash -c '! grep -q "^  CC " <<<"$1"' _ "$out"

touch "$src/shared/policy/tres.h"
out=$(mk)
assert_contains "a header change rebuilds its users" \
	"CC      build/shared/policy/tres.o" "$out"
assert_not_contains "and only them" "build/shared/common/errmsg.o" "$out"

# make echoes a recipe's continued lines as they are written, backslash
# and all: one line per command for the checks.
joined() { sed -e ':a' -e '/\\$/{N; s/\\\n[[:space:]]*//; ta' -e '}'; }

touch "$src/shared/common/errmsg.c"
out=$(mk V=1 | joined)
check "V=1 prints the full compiler line" \
	grep -Eq "^(cc|gcc) .*-MMD -MP .*-c -o build/shared/common/errmsg.o" \
	<<<"$out"

dest=$tmp/root
out=$(mk install DESTDIR="$dest")
assert_eq "make install DESTDIR succeeds" 0 "$?"
for f in job_submit_qosdeny.so site_factor_qosdeny.so spank_qosdeny.so \
	pam_qosdeny.so qosdeny qosdeny.conf qosdeny.1 qosdeny.conf.5; do
	n=$(find "$dest" -name "$f" -type f | wc -l)
	assert_eq "make install installed $f" 1 "$n"
done

# make uninstall takes away the files make install put there, all but the
# site's qosdeny.conf; the directories stay (shared with Slurm and the
# system).
out=$(mk uninstall DESTDIR="$dest")
assert_eq "make uninstall DESTDIR succeeds" 0 "$?"
assert_eq "make uninstall leaves qosdeny.conf alone" \
	"$dest/etc/slurm/qosdeny.conf" "$(find "$dest" ! -type d)"

# A user's flags come after the Makefile's: their level of _FORTIFY_SOURCE
# (dpkg-buildflags' 2) without a "redefined" warning, their optimisation,
# and the hardening still there.
touch "$src/shared/common/errmsg.c"
out=$(mk V=1 CPPFLAGS=-D_FORTIFY_SOURCE=2 CFLAGS="-O1 -g" \
	LDFLAGS=-Wl,-O1 build/qosdeny)
assert_eq "make with the user's CPPFLAGS, CFLAGS, LDFLAGS succeeds" 0 "$?"
out=$(joined <<<"$out")
cc_line=$(grep -E -- "-c -o build/shared/common/errmsg.o" <<<"$out")
check "the user's CPPFLAGS after the Makefile's fortify level" grep -Eq -- \
	"-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -U_FORTIFY_SOURCE .* -D_FORTIFY_SOURCE=2 " \
	<<<"$cc_line"
check "the hardening flags, then the user's CFLAGS" grep -Eq -- \
	"-fstack-protector-strong -fstack-clash-protection( -fcf-protection)? .*-O1 -g -c" \
	<<<"$cc_line"
if [[ $(cc -dumpmachine) == x86_64-* ]]; then
	check "-fcf-protection on x86" grep -q -- " -fcf-protection " <<<"$cc_line"
fi
assert_not_contains "no redefined _FORTIFY_SOURCE" "redefined" "$out"
check "the user's LDFLAGS after -z relro,-z now" grep -Eq -- \
	"-Wl,-z,relro,-z,now -Wl,-O1 .*-o build/qosdeny " <<<"$out"

# A header that is missing, named as a Debian package would be: the same
# check that names libpam0g-dev when security/pam_ext.h is absent.
out=$(mk clean)
assert_eq "make clean succeeds" 0 "$?"
# Left: Slurm's headers and configuration for the next build (make
# distclean removes them), and its sources where they were fetched here.
left=$(cd "$src/build" && find . -path ./slurm-src -prune -o \( -name '*.o' \
	-o -name '*.so' -o -name '*.a' -o -name '*.d' -o \
	\( -type f -perm -u+x \) \) -print)
assert_eq "make clean leaves nothing compiled under build/" "" "$left"
left=$(ls "$src/build" | grep -vx -e slurm-config -e slurm-src | tr '\n' ' ')
assert_eq "make clean leaves only build/slurm-config and slurm-src" "" "$left"
out=$(mk BUILD_DEPS="qd/no-such.h=libqd-no-such-dev")
assert_eq "a missing build dependency stops make" 2 "$?"
assert_eq "in one line" 1 "$(grep -c . <<<"$out")"
assert_contains "naming the package" "install Debian's libqd-no-such-dev" "$out"
assert_contains "and make deps" "make deps" "$out"
check "before any compiler line" bash -c '! grep -q "  CC " <<<"$1"' _ "$out"

finish
