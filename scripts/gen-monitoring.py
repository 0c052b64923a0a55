#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Generates alerts/*.rules.yml (from alerts/templates/*.rules.yml.in) and
# dashboards/*.json (from dashboards/gen-dashboards.py) from one configuration:
# alerts/config.yml, the defaults, with the keys of --config laid over it.
#
#   gen-monitoring.py                       rewrite the files in the source tree
#   gen-monitoring.py --check               exit 1 if a checked-in file is not what
#                                           this writes (ctest monitoring_generated)
#   gen-monitoring.py --config FILE --out DIR
#                                           your own copies, in DIR/alerts and
#                                           DIR/dashboards
#
# A template names a configuration value as [[key]] or [[key.sub]]; [[key|percent]]
# writes a ratio as a percentage. Anything else in the template is copied as it is.
import argparse
import copy
import decimal
import difflib
import importlib.util
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DEFAULTS = os.path.join("alerts", "config.yml")
TEMPLATES = os.path.join("alerts", "templates")


def merge(base, over, path=""):
    """over's keys replace base's; a key base does not have is an error (a typo
    would otherwise be ignored silently)."""
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if k not in base:
            raise SystemExit(f"gen-monitoring: unknown configuration key {path}{k}")
        if isinstance(base[k], dict) and isinstance(v, dict):
            out[k] = merge(base[k], v, f"{path}{k}.")
        else:
            out[k] = v
    return out


def load_config(root, user_file=None):
    with open(os.path.join(root, DEFAULTS)) as fh:
        cfg = yaml.safe_load(fh)
    if user_file:
        with open(user_file) as fh:
            cfg = merge(cfg, yaml.safe_load(fh))
    return cfg


def number(v):
    """A number as PromQL and people read it: 0.00002, not 2e-05; 1, not 1.0."""
    d = decimal.Decimal(str(v)).normalize()
    return format(d, "f")


def lookup(cfg, key):
    v = cfg
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            raise KeyError(key)
        v = v[part]
    return v


def render(text, cfg, where):
    def sub(m):
        key, _, fmt = m.group(1).strip().partition("|")
        try:
            v = lookup(cfg, key)
        except KeyError:
            raise SystemExit(f"gen-monitoring: {where}: [[{m.group(1)}]] is not in the configuration")
        if fmt == "percent":
            return number(decimal.Decimal(str(v)) * 100) + "%"
        if fmt:
            raise SystemExit(f"gen-monitoring: {where}: unknown format |{fmt}")
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise SystemExit(f"gen-monitoring: {where}: [[{key}]] is not a number or a string")
        return number(v) if isinstance(v, (int, float)) else v
    return re.sub(r"\[\[([^\[\]]+)\]\]", sub, text)


MATCHER = re.compile(r"""\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*(?:,|$)""")


def matchers(text):
    """The label matchers of a selector without braces, one string each."""
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = MATCHER.match(text, pos)
        if not m:
            raise SystemExit(f"gen-monitoring: ports.expected_rates: cannot read the matchers {text!r}")
        out.append(m.group(1) + m.group(2) + m.group(3))
        pos = m.end()
    return out


MAINTENANCE = """
      - alert: RDMANodeMaintenance
        # The node is drained or cordoned (alerts/config.yml maintenance): not a
        # problem; alerts/alertmanager.example.yml mutes the node's RDMA alerts
        # under it (equal node).
        expr: %s
        labels:
          severity: info
        annotations:
          summary: "Node {{ $labels.node }} is in maintenance"
          description: "{{ $labels.node }} (instance {{ $labels.instance }}) is drained or cordoned ({{ $value }}): its RDMA alerts are muted."
          runbook: "Nothing to do for RDMA. Its alerts page again once the node is back in service."
"""


def derive(cfg):
    """The PromQL pieces the templates need that are more than one value."""
    ports = cfg["ports"]
    # The labels of a scrape target (constant per instance) that every aggregation
    # per node keeps: the cluster, the topology (leaf switch, rack) and node name
    # when configured, then job and instance.
    target = [cfg[k] for k in ("cluster_label", "topology_label", "node_label") if cfg[k]]
    for name in target:
        if not re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", name) or name.startswith("__"):
            raise SystemExit(f"gen-monitoring: {name!r} is not a label name")
    d0 = {"by_target": ", ".join(target + ["job", "instance"]),
          "by_cluster": cfg["cluster_label"] + ", " if cfg["cluster_label"] else "",
          "target_labels_left": ", ".join([n for n in target if n != cfg["cluster_label"]] + ["instance"]),
          "by_topology": ", ".join(n for n in (cfg["cluster_label"], cfg["topology_label"]) if n),
          # rdma_port:topology:info's label: switch where no topology_label is set
          "neighbor_label": cfg["topology_label"] or "switch",
          "by_cluster_only": cfg["cluster_label"],
          "am_cluster": cfg["cluster_label"] + ", " if cfg["cluster_label"] else "",
          "am_cluster_only": cfg["cluster_label"],
          "am_topology": cfg["topology_label"] + ", " if cfg["topology_label"] else "",
          "maintenance_rule": MAINTENANCE % cfg["maintenance"] if cfg["maintenance"] else "",
          # rdma_probe_address:answering:info: the label node filled in as on
          # the alerts (finish_alerts), and the nodes in maintenance left out.
          "node_fill_open": "max without (node_instance_) (label_replace(label_join(",
          "node_fill_close": ', "node_instance_", ";", "%s", "instance"), "node", "$1$2", "node_instance_", '
                             '"([^;]+);.*|;\\\\[?(.*?)\\\\]?(?::[0-9]+)?"))' % (cfg["node_label"] or "node"),
          "maintenance_unless": ("\n            unless on (%snode)\n          (%s)"
                                 % (cfg["cluster_label"] + ", " if cfg["cluster_label"] else "", cfg["maintenance"])
                                 if cfg["maintenance"] else ""),
          "by_port": ", ".join(target + ["job", "instance", "device", "port"]),
          "target_labels_comment": ", ".join(target) if target else "labels"}
    d = {"expected_ports_or": "", "expected_rates_branch": "", "expected_rates_comment": ""}
    if "compare_fleet_rate" in ports:
        raise SystemExit("gen-monitoring: ports.compare_fleet_rate was removed (issue 31): a fleet's "
                         "usual rate per hca_type is wrong for a mix of 200G and 400G ports; list "
                         "the rates you expect under ports.expected_rates")
    if ports["expected"]:
        d["expected_ports_or"] = " or rdma_port_state{%s}" % ports["expected"]
    pad = "\n" + " " * 10
    for i, e in enumerate(ports["expected_rates"]):
        if set(e) != {"match", "bytes_per_second"}:
            raise SystemExit("gen-monitoring: ports.expected_rates: each entry has match and bytes_per_second")
        # Matchers on hca_type select devices (rdma_device_info), the others ports.
        dev, port = [], []
        for m in matchers(e["match"]):
            (dev if m.startswith("hca_type") else port).append(m)
        branch = "0 * rdma_port:rate_bytes_per_second:max1d{%s} + %s" % (", ".join(port), number(e["bytes_per_second"]))
        if dev:
            branch += " and on (job, instance, device) rdma_device_info{%s}" % ", ".join(dev)
        d["expected_rates_comment"] = " and the rates set in the configuration"
        d["expected_rates_branch"] += pad + "or" + pad + '  label_replace(%s, "basis", "config%d", "", "")' % (branch, i)
    d.update(d0)
    return dict(cfg, derived=d)


def first_sentence(text):
    """The runbook's first step: up to the first full stop or question mark that
    ends a sentence."""
    m = re.match(r"(.+?[.?])(?:\s|$)", text)
    return m.group(1) if m else text


def finish_alerts(text, cfg):
    """What every alert gets from the configuration, written once here rather than
    in each of them in the template:
    - a label node: the node_label's value where the series has one, else the
      host part of instance (its port and IPv6 brackets taken off), so that one
      silence or inhibition by node covers every alert of a node;
    - the runbook's first step at the end of the description (pagers show the
      description, not every annotation);
    - runbook_url only when runbook_base_url is set."""
    lines = text.split("\n")
    runbooks, name = {}, None
    for line in lines:
        m = re.match(r"      - alert: (\S+)$", line)
        if m:
            name = m.group(1)
        m = re.match(r'          runbook: "(.*)"$', line)
        if m and name:
            runbooks[name] = first_sentence(m.group(1))
    src = (cfg["node_label"] + ", " if cfg["node_label"] else "") + "instance"
    out, name, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"      - alert: (\S+)$", line)
        if m:
            name = m.group(1)
        m = re.match(r"        expr: (.*)$", line)
        if m and name:
            body = [m.group(1)] if m.group(1) != "|" else []
            i += 1
            while i < len(lines) and (lines[i].startswith(" " * 10) or not lines[i].strip()) \
                    and not lines[i].startswith("        labels:"):
                if lines[i].strip():
                    body.append(lines[i][10:])
                i += 1
            out.append("        expr: |")
            out.append("          label_replace(label_replace(label_join(")
            out.extend("              " + b for b in body)
            out.append('            , "node_instance_", ";", %s),' % ", ".join('"%s"' % l for l in src.split(", ")))
            out.append('            "node", "$1$2", "node_instance_", "([^;]+);.*|;\\\\[?(.*?)\\\\]?(?::[0-9]+)?"),')
            out.append('          "node_instance_", "", "", "")')
            continue
        m = re.match(r'(          description: ")(.*)"$', line)
        if m and name in runbooks:
            line = "%s%s Runbook: %s\"" % (m.group(1), m.group(2), runbooks[name])
        if line.startswith("          runbook_url: ") and not cfg["runbook_base_url"]:
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


GENERATED = ("# Generated by scripts/gen-monitoring.py from alerts/templates/%s and\n"
             "# alerts/config.yml: edit those and run it, never this file.\n")


def rules(root, cfg):
    """{relative path: text} of every rule file."""
    out = {}
    tdir = os.path.join(root, TEMPLATES)
    for name in sorted(os.listdir(tdir)):
        if not name.endswith(".yml.in"):
            continue
        with open(os.path.join(tdir, name)) as fh:
            text = render(fh.read(), derive(cfg), name)
        if name.startswith("rdma-alerts."):
            text = finish_alerts(text, cfg)
        spdx, _, rest = text.partition("\n")
        out[os.path.join("alerts", name[:-3])] = spdx + "\n" + GENERATED % name + rest
    return out


def dashboards(root, cfg):
    path = os.path.join(root, "dashboards", "gen-dashboards.py")
    spec = importlib.util.spec_from_file_location("gen_dashboards", path)
    mod = importlib.util.module_from_spec(spec)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    spec.loader.exec_module(mod)
    return {os.path.join("dashboards", n): t for n, t in mod.generate(cfg).items()}


def generate(root, cfg):
    files = rules(root, cfg)
    files.update(dashboards(root, cfg))
    return files


def main(argv):
    ap = argparse.ArgumentParser(description="Generate alerts/ and dashboards/ from one configuration.")
    ap.add_argument("--config", help="YAML file with the keys to change from alerts/config.yml")
    ap.add_argument("--out", help="write under this directory instead of the source tree")
    ap.add_argument("--check", action="store_true", help="fail if the source tree's files are not current")
    ap.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    if args.check and (args.config or args.out):
        ap.error("--check compares the defaults with the source tree: no --config or --out")
    files = generate(root, load_config(root, args.config))
    if args.check:
        stale = 0
        for rel, text in sorted(files.items()):
            try:
                with open(os.path.join(root, rel)) as fh:
                    have = fh.read()
            except FileNotFoundError:
                have = ""
            if have != text:
                stale += 1
                sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True),
                                                           rel, rel + " (generated)", n=1))
        if stale:
            print(f"gen-monitoring: {stale} file(s) not current: run scripts/gen-monitoring.py "
                  "and commit the result", file=sys.stderr)
            return 1
        print(f"gen-monitoring: {len(files)} files are current")
        return 0
    out = os.path.abspath(args.out) if args.out else root
    for rel, text in sorted(files.items()):
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    print(f"gen-monitoring: wrote {len(files)} files under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
