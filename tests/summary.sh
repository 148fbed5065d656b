#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Adds up the counts every suite recorded ("suite name passed failed" lines)
# and prints the closing line CI reads: "N passed, N failed".
results=${1:-build/results}
if [ ! -s "$results/counts" ]; then
	echo "summary: no test recorded any result" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
echo
echo "Per suite (passed failed):"
awk '{ printf "  %-24s %-32s %5d %5d\n", $1, $2, $3, $4 }' "$results/counts"
# What a suite said of its own extent (tests/chroot/suite.sh: 26.05
# without a source tree), once each.
[ -s "$results/notes" ] && sort -u "$results/notes" | sed 's/^/Note: /'
# The failed ones again, where the end of a long log shows them.
awk '$4 > 0 { printf "Failed: %s %s: %d of %d\n", $1, $2, $4, $3 + $4 }' \
	"$results/counts"
awk '{ p += $3; f += $4 } END { printf "%d passed, %d failed\n", p, f; exit (f > 0) }' \
	"$results/counts"
