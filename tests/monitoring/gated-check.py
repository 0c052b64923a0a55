#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# No shipped rule reads a series that exists only behind a non-default flag,
# and a dashboard panel that does says which flag in its description (issue
# 40). Which series a flag brings is read from real output, not a table: the
# collectors' unit tests write their text exposition at default flags and
# with each flag (tests/collectors/probe/test_probe_export.c PROBE_SERIES_OUT,
# tests/collectors/netlink/test_netlink_collector.c NETLINK_SERIES_OUT), and
# the e2e golden files are the exporter's own at default flags. A sample name
# in a with-flag output and in no default one is gated behind that flag.
# Native histogram reads (the bare family name, protobuf only) are not judged.
#
#   gated-check.py SOURCE_DIR TEST_PROBE_EXPORT TEST_NETLINK_COLLECTOR
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monlib  # noqa: E402

ROOT, PROBE_TEST, NETLINK_TEST = (os.path.abspath(a) for a in sys.argv[1:4])
t = monlib.Counter()


def outputs(binary, env_var, tmp, name):
    """Run a unit test with env_var=tmp/name: the files it writes, by suffix."""
    base = os.path.join(tmp, name)
    env = dict(os.environ, **{env_var: base,
                              "FIXTURES": os.path.join(ROOT, "tests", "fixtures")})
    subprocess.run([binary], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    out = {}
    for f in os.listdir(tmp):
        if f.startswith(name):
            with open(os.path.join(tmp, f)) as fh:
                out[f[len(name):]] = monlib.sample_names(fh.read())
    return out


with tempfile.TemporaryDirectory() as tmp:
    probe = outputs(PROBE_TEST, "PROBE_SERIES_OUT", tmp, "probe.txt")
    netlink = outputs(NETLINK_TEST, "NETLINK_SERIES_OUT", tmp, "netlink.txt")

default = set(probe.get("", set())) | netlink.get(".ib", set()) | netlink.get(".roce", set())
for f in sorted(os.listdir(os.path.join(ROOT, "tests", "e2e", "golden"))):
    with open(os.path.join(ROOT, "tests", "e2e", "golden", f)) as fh:
        default |= monlib.sample_names(fh.read())
# Each with-flag output and the flag (or flags) that bring its extra series.
# The netlink one has qp-states=all too, which brings rows, not series names.
with_flags = [(probe.get(".detail", set()), ("--collector.probe.target-detail",
                                             "--collector.probe.target-histograms")),
              (probe.get(".flag", set()), ("--collector.probe.target-histograms",)),
              (netlink.get(".ib.flags", set()), ("--collector.netlink.top-processes",))]
gated = {}
for names, flags in with_flags:
    for n in names - default:
        gated.setdefault(n, set()).update(flags)

# The outputs are real: the families issue 40 moved are gated, what rules read is not.
for name in ("rdma_probe_timeouts_total", "rdma_probe_port_network_rtt_seconds_bucket",
             "rdma_probe_rtt_seconds_count", "rdma_probe_responder_turnaround_seconds_total",
             "rdma_process_qps"):
    t(name in gated, f"{name} is behind a flag ({', '.join(sorted(gated.get(name, [])))})")
for name in ("rdma_probe_sent_total", "rdma_probe_replies_total",
             "rdma_probe_round_trip_seconds_total", "rdma_probe_port_rtt_seconds_bucket",
             "rdma_qps", "rdma_workload_qps", "rdma_port_data_received_bytes_total"):
    t(name in default, f"{name} is exported at default flags")


def rule_problems(expr):
    return sorted(n for n in monlib.metric_names(expr) if n in gated)


def panel_problems(expr, description):
    return sorted(n for n in monlib.metric_names(expr)
                  if n in gated and not any(f in description for f in gated[n]))


for where, expr in monlib.rule_exprs(ROOT):
    bad = rule_problems(expr)
    t(not bad, f"{where} reads only series of the default flags", " ".join(bad))

for name, d in monlib.dashboards(ROOT).items():
    for p in monlib.panels(d):
        desc = p.get("description", "")
        for tg in p.get("targets", []):
            bad = panel_problems(tg.get("expr", ""), desc)
            t(not bad, f"{name} panel \"{p['title']}\" {tg.get('refId')}: a series behind a "
              "flag is named in the description",
              "; ".join(f"{n} needs {' or '.join(sorted(gated[n]))}" for n in bad))
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            bad = rule_problems(q)
            t(not bad, f"{name} variable ${v['name']} reads only series of the default flags",
              " ".join(bad))

# The check itself catches a rule and a silent panel on a gated series.
t(rule_problems("rate(rdma_probe_timeouts_total[5m]) > 0") == ["rdma_probe_timeouts_total"],
  "self-test: a rule on a gated series is caught")
t(panel_problems("rate(rdma_process_qps[5m])", "Processes.") == ["rdma_process_qps"],
  "self-test: a panel that does not name the flag is caught")
t(not panel_problems("rdma_process_qps", "Needs --collector.netlink.top-processes=10."),
  "self-test: a panel that names the flag passes")
t(not rule_problems("histogram_sum(rate(rdma_probe_rtt_seconds[5m]))"),
  "self-test: a native histogram read is not judged")

sys.exit(t.summary())
