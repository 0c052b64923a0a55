#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# help.sh BINARY: the real --help (what help2man renders into the man page)
# has no line over 80 columns, and every flag that takes a number (=N) or a
# duration (=D) says its range ("Range: MIN to MAX ...") in its entry.
set -eu
BIN=${1:?usage: help.sh BINARY}

out=$("$BIN" --help)
status=0
long=$(printf '%s\n' "$out" | awk 'length($0) > 80 { printf "%d: %s\n", length($0), $0 }')
if [ -n "$long" ]; then
	echo "lines over 80 columns:"
	echo "$long"
	status=1
fi
# An entry: a line starting with a flag, and the indented lines after it.
missing=$(printf '%s\n' "$out" | awk '
	function done() { if (flag != "" && text !~ /Range: [0-9]+[a-z]* to [0-9]+[a-z]*/) print flag }
	/^  -h, --|^      --/ { done(); flag = $1; if (flag !~ /=[ND]$/) flag = ""
		sub(/^ +[^ ]+/, ""); text = $0; next }
	match($0, /^ +/) && RLENGTH >= 20 { text = text " " $0; gsub(/ +/, " ", text); next }
	{ done(); flag = "" }
	END { done() }')
if [ -n "$missing" ]; then
	echo "numeric flags without a range in --help:"
	echo "$missing"
	status=1
fi
n=$(printf '%s\n' "$out" | grep -cE '^ +--[^ ]+=[ND]( |$)')
if [ "$n" -lt 8 ]; then
	echo "only $n numeric flags found: is the --help layout what this test expects?"
	status=1
fi
[ "$status" -eq 0 ] && echo "ok: $n numeric flags with a range, no line over 80 columns"
exit "$status"
