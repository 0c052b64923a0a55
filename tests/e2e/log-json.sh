#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# --log.format=json on the real binary, read by python3's json module, which is
# strict (a raw control character in a string is an error): the exporter runs on
# a copy of the broken fixture tree (warnings with paths and errors) at a --path.sysfs
# whose name holds a quote, a tab, a newline and an invalid UTF-8 byte, takes a
# SIGHUP and a SIGTERM. Every line must be one JSON object whose keys start with
# ts, level, msg, whose values are strings, and whose messages are those of the
# same run in logfmt.
#
#   log-json.sh BINARY        (FIXTURES dir from env)
set -u
BIN=${1:?usage: log-json.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools curl python3

NOHOST=(--no-collector.netlink --no-collector.ethtool --no-collector.probe)
ODD=$(printf '%s/odd "dir\t\nx\377' "$TMP")
cp -a "$FIXTURES/sysfs/broken" "$ODD"

run_format() { # run_format FORMAT: the exporter's log in $TMP/log.FORMAT
	FORMAT=$1
	launch() {
		"$BIN" --path.sysfs="$ODD" --web.listen-address="127.0.0.1:$PORT" \
			--log.level=debug --log.format="$FORMAT" "${NOHOST[@]}" >"$TMP/log" 2>&1 &
		PID=$!
	}
	ready() { curl -fsS -o /dev/null "http://127.0.0.1:$PORT/metrics" 2>/dev/null; }
	start_on_free_port launch ready || return 1
	kill -HUP "$PID"
	wait_sample rdma_exporter_polls_total 2 10 >/dev/null 2>&1
	stop_exporter
	cp "$TMP/log" "$TMP/log.$FORMAT"
}

check "the exporter runs with --log.format=json" run_format json
check "and with --log.format=logfmt" run_format logfmt

check "every line is one strict JSON object: ts, level, msg first, string values" \
	python3 - "$TMP/log.json" "$ODD" <<'PY'
import json, sys
path, odd = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
assert raw.endswith(b"\n"), "the last record ends in a newline"
text = raw.decode("utf-8")  # strict: invalid UTF-8 fails here
lines = text.split("\n")[:-1]
assert len(lines) >= 5, "only %d records" % len(lines)
seen_sysfs = False
for line in lines:
    rec = json.loads(line)  # strict=True: raw control characters fail
    assert isinstance(rec, dict), line
    keys = list(rec)
    assert keys[:3] == ["ts", "level", "msg"], keys
    assert rec["level"] in ("debug", "info", "warn", "error"), line
    for k, v in rec.items():
        assert isinstance(v, str) or (k == "truncated" and v is True), (k, v)
    if rec["msg"] == "starting rdma_exporter":
        # the path's bytes come back, the invalid one as U+FFFD
        want = odd.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        assert rec["sysfs"] == want, (rec["sysfs"], want)
        seen_sysfs = True
assert seen_sysfs, "no startup record"
print("# %d records" % len(lines))
PY

check "the same messages as in logfmt" python3 - "$TMP/log.json" "$TMP/log.logfmt" <<'PY'
import json, re, sys
js = {json.loads(l)["msg"] for l in open(sys.argv[1], encoding="utf-8")}
lf = set()
for l in open(sys.argv[2], encoding="utf-8", errors="replace"):
    m = re.search(r' msg=("(?:[^"\\]|\\.)*"|\S+)', l)
    assert m, l
    v = m.group(1)
    lf.add(json.loads(v) if v.startswith('"') else v)
assert js == lf, (sorted(js ^ lf))
print("# %d distinct messages" % len(js))
PY

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
