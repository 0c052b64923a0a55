#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# The alert and recording rules in alerts/: promtool check rules, docs/CONTRIBUTING.md rule 18
# for every alert (severity, summary, description naming the instance, the
# object and the value, runbook, runbook_url to an existing RUNBOOK.md section,
# a row in RUNBOOK.md's threshold table that matches the expression), range
# windows safe at a 15s scrape interval, and promtool test rules on
# tests/monitoring/rules-test.yml, with a firing and a non-firing case for every
# alert and a case for every recording rule. rules-test.yml is a complete test
# for plain `promtool test rules`; sync-rules-test.py keeps its runbook and
# runbook_url lines copied from the rules, and this checks they are current.
#
#   rules-test.py [SOURCE_DIR]
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
ALERTS = os.path.join(ROOT, "alerts")
TESTS = os.path.join(ROOT, "tests", "monitoring", "rules-test.yml")
with open(os.path.join(ALERTS, "config.yml")) as fh:
    CONFIG = yaml.safe_load(fh)
RUNBOOK_BASE = CONFIG["runbook_base_url"]
RULE_FILES = sorted(os.path.join(ALERTS, f) for f in os.listdir(ALERTS)
                    if f.endswith(".rules.yml"))

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {what}")
    else:
        failed += 1
        print(f"not ok - {what}" + (f": {detail}" if detail else ""))
    return ok


def duration_seconds(s):
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    total = 0.0
    for num, unit in re.findall(r"(\d+)(ms|s|m|h|d|w|y)", s):
        total += int(num) * units[unit]
    return total


def anchor(heading):
    """GitHub's anchor for a Markdown heading."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


# ---- promtool check rules ------------------------------------------------------------
r = subprocess.run(["promtool", "check", "rules"] + RULE_FILES, capture_output=True, text=True)
check(r.returncode == 0, "promtool check rules " + " ".join(os.path.basename(f) for f in RULE_FILES),
      r.stdout + r.stderr)

rules = []
per_instance = set()  # alerts about the exporter itself: the instance is the object
# Probe alerts aggregated over a node's targets (the prober, its instance, is the
# object) or over a target's probers (no instance: the target is the object).
per_instance |= {"RDMAProbeLocalPortSuspect", "RDMAProbeErrors"}
per_target = {"RDMAProbePeerUnreachable"}
# Alerts over many nodes (a switch, a job, maintenance): no one instance or object.
per_fleet = set()
for f in RULE_FILES:
    with open(f) as fh:
        for g in yaml.safe_load(fh)["groups"]:
            rules.extend(g["rules"])
            if g["name"].endswith(".exporter"):
                per_instance |= {r["alert"] for r in g["rules"] if "alert" in r}
            if g["name"].endswith(".fleet"):
                per_fleet |= {r["alert"] for r in g["rules"] if "alert" in r}
alerts = {r["alert"]: r for r in rules if "alert" in r}
records = sorted({r["record"] for r in rules if "record" in r})
check(len(alerts) > 0 and len(records) > 0, f"{len(alerts)} alerts and {len(records)} recording rule names found")

# ---- what a configuration other than the defaults generates also loads -----------------
EXAMPLE = """
selector: 'job="rdma", cluster="a"'
runbook_base_url: "https://wiki.example.com/rdma/RUNBOOK.md"
ports:
  expected: 'device=~"mlx5_[01]", port="1"'
  expected_rates:
    - {match: 'hca_type="MT4129"', bytes_per_second: 50000000000}
    - {match: 'instance=~"gpu.*"', bytes_per_second: 25000000000}
cluster_label: cluster
topology_label: rack
node_label: kubernetes_node
maintenance: ""
thresholds:
  RDMAQueueFull: 0.95
"""
with tempfile.TemporaryDirectory() as tmp:
    with open(os.path.join(tmp, "example.yml"), "w") as fh:
        fh.write(EXAMPLE)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-monitoring.py"), "--root", ROOT,
                        "--config", os.path.join(tmp, "example.yml"), "--out", tmp],
                       capture_output=True, text=True)
    if check(r.returncode == 0, "gen-monitoring.py with another configuration", r.stderr):
        gen = sorted(os.path.join(tmp, "alerts", f) for f in os.listdir(os.path.join(tmp, "alerts"))
                     if f.endswith(".rules.yml"))
        r = subprocess.run(["promtool", "check", "rules"] + gen, capture_output=True, text=True)
        check(r.returncode == 0, "promtool check rules on it", r.stdout + r.stderr)
        with open(os.path.join(tmp, "alerts", "rdma-alerts.rules.yml")) as fh:
            text = fh.read()
        for want in ('up{job="rdma", cluster="a"}', 'rdma_port_state{device=~"mlx5_[01]", port="1"}',
                     "> 0.95", "threshold 95%", "https://wiki.example.com/rdma/RUNBOOK.md#rdmadevicedown"):
            check(want in text, f"the configuration's {want} is in the generated alerts")
        check("RDMANodeMaintenance" not in text, "no RDMANodeMaintenance without a maintenance expression")
        check('"node_instance_", ";", "kubernetes_node", "instance"' in text and "count by (cluster, rack)" in text,
              "node from node_label, fleet alerts by cluster_label and topology_label")
        with open(os.path.join(tmp, "alerts", "alertmanager.example.yml")) as fh:
            am = fh.read()
        check("group_by: [cluster, rack, node, device]" in am and "equal: [cluster, rack]" in am,
              "the Alertmanager example groups and inhibits by cluster_label and topology_label")
        with open(os.path.join(tmp, "alerts", "rdma-recording.rules.yml")) as fh:
            text = fh.read()
        check("count by (cluster, rack, kubernetes_node, job, instance) (rdma_device_info)" in text,
              "recording rules keep cluster_label, topology_label and node_label")
        check('0 * rdma_port:rate_bytes_per_second:max1d{} + 50000000000 and on (job, instance, device) '
              'rdma_device_info{hca_type="MT4129"}' in text and
              'rdma_port:rate_bytes_per_second:max1d{instance=~"gpu.*"} + 25000000000' in text,
              "expected rates in rdma_port:rate_bytes_per_second:expected, hca_type matched on the device")

# ---- no placeholder in what is shipped ---------------------------------------------------
shipped = subprocess.run(["git", "-C", ROOT, "ls-files", "alerts", "dashboards", "deploy"],
                         capture_output=True, text=True).stdout.split()
owner = [f for f in shipped if os.path.isfile(os.path.join(ROOT, f))
         and "OWNER/" in open(os.path.join(ROOT, f), errors="replace").read()]
check(not owner, "no OWNER placeholder in alerts/, dashboards/, deploy/", " ".join(owner))

# ---- RUNBOOK.md: one section per alert, the threshold table ----------------------------
with open(os.path.join(ALERTS, "RUNBOOK.md")) as fh:
    runbook = fh.read()
anchors = {anchor(h) for h in re.findall(r"^#+ (.*)$", runbook, re.M)}
thresholds = {}
for row in re.findall(r"^\|(.*)\|\s*$", runbook, re.M):
    cells = [c.strip() for c in row.split("|")]
    m = re.fullmatch(r"\[?`?(RDMA\w+)`?\]?(\(#\w+\))?", cells[0])
    if m and len(cells) >= 2:
        thresholds[m.group(1)] = cells[1].strip("` ")

# ---- every alert ----------------------------------------------------------------------
for name, a in sorted(alerts.items()):
    labels = a.get("labels", {})
    ann = a.get("annotations", {})
    check(labels.get("severity") in ("critical", "warning", "info"), f"{name}: severity label")
    for key in ("summary", "description", "runbook"):
        check(bool(ann.get(key, "").strip()), f"{name}: annotation {key}")
    desc = ann.get("description", "")
    if name in per_fleet:
        check(re.search(r"\$labels\.\w+|nodes", desc) is not None, f"{name}: description names what it is about")
    elif name in per_target:
        check("$labels.target" in desc, f"{name}: description names the target")
    else:
        check("$labels.instance" in desc, f"{name}: description names the instance")
    check(name in per_instance or name in per_fleet or
          re.search(r"\$labels\.(device|port|netdev|target|collector|object)\b", desc) is not None,
          f"{name}: description names the device, port, netdev, target, collector or object kind")
    check("$value" in desc, f"{name}: description gives the value")
    check(name.lower() in anchors, f"{name}: a section #{name.lower()} in alerts/RUNBOOK.md")
    if RUNBOOK_BASE:
        url = ann.get("runbook_url", "")
        check(url == RUNBOOK_BASE + "#" + name.lower(), f"{name}: runbook_url {url} is runbook_base_url '#' its section")
    else:
        check("runbook_url" not in ann, f"{name}: no runbook_url while runbook_base_url is empty")
    first = re.match(r"(.+?[.?])(?:\s|$)", ann.get("runbook", ""))
    check(first is not None and desc.endswith(" Runbook: " + first.group(1)),
          f"{name}: the description ends with the runbook's first step")
    check(re.search(r"label_join\(.*\"node_instance_\"", re.sub(r"\s+", " ", a["expr"])) is not None
          and a["expr"].count("label_replace(") >= 2, f"{name}: label node set from node_label or instance")
    t = thresholds.get(name)
    if check(t is not None, f"{name}: row in RUNBOOK.md's threshold table"):
        expr = re.sub(r"\s+", " ", a["expr"])
        check(t in expr, f"{name}: threshold table's `{t}` is in the expression", expr)

# ---- range windows: at least 4 scrape intervals of 15s ---------------------------------
for r_ in rules:
    expr = r_["expr"]
    for rng in re.findall(r"\[([0-9smhdwy]+)(?::[0-9smhdwy]*)?\]", expr):
        what = r_.get("alert") or r_.get("record")
        if duration_seconds(rng) < 60:
            check(False, f"{what}: range [{rng}] is at least 1m (4 scrapes at 15s)")
check(True, "every range window is at least 1m")

# ---- label matching: a one-to-one arithmetic or comparison match on (...) keeps
# only the labels listed (the topology, cluster and ServiceMonitor node labels
# are lost, and with them grouping and inhibition): group_left () keeps the
# left side's (issue 32: tests/fleet found four rules that lost them).
ONE_TO_ONE = re.compile(r"(\S+)\s+on\s*\(([^)]*)\)\s*(\S*)")
lost = []
for r_ in rules:
    for m in ONE_TO_ONE.finditer(r_["expr"]):
        if m.group(1) not in ("and", "or", "unless") and not m.group(3).startswith("group_"):
            lost.append(f"{r_.get('alert') or r_.get('record')}: {m.group(0)}")
check(not lost, "no one-to-one arithmetic or comparison match on (...): group_left () keeps the labels",
      "; ".join(lost))

# ---- the unit tests: coverage ------------------------------------------------------------
with open(TESTS) as fh:
    tests = yaml.safe_load(fh)
fires, quiet, tested_exprs = set(), set(), []
for group in tests["tests"]:
    for t in group.get("alert_rule_test", []):
        (fires if t.get("exp_alerts") else quiet).add(t["alertname"])
    for t in group.get("promql_expr_test", []):
        tested_exprs.append(t["expr"])
for name in sorted(alerts):
    check(name in fires, f"{name}: a test case where it fires")
    check(name in quiet, f"{name}: a test case where it does not fire")
for rec in records:
    check(any(re.search(re.escape(rec) + r"(?![\w:])", e) for e in tested_exprs),
          f"recording rule {rec}: a promql_expr_test")
unknown = (fires | quiet) - set(alerts)
check(not unknown, "tests name only existing alerts", " ".join(sorted(unknown)))

# ---- the file is current with the rules, and passes plain promtool on its own ----------
r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "sync-rules-test.py"), "--check", ROOT],
                   capture_output=True, text=True)
check(r.returncode == 0, "rules-test.yml's static annotations are current with alerts/",
      "\n" + r.stdout + r.stderr)
r = subprocess.run(["promtool", "test", "rules", TESTS], capture_output=True, text=True)
n_cases = sum(len(g.get("alert_rule_test", [])) + len(g.get("promql_expr_test", []))
              for g in tests["tests"])
check(r.returncode == 0, f"promtool test rules: {n_cases} cases in {len(tests['tests'])} groups",
      "\n" + r.stdout + r.stderr)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
