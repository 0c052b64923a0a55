#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# function-length.sh ROOT [--exclude DIR]... DIR...: fails, listing each one,
# when a C function in DIR (relative to ROOT; .c and .h files) is longer than
# MAX_LINES lines as pmccabe counts them (column 5: the lines from the
# function's first line to its closing brace). docs/CONTRIBUTING.md rule 1: small functions
# that read top-down; a longer one is split into named steps.
set -eu

MAX_LINES=80

# Functions allowed to be longer, one "path:function reason" per line. Only
# for a function that is nothing but a table (tables are exempt); say why.
# Empty: every function in the tree fits.
EXEMPT=""

root=$1
shift
excludes=""
dirs=""
while [ $# -gt 0 ]; do
	case $1 in
	--exclude)
		excludes="$excludes $2"
		shift 2
		;;
	*)
		dirs="$dirs $1"
		shift
		;;
	esac
done

command -v pmccabe >/dev/null || {
	echo "function-length: pmccabe not found (apt install pmccabe)" >&2
	exit 1
}
cd "$root"
# shellcheck disable=SC2086 # word splitting of the directory lists is wanted
files=$(find $dirs -type f \( -name '*.c' -o -name '*.h' \) | sort)
for x in $excludes; do
	files=$(printf '%s\n' "$files" | grep -v "^${x%/}/" || true)
done
[ -n "$files" ] || {
	echo "function-length: no C files under$dirs" >&2
	exit 1
}

# pmccabe: "cc mcc statements first_line lines file(line): function"
# shellcheck disable=SC2086
report=$(pmccabe $files) || {
	echo "function-length: pmccabe failed" >&2
	exit 1
}
long=$(printf '%s\n' "$report" | awk -v max="$MAX_LINES" -v exempt="$EXEMPT" '
	BEGIN {
		n = split(exempt, lines, "\n")
		for (i = 1; i <= n; i++) {
			split(lines[i], w, " ")
			if (w[1] != "")
				ok[w[1]] = 1
		}
	}
	$5 > max {
		loc = $6
		sub(/:$/, "", loc)
		file = loc
		sub(/\([0-9]+\)$/, "", file)
		if (!((file ":" $7) in ok))
			printf "%s: %s is %d lines (limit %d)\n", loc, $7, $5, max
	}')
if [ -n "$long" ]; then
	printf '%s\n' "$long"
	echo "function-length: split these into named steps (docs/CONTRIBUTING.md rule 1), or exempt a table-only function in $0" >&2
	exit 1
fi
echo "function-length: no function over $MAX_LINES lines (exemptions aside)"
