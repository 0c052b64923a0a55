#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The NHC check of docs/check.md, as NHC runs it: the nhc.conf line documented there,
# taken from the page, is eval'ed (NHC's `eval $CHECK`) in a bash that has sourced
# packaging/nhc/rdma_exporter.nhc and has a die() with NHC's arguments (status, then
# the message NHC logs and makes the drain reason). On copies of the fixture trees:
# healthy returns 0 without die(); a port down, a missing device and no RDMA at all
# (cannot tell) call die 1 with the check's own summary line; a missing binary still
# names itself. NHC itself is not packaged for Debian, hence the stand-in die().
#
#   check-nhc.sh BINARY SOURCE_DIR       (FIXTURES from env)
set -u
BIN=${1:?usage: check-nhc.sh BINARY SOURCE_DIR}
SRC=${2:?usage: check-nhc.sh BINARY SOURCE_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

# The nhc.conf line, as documented: "* || check_rdma_exporter FLAGS".
doc_line=$(grep -m1 -E '^ +\* \|\| check_rdma_exporter ' "$SRC/docs/check.md")
check "docs/check.md documents the nhc.conf line" test -n "$doc_line"
CHECK=${doc_line#*|| }
CHECK=${CHECK//\/etc\/rdma_exporter\/expect/$TMP\/expect}
echo "# nhc.conf: $doc_line"

tree() { # tree NAME: a private copy of a fixture tree, its path on stdout
	rm -rf "${TMP:?}/${1:?}"
	cp -a "$FIXTURES/sysfs/$1" "$TMP/$1"
	echo "$TMP/$1"
}

# nhc TREE [BINARY]: the documented check on TREE (sysfs only, readings back to
# back) as NHC evaluates it (set -f, eval $CHECK); $rc is its status, $died what
# die() got ("" if not called), $direct the first line of the same check run
# directly.
nhc() {
	local t=$1 bin=${2:-$BIN}
	local flags="--path.sysfs=$t --no-collector.netlink --no-collector.ethtool"
	# each run a new flaps history: one tree after another would look like flaps
	flags+=" --no-collector.probe --check.window=0 --check.state-file=$TMP/nhc-state"
	rm -f "$TMP/died" "$TMP/nhc-state"
	RDMA_EXPORTER=$bin DIED=$TMP/died bash -c '
		function die() { echo "$*" >"$DIED"; return 1; }
		. "$0"
		set -f
		eval $1' "$SRC/packaging/nhc/rdma_exporter.nhc" "$CHECK $flags" 2>"$TMP/stderr"
	rc=$?
	died=$(cat "$TMP/died" 2>/dev/null)
	rm -f "$TMP/nhc-state"
	# shellcheck disable=SC2086 # the flags as NHC splits them
	direct=$("$bin" check $flags ${CHECK#check_rdma_exporter } 2>/dev/null | head -1)
}
expect_die() { # expect_die DESCRIPTION SUMMARY_PREFIX
	if [ "$rc" = 1 ] && [ "$died" = "1 check_rdma_exporter:  $direct" ] &&
		[[ $direct == "$2"* ]]; then
		ok "$1"
	else
		not_ok "$1 (rc $rc; die got \"$died\"; the check said \"$direct\")"
		sed 's/^/#   stderr: /' "$TMP/stderr" | head -5
	fi
}

echo 'mlx5_[0-1]:1@100' >"$TMP/expect"
nhc "$(tree mlx5-roce)"
check "healthy: returns 0, no die()" test "$rc" = 0 -a -z "$died"

t=$(tree mlx5-roce)
p=$(cd "$t/class/infiniband/mlx5_1" && pwd -P)/ports/1
echo "1: DOWN" >"$p/state"
nhc "$t"
expect_die "port down: die 1 with the summary line" "FAIL: 1 of "
check "port down: the reason names the port" grep -q 'ports mlx5_1/1: state DOWN' <<<"$died"
check "the summary is under 80 characters" test "${#direct}" -lt 80

echo 'mlx5_[0-2]:1' >"$TMP/expect"
nhc "$(tree mlx5-roce)"
expect_die "missing device: die 1 with the summary line" "FAIL: "
check "missing device: the reason names it" grep -q 'mlx5_2' <<<"$died"

# exit 2, cannot tell: a port state that cannot be read
t=$(tree mlx5-roce)
rm "$(cd "$t/class/infiniband/mlx5_0" && pwd -P)/ports/1/state"
echo 'mlx5_0' >"$TMP/expect"
nhc "$t"
expect_die "cannot tell (exit 2): die 1 with the summary line" "UNKNOWN: "

# exit 2 with no summary: bad flags (the expect file is missing), the binary missing
rm -f "$TMP/expect"
nhc "$(tree mlx5-roce)"
check "bad flags: die 1 with the status" test "$rc" = 1 -a \
	"$died" = "1 check_rdma_exporter:  $BIN check returned 2 (see the NHC log)"
check "bad flags: the error in NHC's log (stderr)" grep -q 'check.expect-file' "$TMP/stderr"
echo 'mlx5_[0-1]:1@100' >"$TMP/expect"
nhc "$(tree mlx5-roce)" "$TMP/no-such-binary"
check "missing binary: die 1 naming it" test "$rc" = 1 -a \
	"$died" = "1 check_rdma_exporter:  $TMP/no-such-binary check returned 127 (see the NHC log)"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
