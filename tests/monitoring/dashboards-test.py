#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# The Grafana dashboards in dashboards/, without Grafana: each file loads; stable UIDs;
# schemaVersion; the datasource, job, instance, device and port variables; every
# panel and query on ${datasource} (no datasource UID anywhere); unique panel
# ids on the grid; every non-row panel has queries with an expression; the node
# dashboard has the required views (bits per second, PFC per priority, a probe
# heatmap, histogram_quantile p50/p95/p99), the pingmesh a prober x target
# matrix of latency and loss.
#
#   dashboards-test.py [SOURCE_DIR]
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monlib  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
DASH = os.path.join(ROOT, "dashboards")
EXPECTED = {"rdma-fleet.json": "rdma-fleet", "rdma-node.json": "rdma-node",
            "rdma-pingmesh.json": "rdma-pingmesh"}
t = monlib.Counter()

# That the JSON is what scripts/gen-monitoring.py writes is ctest monitoring_generated.


def walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}")
        yield path, obj
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]")


n_panels = n_queries = 0
dashes = monlib.dashboards(ROOT)
t(set(dashes) == set(EXPECTED), "dashboards/ holds exactly " + ", ".join(EXPECTED), " ".join(dashes))
uids = set()
for name, d in sorted(dashes.items()):
    t(d.get("uid") == EXPECTED.get(name), f"{name}: stable uid {EXPECTED.get(name)}", d.get("uid"))
    uids.add(d.get("uid"))
    t(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 39,
      f"{name}: schemaVersion {d.get('schemaVersion')} (current, >= 39)")
    t(bool(d.get("title")) and "rdma" in d.get("tags", []), f"{name}: title and tag rdma")
    t(d.get("id") is None, f"{name}: no database id (importable anywhere)")
    # variables
    vs = {v["name"]: v for v in d.get("templating", {}).get("list", [])}
    for need in ("datasource", "job", "instance", "device", "port"):
        t(need in vs, f"{name}: template variable ${need}")
    ds = vs.get("datasource", {})
    t(ds.get("type") == "datasource" and ds.get("query") == "prometheus",
      f"{name}: $datasource picks a Prometheus data source")
    for vn, v in vs.items():
        if v.get("type") == "query":
            t(v.get("datasource") == {"type": "prometheus", "uid": "${datasource}"},
              f"{name}: variable ${vn} queries ${{datasource}}")
            t(monlib.variable_selector(v["query"]["query"]) is not None,
              f"{name}: variable ${vn} is label_values(selector, label)")
    # no hard-coded datasource anywhere
    bad = []
    for path, obj in walk(d):
        if isinstance(obj, dict) and "datasource" in obj:
            dsv = obj["datasource"]
            uid = dsv.get("uid") if isinstance(dsv, dict) else dsv
            if uid not in ("${datasource}", None):
                bad.append(f"{path}: {uid}")
    t(not bad, f"{name}: every datasource is ${{datasource}}", "; ".join(bad[:5]))
    # panels
    ids = set()
    cells = set()
    for p in monlib.panels(d):
        t(p.get("id") not in ids, f"{name}: panel id {p.get('id')} is unique")
        ids.add(p.get("id"))
        gp = p.get("gridPos", {})
        t(all(k in gp for k in ("x", "y", "w", "h")) and gp["x"] + gp["w"] <= 24,
          f"{name}: panel {p.get('id')} on the 24-column grid")
        for x in range(gp.get("x", 0), gp.get("x", 0) + gp.get("w", 0)):
            for y in range(gp.get("y", 0), gp.get("y", 0) + gp.get("h", 0)):
                if (x, y) in cells:
                    t(False, f"{name}: panel {p.get('id')} overlaps another at {x},{y}")
                    break
                cells.add((x, y))
        if p.get("type") == "row":
            continue
        n_panels += 1
        title = f"{name}: panel {p['id']} \"{p.get('title')}\""
        t(p.get("datasource") == {"type": "prometheus", "uid": "${datasource}"}, f"{title}: datasource")
        t(bool(p.get("description")), f"{title}: has a description")
        targets = p.get("targets", [])
        t(len(targets) > 0, f"{title}: has queries")
        refs = [q.get("refId") for q in targets]
        t(len(refs) == len(set(refs)), f"{title}: unique refIds")
        for q in targets:
            n_queries += 1
            t(bool(q.get("expr", "").strip()), f"{title} {q.get('refId')}: expression")
            t(q.get("datasource") == {"type": "prometheus", "uid": "${datasource}"},
              f"{title} {q.get('refId')}: datasource")
            if "$instance" not in q.get("expr", "") and "instance=~" not in q.get("expr", ""):
                t(False, f"{title} {q.get('refId')}: filters by $instance", q.get("expr"))
t(len(uids) == len(dashes), "dashboard uids are distinct")


def find(dash, pred):
    return [p for p in monlib.panels(dashes[dash]) if p.get("type") != "row" and pred(p)]


def exprs(p):
    return " ".join(q.get("expr", "") for q in p.get("targets", []))


# ---- the required views -------------------------------------------------------------------
t(find("rdma-node.json", lambda p: p["fieldConfig"]["defaults"].get("unit") == "bps"
       and "rdma_port_data_received_bytes_total" in exprs(p)),
  "node: throughput in bits per second")
# RTT distributions from the per-port histograms, which the exporter always
# exports (per-target buckets are opt-in: --collector.probe.target-histograms).
t(find("rdma-node.json", lambda p: p["type"] == "heatmap" and "rdma_probe_port_rtt_seconds_bucket" in exprs(p)
       and all(q.get("format") == "heatmap" for q in p["targets"])),
  "node: probe latency heatmap over rdma_probe_port_rtt_seconds_bucket")
t(find("rdma-node.json", lambda p: all(f"histogram_quantile({q}" in exprs(p) for q in ("0.5", "0.95", "0.99"))
       and "rdma_probe_port_rtt_seconds_bucket" in exprs(p)),
  "node: p50/p95/p99 with histogram_quantile over rdma_probe_port_rtt_seconds_bucket")
for fam in ("rdma_netdev_priority_pause_frames_total", "rdma_netdev_priority_pause_duration_seconds_total"):
    t(find("rdma-node.json", lambda p: fam in exprs(p) and "priority" in json.dumps(p["targets"])),
      f"node: PFC per priority ({fam})")
for fam in ("rdma_qps", "rdma_resources", "rdma_port:errors:rate5m", "rdma_port:roce_events:rate5m"):
    t(find("rdma-node.json", lambda p: fam in exprs(p)), f"node: a panel on {fam}")
# the mean RTT per pair from the raw per-target sum and count (no recording rule
# reads per-pair histograms: issue 31), the loss from its recording rule
for rr, col in (("rate(rdma_probe_round_trip_seconds_total", "target"), ("rdma_probe:loss:ratio_rate5m", "target")):
    t(find("rdma-pingmesh.json", lambda p: rr in exprs(p) and p["type"] == "table" and any(
        tr["id"] == "groupingToMatrix" and tr["options"]["rowField"] == "instance"
        and tr["options"]["columnField"] == col for tr in p.get("transformations", []))),
      f"pingmesh: instance x target matrix of {rr}")
t(find("rdma-fleet.json", lambda p: "rdma_port_state" in exprs(p)), "fleet: ports by state")
t(find("rdma-fleet.json", lambda p: "topk" in exprs(p) and "rdma_netdev:priority_pause_ratio" in exprs(p)),
  "fleet: top pause rates")
t(find("rdma-fleet.json", lambda p: "topk" in exprs(p) and "rdma_port:errors_all" in exprs(p)),
  "fleet: top error rates")
t(find("rdma-fleet.json", lambda p: "rdma_probe:" in exprs(p)), "fleet: probe health")

print(f"# {len(dashes)} dashboards, {n_panels} panels, {n_queries} queries")
sys.exit(t.summary())
