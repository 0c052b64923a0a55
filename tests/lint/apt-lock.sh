#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts/install-deps.sh (and so scripts/run.sh) waits for an apt lock another
# process holds, says so once with the holder's PID, and goes on when it is
# released; it gives up, exit 1, after its bound; apt-get is given the same
# bound (DPkg::Lock::Timeout) and its output is not hidden. On a scratch lock
# file (RDMA_EXPORTER_APT_LOCKS), held with flock(1), with stand-ins for
# dpkg-query, apt-get and sudo on PATH: nothing is installed, no network. The
# verdicts never depend on timing: the test waits for each message (bounded
# only so that a broken script fails instead of hanging) and releases the lock
# itself.
#
#   tests/lint/apt-lock.sh SOURCE_DIR
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
command -v flock >/dev/null || { echo "not ok - flock(1) is missing (util-linux)"; exit 1; }

tmp=$(mktemp -d)
holder=
cleanup() {
	[ -z "$holder" ] || kill "$holder" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
not_ok() {
	echo "not ok - $*"
	fail=1
}

mkdir "$tmp/bin"
# Every package is missing; apt-get only writes down how it was called, and
# prints a line as apt does, which must reach the output.
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
exit 1
EOF
cat >"$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/apt-calls"
echo "Reading package lists... (stand-in)"
EOF
cat >"$tmp/bin/sudo" <<'EOF'
#!/bin/sh
exec "$@"
EOF
chmod +x "$tmp/bin"/*
lock=$tmp/lock-frontend
touch "$lock"

# hold: flock(1) takes the lock, then runs a shell that says it holds it and
# waits on a FIFO until release() writes to it. $holder is flock's PID, the one
# /proc/locks names.
hold() {
	rm -f "$tmp/held" "$tmp/release"
	mkfifo "$tmp/release"
	flock "$lock" sh -c ': >"$1/held"; read -r _ <"$1/release"' sh "$tmp" &
	holder=$!
	wait_for "lock holder" test -e "$tmp/held"
}
release() {
	echo go >"$tmp/release"
	wait "$holder" || true
	holder=
}
# wait_for WHAT CMD...: until CMD succeeds; 60 s at most, then a failure.
wait_for() {
	local what=$1 i
	shift
	for i in $(seq 600); do
		"$@" && return 0
		sleep 0.1
	done
	not_ok "$what: not seen within 60 s"
	return 1
}
run_deps() {
	rm -f "$tmp/apt-calls"
	PATH="$tmp/bin:$PATH" RDMA_EXPORTER_APT_LOCKS="$lock" "$@" \
		"$ROOT/scripts/install-deps.sh" >"$tmp/out" 2>&1 &
	deps=$!
}

# 1. Held, then released: waits, says so once with the PID, then installs.
hold
run_deps env
if wait_for "the waiting message" grep -q "waiting for the apt lock held by PID $holder .*(up to 600 s)" "$tmp/out"; then
	[ ! -e "$tmp/apt-calls" ] || not_ok "apt-get ran while the lock was held: $(cat "$tmp/apt-calls")"
	kill -0 "$deps" 2>/dev/null || not_ok "install-deps.sh ended while the lock was held"
	echo "ok - waits for the lock held by PID $holder and says so"
fi
release
rc=0
wait "$deps" || rc=$?
[ "$rc" = 0 ] || not_ok "exit $rc after the lock was released: $(cat "$tmp/out")"
[ "$(grep -c 'waiting for the apt lock' "$tmp/out")" = 1 ] || not_ok "the waiting message is not said exactly once"
grep -q "the apt lock is free" "$tmp/out" || not_ok "no word that the lock is free"
grep -q "^-o DPkg::Lock::Timeout=600 update$" "$tmp/apt-calls" ||
	not_ok "apt-get update without the lock timeout: $(cat "$tmp/apt-calls")"
grep -q "^-o DPkg::Lock::Timeout=600 install -y --no-install-recommends .*cmake" "$tmp/apt-calls" ||
	not_ok "apt-get install without the lock timeout: $(cat "$tmp/apt-calls")"
grep -q "^Reading package lists... (stand-in)$" "$tmp/out" || not_ok "apt-get's output is hidden"
[ $fail = 1 ] || echo "ok - goes on when the lock is released, apt-get bounded and shown"

# 2. Held for good: gives up after its bound, exit 1, apt-get never run.
hold
run_deps env RDMA_EXPORTER_APT_LOCK_WAIT=1
rc=0
wait "$deps" || rc=$?
release
[ "$rc" = 1 ] || not_ok "exit $rc, not 1, with the lock held past the bound: $(cat "$tmp/out")"
grep -q "still held by PID" "$tmp/out" || not_ok "no word of giving up: $(cat "$tmp/out")"
[ ! -e "$tmp/apt-calls" ] || not_ok "apt-get ran with the lock held: $(cat "$tmp/apt-calls")"
[ "$rc" != 1 ] || echo "ok - gives up after its bound, exit 1"

# 3. Free: no waiting, no message.
run_deps env
rc=0
wait "$deps" || rc=$?
[ "$rc" = 0 ] || not_ok "exit $rc with the lock free: $(cat "$tmp/out")"
! grep -q "waiting for the apt lock" "$tmp/out" || not_ok "waits for a free lock"
[ $fail = 1 ] || echo "ok - a free lock costs nothing"
exit $fail
