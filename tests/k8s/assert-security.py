#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The security settings of deploy/kubernetes/, asserted on what kustomize renders.

    assert-security.py OVERLAY < rendered.yaml

OVERLAY is base or the name of a directory under overlays/. Every overlay keeps
the base's settings (hostNetwork, /sys read-only, every taint tolerated,
system-node-critical, /healthz probes, requests and limits, read-only root,
every capability dropped, RuntimeDefault seccomp, no service account token)
and adds exactly the privileges PRIVILEGES gives it: nothing else may appear.
Prints one TAP-like line per check; exit 1 on a failure.
"""
import sys

import yaml

# What each overlay may add to the base: docs/kubernetes.md explains each.
NONE = {"hostPID": False, "privileged": False, "root": False, "caps": [], "host_paths": ["/sys"], "devices": []}
PRIVILEGES = {
    "base": NONE,
    "workloads": dict(NONE, hostPID=True),
    "prometheus-operator": NONE,
    "lldp": dict(NONE, root=True, caps=["NET_RAW"]),
    "probes": dict(NONE, root=True, caps=["IPC_LOCK"], devices=["rdma/hca_shared_devices_a"]),
    "probes-hostpath": dict(
        NONE, root=True, privileged=True, caps=["IPC_LOCK"], host_paths=["/dev/infiniband", "/sys"]
    ),
}

failed = 0


def check(desc, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + desc)
    if not cond:
        failed += 1


def one(objs, kind):
    found = [o for o in objs if o["kind"] == kind]
    check("exactly one %s (%d)" % (kind, len(found)), len(found) == 1)
    return found[0] if found else {}


def privileges(pod, c):
    sc = c.get("securityContext", {})
    psc = pod.get("securityContext", {})
    uid = sc.get("runAsUser", psc.get("runAsUser"))
    res = c.get("resources", {})
    return {
        "hostPID": bool(pod.get("hostPID")),
        "privileged": bool(sc.get("privileged")),
        "root": uid in (0, None),
        "caps": sorted(sc.get("capabilities", {}).get("add", [])),
        "host_paths": sorted(v["hostPath"]["path"] for v in pod.get("volumes", []) if "hostPath" in v),
        "devices": sorted(k for k in res.get("limits", {}) if "/" in k),
    }


def daemonset(ds, want):
    pod = ds["spec"]["template"]["spec"]
    cs = pod["containers"]
    check("one container, no init container", len(cs) == 1 and not pod.get("initContainers"))
    c = cs[0]
    sc = c.get("securityContext", {})
    psc = pod.get("securityContext", {})
    got = privileges(pod, c)
    check("the privileges are exactly the overlay's: %s" % got, got == want)
    check("hostNetwork", pod.get("hostNetwork") is True)
    check("dnsPolicy ClusterFirstWithHostNet", pod.get("dnsPolicy") == "ClusterFirstWithHostNet")
    check("every taint tolerated", {"operator": "Exists"} in pod.get("tolerations", []))
    check("priorityClassName system-node-critical", pod.get("priorityClassName") == "system-node-critical")
    check("no service account token", pod.get("automountServiceAccountToken") is False)
    seccomp = sc.get("seccompProfile", psc.get("seccompProfile", {})).get("type")
    check("seccomp RuntimeDefault", seccomp == "RuntimeDefault")
    check("read-only root filesystem", sc.get("readOnlyRootFilesystem") is True)
    check("every capability dropped", sc.get("capabilities", {}).get("drop") == ["ALL"])
    if not want["privileged"]:
        check("no privilege escalation", sc.get("allowPrivilegeEscalation") is False)
    if not want["root"]:
        check("non-root", sc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True)
        check("runAsUser 65534", sc.get("runAsUser", psc.get("runAsUser")) == 65534)
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = c.get("volumeMounts", [])
    sys_mounts = [m for m in mounts if vols.get(m["name"], {}).get("hostPath", {}).get("path") == "/sys"]
    check("/sys mounted read-only at /host/sys", [(m["mountPath"], m.get("readOnly")) for m in sys_mounts] == [("/host/sys", True)])
    check("--path.sysfs=/host/sys", "--path.sysfs=/host/sys" in c.get("args", []))
    for kind in ("livenessProbe", "readinessProbe"):
        p = c.get(kind, {}).get("httpGet", {})
        check("%s on /healthz" % kind, p.get("path") == "/healthz" and p.get("port") == "metrics")
    res = c.get("resources", {})
    for k in ("requests", "limits"):
        check("resources.%s cpu and memory" % k, {"cpu", "memory"} <= set(res.get(k, {})))
    probe_args = [a for a in c.get("args", []) if a.startswith("--collector.probe")]
    if want["devices"] or "/dev/infiniband" in want["host_paths"]:
        check("the probe collector on, peers from the headless Service",
              "--collector.probe" in probe_args and "--collector.probe.targets-dns=rdma-exporter" in probe_args)
    else:
        check("the probe collector off without device access", "--no-collector.probe" in c.get("args", []))
    return ds["spec"]["selector"]["matchLabels"], ds["spec"]["template"]["metadata"]["labels"]


def main():
    overlay = sys.argv[1]
    objs = [o for o in yaml.safe_load_all(sys.stdin) if o]
    for o in objs:
        check("%s %s has no namespace (namespace-agnostic)" % (o["kind"], o["metadata"]["name"]),
              "namespace" not in o["metadata"])
    sel, pod_labels = daemonset(one(objs, "DaemonSet"), PRIVILEGES[overlay])
    check("the DaemonSet's selector matches its pods", sel.items() <= pod_labels.items())
    svc = one(objs, "Service")
    check("the Service is headless", svc.get("spec", {}).get("clusterIP") == "None")
    check("the Service selects the DaemonSet's pods", svc.get("spec", {}).get("selector", {}).items() <= pod_labels.items())
    check("the Service has the metrics port", "metrics" in [p["name"] for p in svc.get("spec", {}).get("ports", [])])
    sa = one(objs, "ServiceAccount")
    check("the ServiceAccount mounts no token", sa.get("automountServiceAccountToken") is False)
    if overlay == "prometheus-operator":
        sm = one(objs, "ServiceMonitor")
        check("the ServiceMonitor selects the Service",
              sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items())
        check("it scrapes the metrics port", [e["port"] for e in sm["spec"]["endpoints"]] == ["metrics"])
        rule = one(objs, "PrometheusRule")
        alerts = [r for g in rule.get("spec", {}).get("groups", []) for r in g["rules"] if "alert" in r]
        check("the PrometheusRule has the alerts (%d)" % len(alerts), len(alerts) > 0)
        cms = [o for o in objs if o["kind"] == "ConfigMap"]
        check("%d dashboard ConfigMaps with grafana_dashboard: \"1\"" % len(cms),
              cms and all(o["metadata"].get("labels", {}).get("grafana_dashboard") == "1" for o in cms))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
