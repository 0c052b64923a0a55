#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The documentation holds together: every relative link [text](path#anchor) in
# README.md and docs/**/*.md names a file that exists and, with an #anchor, a
# heading of that file that yields the anchor (GitHub's rule: lower case,
# punctuation other than - and _ dropped, spaces to -, a -N suffix for the Nth
# repeat); README.md stays a front page of at most 250 lines; and no page states a
# number of alerts other than the rules' own count (alerts/*.yml).
#
#   tests/e2e/docs-links.sh [SOURCE_DIR]
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
README_MAX_LINES=250

pass=0 fail=0
ok() { pass=$((pass + 1)); }
not_ok() {
	echo "not ok - $*"
	fail=$((fail + 1))
}

# Text outside fenced code blocks and indented code lines.
prose() {
	awk '/^[ \t]*(```|~~~)/ { code = !code; next } !code && !/^(    |\t)/' "$1"
}

# The anchors a file's headings yield, one a line.
anchors() {
	prose "$1" | sed -nE 's/^#{1,6}[ \t]+(.*[^ \t#])[ \t#]*$/\1/p' |
		tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g' |
		awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

cd "$ROOT"
mapfile -t files < <(printf '%s\n' README.md; find docs -name '*.md' | sort)
for f in "${files[@]}"; do
	dir=$(dirname "$f")
	while IFS= read -r link; do
		target=${link%%#*}
		anchor=
		[[ $link == *'#'* ]] && anchor=${link#*#}
		case $target in
		*://* | mailto:*) continue ;;
		esac
		if [ -z "$target" ]; then
			path=$f
		else
			path=$dir/$target
		fi
		if [ ! -e "$path" ]; then
			not_ok "$f links to $link: $path does not exist"
			continue
		fi
		if [ -n "$anchor" ]; then
			if [ ! -f "$path" ] || ! anchors "$path" | grep -qxF -- "$anchor"; then
				not_ok "$f links to $link: no heading of $path yields #$anchor"
				continue
			fi
		fi
		ok
	done < <(prose "$f" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\((.*)\)$/\1/')
done

lines=$(wc -l < README.md)
if [ "$lines" -le "$README_MAX_LINES" ]; then
	ok
else
	not_ok "README.md has $lines lines, more than $README_MAX_LINES: move reference text to docs/"
fi

# "N alerts": the docs need not count the alerts, but a count they give is the rules'.
n_alerts=$(cat alerts/*.yml 2>/dev/null | grep -cE '^[[:space:]]*- alert:' || true)
while IFS= read -r hit; do
	if [[ $hit =~ ([0-9]+)\ alerts && ${BASH_REMATCH[1]} != "$n_alerts" ]]; then
		not_ok "$hit: alerts/*.yml has $n_alerts alerts (or drop the number)"
	else
		ok
	fi
done < <(grep -rnoE '\b[0-9]+ alerts\b' README.md docs --include='*.md' || true)

echo "$pass passed, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
