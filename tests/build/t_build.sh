#!/usr/bin/env bash
# The build as an administrator meets it (README, Install): a copy of the
# checkout as a fresh clone has it, where plain `make` builds everything
# `make install` installs plus the tests, with quiet lines (V=1 for the full
# ones), header dependencies that rebuild what a header change touches, and
# a missing build dependency named in one line with `make deps`.
# Run by make check-here (make build-test); counts as suite "build".
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../integration/lib.sh"
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

out=$(mk)
rc=$?
assert_eq "plain make succeeds" 0 "$rc"
[ "$rc" -eq 0 ] || echo "$out" | tail -n 20
for f in job_submit_qosdeny.so site_factor_qosdeny.so spank_qosdeny.so \
	pam_qosdeny.so qosdeny tests/test_policy tests/test_cgroup; do
	check "plain make built build/$f" test -s "$src/build/$f"
done
assert_contains "quiet lines name the object" \
	"  CC      build/shared/common/errmsg.o" "$out"
check "no compiler command line without V=1" \
	bash -c '! grep -Eq "^(cc|gcc|clang) " <<<"$1"' _ "$out"

out=$(mk)
check "a second make compiles nothing" \
	bash -c '! grep -q "^  CC " <<<"$1"' _ "$out"

touch "$src/shared/policy/tres.h"
out=$(mk)
assert_contains "a header change rebuilds its users" \
	"CC      build/shared/policy/tres.o" "$out"
assert_not_contains "and only them" "build/shared/common/errmsg.o" "$out"

touch "$src/shared/common/errmsg.c"
out=$(mk V=1)
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

# A header that is missing, named as a Debian package would be: the same
# check that names libpam0g-dev when security/pam_ext.h is absent.
mk clean >/dev/null
out=$(mk BUILD_DEPS="qd/no-such.h=libqd-no-such-dev")
assert_eq "a missing build dependency stops make" 2 "$?"
assert_eq "in one line" 1 "$(grep -c . <<<"$out")"
assert_contains "naming the package" "install Debian's libqd-no-such-dev" "$out"
assert_contains "and make deps" "make deps" "$out"
check "before any compiler line" bash -c '! grep -q "  CC " <<<"$1"' _ "$out"

finish
