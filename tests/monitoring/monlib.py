# SPDX-License-Identifier: Apache-2.0
#
# Shared by the tests in tests/monitoring/: the PromQL expressions of the rules
# and dashboards, the metric names they use, and the metric names the exporter
# really has (its output, and the family names its sources define).
import glob
import json
import os
import re

import yaml

# Series Prometheus makes itself, not the exporter.
PROMETHEUS_BUILTIN = {"up", "ALERTS", "ALERTS_FOR_STATE", "scrape_duration_seconds",
                      "scrape_samples_scraped",
                      # another exporter's (kube-state-metrics): alerts/config.yml maintenance
                      "kube_node_spec_unschedulable"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
            "bool", "offset", "inf", "nan", "atan2"}

# Grafana's variables with the values the tests give them.
GRAFANA_INTERVALS = {"$__rate_interval": "15s", "$__interval": "5s", "$__range": "1m"}


def rule_files(root):
    return sorted(glob.glob(os.path.join(root, "alerts", "*.rules.yml")))


def rules(root):
    out = []
    for f in rule_files(root):
        with open(f) as fh:
            for g in yaml.safe_load(fh)["groups"]:
                out.extend(g["rules"])
    return out


def rule_exprs(root):
    """[(where, expr)] for every rule."""
    return [("rule " + (r.get("alert") or r.get("record")), r["expr"]) for r in rules(root)]


def recorded_names(root):
    return {r["record"] for r in rules(root) if "record" in r}


def dashboards(root):
    out = {}
    for f in sorted(glob.glob(os.path.join(root, "dashboards", "*.json"))):
        with open(f) as fh:
            out[os.path.basename(f)] = json.load(fh)
    return out


def panels(dash):
    for p in dash.get("panels", []):
        yield p
        for q in p.get("panels", []):
            yield q


def dashboard_exprs(root):
    """[(where, kind, expr)]: kind is 'panel', 'annotation' or 'variable'."""
    out = []
    for name, d in dashboards(root).items():
        for p in panels(d):
            for t in p.get("targets", []):
                where = f"{name} panel {p['id']} \"{p['title']}\" {t.get('refId')}"
                out.append((where, "panel", t.get("expr", "")))
        for a in d.get("annotations", {}).get("list", []):
            if a.get("expr"):
                out.append((f"{name} annotation \"{a['name']}\"", "annotation", a["expr"]))
        for v in d.get("templating", {}).get("list", []):
            if v.get("type") == "query":
                q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
                out.append((f"{name} variable ${v['name']}", "variable", q))
    return out


def variable_selector(query):
    """label_values(SELECTOR, LABEL) -> (SELECTOR, LABEL); anything else -> None."""
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", query, re.S)
    return (m.group(1), m.group(2)) if m else None


def metric_names(expr):
    """The metric (and recording rule) names a PromQL expression selects."""
    s = expr
    sel = variable_selector(s)
    if sel:
        s = sel[0]
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', s)           # string literals
    s = re.sub(r"`[^`]*`", '""', s)
    s = re.sub(r"\{[^{}]*\}", " ", s)                    # label matchers
    s = re.sub(r"\[[^\]]*\]", " ", s)                    # ranges, subqueries
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    s = re.sub(r"\$\w+", " ", s)                         # Grafana variables
    names = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", s):
        word, call = m.group(1), m.group(2)
        if call or word in KEYWORDS:
            continue
        names.add(word)
    return names


def source_families(root):
    """Every "rdma_..." string literal in src/ and collectors/: the family names the code defines."""
    names = set()
    for f in glob.glob(os.path.join(root, "src", "**", "*.c"), recursive=True) + \
            glob.glob(os.path.join(root, "collectors", "**", "*.c"), recursive=True):
        with open(f, errors="replace") as fh:
            names |= set(re.findall(r'"(rdma_[a-z0-9_]+)"', fh.read()))
    return names


def parse_exposition(text):
    """{family: {"type", "help", "labels": set, "samples": int}} from exposition text."""
    fams = {}
    types = {}
    for line in text.splitlines():
        m = re.match(r"# (HELP|TYPE) (\S+) ?(.*)", line)
        if m:
            f = fams.setdefault(m.group(2), {"type": "untyped", "help": "", "labels": set(), "samples": 0})
            if m.group(1) == "HELP":
                f["help"] = m.group(3)
            else:
                f["type"] = m.group(3)
                types[m.group(2)] = m.group(3)
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s", line)
        if not m:
            continue
        name = m.group(1)
        for suf in HISTOGRAM_SUFFIXES:
            base = name[: -len(suf)] if name.endswith(suf) else None
            if base and types.get(base) in ("histogram", "summary"):
                name = base
                break
        f = fams.setdefault(name, {"type": "untyped", "help": "", "labels": set(), "samples": 0})
        f["samples"] += 1
        if m.group(3):
            for lm in re.finditer(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"', m.group(3)):
                if lm.group(1) != "le" or f["type"] != "histogram":
                    f["labels"].add(lm.group(1))
    return fams


def sample_names(text):
    """Every sample name in exposition text (histogram series with their suffixes)."""
    return {m.group(1) for m in re.finditer(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", text, re.M)}


def known(name, exported):
    """Is NAME (maybe NAME_bucket/_sum/_count) in the set EXPORTED?"""
    if name in exported:
        return True
    for suf in HISTOGRAM_SUFFIXES:
        if name.endswith(suf) and name[: -len(suf)] in exported:
            return True
    return False


def check_names(root, observed, report):
    """Every name a rule, panel or variable selects is a recording rule, a series
    Prometheus makes, or a family the exporter exports (OBSERVED: names seen in
    its real output; or defined in its sources). Every name in a synthetic file
    is defined in the sources. REPORT(ok, what, detail) records.
    Returns the names used that were only found in the sources."""
    sources = source_families(root)
    records = recorded_names(root)
    only_sources = set()
    used = {}
    for where, expr in rule_exprs(root):
        for n in metric_names(expr):
            used.setdefault(n, where)
    for where, _, expr in dashboard_exprs(root):
        for n in metric_names(expr):
            used.setdefault(n, where)
    for n, where in sorted(used.items()):
        if n in records or n in PROMETHEUS_BUILTIN:
            report(True, f"name {n}: recording rule or Prometheus series")
        elif known(n, observed):
            report(True, f"name {n}: in the exporter's output on the fixtures")
        elif known(n, sources):
            only_sources.add(n)
            report(True, f"name {n}: defined in the sources (not producible on this machine)")
        else:
            report(False, f"name {n} (first used by {where}) is neither exported on any fixture "
                   "nor defined in the sources")
    for f in sorted(glob.glob(os.path.join(root, "tests", "monitoring", "fixtures", "synthetic-*.prom"))):
        with open(f) as fh:
            text = fh.read()
        bad = sorted(n for n in sample_names(text) if not known(n, sources))
        report(not bad, f"{os.path.basename(f)}: every family name is defined in the sources",
               " ".join(bad))
        asserted = unit_test_label_sets(root)
        wrong, checked = [], 0
        for name, labels in sample_label_names(text):
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            want = asserted.get(name) or asserted.get(base)
            if not want:
                continue
            checked += 1
            # probe series carry their file_sd group's labels after target
            if not any(labels == w or (name.startswith("rdma_probe_") and labels[:len(w)] == w)
                       for w in want):
                wrong.append(f"{name}{{{','.join(labels)}}}")
        report(checked > 0 and not wrong,
               f"{os.path.basename(f)}: label names of {checked} samples match the collectors' unit tests",
               " ".join(sorted(set(wrong))[:5]))
    return only_sources


def sample_label_names(text):
    """[(sample name, (label names in order, le left out))] of exposition text."""
    out = []
    for m in re.finditer(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} ", text, re.M):
        names = tuple(x for x in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"', m.group(2))
                      if x != "le")
        out.append((m.group(1), names))
    return out


def unit_test_label_sets(root):
    """{family: {label name tuples}} that the collectors' unit tests assert, from
    complete series literals like "rdma_qps{device=\\"rxe0\\",port=\\"1\\",...}" in
    tests/collectors/."""
    out = {}
    for f in glob.glob(os.path.join(root, "tests", "collectors", "**", "*.c"), recursive=True):
        with open(f, errors="replace") as fh:
            text = fh.read()
        for m in re.finditer(r'"(rdma_[a-z0-9_]+)\{((?:[a-z_]+=\\"[^"\\]*\\",?)+)\}', text):
            out.setdefault(m.group(1), set()).add(tuple(re.findall(r'([a-z_]+)=\\"', m.group(2))))
    return out


def golden_names(root):
    names = set()
    for f in glob.glob(os.path.join(root, "tests", "e2e", "golden", "*.prom")):
        with open(f) as fh:
            names |= set(parse_exposition(fh.read()))
    return names


class Counter:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"not ok - {what}" + (f": {detail}" if detail else ""))
        return ok

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed or not self.passed else 0
