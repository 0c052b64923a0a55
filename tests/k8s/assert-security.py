#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""deploy/kubernetes/ rendered in every combination, and its settings asserted.

    assert-security.py SOURCE_DIR TMP_DIR

Renders, with `kubectl kustomize`, the base alone and then, for every subset
of the components, the kustomization a user writes (docs/kubernetes.md): the
base under `resources`, the subset under `components` in the documented order,
a namespace, the image in `images:`, the auth Secret from a secretGenerator.
Every rendering keeps the base's settings (hostNetwork, /sys read-only, the
node selector, the GPU taint tolerated, /healthz probes, requests without a
CPU limit, read-only root, every capability dropped, RuntimeDefault seccomp, no
service account token) and adds exactly the privileges PRIVILEGES gives its
components: nothing else may appear. The scheduling fields are read as a
node without RDMA would meet them: no device-plugin resource outside the
probes component, no hostPath that fails when missing, a node selector. The
combinations kustomize must refuse (probes with probes-hostpath, auth before
prometheus-operator) are checked to fail. Last, the kustomization
docs/kubernetes.md shows, as written there, is rendered and asserted the same way.

Writes TMP_DIR/rendered.json ({combination: [objects]}) for validate.mjs and
prints one TAP-like line per check; exit 1 on a failure.
"""
import concurrent.futures
import itertools
import json
import os
import re
import subprocess
import sys

import yaml

# libyaml's loader where python3-yaml has it: the dashboards make renderings of
# thousands of lines, 128 times.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# The order docs/kubernetes.md lists them in: prometheus-operator before auth.
ORDER = ["namespace", "workloads", "probes", "probes-hostpath", "lldp", "prometheus-operator", "auth"]
NAMESPACE = "rdma-exporter-test"
IMAGE = "registry.example.com/rdma-exporter"
TAG = "0.1.0-12-gabc1234"

# What each component may add to the base: docs/kubernetes.md explains each.
NONE = {"hostPID": False, "privileged": False, "root": False, "caps": [], "host_paths": ["/sys"], "devices": []}
PRIVILEGES = {
    "workloads": dict(hostPID=True),
    "probes": dict(root=True, caps=["IPC_LOCK"], devices=["rdma/hca_shared_devices_a"]),
    "probes-hostpath": dict(root=True, privileged=True, caps=["IPC_LOCK"], host_paths=["/dev/infiniband"]),
    "lldp": dict(root=True, caps=["NET_RAW"]),
}
# Resources a node offers without any device plugin.
NATIVE_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
# hostPath types that never hold a pod in ContainerCreating on a node without
# RDMA: /sys exists on every Linux node; the rest must be made when missing.
SAFE_HOSTPATHS = {"/sys": {"Directory"}}
SAFE_TYPES = {"DirectoryOrCreate"}
NODE_SELECTOR = {"feature.node.kubernetes.io/pci-15b3.present": "true"}
TOLERATIONS = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]

failed = 0
passed = 0


def check(desc, cond):
    global failed, passed
    print(("ok - " if cond else "not ok - ") + desc)
    if cond:
        passed += 1
    else:
        failed += 1


def wanted(combo):
    want = dict(NONE)
    for c in combo:
        for k, v in PRIVILEGES.get(c, {}).items():
            want[k] = sorted(set(want[k]) | set(v)) if isinstance(v, list) else v
    return want


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


def scheduling(pod, c, combo):
    """What a node without RDMA meets: it must get a running pod, unless the
    combination has the probes component, which is for labelled nodes only."""
    res = c.get("resources", {})
    extended = sorted(k for part in ("requests", "limits") for k in res.get(part, {}) if k not in NATIVE_RESOURCES)
    if "probes" in combo:
        check("the device-plugin resource only with the node selector", extended and pod.get("nodeSelector"))
    else:
        check("no resource a node without a device plugin lacks: %s" % extended, extended == [])
    for v in pod.get("volumes", []):
        hp = v.get("hostPath")
        if hp:
            t = hp.get("type", "")
            check("hostPath %s of type %s does not fail when absent" % (hp["path"], t or '""'),
                  t in SAFE_HOSTPATHS.get(hp["path"], SAFE_TYPES))
    check("nodeSelector is the NFD label, and nothing else selects nodes",
          pod.get("nodeSelector") == NODE_SELECTOR and "affinity" not in pod)
    check("tolerations: the GPU taint only, no bare `operator: Exists`", pod.get("tolerations") == TOLERATIONS)
    check("no init container that could wait on the node", not pod.get("initContainers"))


def daemonset(ds, combo):
    pod = ds["spec"]["template"]["spec"]
    cs = pod["containers"]
    check("one container", len(cs) == 1)
    c = cs[0]
    sc = c.get("securityContext", {})
    psc = pod.get("securityContext", {})
    want = wanted(combo)
    got = privileges(pod, c)
    check("the privileges are exactly the components': %s" % got, got == want)
    check("hostNetwork", pod.get("hostNetwork") is True)
    check("dnsPolicy ClusterFirstWithHostNet", pod.get("dnsPolicy") == "ClusterFirstWithHostNet")
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
    check("/sys mounted read-only at /host/sys",
          [(m["mountPath"], m.get("readOnly")) for m in sys_mounts] == [("/host/sys", True)])
    args = c.get("args", [])
    check("--path.sysfs=/host/sys", "--path.sysfs=/host/sys" in args)
    check("every argument once", len(args) == len(set(args)))
    scheme = "HTTPS" if "auth" in combo else "HTTP"
    for kind in ("livenessProbe", "readinessProbe"):
        p = c.get(kind, {}).get("httpGet", {})
        check("%s on /healthz over %s" % (kind, scheme),
              p.get("path") == "/healthz" and p.get("port") == "metrics" and p.get("scheme") == scheme)
    web = [a for a in args if a.startswith("--web.config.file=")]
    if "auth" in combo:
        check("the web config from the Secret", web == ["--web.config.file=/etc/rdma-exporter/web/web.yml"])
        secret = vols.get("web-config", {}).get("secret", {}).get("secretName", "")
        check("the web-config volume is the generated Secret (%s)" % secret,
              re.fullmatch(r"rdma-exporter-web-[a-z0-9]{10}", secret) is not None)
        check("mounted read-only at /etc/rdma-exporter/web",
              {"name": "web-config", "mountPath": "/etc/rdma-exporter/web", "readOnly": True} in mounts)
    else:
        check("no web config without auth", web == [] and "web-config" not in vols)
    res = c.get("resources", {})
    check("requests cpu and memory", {"cpu", "memory"} <= set(res.get("requests", {})))
    check("a memory limit and no CPU limit",
          "memory" in res.get("limits", {}) and "cpu" not in res.get("limits", {}))
    probe_args = [a for a in args if a.startswith("--collector.probe")]
    if want["devices"] or "/dev/infiniband" in want["host_paths"]:
        check("the probe collector on, peers from the headless Service",
              probe_args == ["--collector.probe", "--collector.probe.targets-dns=rdma-exporter"]
              and "--no-collector.probe" not in args)
        check("the events collector on with device access",
              "--collector.events" in args and "--no-collector.events" not in args)
    else:
        check("the probe collector off without device access", "--no-collector.probe" in args and not probe_args)
        check("the events collector off without device access",
              "--no-collector.events" in args and "--collector.events" not in args)
    scheduling(pod, c, combo)
    return c, ds["spec"]["selector"]["matchLabels"], ds["spec"]["template"]["metadata"]["labels"]


def monitors(objs, svc, combo):
    sm = one(objs, "ServiceMonitor")
    check("the ServiceMonitor selects the Service",
          sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items())
    ep = sm["spec"]["endpoints"]
    check("it scrapes the metrics port", [e["port"] for e in ep] == ["metrics"])
    if "auth" in combo:
        check("https, the certificate verified for the name rdma-exporter",
              ep[0].get("scheme") == "https" and ep[0].get("tlsConfig", {}).get("serverName") == "rdma-exporter"
              and ep[0]["tlsConfig"].get("ca", {}).get("secret") == {"name": "rdma-exporter-scrape", "key": "ca.crt"})
        ba = ep[0].get("basicAuth", {})
        check("basic auth from the Secret rdma-exporter-scrape",
              ba.get("username") == {"name": "rdma-exporter-scrape", "key": "username"}
              and ba.get("password") == {"name": "rdma-exporter-scrape", "key": "password"})
    else:
        check("plain http without auth", ep[0].get("scheme", "http") == "http" and "basicAuth" not in ep[0])
    rule = one(objs, "PrometheusRule")
    alerts = [r for g in rule.get("spec", {}).get("groups", []) for r in g["rules"] if "alert" in r]
    check("the PrometheusRule has the alerts (%d)" % len(alerts), len(alerts) > 0)
    cms = [o for o in objs if o["kind"] == "ConfigMap"]
    check("%d dashboard ConfigMaps with grafana_dashboard: \"1\"" % len(cms),
          cms and all(o["metadata"].get("labels", {}).get("grafana_dashboard") == "1" for o in cms))


def assert_rendering(objs, combo, namespace=NAMESPACE):
    bare = combo is None
    combo = combo or []
    for o in objs:
        ns = o["metadata"].get("namespace")
        if bare:
            check("%s %s has no namespace (namespace-agnostic)" % (o["kind"], o["metadata"]["name"]), ns is None)
        elif o["kind"] != "Namespace":
            check("%s %s in the kustomization's namespace" % (o["kind"], o["metadata"]["name"]), ns == namespace)
    c, sel, pod_labels = daemonset(one(objs, "DaemonSet"), combo)
    want_image = "rdma-exporter" if bare else "%s:%s" % (IMAGE, TAG)
    check("image %s (the base pins no version; the user's images: entry does)" % c.get("image"),
          c.get("image") == want_image)
    check("the DaemonSet's selector matches its pods", sel.items() <= pod_labels.items())
    svc = one(objs, "Service")
    check("the Service is headless", svc.get("spec", {}).get("clusterIP") == "None")
    check("the Service selects the DaemonSet's pods", svc.get("spec", {}).get("selector", {}).items() <= pod_labels.items())
    check("the Service has the metrics port", "metrics" in [p["name"] for p in svc.get("spec", {}).get("ports", [])])
    sa = one(objs, "ServiceAccount")
    check("the ServiceAccount mounts no token", sa.get("automountServiceAccountToken") is False)
    nss = [o for o in objs if o["kind"] == "Namespace"]
    if "namespace" in combo:
        labels = nss[0]["metadata"].get("labels", {}) if len(nss) == 1 else {}
        check("one Namespace, the kustomization's, Pod Security level privileged",
              len(nss) == 1 and nss[0]["metadata"]["name"] == namespace
              and labels.get("pod-security.kubernetes.io/enforce") == "privileged")
    else:
        check("no Namespace object", nss == [])
    if "prometheus-operator" in combo:
        monitors(objs, svc, combo)
    else:
        check("no monitoring objects", not [o for o in objs if o["kind"] in ("ServiceMonitor", "PrometheusRule", "ConfigMap")])
    secrets = [o["metadata"]["name"] for o in objs if o["kind"] == "Secret"]
    web = [n for n in secrets if n.startswith("rdma-exporter-web-")]
    check("Secrets only from the kustomization's generators: %s" % secrets,
          len(web) == (1 if "auth" in combo else 0)
          and set(secrets) - set(web) <= ({"rdma-exporter-scrape"} if "auth" in combo else set()))


def kustomization(base_rel, comp_rel, combo):
    k = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "namespace": NAMESPACE,
        "resources": [base_rel],
        "components": ["%s/%s" % (comp_rel, c) for c in combo],
        "images": [{"name": "rdma-exporter", "newName": IMAGE, "newTag": TAG}],
    }
    if "auth" in combo:
        k["secretGenerator"] = [{"name": "rdma-exporter-web", "files": ["web.yml", "tls.crt", "tls.key"]}]
    return k


def render(src, tmp, name, combo):
    """kubectl kustomize on a user kustomization in TMP/NAME: (rc, objects or error)."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    k8s = os.path.join(src, "deploy/kubernetes")
    k = kustomization(os.path.relpath(os.path.join(k8s, "base"), d),
                      os.path.relpath(os.path.join(k8s, "components"), d), combo)
    with open(os.path.join(d, "kustomization.yaml"), "w") as f:
        yaml.safe_dump(k, f, sort_keys=False)
    # What the Secret holds does not change the rendering: the files only
    # have to exist (docs/kubernetes.md makes the real ones).
    for f in ("web.yml", "tls.crt", "tls.key"):
        open(os.path.join(d, f), "w").close()
    p = subprocess.run(["kubectl", "kustomize", d], capture_output=True, text=True)
    if p.returncode != 0:
        return p.returncode, p.stderr
    return 0, [o for o in yaml.load_all(p.stdout, Loader=LOADER) if o]


def documented(src, tmp):
    """The kustomization docs/kubernetes.md tells users to write, as written
    there (its paths made to point at this checkout), rendered and asserted."""
    doc = open(os.path.join(src, "docs/kubernetes.md")).read()
    m = re.search(r"cat > kustomization.yaml <<'EOF'\n(.*?)\n +EOF\n", doc, re.S)
    check("docs/kubernetes.md has the user's kustomization", m is not None)
    if not m:
        return None
    d = os.path.join(tmp, "documented")
    os.makedirs(d, exist_ok=True)
    rel = os.path.relpath(src, d)
    text = "\n".join(l[7:] for l in m.group(1).split("\n")).replace("../rdma_exporter/", rel + "/")
    k = yaml.safe_load(text)
    with open(os.path.join(d, "kustomization.yaml"), "w") as f:
        f.write(text)
    for g in k.get("secretGenerator", []):
        for f in g.get("files", []):
            open(os.path.join(d, f), "w").close()
    combo = [c.rsplit("/", 1)[1] for c in k.get("components", [])]
    check("its components are in the documented order: %s" % combo,
          combo == [c for c in ORDER if c in combo])
    p = subprocess.run(["kubectl", "kustomize", d], capture_output=True, text=True)
    check("kubectl kustomize renders it", p.returncode == 0)
    if p.returncode != 0:
        print("#   " + p.stderr.strip().replace("\n", "\n#   "))
        return None
    objs = [o for o in yaml.load_all(p.stdout, Loader=LOADER) if o]
    print("# documented: %s" % "+".join(combo))
    assert_rendering(objs, combo, k["namespace"])
    return objs


def main():
    src, tmp = sys.argv[1], sys.argv[2]
    comps = sorted(os.listdir(os.path.join(src, "deploy/kubernetes/components")))
    check("the components the checks know are all of them: %s" % comps, comps == sorted(ORDER))
    rendered = {}
    p = subprocess.run(["kubectl", "kustomize", os.path.join(src, "deploy/kubernetes/base")],
                       capture_output=True, text=True)
    check("kubectl kustomize renders the base alone", p.returncode == 0)
    if p.returncode == 0:
        print("# base")
        rendered["base"] = [o for o in yaml.load_all(p.stdout, Loader=LOADER) if o]
        assert_rendering(rendered["base"], None)
    combos = [c for n in range(len(ORDER) + 1) for c in itertools.combinations(ORDER, n)]
    # kubectl kustomize runs one process per combination: as many at once as
    # there are CPUs; the checks below stay in order.
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        renders = list(ex.map(lambda c: render(src, tmp, "+".join(c) or "none", list(c)), combos))
    for combo, (rc, out) in zip(combos, renders):
        name = "+".join(combo) or "none"
        if "probes" in combo and "probes-hostpath" in combo:
            check("%s: refused, one probes component only" % name, rc != 0 and "test failed" in out)
            continue
        print("# %s" % name)
        check("%s: kubectl kustomize renders it" % name, rc == 0)
        if rc != 0:
            print("#   " + out.strip().replace("\n", "\n#   "))
            continue
        rendered[name] = out
        assert_rendering(out, list(combo))
    objs = documented(src, tmp)
    if objs:
        rendered["documented"] = objs
    rc, out = render(src, tmp, "auth-before-prometheus-operator", ["auth", "prometheus-operator"])
    check("auth listed before prometheus-operator: refused, not a ServiceMonitor left on http",
          rc != 0 and "test failed" in out)
    with open(os.path.join(tmp, "rendered.json"), "w") as f:
        json.dump(rendered, f)
    print("# %d renderings, %d checks passed, %d failed" % (len(rendered), passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
