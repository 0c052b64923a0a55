#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# End-to-end test: starts the real rdma_exporter binary on 127.0.0.1 against
# each fixture tree, scrapes it over HTTP, diffs the scrape with a golden
# file (volatile self metrics filtered out) and runs `promtool check metrics`.
# Also checks the HTTP surface, flag errors and signal handling.
#
#   e2e.sh BINARY                    (FIXTURES and GOLDEN dirs from env)
#   UPDATE_GOLDEN=1 e2e.sh BINARY    rewrite golden files (review the diff!)
set -u
BIN=${1:?usage: e2e.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=${GOLDEN:-$HERE/golden}
. "$HERE/lib.sh"

# start_exporter ARGS...: starts on a free loopback port, waits for /healthz.
e2e_launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" "${START_ARGS[@]}" >"$TMP/log" 2>&1 &
	PID=$!
}
healthz_ready() { curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; }
start_exporter() {
	START_ARGS=("$@")
	start_on_free_port e2e_launch healthz_ready
}

# Sample lines whose values change from run to run.
VOLATILE='^(process_[a-z_]+|rdma_exporter_(collector_duration_seconds|last_poll_timestamp_seconds|polls_total|build_info))[ {]'


scrape_tree() { # scrape_tree NAME [extra flags...]
	local name=$1
	shift
	local tree=$FIXTURES/sysfs/$name out=$TMP/$name.prom
	# Fixture trees are sysfs only: the netlink (and events) collector would
	# report this host's kernel, not the tree.
	if ! start_exporter --path.sysfs="$tree" --poll.interval=1s --no-collector.netlink --no-collector.ethtool --no-collector.probe \
		--no-collector.events "$@"; then
		not_ok "$name: exporter starts"
		return
	fi
	curl -fsS "http://127.0.0.1:$PORT/metrics" >"$out"
	check "$name: promtool check metrics passes without warnings" promtool_clean "$out"
	grep -Ev "$VOLATILE" "$out" >"$out.stable"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$out.stable" "$GOLDEN/$name.prom"
	fi
	if diff -u "$GOLDEN/$name.prom" "$out.stable" >"$TMP/diff"; then
		ok "$name: scrape matches golden/$name.prom"
	else
		not_ok "$name: scrape differs from golden/$name.prom"
		head -60 "$TMP/diff"
	fi
	check "$name: every process_* self metric present" \
		bash -c "for m in process_cpu_seconds_total process_resident_memory_bytes process_open_fds process_max_fds process_start_time_seconds; do grep -q \"^\$m \" '$out' || exit 1; done"
	check "$name: exits 0 on SIGTERM" stop_exporter
}

for tree in node-exporter-mixed procfs-mixed mlx5-roce rxe efa bnxt_re mana erdma broken pcie; do
	if [ -d "$FIXTURES/sysfs/$tree" ]; then
		scrape_tree "$tree"
	else
		not_ok "fixture tree $tree exists"
	fi
done

# --- device filter: the restricted PF mlx5_1 is never read
if start_exporter --path.sysfs="$FIXTURES/sysfs/mlx5-roce" --collector.device-exclude='mlx5_1'; then
	body=$TMP/body
	curl -fsS "http://127.0.0.1:$PORT/metrics" >"$body"
	check "device-exclude drops mlx5_1" bash -c "! grep -q 'device=\"mlx5_1\"' '$body'"
	check "device-exclude keeps mlx5_0" grep -q 'rdma_port_state{device="mlx5_0",port="1"} 4' "$body"
	stop_exporter
fi

# --- an iWARP device without a PMA (i40iw0: every counter reads "N/A (no PMA)"): said
# once at info for the device, never a warning per file, over several polls
if start_exporter --path.sysfs="$FIXTURES/sysfs/node-exporter-mixed" --poll.interval=100ms \
	--no-collector.netlink --no-collector.ethtool --no-collector.probe; then
	sleep 0.5
	stop_exporter
	check "N/A (no PMA): logged once at info for i40iw0" \
		bash -c "test \$(grep -c 'level=info msg=\"counters read N/A (no PMA).*device=i40iw0 ' '$TMP/log') -eq 1"
	check "N/A (no PMA): no warning per file" bash -c "! grep -q 'level=warn.*device=i40iw0 ' '$TMP/log'"
fi

# --- a machine with no RDMA at all: self metrics, zero devices, success 1
mkdir -p "$TMP/empty-sys/class"
if start_exporter --path.sysfs="$TMP/empty-sys" --poll.interval=100ms; then
	body=$TMP/body
	curl -fsS "http://127.0.0.1:$PORT/metrics" >"$body"
	check "no RDMA: collector success is 1" grep -q 'rdma_exporter_collector_success{collector="sysfs"} 1' "$body"
	check "no RDMA: zero devices" grep -q 'rdma_exporter_collector_devices{collector="sysfs"} 0' "$body"
	check "no RDMA: build_info served" grep -q '^rdma_exporter_build_info{version=' "$body"
	check "no RDMA: netlink collector success is 1" grep -q 'rdma_exporter_collector_success{collector="netlink"} 1' "$body"
	check "no RDMA: probe collector success is 1 with 0 devices" bash -c "grep -q 'rdma_exporter_collector_success{collector=\"probe\"} 1' '$body' && grep -q 'rdma_exporter_collector_devices{collector=\"probe\"} 0' '$body'"
	if ! python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)' 2>/dev/null; then
		# This kernel has no NETLINK_RDMA (the issue's "every build machine here").
		check "no RDMA netlink: netlink reports zero devices" grep -q 'rdma_exporter_collector_devices{collector="netlink"} 0' "$body"
		check "no RDMA netlink: logged once at info" bash -c "test \$(grep -c 'level=info.*no RDMA netlink' '$TMP/log') -eq 1"
		# several polls later (1 per 100ms), still one line
		sleep 0.5
		check "no RDMA netlink: no log line per poll" bash -c "test \$(grep -c 'RDMA netlink' '$TMP/log') -eq 1"
	fi

	# --- HTTP surface
	url=http://127.0.0.1:$PORT
	code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
	check "GET / is 200 and links the metrics path" bash -c "curl -fsS '$url/' | grep -q 'href=\"/metrics\"'"
	check "GET /healthz is 200" test "$(code "$url/healthz")" = 200
	check "GET /nope is 404" test "$(code "$url/nope")" = 404
	check "POST /metrics is 405" test "$(code -X POST "$url/metrics")" = 405
	check "405 carries Allow: GET, HEAD" bash -c "curl -s -D - -o /dev/null -X POST '$url/metrics' | grep -qi '^Allow: GET, HEAD'"
	check "HEAD /metrics is 200 with no body" bash -c "test \"\$(curl -s -I '$url/metrics' -o /dev/null -w '%{http_code}')\" = 200"
	check "content type is text format 0.0.4" bash -c "curl -s -D - -o /dev/null '$url/metrics' | grep -qi '^Content-Type: text/plain; version=0.0.4'"
	check "gzip when the client accepts it" bash -c "curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' '$url/metrics' | grep -qi '^Content-Encoding: gzip'"
	check "gzip body decodes to the exposition text" bash -c "curl -s -H 'Accept-Encoding: gzip' '$url/metrics' | gzip -dc | grep -q '^# TYPE rdma_exporter_build_info gauge'"
	check "no gzip without Accept-Encoding" bash -c "! curl -s -D - -o /dev/null '$url/metrics' | grep -qi '^Content-Encoding'"
	check "no gzip with gzip;q=0" bash -c "! curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip;q=0' '$url/metrics' | grep -qi '^Content-Encoding'"

	# --- SIGHUP re-scans and keeps serving
	kill -HUP "$PID"
	sleep 0.5
	check "still serving after SIGHUP" test "$(code "$url/metrics")" = 200
	check "SIGHUP is logged" grep -q 'signal=SIGHUP' "$TMP/log"
	check "logs once that there is no RDMA device" bash -c "test \$(grep -c -i 'no rdma device\\|no RDMA devices\\|class/infiniband' '$TMP/log') -ge 1"
	check "exits 0 on SIGTERM" stop_exporter
fi

# --- no device to report: the log says which case, with the directory in full, once
# per case (several polls at 100ms), and again when the case changes
SYSFS_ONLY=(--poll.interval=100ms --no-collector.netlink --no-collector.ethtool --no-collector.probe)
log_count() { grep -c -- "$1" "$TMP/log"; }
# wait_log PATTERN: until the log has it (10 s at most; a loaded machine polls late)
wait_log() {
	local i
	for i in $(seq 100); do
		[ "$(log_count "$1")" -ge 1 ] && return 0
		sleep 0.1
	done
	return 1
}
mkdir -p "$TMP/nodir-sys"
nodir=$(realpath "$TMP/nodir-sys")
if start_exporter --path.sysfs="$TMP/nodir-sys" "${SYSFS_ONLY[@]}"; then
	want="level=info msg=\"no RDMA devices: the directory does not exist, no RDMA driver is loaded\" collector=sysfs path=$nodir/class/infiniband hint=\""
	wait_log "$want"
	sleep 0.3 # a few more polls: still once
	check "no class/infiniband: logged once, with the absolute path" test "$(log_count "$want")" = 1
	check "no class/infiniband: the hint names modprobe and Soft-RoCE" \
		bash -c "grep -F -- '$want' '$TMP/log' | grep 'modprobe mlx5_ib' | grep -q 'rdma link add rxe0 type rxe netdev eth0'"
	mkdir -p "$TMP/nodir-sys/class/infiniband"
	wait_log "level=info msg=\"no RDMA devices: the directory is empty\""
	sleep 0.3
	check "class/infiniband appears empty: the new case is logged once" \
		test "$(log_count "level=info msg=\"no RDMA devices: the directory is empty\" collector=sysfs path=$nodir/class/infiniband$")" = 1
	check "no class/infiniband: still said only once" test "$(log_count "$want")" = 1
	stop_exporter
fi
mkdir -p "$TMP/emptyib-sys/class/infiniband"
emptyib=$(realpath "$TMP/emptyib-sys")
if start_exporter --path.sysfs="$TMP/emptyib-sys" "${SYSFS_ONLY[@]}"; then
	wait_log "no RDMA devices: the directory is empty"
	sleep 0.3
	check "empty class/infiniband: logged once, with the absolute path" \
		test "$(log_count "level=info msg=\"no RDMA devices: the directory is empty\" collector=sysfs path=$emptyib/class/infiniband$")" = 1
	stop_exporter
fi
rxe=$(realpath "$FIXTURES/sysfs/rxe")
for flag in --collector.device-include --collector.device-exclude; do
	if [ $flag = --collector.device-include ]; then pattern=nomatch; else pattern='rxe.*'; fi
	if start_exporter --path.sysfs="$rxe" "$flag=$pattern" "${SYSFS_ONLY[@]}"; then
		wait_log "no RDMA devices: every device is filtered out"
		sleep 0.3
		check "every device filtered out by $flag: logged once at warn, naming the flag" \
			test "$(log_count "level=warn msg=\"no RDMA devices: every device is filtered out\" collector=sysfs path=$rxe/class/infiniband present=1 flag=$flag$")" = 1
		stop_exporter
	fi
done

# --- every collector disabled: one warning at start that only self metrics are served
all_off="level=warn msg=\"every collector is disabled: only the exporter's own metrics are served\""
if start_exporter --path.sysfs="$FIXTURES/sysfs/rxe" --no-collector.sysfs --no-collector.netlink \
	--no-collector.ethtool --no-collector.probe --no-collector.events --no-collector.devlink --poll.interval=100ms; then
	wait_log "$all_off"
	check "every collector disabled: one warning" test "$(log_count "$all_off")" = 1
	curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/body"
	check "every collector disabled: self metrics still served" grep -q '^rdma_exporter_build_info{' "$TMP/body"
	stop_exporter
fi
if start_exporter --path.sysfs="$FIXTURES/sysfs/rxe" "${SYSFS_ONLY[@]}"; then
	check "one collector enabled: no such warning" test "$(log_count "$all_off")" = 0
	stop_exporter
fi

# --- every log line is one logfmt record: ts, level, msg first, then key=value fields
# with values bare or quoted (a quote inside one escaped)
logfmt_line='^ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z level=(debug|info|warn|error) msg=([^ ="]+|"([^"\\]|\\.)*")( [a-z_]+=([^ ="]+|"([^"\\]|\\.)*"))*$'
if start_exporter --path.sysfs="$FIXTURES/sysfs/broken" --poll.interval=100ms --log.level=debug; then
	sleep 0.3
	kill -HUP "$PID"
	sleep 0.3
	stop_exporter
	all_logfmt() { ! grep -Ev "$logfmt_line" "$TMP/log" | grep -q .; }
	check "debug log: every line is a logfmt record" all_logfmt
	check "debug log: has lines" test "$(wc -l <"$TMP/log")" -gt 5
fi

# --- under systemd (JOURNAL_STREAM set): the syslog priority first, no ts=
if JOURNAL_STREAM=8:12345 start_exporter --path.sysfs="$FIXTURES/sysfs/rxe" "${SYSFS_ONLY[@]}"; then
	stop_exporter
	check "journal: records start with <N>level=, without ts=" \
		bash -c "grep -q '^<6>level=info msg=\"starting rdma_exporter\" version=' '$TMP/log' && ! grep -q '^ts=' '$TMP/log'"
	check "journal: the shutdown record" grep -q '^<6>level=info msg="shutting down" signal=SIGTERM$' "$TMP/log"
fi

# --- a custom telemetry path
if start_exporter --path.sysfs="$FIXTURES/sysfs/efa" --web.telemetry-path=/custom; then
	check "custom telemetry path serves metrics" bash -c "curl -fsS 'http://127.0.0.1:$PORT/custom' | grep -q rdma_exporter_build_info"
	check "old /metrics path is 404" test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")" = 404
	kill -INT "$PID"
	wait "$PID"
	check "exits 0 on SIGINT" test $? = 0
	PID=
fi

# --- SIGQUIT: a clean exit like SIGTERM (no core dump), and said in the log
if start_exporter --path.sysfs="$FIXTURES/sysfs/efa"; then
	kill -QUIT "$PID"
	wait "$PID"
	check "exits 0 on SIGQUIT" test $? = 0
	check "SIGQUIT is logged" grep -q 'level=info msg="shutting down" signal=SIGQUIT$' "$TMP/log"
	PID=
fi

# --- flags: clear message and exit code 2
flag_error() { # flag_error WANT_IN_MESSAGE ARGS...
	local want=$1 rc
	shift
	"$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" "$TMP/err" && return 0
	echo "rc=$rc stderr: $(cat "$TMP/err")" >&2
	return 1
}
check "unknown flag: exit 2" flag_error "unknown flag --nope" --nope
check "bad duration: exit 2" flag_error "not a duration" --poll.interval=fast
check "bad listen address: exit 2" flag_error "HOST:PORT" --web.listen-address=nonsense
check "bad regex: exit 2" flag_error "invalid --collector.device-include regex" --collector.device-include='('
check "missing sysfs root: exit 2" flag_error "cannot open" --path.sysfs=/nonexistent/sys
check "bad log level: exit 2" flag_error "log.level" --log.level=loud
check "--help exits 0 and lists collectors" bash -c "'$BIN' --help | grep -q -- '--collector.sysfs'"
check "--help lists the netlink collector's flags" bash -c "'$BIN' --help | grep -q -- '--collector.netlink.top-processes=N'"
check "bad top-processes: exit 2" flag_error "whole number from 0 to 1000" --collector.netlink.top-processes=many
check "bad netlink timeout: exit 2" flag_error "not a duration" --collector.netlink.timeout=5
check "--help lists --collector.netlink.qp-states" bash -c "'$BIN' --help | grep -q -- '--collector.netlink.qp-states=active|all'"
check "bad qp-states: exit 2" flag_error '--collector.netlink.qp-states: "some" is not one of active, all' --collector.netlink.qp-states=some
check "--help lists --collector.probe.target-detail" bash -c "'$BIN' --help | grep -q -- '--\[no-\]collector.probe.target-detail'"
check "--help lists the probe collector's flags" bash -c "'$BIN' --help | grep -q -- '--collector.probe.interval=D'"
check "bad probe count: exit 2" flag_error "whole number from 1 to 1000" --collector.probe.count=0
check "--help lists --collector.probe.sample-rotation" bash -c "'$BIN' --help | grep -q -- '--collector.probe.sample-rotation=D'"
check "probe sample-rotation over 7d: exit 2" flag_error "sample-rotation: 8d is out of range" --collector.probe.sample-rotation=8d
check "--version exits 0" bash -c "'$BIN' --version | grep -q '^rdma_exporter, version '"

# --- port already in use: a clear error, exit 1
if start_exporter --path.sysfs="$TMP/empty-sys"; then
	"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/empty-sys" >"$TMP/out" 2>&1
	rc=$?
	check "address in use: exit 1 with a clear message" bash -c "[ $rc -eq 1 ] && grep -q 'Address already in use' '$TMP/out'"
	stop_exporter
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
