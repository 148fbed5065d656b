#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make docs-check: the documentation against the code, so that the next
# option, key, command or installed file added without its documentation
# fails here. Every list of names is read from the code itself (the
# parser's table of names, the dispatcher's comparisons, the install
# recipes), never copied here. Each name must appear in the reference it
# belongs to:
#
#   options    (suite line "docs options")
#     qosdeny.conf keys, key_names[] of shared/policy/policy_parse.c, as
#       KEY= in docs/man/qosdeny.conf.5; its flags, flag_names[], as words
#       there;
#     PrioritySiteFactorParameters, params[] of shared/usage/factor_params.c,
#       as NAME= in docs/man/qosdeny.conf.5, section SLURM.CONF;
#     the spank_qosdeny.so line's options (plugstack.conf), opt_names[] of
#       shared/plugstack/spank_opts.c, as NAME= in docs/man/qosdeny.1,
#       section PLUGSTACK.CONF OPTIONS (the doctor's fix lines send
#       administrators to qosdeny(1) for them);
#     pam_qosdeny.so's options, the strncmp()s of parse_opts() in
#       pam/pam_qosdeny.c, as NAME= in docs/man/qosdeny.1, section PAM
#       MODULE OPTIONS;
#     the tool's commands, the strcmp(cmd, ...)s of tools/main.c: each in
#       docs/man/qosdeny.1's SYNOPSIS (a line "qosdeny COMMAND") and as a
#       ".TP" item of COMMANDS; its global options (-h, --help, ...) in
#       COMMANDS;
#     each command's options, the strcmp()/strncmp()/qd_option_value()
#       literals of the file defining qd_cmd_COMMAND(): in that command's
#       SYNOPSIS line and in the OPTIONS section of docs/man/qosdeny.1;
#     the doctor's check names, the third argument of every
#       qd_doctor_line()/qd_doctor_linef() in tools/: a ".B NAME" item of
#       docs/man/qosdeny.1, section DOCTOR CHECKS.
#   installed  (suite line "docs installed")
#     every file `make install` installs (the install commands in the
#     recipe of the Makefile's install goal and of the goals it depends on,
#     in the Makefile and the files it includes), and what debian/rules'
#     override_dh_auto_install moves them to (mv), is named, as a path
#     `.../NAME` (or `.../NAME.gz`, as the package compresses man pages) in
#     backquotes, in the table of README.md's "## Components".
#   reuse      (suite line "docs reuse")
#     `reuse lint` passes; without the reuse command, one failure.
#
# Each part appends "docs PART PASSED FAILED" to $QD_RESULTS/counts (set by
# make), as the other suites do (tests/summary.sh adds them up), prints
# "not ok - ..." for each failure, naming what is missing and where it
# belongs, and the script exits 1 when anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
results=${QD_RESULTS:-${QD_BUILD:-$root/build}/results}
mkdir -p "$results"

MAN1=docs/man/qosdeny.1
MAN5=docs/man/qosdeny.conf.5
README=README.md

pass=0 failed=0 any_failed=0
ok() { pass=$((pass + 1)); }
nok() {
	failed=$((failed + 1))
	echo "not ok - $*"
}
# part NAME: the counts of the part just run, for tests/summary.sh.
part() {
	echo "# docs $1: $pass passed, $failed failed"
	echo "docs $1 $pass $failed" >>"$results/counts"
	[ "$failed" -eq 0 ] || any_failed=1
	pass=0 failed=0
}

cd "$root" || exit 1

# --- reading the code ------------------------------------------------------

# The quoted names of the C table whose definition line matches START, up
# to the "};" that ends it: "[K_X] = "Name"," or "{"name", ...}" lines.
table_names() { # FILE START
	awk -v start="$2" '
		index($0, start) { on = 1; next }
		on && /^};/ { exit }
		on { print }
	' "$1" | grep -oE '(= |\{)"[^"]+"' | sed -E 's/^(= |\{)"//; s/"$//'
}

# A file joined into one line, for calls spread over several.
joined() { tr '\n\t' '  ' <"$1"; }

# --- reading the man pages -------------------------------------------------

# The text of a man page without comments and with the escapes a reader
# does not see: fonts, \- (a '-'), \e (a '\'), \(aq, \&.
man_text() {
	sed -e '/^\.\\"/d' \
		-e 's/\\f[BIRP]//g' -e 's/\\f(..//g' \
		-e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" \
		-e 's/\\&//g' -e 's/\\c$//' "$1"
}

# The lines of one section (.SH TITLE, quoted or not) of a man page.
man_section() { # FILE TITLE
	man_text "$1" | awk -v want="$2" '
		/^\.SH / {
			t = substr($0, 5)
			gsub(/"/, "", t)
			on = (t == want)
			next
		}
		on { print }
	'
}

# The SYNOPSIS entries of qosdeny(1), one per line: the lines between .br
# joined, macro names dropped ("qosdeny flush [ --spool DIR ]").
synopsis_entries() {
	man_section "$MAN1" SYNOPSIS | awk '
		/^\.(br|ad)/ { if (e != "") print e; e = ""; next }
		{
			l = $0
			sub(/^\.[A-Z]+ ?/, "", l)
			gsub(/"/, "", l)
			e = (e == "" ? l : e " " l)
		}
		END { if (e != "") print e }
	'
}

esc() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\/]/\\&/g'; }

# has_key TEXT NAME: NAME= as a word of TEXT.
has_key() { grep -qE "(^|[^A-Za-z0-9_])$(esc "$2")=" <<<"$1"; }
# has_word TEXT NAME: NAME as a word (or option) of TEXT.
has_word() {
	grep -qE "(^|[^A-Za-z0-9_-])$(esc "$2")([^A-Za-z0-9_-]|$)" <<<"$1"
}

# need_names WHAT FILE NAMES...: a table read from the code is not empty.
need_names() {
	local what=$1 file=$2
	shift 2
	if [ $# -eq 0 ]; then
		nok "no $what found in $file: its table moved; update tests/docs/check.sh"
		return 1
	fi
	return 0
}

# --- options -----------------------------------------------------------------

man5=$(man_text "$MAN5")
man5_slurm=$(man_section "$MAN5" SLURM.CONF)
plugstack=$(man_section "$MAN1" "PLUGSTACK.CONF OPTIONS")
pamopts=$(man_section "$MAN1" "PAM MODULE OPTIONS")
commands=$(man_section "$MAN1" COMMANDS)
options=$(man_section "$MAN1" OPTIONS)
checks=$(man_section "$MAN1" "DOCTOR CHECKS")
synopsis=$(synopsis_entries)

# documented LABEL HAS TEXT WHERE WHAT FILE NAMES...: each name of the
# table WHAT read from FILE found by HAS (has_key: as NAME=, has_word) in
# TEXT; a failure names it, its file and WHERE it belongs.
documented() {
	local label=$1 has=$2 text=$3 where=$4 what=$5 file=$6 k eq=""
	shift 6
	[ "$has" = has_key ] && eq="="
	need_names "$what" "$file" "$@" || return 0
	for k in "$@"; do
		if "$has" "$text" "$k"; then ok; else
			nok "$label $k$eq ($file) is not documented in $where"
		fi
	done
}

f=shared/policy/policy_parse.c
mapfile -t names < <(table_names "$f" 'key_names[K_COUNT] = {')
documented "qosdeny.conf key" has_key "$man5" "$MAN5" \
	"qosdeny.conf keys (key_names[])" "$f" "${names[@]}"
mapfile -t names < <(table_names "$f" 'flag_names[] = {')
documented "qosdeny.conf flag" has_word "$man5" "$MAN5" \
	"qosdeny.conf flags (flag_names[])" "$f" "${names[@]}"

f=shared/usage/factor_params.c
mapfile -t names < <(table_names "$f" 'params[] = {')
documented PrioritySiteFactorParameters has_key "$man5_slurm" \
	"$MAN5, section SLURM.CONF" "PrioritySiteFactorParameters (params[])" \
	"$f" "${names[@]}"

f=shared/plugstack/spank_opts.c
mapfile -t names < <(table_names "$f" 'opt_names[O_COUNT] = {')
documented "plugstack.conf option" has_key "$plugstack" \
	"$MAN1, section PLUGSTACK.CONF OPTIONS" \
	"plugstack.conf options (opt_names[])" "$f" "${names[@]}"

f=pam/pam_qosdeny.c
mapfile -t names < <(awk '/^static int parse_opts\(/, /^}/' "$f" |
	grep -oE 'strncmp\(argv\[i\], "[a-z_]+=",' |
	sed -E 's/.*"([a-z_]+)=".*/\1/')
documented "pam_qosdeny.so option" has_key "$pamopts" \
	"$MAN1, section PAM MODULE OPTIONS" "PAM module options (parse_opts())" \
	"$f" "${names[@]}"

f=tools/main.c
mapfile -t names < <(grep -oE 'strcmp\(cmd, "[^"]+"\)' "$f" |
	sed -E 's/.*"([^"]+)".*/\1/')
if need_names "tool commands (strcmp(cmd, ...))" "$f" "${names[@]}"; then
	for c in "${names[@]}"; do
		if [ "${c#-}" != "$c" ]; then
			# A global option: -h, --help, -V, --version.
			if has_word "$commands" "$c"; then ok; else
				nok "qosdeny option $c ($f) is not documented in $MAN1, section COMMANDS"
			fi
			continue
		fi
		entry=$(grep -E "^qosdeny $(esc "$c")( |$)" <<<"$synopsis")
		if [ -n "$entry" ]; then ok; else
			nok "qosdeny $c ($f) has no line in $MAN1, section SYNOPSIS"
		fi
		if grep -A1 '^\.TP' <<<"$commands" | grep -qE "^(\.B |\.BR )?$(esc "$c")( |$)"; then
			ok
		else
			nok "qosdeny $c ($f) has no item in $MAN1, section COMMANDS"
		fi
		file=$(grep -lE "^int qd_cmd_$c\(" tools/*.c)
		if [ -z "$file" ]; then
			nok "qosdeny $c: no tools/*.c defines qd_cmd_$c(); update tests/docs/check.sh"
			continue
		fi
		mapfile -t opts < <(joined "$file" |
			grep -oE '(strn?cmp\([^;]*|qd_option_value\([^;]*)"-[-A-Za-z]+=?"' |
			grep -oE '"-[-A-Za-z]+=?"$' | tr -d '"' | sed 's/=$//' |
			sort -u)
		for o in "${opts[@]}"; do
			if has_word "$entry" "$o"; then ok; else
				nok "qosdeny $c option $o ($file) is not in its line of $MAN1, section SYNOPSIS"
			fi
			if has_word "$options" "$o"; then ok; else
				nok "qosdeny $c option $o ($file) is not documented in $MAN1, section OPTIONS"
			fi
		done
	done
fi

mapfile -t names < <(for f in tools/*.c tools/doctor/*.c; do joined "$f"; echo; done |
	grep -oE 'qd_doctor_linef?\( *[a-z_]+, *QD_DOC_[A-Z]+, *"[^"]+"' |
	sed -E 's/.*"([^"]+)"$/\1/' | sort -u)
if need_names "doctor checks (qd_doctor_line())" tools/doctor "${names[@]}"; then
	for k in "${names[@]}"; do
		if grep -qxF ".B $k" <<<"$checks"; then ok; else
			nok "qosdeny doctor's check $k (tools/) is not documented in $MAN1, section DOCTOR CHECKS (a .B $k item)"
		fi
	done
fi
part options

# --- installed files ---------------------------------------------------------

# The Makefile and the files it includes (include lines naming a file of
# the tree, followed), with continued lines joined.
makefiles() {
	local todo=(Makefile) seen=" " m inc
	while [ ${#todo[@]} -gt 0 ]; do
		m=${todo[0]}
		todo=("${todo[@]:1}")
		case "$seen" in *" $m "*) continue ;; esac
		seen="$seen$m "
		[ -f "$m" ] || continue
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$m"
		echo
		# Words, not lines: an include line may name several files.
		# shellcheck disable=SC2013
		for inc in $(sed -n 's/^-\{0,1\}include[[:space:]]\{1,\}//p' "$m"); do
			case "$inc" in *'$'* | *'('* | *')'* | *,*) ;; *) todo+=("$inc") ;; esac
		done
	done
}

# The recipe lines of GOAL and of the goals it depends on that have
# recipes of their own (pam-install).
recipes() { # GOAL
	makefiles | awk -v goal="$1" '
		function add(g) { if (!(g in want)) { want[g] = 1; n++ } }
		{ lines[NR] = $0 }
		END {
			add(goal)
			do {
				before = n
				for (i = 1; i <= NR; i++) {
					if (lines[i] !~ /^[A-Za-z0-9_.-]+:/) continue
					t = lines[i]; sub(/:.*/, "", t)
					if (!(t in want)) continue
					deps = lines[i]; sub(/^[^:]*:/, "", deps)
					m = split(deps, d, /[ \t]+/)
					for (j = 1; j <= m; j++)
						if (d[j] ~ /^[A-Za-z0-9_.-]+$/) add(d[j])
				}
			} while (n != before)
			for (i = 1; i <= NR; i++) {
				if (lines[i] !~ /^[A-Za-z0-9_.-]+:/) continue
				t = lines[i]; sub(/:.*/, "", t)
				if (!(t in want)) continue
				for (k = i + 1; k <= NR && lines[k] ~ /^\t/; k++)
					print lines[k]
			}
		}
	'
}

# The destination of each install command: its last argument's basename.
mapfile -t names < <(recipes install |
	grep -oE '(^|[[:space:];])install(([[:space:]]+-[A-Za-z]+)|([[:space:]]+[0-7]{3,4}))*[[:space:]]+[^[:space:];]+[[:space:]]+[^[:space:];]+' |
	awk '{ n = split($NF, p, "/"); print p[n] }' | sort -u)
# What the package moves them to (debian/rules: the example policy).
mapfile -t -O "${#names[@]}" names < <(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' debian/rules |
	awk '/^override_dh_auto_install:/ { on = 1; next } on && !/^\t/ { on = 0 } on' |
	grep -oE '(^|[[:space:]])mv[[:space:]]+[^[:space:];]+[[:space:]]+[^[:space:];]+' |
	awk '{ n = split($NF, p, "/"); print p[n] }' | sort -u)
if need_names "installed files (install goal's recipes)" "Makefile" "${names[@]}"; then
	table=$(awk '/^## / { on = ($0 == "## Components") } on && /^\|/' "$README")
	[ -n "$table" ] || nok "$README has no table under \"## Components\""
	for n in "${names[@]}"; do
		# The package compresses man pages (dh_compress): NAME.gz.
		if grep -qE "\`([^\`]*/)?$(esc "$n")(\.gz)?\`" <<<"$table"; then ok; else
			nok "installed file $n (make install / debian/rules) is not named in $README's \"## Components\" table"
		fi
	done
fi
part installed

# --- licences ------------------------------------------------------------------

if command -v reuse >/dev/null 2>&1; then
	if out=$(reuse --root "$root" lint 2>&1); then
		ok
	else
		printf '%s\n' "$out" | tail -n 30
		nok "reuse lint: the tree is not REUSE compliant (above)"
	fi
else
	nok "reuse is not installed (apt-get install reuse)"
fi
part reuse

exit "$any_failed"
