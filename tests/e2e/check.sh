#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `rdma_exporter check` (docs/check.md) on copies of the fixture trees: a healthy
# tree passes (exit 0); a port down, a degraded rate, a counter rising between the
# two readings and a missing device each fail (exit 1) with the right line; no RDMA
# at all and no permission are "cannot tell" (exit 2). The counter is changed between
# the readings by the test seam of rdma_exporter_checkseam
# (tests/tools/checkseam_main.c), so no timing is involved.
#
#   check.sh BINARY CHECKSEAM_BINARY       (FIXTURES from env)
set -u
BIN=${1:?usage: check.sh BINARY CHECKSEAM}
SEAM=${2:?usage: check.sh BINARY CHECKSEAM}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
SEAM=$(cd "$(dirname "$SEAM")" && pwd)/$(basename "$SEAM")

# Fixture trees are sysfs only: the other collectors would read this host.
SYSFS_ONLY=(--no-collector.netlink --no-collector.ethtool --no-collector.probe)

tree() { # tree NAME: a private copy of a fixture tree, its path on stdout
	rm -rf "$TMP/$1"
	cp -a "$FIXTURES/sysfs/$1" "$TMP/$1"
	echo "$TMP/$1"
}
port_dir() { # port_dir TREE DEVICE PORT
	echo "$(cd "$1/class/infiniband/$2" && pwd -P)/ports/$3"
}

# run_check BINARY TREE ARGS...: $out holds stdout, $rc the exit status. Each run
# has a new flaps history (state file) of its own: one tree after another would
# look like flaps. The flaps check's own tests are below.
nstate=0
run_check() {
	local bin=$1 t=$2
	shift 2
	nstate=$((nstate + 1))
	out=$("$bin" check --path.sysfs="$t" "${SYSFS_ONLY[@]}" \
		--check.state-file="$TMP/state.$nstate" "$@" 2>"$TMP/stderr")
	rc=$?
}
expect() { # expect DESCRIPTION RC LINE: exit status and one line of the output
	local d=$1 want_rc=$2 line=$3
	if [ "$rc" = "$want_rc" ] && grep -qxF -- "$line" <<<"$out"; then
		ok "$d"
	else
		not_ok "$d (rc $rc, want $want_rc; line \"$line\")"
		echo "$out" | sed 's/^/#   /'
		sed 's/^/#   stderr: /' "$TMP/stderr" | head -5
	fi
}
summary_short() { [ "$(head -1 <<<"$out" | wc -c)" -le 80 ]; }

# --- healthy
t=$(tree mlx5-roce)
run_check "$BIN" "$t" --check.window=100ms --check.rate-min=100
expect "healthy mlx5-roce: exit 0" 0 "OK      ports mlx5_0/1: ACTIVE, LinkUp, 100 Gb/s"
check "healthy: summary first" grep -qx 'OK: [0-9]* checks passed' <<<"$(head -1 <<<"$out")"
check "healthy: counters watched" grep -q '^OK      counters mlx5_1/1: ' <<<"$out"
run_check "$BIN" "$(tree rxe)" --check.window=0 --check.expect='rxe0:1@100'
expect "healthy rxe with --check.expect: exit 0" 0 "OK      ports rxe0/1: ACTIVE, LinkUp, 100 Gb/s"

# --- PCIe: a Gen5 x16 device trained at Gen4 x8 (tests/fixtures/sysfs/pcie)
t=$(tree pcie)
run_check "$BIN" "$t" --check.window=0
expect "PCIe link below its max: exit 1, device and both figures" 1 \
	"FAIL    pcie mlx5_0: PCIe link 16 GT/s x8, below the device max 32 GT/s x16"
expect "PCIe link at its max: OK" 1 "OK      pcie mlx5_1: PCIe 16 GT/s x16 (device max 16 GT/s x16)"
check "PCIe: summary names the device" grep -q '^FAIL: 1 of [0-9]* failed; pcie mlx5_0: ' <<<"$(head -1 <<<"$out")"
run_check "$BIN" "$t" --check.window=0 --check.expect-pcie='mlx5_0@16x8'
expect "PCIe relaxed by --check.expect-pcie: exit 0" 0 \
	"OK      pcie mlx5_0: PCIe 16 GT/s x8 (want at least 16 GT/s x8)"
run_check "$BIN" "$t" --check.window=0 --check.expect-pcie='mlx5_0@16x8 mlx5_1@32x16'
expect "PCIe tightened by --check.expect-pcie: exit 1" 1 \
	"FAIL    pcie mlx5_1: PCIe link 16 GT/s x16, want at least 32 GT/s x16 (--check.expect-pcie); device max 16 GT/s x16"
run_check "$BIN" "$t" --check.window=0 --no-check.pcie
check "--no-check.pcie: exit 0, no pcie line" bash -c "[ $rc = 0 ] && ! grep -q ' pcie ' <<<\"\$1\"" _ "$out"
run_check "$BIN" "$t" --check.window=0 --check.expect-pcie='mlx5_0@'
check "bad --check.expect-pcie: exit 2" test "$rc" = 2

# --- a port down
t=$(tree mlx5-roce)
p=$(port_dir "$t" mlx5_1 1)
echo "1: DOWN" >"$p/state"
echo "3: Disabled" >"$p/phys_state"
run_check "$BIN" "$t" --check.window=0
expect "port down: exit 1, named" 1 \
	"FAIL    ports mlx5_1/1: state DOWN (1), want ACTIVE; phys_state Disabled (3), want LinkUp"
check "port down: summary under 80 characters" summary_short
check "port down: summary names it" grep -q '^FAIL: 1 of .* failed; ports mlx5_1/1: state DOWN' <<<"$out"
check "port down: the healthy port still OK" grep -qxF "OK      ports mlx5_0/1: ACTIVE, LinkUp, 100 Gb/s" <<<"$out"

# --- a degraded rate: 4x trained at 1x
t=$(tree mlx5-roce)
echo "25 Gb/sec (1X EDR)" >"$(port_dir "$t" mlx5_0 1)/rate"
run_check "$BIN" "$t" --check.window=0 --check.expect='mlx5_[0-1]:1@100'
expect "degraded rate: exit 1" 1 "FAIL    ports mlx5_0/1: rate 25 Gb/s, want at least 100"
run_check "$BIN" "$t" --check.window=0 --check.rate-min=100
expect "degraded rate with --check.rate-min: exit 1" 1 \
	"FAIL    ports mlx5_0/1: rate 25 Gb/s, want at least 100"

# --- a counter rising between the two readings, through the test seam
t=$(tree mlx5-roce)
f=$(port_dir "$t" mlx5_0 1)/counters/symbol_error
before=$(cat "$f")
export RDMA_EXPORTER_TEST_BETWEEN="echo $((before + 7)) >'$f'"
run_check "$SEAM" "$t" --check.window=0
expect "symbol errors rising: exit 1" 1 \
	"FAIL    counters mlx5_0/1: symbol_errors rose by 7 in 0s (max 0)"
echo "$before" >"$f"
export RDMA_EXPORTER_TEST_BETWEEN="echo $((before + 7)) >'$f'"
run_check "$SEAM" "$t" --check.window=0 --check.counter=symbol_errors:10
expect "symbol errors within --check.counter: exit 0" 0 "OK      ports mlx5_0/1: ACTIVE, LinkUp, 100 Gb/s"
echo "$before" >"$f"
run_check "$SEAM" "$t" --check.window=0 --no-check.counters
check "--no-check.counters: no counters line" bash -c "[ $rc = 0 ] && ! grep -q counters <<<'$out'"
f=$(port_dir "$t" mlx5_1 1)/counters/link_downed
export RDMA_EXPORTER_TEST_BETWEEN="echo $(($(cat "$f") + 1)) >'$f'"
run_check "$SEAM" "$t" --check.window=0
expect "link downed rising: exit 1" 1 "FAIL    counters mlx5_1/1: link_downed rose by 1 in 0s (max 0)"
unset RDMA_EXPORTER_TEST_BETWEEN

# --- a missing device
run_check "$BIN" "$(tree mlx5-roce)" --check.window=0 --check.expect='mlx5_[0-2]:1'
expect "missing device: exit 1" 1 "FAIL    ports mlx5_2/1: device mlx5_2 not found"
printf '# node type A\nmlx5_[0-1]\nmlx5_1:2 # a second port\n' >"$TMP/expect"
run_check "$BIN" "$(tree mlx5-roce)" --check.window=0 --check.expect-file="$TMP/expect" --check.ports-min=3
expect "missing port from --check.expect-file: exit 1" 1 "FAIL    ports mlx5_1/2: port 2 not found on mlx5_1"
check "--check.ports-min counts the healthy ports" grep -qxF "FAIL    ports node: 2 of 3 ports healthy, want at least 3" <<<"$out"
# A NUL byte would end the list early: mlx5_2 after it would go unchecked, with an OK.
printf 'mlx5_[0-1]\n\0mlx5_2\n' >"$TMP/expect"
run_check "$BIN" "$(tree mlx5-roce)" --check.window=0 --check.expect-file="$TMP/expect"
check "NUL in --check.expect-file: exit 2 (rc $rc)" [ "$rc" = 2 ]
check "NUL in --check.expect-file: said so" \
	grep -qF "a NUL byte at offset 11: not a text file" "$TMP/stderr"

# --- JSON
run_check "$BIN" "$(tree mlx5-roce)" --check.window=0 --check.format=json --check.expect='mlx5_[0-2]'
check "json: exit 1, parses, names the missing device" bash -c "[ $rc = 1 ] && python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d[\"status\"] == \"fail\", d
assert len(d[\"summary\"]) < 80
assert {\"status\": \"fail\", \"check\": \"ports\", \"object\": \"mlx5_2/1\", \"reason\": \"device mlx5_2 not found\"} in d[\"checks\"]
' '$out'"

# --- cannot tell: no RDMA at all, no permission
mkdir -p "$TMP/empty/class"
run_check "$BIN" "$TMP/empty" --check.window=0
expect "no RDMA: exit 2" 2 "UNKNOWN ports node: no RDMA ports found (no RDMA device, or --path.sysfs is wrong)"
run_check "$BIN" "$TMP/empty" --check.window=0 --check.expect=mlx5_0
expect "no RDMA but expected: exit 1" 1 "FAIL    ports mlx5_0/1: device mlx5_0 not found"
t=$(tree mlx5-roce)
chmod 755 "$TMP"
chmod 700 "$t/class/infiniband"
if [ "$(id -u)" = 0 ]; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" check --path.sysfs="$t" \
		"${SYSFS_ONLY[@]}" --check.window=0 --check.state-file="$TMP/state.nobody" \
		2>"$TMP/stderr")
	rc=$?
else
	run_check "$BIN" "$t" --check.window=0
fi
expect "no permission: exit 2" 2 "UNKNOWN ports node: the sysfs collector failed (see the log)"
chmod 700 "$TMP"

# --- the probe: where it cannot run (no verbs device for the fixture's ports), unknown
run_check "$BIN" "$(tree rxe)" --check.window=0 --collector.probe
check "probe without verbs: exit 2 or 0, never 1" bash -c "[ $rc != 1 ]"

# --- flaps: a flap between two checks fails the next one and those within the hold
# time (--check.flap-hold, 10m), then passes. The history is the state file; the
# clock is the test seam's (RDMA_EXPORTER_TEST_NOW, Unix seconds).
t=$(tree mlx5-roce)
st=$TMP/flaps/check-state
mkdir -p "$TMP/flaps"
f=$(port_dir "$t" mlx5_0 1)/counters/link_downed
b=$(cat "$f")
flaps() { # flaps NOW ARGS...: the check at NOW, with the state file $st unless ARGS name one
	local now=$1
	shift
	out=$(RDMA_EXPORTER_TEST_NOW=$now "$SEAM" check --path.sysfs="$t" "${SYSFS_ONLY[@]}" \
		--check.window=0 ${st:+--check.state-file="$st"} "$@" 2>"$TMP/stderr")
	rc=$?
}
flaps 1795000000
expect "flaps, first run: exit 0, no history yet" 0 \
	"OK      flaps mlx5_0/1: no history yet: these readings (link_downed $b) start it (flaps before this check cannot be known)"
check "flaps: the state file records the port" \
	grep -qx "p mlx5_0/1 seen=1795000000 counter=$b state=4" "$st"
check "flaps: the state file written atomically (no temporary left)" \
	bash -c "[ \$(ls '$TMP/flaps' | wc -l) = 1 ]"
echo $((b + 2)) >"$f" # down and up twice between the checks: ACTIVE both times
flaps 1795000300
expect "a flap between two checks: exit 1" 1 \
	"FAIL    flaps mlx5_0/1: link went down 2 times since the last check (link_downed $b -> $((b + 2))) at 2026-11-18T11:11:40Z, held FAIL until 2026-11-18T11:21:40Z"
check "a flap: the summary names it" \
	grep -q '^FAIL: 1 of [0-9]* failed; flaps mlx5_0/1: link went down 2 times' <<<"$(head -1 <<<"$out")"
flaps 1795000899 --check.format=json
check "held: the next check fails too (json)" bash -c "[ $rc = 1 ] && python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d[\"status\"] == \"fail\", d
assert {\"status\": \"fail\", \"check\": \"flaps\", \"object\": \"mlx5_0/1\", \"reason\": \"link went down 2 times (link_downed $b -> $((b + 2))) at 2026-11-18T11:11:40Z, held FAIL until 2026-11-18T11:21:40Z\"} in d[\"checks\"], d
' '$out'"
flaps 1795000900
expect "the hold time elapsed: exit 0" 0 \
	"OK      flaps mlx5_0/1: no flap since the check at 2026-11-18T11:21:39Z (link_downed $((b + 2)))"
echo $((b + 3)) >"$f"
flaps 1795001000 --check.flap-hold=1m
expect "--check.flap-hold=1m: fails" 1 \
	"FAIL    flaps mlx5_0/1: link went down 1 time since the last check (link_downed $((b + 2)) -> $((b + 3))) at 2026-11-18T11:23:20Z, held FAIL until 2026-11-18T11:24:20Z"
flaps 1795001060 --check.flap-hold=1m
check "--check.flap-hold=1m: passes a minute later (rc $rc)" test "$rc" = 0
echo $((b + 4)) >"$f"
flaps 1795001100 --no-check.flaps
check "--no-check.flaps: exit 0, no flaps line, history untouched" bash -c \
	"[ $rc = 0 ] && ! grep -q ' flaps ' <<<'$out' && grep -q 'seen=1795001060 ' '$st'"
printf 'garbage\n' >"$st"
flaps 1795001200
expect "a corrupt state file: a new history, exit 0" 0 \
	"OK      flaps mlx5_0/1: no history yet: these readings (link_downed $((b + 4))) start it (flaps before this check cannot be known)"
check "a corrupt state file: warned, with the line" \
	grep -q 'msg="the flaps check history is not valid: starting a new one".* line=1' "$TMP/stderr"
head -c 300000 /dev/zero >"$st"
flaps 1795001300
check "a state file over 256 KiB: refused, warned, exit 0 (rc $rc)" bash -c \
	"[ $rc = 0 ] && grep -q 'larger than 256 KiB' '$TMP/stderr' && [ \$(stat -c %s '$st') -lt 1000 ]"
flaps 1795001400 --check.state-file="$TMP/no-such-dir/check-state"
check "an unwritable state file: warned, never a FAIL (rc $rc)" bash -c \
	"[ $rc = 0 ] && grep -q 'cannot write the flaps check history' '$TMP/stderr'"
mkdir -p "$TMP/sd"
st='' STATE_DIRECTORY="$TMP/sd:$TMP/sd2" flaps 1795001500
check "\$STATE_DIRECTORY: the history in its first directory" test -s "$TMP/sd/check-state"
st=

# --- a history that is not this user's own is neither followed nor trusted: UNKNOWN
# (exit 2) naming the path and why, an error logged, the file left as it is. On main
# a link to an old history was read and never rewritten (every run FAILed for ever),
# a link elsewhere blinded the check (every run OK), another user's file was read.
mkdir -p "$TMP/lk"
chmod 755 "$TMP/lk"
st=$TMP/lk/check-state
printf 'rdma_exporter check state 1\np mlx5_0/1 seen=1795000000 counter=1 state=4\n' \
	>"$TMP/lk/old"
ln -s "$TMP/lk/old" "$st"
untrusted() { # untrusted DESCRIPTION WHY: exit 2, the UNKNOWN line, the error, no rewrite
	local sum
	sum=$(cat "$TMP/lk/old" 2>/dev/null; ls -l "$TMP/lk")
	flaps "$1"
	expect "$2: exit 2, flaps UNKNOWN" 2 \
		"UNKNOWN flaps node: the history $st $3: not trusted, flaps cannot be judged (remove it, or fix its owner and mode)"
	check "$2: no flaps OK line" bash -c "! grep -q '^OK      flaps' <<<'$out'"
	check "$2: logged at error" \
		grep -q 'level=error msg="the flaps check history is not trusted' "$TMP/stderr"
	check "$2: left as it is" test "$sum" = "$(cat "$TMP/lk/old" 2>/dev/null; ls -l "$TMP/lk")"
}
untrusted 1795002000 "a symlink to an old history" "is a symbolic link (refused, never followed)"
rm "$st"
ln -s "$TMP/lk/elsewhere" "$st"
untrusted 1795002100 "a symlink elsewhere" "is a symbolic link (refused, never followed)"
rm "$st"
cp "$TMP/lk/old" "$st"
chmod 666 "$st"
untrusted 1795002200 "a world-writable history" "is writable by other users (mode 0666)"
chmod 644 "$st"
chmod 777 "$TMP/lk"
untrusted 1795002300 "a world-writable directory" \
	"is in a directory writable by other users without the sticky bit (mode 0777)"
chmod 1777 "$TMP/lk"
flaps 1795002400
check "a sticky directory, the history its own: trusted (rc $rc)" bash -c \
	"[ $rc = 1 ] && grep -q '^FAIL    flaps mlx5_0/1: link went down' <<<'$out'"
chmod 755 "$TMP/lk"
if [ "$(id -u)" = 0 ]; then
	# the check as another user: root's history is not its own; nor is its own in
	# root's world-writable directory trusted (a real flap reported OK on main)
	chmod 755 "$TMP"
	chown 65534:65534 "$TMP/lk"
	out=$(RDMA_EXPORTER_TEST_NOW=1795002500 setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$SEAM" check --path.sysfs="$t" "${SYSFS_ONLY[@]}" \
		--check.window=0 --check.state-file="$st" 2>"$TMP/stderr")
	rc=$?
	expect "as uid 65534, root's history: exit 2" 2 \
		"UNKNOWN flaps node: the history $st is owned by uid 0, not this user (uid 65534): not trusted, flaps cannot be judged (remove it, or fix its owner and mode)"
	# another user's history, forged to match today's counter: on main an OK
	printf 'rdma_exporter check state 1\np mlx5_0/1 seen=1795002500 counter=%s state=4\n' \
		"$(cat "$f")" >"$st"
	chown 65534:65534 "$st"
	chown 0:0 "$TMP/lk"
	untrusted 1795002600 "as root, uid 65534's history" \
		"is owned by uid 65534, not this user (uid 0)"
	chmod 700 "$TMP"
fi
rm -rf "$TMP/lk"
st=

# --- flags
run_check "$BIN" "$(tree rxe)" --check.format=yaml
check "bad --check.format: exit 2" bash -c "[ $rc = 2 ] && grep -q 'check.format' '$TMP/stderr'"
run_check "$BIN" "$(tree rxe)" --check.expect='mlx5_[7-0]'
check "bad --check.expect: exit 2" bash -c "[ $rc = 2 ] && grep -q 'check.expect' '$TMP/stderr'"
run_check "$BIN" "$(tree rxe)" --check.counter=nope:1
check "unknown counter: exit 2" bash -c "[ $rc = 2 ]"
run_check "$BIN" "$(tree rxe)" --check.flap-hold=8d
check "bad --check.flap-hold: exit 2" bash -c "[ $rc = 2 ] && grep -q 'check.flap-hold' '$TMP/stderr'"
check "check --help shows the check flags" bash -c "'$BIN' check --help | grep -q -- '--check.window=D'"
check "--help shows the subcommands" bash -c "'$BIN' --help | grep -q 'rdma_exporter check \[CHECK FLAGS\]'"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
