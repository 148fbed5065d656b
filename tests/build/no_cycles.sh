#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# no_cycles.sh FOLDER...: calls between the objects under the folders go
# one way (docs/development.md, Source layout): no object reaches itself
# again through the symbols it uses, directly or through others. Each
# object's undefined symbols are matched, with nm, to the object that
# defines them; tsort then names the objects of every loop. Exits 0 when
# there is none, 1 when there is a loop or a symbol defined twice.
set -u
mapfile -t objs < <(find "$@" -name '*.o' | sort)
if [ ${#objs[@]} -eq 0 ]; then
	echo "no_cycles.sh: no objects under $*" >&2
	exit 1
fi
# "definer user" for each symbol used by another object than its own.
edges=$(nm -A -g "${objs[@]}" | awk '
	{ split($1, f, ":"); obj = f[1]; sym = $NF }
	$(NF - 1) == "U" { used[obj, sym] = 1; next }
	sym in def && def[sym] != obj { twice = 1
		print "no_cycles.sh: " sym " defined in " def[sym] " and " obj \
			> "/dev/stderr" }
	{ def[sym] = obj }
	END {
		for (k in used) {
			split(k, p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1])
				print def[p[2]], p[1]
		}
		exit twice
	}') || exit 1
sort -u <<<"$edges" | tsort >/dev/null
