#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The container image for real: scripts/build-image.sh builds it from the
# binary under test into a scratch containers-storage, then podman (runc,
# cgroupfs: crun cannot start containers on the CI machines) runs it with a
# read-only root against a fixture sysfs tree mounted read-only, and the host
# scrapes it on loopback (--network host, as the DaemonSet's hostNetwork).
#   container.sh BINARY
# Exit 77 (skipped) where podman, buildah or runc are missing or cannot start
# a container here, unless RDMA_EXPORTER_CONTAINER_REQUIRED=1 (CI), and for a
# sanitizer build (the image is made from the normal build's binary).
set -uo pipefail
BIN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/../e2e/lib.sh"

skip() {
	if [ "${RDMA_EXPORTER_CONTAINER_REQUIRED:-0}" = 1 ]; then
		echo "not ok - $* (RDMA_EXPORTER_CONTAINER_REQUIRED=1)"
		exit 1
	fi
	echo "# SKIP: $*"
	exit 77
}

for t in podman buildah runc curl; do
	command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh --test)"
done
if ldd "$BIN" | grep -Eq 'lib(a|t)san'; then
	echo "# SKIP: a sanitizer build; the image test runs on the normal build"
	exit 77
fi

STORE=(--root "$TMP/storage" --runroot "$TMP/run")
# The host's limits or lower: podman's defaults can exceed what an unprivileged
# CI runner allows, and runc then refuses to start the container.
nofile=$(ulimit -Hn)
nproc=$(ulimit -Hu)
[ "$nofile" = unlimited ] || [ "$nofile" -gt 1024 ] && nofile=1024
[ "$nproc" = unlimited ] || [ "$nproc" -gt 1024 ] && nproc=1024
PODMAN=(podman "${STORE[@]}" --runtime runc --cgroup-manager=cgroupfs)
RUN=(run --network host --read-only --ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")
TAG=rdma-exporter:test

podman_cleanup() {
	"${PODMAN[@]}" rm -f -t 0 rdma-exporter-test >/dev/null 2>&1
	"${PODMAN[@]}" rmi -f "$TAG" >/dev/null 2>&1
	# containers-storage keeps its overlay directory mounted (private) while
	# it lives; the scratch dir goes once it is unmounted.
	umount "$TMP/storage/overlay" 2>/dev/null
	tap_cleanup
}
trap podman_cleanup EXIT

t0=$(date +%s)
# IMAGE_SOURCE: the .source label (without it, and without an http(s) origin remote, the
# image has none: no placeholder)
if ! IMAGE_SOURCE=https://example.org/rdma_exporter "$ROOT/scripts/build-image.sh" --binary "$BIN" --tag "$TAG" "${STORE[@]}" >"$TMP/build.log" 2>&1; then
	cat "$TMP/build.log"
	echo "not ok - scripts/build-image.sh builds the image"
	exit 1
fi
ok "scripts/build-image.sh builds the image in $(($(date +%s) - t0)) s: $(tail -n2 "$TMP/build.log" | head -n1)"

want=$("$BIN" --version)
if ! got=$("${PODMAN[@]}" "${RUN[@]}" --rm "$TAG" --version 2>"$TMP/run.err"); then
	cat "$TMP/run.err"
	skip "podman cannot start a container here"
fi
check "--version in the container is the build's ($want)" [ "$got" = "$want" ]

inspect() { "${PODMAN[@]}" image inspect --format "$1" "$TAG"; }
size=$(inspect '{{.Size}}')
echo "# image size: $size bytes uncompressed"
check "the image is 40 MB or less uncompressed ($size bytes)" [ "$size" -le 40000000 ]
check "it runs as 65534:65534 by default" [ "$(inspect '{{.Config.User}}')" = 65534:65534 ]
check "its entrypoint is the exporter on the host's sysfs mount" \
	[ "$(inspect '{{json .Config.Entrypoint}}')" = '["/usr/bin/rdma_exporter","--path.sysfs=/host/sys"]' ]
has_prefix() { [ -n "$1" ] && [[ $1 == "$2"* ]]; }
version=$(echo "$want" | awk '{ print $3 }')
for l in "version=$version" "revision=" "source=https://example.org/rdma_exporter" "licenses=Apache-2.0"; do
	k=${l%%=*}
	v=$(inspect "{{index .Labels \"org.opencontainers.image.$k\"}}")
	check "label org.opencontainers.image.$k ($v)" has_prefix "$v" "${l#*=}"
done
digest=$(inspect '{{.Digest}}')
check "build-image prints the tag and the image's digest ($digest)" \
	grep -qx "build-image: tag $TAG digest $digest" "$TMP/build.log"
check "the version label is build-image.sh --print-version's" \
	[ "$(inspect '{{index .Labels "org.opencontainers.image.version"}}')" = "$("$ROOT/scripts/build-image.sh" --print-version)" ]
no_shell() { ! "${PODMAN[@]}" "${RUN[@]}" --rm --entrypoint /bin/sh "$TAG" -c true 2>/dev/null; }
check "no shell in the image" no_shell

launch() {
	"${PODMAN[@]}" "${RUN[@]}" --name rdma-exporter-test --rm \
		-v "$FIXTURES/sysfs/mlx5-roce:/host/sys:ro" "$TAG" \
		--web.listen-address="127.0.0.1:$PORT" --poll.interval=1s >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -sf --max-time 1 "http://127.0.0.1:$PORT/healthz" >/dev/null; }
# The container starts in about a second; start_on_free_port waits 5.
ready_slow() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		ready && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}
if start_on_free_port launch ready_slow; then
	ok "the container serves /healthz to the host on 127.0.0.1:$PORT"
	check "/metrics has the fixture's device" wait_sample \
		'rdma_device_info{device="mlx5_0",node_type="CA",hca_type="MT4125",board_id="MT_0000000359",fw_ver="22.39.1002",node_guid="b8ce:f603:0012:3456",sys_image_guid="b8ce:f603:0012:3456",driver="mlx5_core"}' 1 10
	check "the sysfs collector succeeds on the read-only mount" \
		wait_sample 'rdma_exporter_collector_success{collector="sysfs"}' 1
	cpid=$("${PODMAN[@]}" inspect --format '{{.State.Pid}}' rdma-exporter-test)
	uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$cpid/status" 2>/dev/null)
	check "the exporter process runs as uid 65534 (Uid: $uids)" [ "$uids" = "65534 65534 65534 65534" ]
	caps=$(awk '/^CapEff:/ { print $2 }' "/proc/$cpid/status" 2>/dev/null)
	check "with no effective capability (CapEff: $caps)" [ "$caps" = 0000000000000000 ]
	"${PODMAN[@]}" stop -t 10 rdma-exporter-test >/dev/null 2>&1
	wait "$PID"
	rc=$?
	PID=
	check "it exits 0 on podman stop (SIGTERM), status $rc" [ "$rc" = 0 ]
	grep -q 'level=error' "$TMP/log" && { echo "# log:"; sed 's/^/#   /' "$TMP/log"; }
else
	not_ok "the container serves /healthz to the host"
fi

echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
