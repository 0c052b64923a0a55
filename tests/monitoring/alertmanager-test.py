#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# alerts/alertmanager.example.yml, with Debian's prometheus-alertmanager:
#   - amtool check-config accepts it;
#   - amtool config routes test sends each severity of an RDMA alert to its
#     receiver (critical pages, warning tickets, info nowhere) and other alerts to
#     the default;
#   - a real Alertmanager on 127.0.0.1 with the file, fed alerts through its API:
#     the inhibitions hold (RDMADeviceDown mutes the other alerts of its port and
#     only of its port, RDMAExporterDown those of its instance, a missing device
#     its missing ports, RDMAExporterSnapshotStale all of its instance's but
#     RDMADeviceUnresponsive), and the alerts group by instance and device; probe
#     alerts page once per problem (a target's alerts from many probers group
#     per target and are muted under RDMAProbePeerUnreachable, a prober's under
#     RDMAProbeLocalPortSuspect).
# Exit 77 (skip) when amtool or prometheus-alertmanager is not installed, unless
# CI is set.
#
#   alertmanager-test.py [SOURCE_DIR]
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monlib  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIG = os.path.join(ROOT, "alerts", "alertmanager.example.yml")
t = monlib.Counter()

AMTOOL = shutil.which("amtool")
AM = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
if not AMTOOL or not AM:
    if os.environ.get("CI"):
        sys.exit("amtool or prometheus-alertmanager not found (scripts/install-deps.sh --test installs them)")
    print("# SKIP: amtool or prometheus-alertmanager not installed")
    sys.exit(77)

# ---- amtool ---------------------------------------------------------------------------------
r = subprocess.run([AMTOOL, "check-config", CONFIG], capture_output=True, text=True)
t(r.returncode == 0, "amtool check-config alerts/alertmanager.example.yml", r.stdout + r.stderr)

ROUTES = [
    ("rdma-pager", "alertname=RDMADeviceDown severity=critical job=rdma instance=n1 device=mlx5_0 port=1"),
    ("rdma-pager", "alertname=RDMADeviceMissing severity=critical job=rdma instance=n1 object=device"),
    ("rdma-pager", "alertname=RDMADeviceUnresponsive severity=critical job=rdma instance=n1 device=mlx5_1"),
    ("rdma-tickets", "alertname=RDMAPortSymbolErrors severity=warning job=rdma instance=n1 device=mlx5_0 port=1"),
    ("blackhole", "alertname=RDMAPortDownUnused severity=info job=rdma instance=n1 device=mlx5_0 port=2"),
    ("default", "alertname=NodeDown severity=critical job=node instance=n1"),
    ("rdma-pager", "alertname=RDMAProbePeerUnreachable severity=critical job=rdma target=n5:4791 node=n5"),
    ("rdma-pager", "alertname=RDMALeafSwitchDown severity=critical switch=leaf-1"),
    ("rdma-tickets", "alertname=RDMAExporterDown severity=warning job=rdma instance=n1 node=n1"),
    ("rdma-tickets", "alertname=RDMAQPErrorsWidespread severity=warning"),
    ("rdma-tickets", "alertname=RDMARoCERetriesExceededWidespread severity=warning"),
    ("blackhole", "alertname=RDMANodeMaintenance severity=info node=n1"),
    ("rdma-pager", "alertname=RDMAProbeLocalPortSuspect severity=critical job=rdma instance=n6:9879 node=n6"),
    ("rdma-tickets", "alertname=RDMAProbeLoss severity=warning job=rdma instance=n1:9879 device=mlx5_0 port=1 "
     "target=n5:4791"),
]
for receiver, labels in ROUTES:
    r = subprocess.run([AMTOOL, "config", "routes", "test", "--config.file=" + CONFIG,
                        "--verify.receivers=" + receiver] + labels.split(), capture_output=True, text=True)
    t(r.returncode == 0, f"{labels.split()[0]} {labels.split()[1]} goes to {receiver}", r.stdout + r.stderr)


# ---- a real Alertmanager: inhibitions and grouping ------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v2/{path}",
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        data = resp.read().decode()
        return json.loads(data) if data else None


def alert(**labels):
    # every RDMA alert carries node (the rules set it: node_label, else the host of instance)
    if "instance" in labels and "node" not in labels:
        labels["node"] = labels["instance"].split(":")[0]
    now = datetime.datetime.now(datetime.timezone.utc)
    return {"labels": dict(labels), "annotations": {},
            "startsAt": now.isoformat(), "endsAt": (now + datetime.timedelta(hours=1)).isoformat()}


tmp = tempfile.mkdtemp(prefix="rdma-alertmanager-")
port = free_port()
log = open(os.path.join(tmp, "alertmanager.log"), "w")
am = subprocess.Popen([AM, "--config.file=" + CONFIG, "--storage.path=" + tmp,
                       f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address="],
                      stdout=log, stderr=subprocess.STDOUT)
try:
    ready = False
    for _ in range(100):
        try:
            api("status")
            ready = True
            break
        except OSError:
            time.sleep(0.1)
    if t(ready, "prometheus-alertmanager starts with the example", open(os.path.join(tmp, "alertmanager.log")).read()):
        P = dict(job="rdma", instance="n1", device="mlx5_0", port="1")
        sent = [
            alert(alertname="RDMADeviceDown", severity="critical", **P),
            alert(alertname="RDMAPortFlapping", severity="warning", **P),
            alert(alertname="RDMAHighErrorRate", severity="critical", **P),
            # another port of the same device, and a device-wide alert: not muted
            alert(alertname="RDMAPortSymbolErrors", severity="warning", **dict(P, port="2")),
            alert(alertname="RDMAQueueFull", severity="critical", job="rdma", instance="n1",
                  device="mlx5_0", resource="qp"),
            # n2's exporter is down: its other alerts are muted, n1's are not
            alert(alertname="RDMAExporterDown", severity="warning", job="rdma", instance="n2"),
            alert(alertname="RDMANetdevPhysicalErrors", severity="warning", job="rdma", instance="n2",
                  netdev="eth0", counter="crc_errors"),
            # n4's poller is stuck (a stale snapshot) and one of its devices hangs: the
            # snapshot mutes n4's other alerts, never the hung device's page
            alert(alertname="RDMAExporterSnapshotStale", severity="warning", job="rdma", instance="n4"),
            alert(alertname="RDMADeviceUnresponsive", severity="critical", job="rdma", instance="n4",
                  device="mlx5_1"),
            alert(alertname="RDMAPortSymbolErrors", severity="warning", job="rdma", instance="n4",
                  device="mlx5_0", port="1"),
            # n3 lost a device and with it its ports
            alert(alertname="RDMADeviceMissing", severity="critical", job="rdma", instance="n3", object="device"),
            alert(alertname="RDMADeviceMissing", severity="critical", job="rdma", instance="n3", object="port"),
            # n5 rebooted: one alert for the target, the four probers' loss muted
            alert(alertname="RDMAProbePeerUnreachable", severity="critical", job="rdma", target="n5:4791",
                  node="n5"),
        ] + [alert(alertname="RDMAProbeLoss", severity="warning", job="rdma", instance=f"n{i}:9879",
                   device="mlx5_0", port="1", target="n5:4791") for i in (1, 2, 3, 4)] + [
            # loss from n1 to another target: not muted
            alert(alertname="RDMAProbeLoss", severity="warning", job="rdma", instance="n1:9879",
                  device="mlx5_0", port="1", target="n2:4791"),
            # n6's port is bad: its own loss and the others failing to reach it muted
            alert(alertname="RDMAProbeLocalPortSuspect", severity="critical", job="rdma", instance="n6:9879",
                  node="n6"),
            alert(alertname="RDMAProbeLoss", severity="warning", job="rdma", instance="n6:9879",
                  device="mlx5_0", port="1", target="n2:4791"),
            alert(alertname="RDMAProbePeerUnreachable", severity="critical", job="rdma", target="n6:4791",
                  node="n6"),
            # leaf-9 fails: its switch alert mutes the ports behind it, not a port elsewhere
            alert(alertname="RDMALeafSwitchDown", severity="critical", switch="leaf-9"),
            alert(alertname="RDMADeviceDown", severity="critical", job="rdma", instance="n7", switch="leaf-9",
                  device="mlx5_0", port="1"),
            alert(alertname="RDMADeviceDown", severity="critical", job="rdma", instance="n10", switch="leaf-8",
                  device="mlx5_0", port="1"),
            # n8 is cordoned: its alerts are muted
            alert(alertname="RDMANodeMaintenance", severity="info", job="kube-state-metrics",
                  instance="ksm:8080", node="n8"),
            alert(alertname="RDMAPortSymbolErrors", severity="warning", job="rdma", instance="n8",
                  device="mlx5_0", port="1"),
            # a PFC storm: n11 sends the pauses and pages; n12 behind the same switch,
            # paused by it, does not (its tx pauses would)
            alert(alertname="RDMAPFCPauseStorm", severity="critical", job="rdma", instance="n11",
                  switch="leaf-5", netdev="eth0", level="error"),
            alert(alertname="RDMAPFCPauseDurationHigh", severity="warning", job="rdma", instance="n12",
                  switch="leaf-5", netdev="eth0", direction="rx", priority="3"),
            # a crashed job: the fleet alert mutes the per-node ones
            alert(alertname="RDMAQPErrorsWidespread", severity="warning"),
            alert(alertname="RDMARoCERetriesExceededWidespread", severity="warning"),
            alert(alertname="RDMAQPsInErrorState", severity="warning", job="rdma", instance="n9",
                  device="mlx5_0", port="1", type="RC"),
        ]
        api("alerts", sent)
        muted = {("RDMAPortFlapping", "n1", "1", "", ""), ("RDMAHighErrorRate", "n1", "1", "", ""),
                 ("RDMANetdevPhysicalErrors", "n2", "", "", ""), ("RDMADeviceMissing", "n3", "", "port", ""),
                 ("RDMAPortSymbolErrors", "n4", "1", "", ""),
                 ("RDMAProbeLoss", "n6:9879", "1", "", "n2:4791"),
                 ("RDMAProbePeerUnreachable", "", "", "", "n6:4791"),
                 ("RDMADeviceDown", "n7", "1", "", ""), ("RDMAPortSymbolErrors", "n8", "1", "", ""),
                 ("RDMAQPsInErrorState", "n9", "1", "", ""), ("RDMAPFCPauseDurationHigh", "n12", "", "", ""),
                 ("RDMARoCERetriesExceededWidespread", "", "", "", "")}
        muted |= {("RDMAProbeLoss", f"n{i}:9879", "1", "", "n5:4791") for i in (1, 2, 3, 4)}
        # The inhibitor learns of source alerts asynchronously after the POST:
        # read until every alert is held and as many are inhibited as expected
        # (or 5 s have passed), then judge that reading.
        for _ in range(50):
            got = {}
            for a in api("alerts"):
                lb = a["labels"]
                got[(lb["alertname"], lb.get("instance", ""), lb.get("port", ""), lb.get("object", ""),
                     lb.get("target", ""))] = a["status"]
            if (len(got) == len(sent)
                    and sum(bool(st.get("inhibitedBy")) for st in got.values()) >= len(muted)):
                break
            time.sleep(0.1)
        t(len(got) == len(sent), f"Alertmanager holds the {len(sent)} alerts sent", str(sorted(got)))
        for key, status in sorted(got.items()):
            inhibited = bool(status.get("inhibitedBy"))
            t(inhibited == (key in muted),
              f"{key[0]} on {key[1]}{' port ' + key[2] if key[2] else ''}{' ' + key[3] if key[3] else ''}"
              f"{' to ' + key[4] if key[4] else ''} is "
              + ("inhibited" if key in muted else "not inhibited"), json.dumps(status))
        groups = api("alerts/groups")
        n1 = [g for g in groups if g["labels"].get("instance") == "n1" and g["receiver"]["name"] == "rdma-pager"]
        n1 = [g for g in groups if g["labels"].get("node") == "n1" and g["receiver"]["name"] == "rdma-pager"]
        t(len(n1) == 1 and n1[0]["labels"] == {"node": "n1", "device": "mlx5_0"},
          "n1's pages for mlx5_0 are one group by (cluster, topology,) node and device",
          json.dumps([g["labels"] for g in groups]))
        # a crashed job: its two fleet alerts are one notification (the retries
        # fire first, minutes before the QPs' for: ends)
        ws = [g for g in groups if any(a["labels"]["alertname"].endswith("Widespread") for a in g["alerts"])]
        t(len(ws) == 1 and len(ws[0]["alerts"]) == 2 and ws[0]["receiver"]["name"] == "rdma-tickets",
          "RDMAQPErrorsWidespread and RDMARoCERetriesExceededWidespread are one group",
          json.dumps([(g["labels"], g["receiver"]["name"], len(g["alerts"])) for g in ws]))
        n5 = [g for g in groups if g["labels"].get("target") == "n5:4791"]
        t(len(n5) == 2 and sorted(g["receiver"]["name"] for g in n5) == ["rdma-pager", "rdma-tickets"]
          and all(g["labels"] == {"job": "rdma", "target": "n5:4791"} for g in n5),
          "what the probers say about n5 is one group per receiver, by job and target (the page and "
          "the muted tickets)", json.dumps([(g["labels"], g["receiver"]["name"]) for g in groups]))
finally:
    am.terminate()
    try:
        am.wait(timeout=10)
    except subprocess.TimeoutExpired:
        am.kill()
        am.wait()
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(t.summary())
