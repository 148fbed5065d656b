#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The qosdeny command: check, --help, --version.
source "$(dirname "$0")/lib.sh"
QD=$QD_BUILD/qosdeny
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

OUT=$("$QD" check "$QD_ROOT/conf.example/qosdeny.conf" 2>&1)
assert_eq "the shipped example is valid" 0 "$?"
assert_contains "check says so" "OK, 3 QOS records" "$OUT"

printf 'Enforce=yes\nQOS=a Flags=DenyOnGrp GrpTRES=gres/gpu=x\n' >"$tmp/bad.conf"
OUT=$("$QD" check "$tmp/bad.conf" 2>&1)
assert_eq "a malformed file exits 1" 1 "$?"
assert_contains "the error names file, line and text" \
	"qosdeny: $tmp/bad.conf:2: GrpTRES: invalid TRES count 'gres/gpu=x'" "$OUT"

printf 'Enforce=maybe\nQOS=a Flags=DenyOnGrp\nQOS=b Flags=Nope\n' >"$tmp/two.conf"
OUT=$("$QD" check "$tmp/two.conf" 2>&1)
assert_eq "a file with two errors exits 1" 1 "$?"
assert_contains "the first is reported" \
	"qosdeny: $tmp/two.conf:1: Enforce must be yes or no 'Enforce=maybe'" "$OUT"
assert_contains "and the second" "qosdeny: $tmp/two.conf:3: unknown flag 'Nope'" "$OUT"

OUT=$("$QD" check "$tmp/missing.conf" 2>&1)
assert_eq "a missing file exits 1" 1 "$?"
assert_contains "and says why" "missing.conf: No such file or directory" "$OUT"

OUT=$("$QD" --help 2>&1)
assert_eq "--help exits 0" 0 "$?"
for usage in "share [-P] [--cluster NAME] [--redis HOST:PORT|unix:PATH]" \
	"flush [--spool DIR]" "check FILE"; do
	assert_contains "--help shows: $usage" "  $usage" "$OUT"
done
assert_eq "--version" "qosdeny 0.1.0" "$("$QD" --version)"
"$QD" frobnicate >/dev/null 2>&1
assert_eq "an unknown command is a usage error" 2 "$?"
finish
