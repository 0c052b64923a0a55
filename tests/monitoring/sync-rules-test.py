#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Keeps tests/monitoring/rules-test.yml a complete promtool test on its own:
# every expected alert's static annotations (runbook, runbook_url: fixed strings,
# no template) are written out in the file, copied from the rule in
# alerts/*.rules.yml. The hand-written parts (series, labels, summary and
# description) are left as they are, comments included.
#
#   sync-rules-test.py [SOURCE_DIR]           rewrite rules-test.yml in place
#   sync-rules-test.py --check [SOURCE_DIR]   exit 1, with a diff, if it is not current
import difflib
import json
import os
import re
import sys

import yaml

STATIC = ("runbook", "runbook_url")


def load_alerts(root):
    alerts_dir = os.path.join(root, "alerts")
    alerts = {}
    for f in sorted(os.listdir(alerts_dir)):
        if not f.endswith(".rules.yml"):
            continue
        with open(os.path.join(alerts_dir, f)) as fh:
            for g in yaml.safe_load(fh)["groups"]:
                for r in g["rules"]:
                    if "alert" in r:
                        alerts[r["alert"]] = r.get("annotations", {})
    return alerts


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def sync(lines, alerts):
    """Returns (new lines, errors): each exp_annotations block ends with the
    rule's static annotations, in STATIC order, as double-quoted YAML strings."""
    out, errors = [], []
    alertname = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*(?:- )?alertname:\s*(\S+)\s*$", line)
        if m:
            alertname = m.group(1)
        if line.strip() != "exp_annotations:":
            out.append(line)
            i += 1
            continue
        out.append(line)
        base = indent_of(line)
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() and indent_of(lines[i]) > base:
            body.append(lines[i])
            i += 1
        if not body:
            errors.append(f"line {i}: exp_annotations without a body")
            continue
        inner = indent_of(body[0])
        kept = [b for b in body
                if not (indent_of(b) == inner and b.strip().split(":", 1)[0] in STATIC)]
        out.extend(kept)
        ann = alerts.get(alertname)
        if ann is None:
            errors.append(f"line {i}: alertname {alertname} is not an alert in alerts/")
            continue
        for key in STATIC:
            if key in ann:
                # JSON's string syntax is YAML's double-quoted scalar.
                out.append(" " * inner + f"{key}: {json.dumps(ann[key], ensure_ascii=False)}\n")
    return out, errors


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    path = os.path.join(root, "tests", "monitoring", "rules-test.yml")
    with open(path) as fh:
        lines = fh.readlines()
    new, errors = sync(lines, load_alerts(root))
    for e in errors:
        print(f"sync-rules-test: {path}: {e}", file=sys.stderr)
    if errors:
        return 1
    if new == lines:
        print(f"sync-rules-test: {os.path.relpath(path, root)} is current")
        return 0
    if check:
        sys.stdout.writelines(difflib.unified_diff(lines, new, "rules-test.yml", "rules-test.yml (synced)"))
        print("sync-rules-test: rules-test.yml is not current with alerts/: run "
              "tests/monitoring/sync-rules-test.py", file=sys.stderr)
        return 1
    with open(path, "w") as fh:
        fh.writelines(new)
    print(f"sync-rules-test: rewrote {os.path.relpath(path, root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
