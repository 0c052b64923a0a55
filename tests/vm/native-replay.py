#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Native histograms from a real RDMA stack, in a real Prometheus.

    native-replay.py FIRST.bin SECOND.bin RULES.yml

FIRST and SECOND are two /metrics scrapes in the protobuf exposition that the
Soft-RoCE guest took of a probing exporter a few seconds apart
(tests/vm/guest-e2e.sh, section "probe accuracy"). This serves FIRST to the
first scrape and SECOND to every later one, with the protobuf Content-Type, to
Debian's Prometheus 2.42 started with --enable-feature=native-histograms and
the shipped recording rules, then asks its query API:
  - rdma_probe_rtt_seconds and rdma_probe_network_rtt_seconds are stored as
    native histograms;
  - histogram_count(rate(...[1m])) is positive (the probes between the scrapes);
  - histogram_quantile(0.99, rate(rdma_probe_network_rtt_seconds[1m])) is a
    number between 0 and 1 s;
  - the recording rule rdma_probe:rtt_seconds:mean5m (histogram_sum over histogram_count) answers too.
Prints one "ok - ..." / "not ok - ..." line per check; exit 0 when all pass,
77 when prometheus is missing.
"""
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

CT = "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    first, second = (open(p, "rb").read() for p in argv[1:3])
    rules = os.path.abspath(argv[3])
    if not shutil.which("prometheus"):
        print("native-replay: prometheus not found", file=sys.stderr)
        return 77
    served = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = first if served[0] == 0 else second
            served[0] += 1
            self.send_response(200)
            self.send_header("Content-Type", CT)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    tmp = tempfile.mkdtemp(prefix="native-replay-")
    # every rule group evaluated each second (1 to 5 minutes in production)
    with open(rules) as f:
        text = re.sub(r"^(\s+interval:\s*)\S+", r"\g<1>1s", f.read(), flags=re.M)
    rules = os.path.join(tmp, os.path.basename(rules))
    with open(rules, "w") as f:
        f.write(text)
    prom_port = free_port()
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                f"rule_files: ['{rules}']\n"
                "scrape_configs:\n  - job_name: rdma-vm\n"
                f"    static_configs: [{{targets: ['127.0.0.1:{srv.server_address[1]}']}}]\n")
    log = open(os.path.join(tmp, "prom.log"), "w")
    prom = subprocess.Popen(["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                             "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                             f"--web.listen-address=127.0.0.1:{prom_port}",
                             "--enable-feature=native-histograms", "--log.level=warn"],
                            stdout=log, stderr=subprocess.STDOUT)
    api = f"http://127.0.0.1:{prom_port}/api/v1/query?query="

    def query(expr):
        try:
            with urllib.request.urlopen(api + urllib.parse.quote(expr), timeout=5) as r:
                return json.load(r)["data"]["result"]
        except (OSError, ValueError, KeyError):
            return []

    fails = 0

    def check(ok, what, detail=""):
        nonlocal fails
        print(("ok - " if ok else "not ok - ") + what + (f" ({detail})" if detail else ""))
        fails += not ok

    try:
        for _ in range(300):  # scrapes of FIRST, then SECOND, and a rule evaluation after
            if served[0] >= 4 and query("rdma_probe:rtt_seconds:mean5m"):
                break
            time.sleep(0.1)
        check(served[0] >= 2, f"Prometheus scraped the two captures ({served[0]} scrapes)")
        for name in ("rdma_probe_rtt_seconds", "rdma_probe_network_rtt_seconds"):
            r = query(name)
            check(bool(r) and all("histogram" in s for s in r),
                  f"{name} stored as native histograms ({len(r)} series)")
            r = query(f"histogram_count(rate({name}[1m]))")
            vals = [float(s["value"][1]) for s in r]
            check(bool(vals) and max(vals) > 0,
                  f"histogram_count(rate({name}[1m])) answers on native data", str(vals))
        r = query("histogram_quantile(0.99, rate(rdma_probe_network_rtt_seconds[1m]))")
        vals = [float(s["value"][1]) for s in r if s["value"][1] not in ("NaN", "+Inf")]
        check(bool(vals) and all(0 < v < 1 for v in vals),
              "histogram_quantile(0.99, rate(rdma_probe_network_rtt_seconds[1m])) on native data",
              ", ".join(f'{s["metric"].get("target")}: {float(s["value"][1]) * 1e6:.1f} us' for s in r))
        r = query("rdma_probe:rtt_seconds:mean5m")
        check(bool(r), "the recording rule rdma_probe:rtt_seconds:mean5m answers on native data",
              ", ".join(f'{s["metric"].get("target")}: {s["value"][1]}' for s in r))
    finally:
        prom.terminate()
        prom.wait(timeout=10)
        srv.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
