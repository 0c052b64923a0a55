#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Fleet in a box (issue 31): a simulated fleet put through a real Prometheus
# (Debian's 2.42) with the shipped rules, scenario by scenario.
#
#   generator  series shapes from the exporter's own output on a fixture tree
#              (tests/fixtures/sysfs/mlx5-roce, collectors that need hardware off)
#              and, for the families no fixture can produce (netlink resources,
#              PFC per priority, probe pairs), from the checked-in exposition
#              tests/monitoring/fixtures/synthetic-roce-node.prom, whose names
#              tests/monitoring checks against the sources. Families the rules read
#              that neither has (the per-port probe histograms and
#              rdma_probe_local_address_info of issue 31) are shaped from the
#              shared contract. Only the families the rules (and their joins) read
#              are written, unless --full.
#   fleet      racks of --rack-size nodes behind one leaf switch (label `switch`),
#              8 rails (port i of every node on rail i), half H100 shape (8 IB HCAs,
#              400G), half RoCE (8 ports with PFC, every fourth node 2 more 200G
#              storage ports of the same HCA type); a k = 64 pingmesh (k = nodes-1
#              when smaller); static-scrape or ServiceMonitor target labels; the
#              external label `cluster` on every series.
#   scenario   a timeline of value changes (SCENARIOS below), one value a minute,
#              written as OpenMetrics with timestamps (a sample a minute, or every
#              --scrape seconds: 15 as the shipped ServiceMonitor scrapes),
#              backfilled with promtool tsdb create-blocks-from openmetrics; recording rules backfilled with
#              promtool tsdb create-blocks-from rules level by level (a rule after
#              the rules it reads); then each alerting rule's expr as query_range
#              at its group's interval, `for:` applied here, and the firing alerts
#              put through the inhibitions and routes of the Alertmanager config.
#              Scenarios that name a shared run (issue 32's physical layer) each
#              touch a node of their own and are written and evaluated together;
#              their pages are told apart by the node the alerts name.
#   pages      notification groups that reach a receiver with a notifier (the
#              pager: critical, the tickets: warning); the count is compared with
#              the scenario's expected pages from issue 31's table; where the
#              scenario names them, the alerts paged; and every alert about an
#              exporter must keep its target's topology label and name its node.
#
# Usage: fleet.py --exporter BIN [--root DIR] [--rules-dir DIR] [--alertmanager FILE]
#                 [--nodes N] [--scenario NAME[,NAME]] [--list] [--cost] [--full] [--scrape S]
# Exit 0: every scenario gave its pages; 1: a mismatch (the table says which);
# 77: prometheus/promtool not installed and CI not set.
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "monitoring"))
import monlib  # noqa: E402
import yaml  # noqa: E402  (python3-yaml, as tests/monitoring)

MINUTE = 60
PROBE_PORT = 9879           # the probe sideband port in target labels ("ADDRESS:PORT")
PROBES_PER_MIN = 30         # 5 probes per round, 6 rounds a minute (10 s interval)
RATE_400G = 50_000_000_000  # bytes per second
RATE_200G = 25_000_000_000
RATE_100G = 12_500_000_000
# Pre-FEC bit error ratios of healthy links (RDMAPreFECBERHigh: 1e-5), one per port in turn.
HEALTHY_BER = (1e-9, 1e-8, 1e-7, 1e-6)
U32_MAX = (1 << 32) - 1     # a legacy 32-bit PMA counter's maximum (port_xmit_wait)
# Families of issue 31's contract that no fixture produces yet: made only when the
# rules read them.
CONTRACT = {"rdma_probe_local_address_info", "rdma_probe_port_rtt_seconds",
            "rdma_probe_port_network_rtt_seconds"}
# Families with no series while all is well (the exporter exports
# rdma_port_statistic_saturated only while a counter is at its maximum): the
# scenarios that need them add them.
UNHEALTHY_ONLY = {"rdma_port_statistic_saturated"}
INFO_JOINS = {"rdma_device_info", "rdma_port_info", "rdma_port_netdev_info"}
# Families not in the text exposition at default flags (issue 40: the probe's
# per-target and per-port detail behind --collector.probe.target-detail or
# -histograms, the per-process rows behind --collector.netlink.top-processes);
# the synthetic exposition has them as --collector.probe.target-histograms shows
# them. Left out of --full unless --target-histograms; no rule reads them
# (tests/monitoring/gated-check.py).
TEXT_DETAIL = {"rdma_probe_rtt_seconds", "rdma_probe_network_rtt_seconds",
               "rdma_probe_timeouts_total", "rdma_probe_port_network_rtt_seconds",
               "rdma_probe_wakeup_requests_total", "rdma_probe_last_rtt_seconds",
               "rdma_probe_responder_turnaround_seconds_total",
               "rdma_probe_responder_turnarounds_total", "rdma_process_qps", "rdma_process_mrs",
               "rdma_process_mr_registered_bytes"}

# ---- templates ---------------------------------------------------------------------------
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_samples(text):
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if m:
            labels = dict(LABEL.findall(m.group(2) or ""))
            try:
                out.append((m.group(1), labels, float(m.group(3))))
            except ValueError:
                pass
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def exporter_output(binary, tree, tmp):
    """/metrics of the real exporter on a fixture tree, hardware collectors off."""
    for _ in range(5):
        port = free_port()
        log = open(os.path.join(tmp, "exporter.log"), "w")
        p = subprocess.Popen([binary, f"--web.listen-address=127.0.0.1:{port}", f"--path.sysfs={tree}",
                              "--poll.interval=1s", "--no-collector.netlink", "--no-collector.ethtool",
                              "--no-collector.probe"], stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(100):
                time.sleep(0.05)
                if p.poll() is not None:
                    break
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                        text = r.read().decode()
                    if "rdma_port_state" in text:
                        return text
                except OSError:
                    pass
        finally:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    sys.exit(f"fleet: {binary} did not serve /metrics on {tree}")


def base_name(name):
    for suf in ("_bucket", "_sum", "_count"):
        if name.endswith(suf):
            return name[: -len(suf)]
    return name


class Templates:
    """Per-port, per-device, per-netdev, per-node and per-target series shapes."""

    def __init__(self, exporter_text, synthetic_text, wanted, full, target_histograms, sel=None):
        real = parse_samples(exporter_text)
        synth = parse_samples(synthetic_text)
        real_names = {n for n, _, _ in real}
        rows = real + [s for s in synth if s[0] not in real_names]
        self.known = {base_name(n) for n, _, _ in rows} | {n for n, _, _ in rows}
        keep = (lambda n: True) if full else (lambda n: n in wanted or base_name(n) in wanted)
        self.port, self.device, self.netdev, self.node, self.target = [], [], [], [], []
        first_target = next((lab["target"] for _, lab, _ in synth
                             if lab.get("target") not in (None, "loopback")), None)
        self.loopback = []
        seen = set()
        for name, lab, val in rows:
            if not keep(name) or (not full and sel and not selected(sel, name, lab)):
                continue
            if base_name(name) in TEXT_DETAIL and not target_histograms:
                continue
            if base_name(name) in CONTRACT:
                continue  # shaped per node below (the fixture's address is one node's)
            lab = dict(lab)
            if "target" in lab:
                if lab["target"] == "loopback":
                    dst = self.loopback
                elif lab["target"] == first_target and lab.get("device") == "mlx5_0":
                    dst = self.target
                else:
                    continue
                if name.endswith("_bucket") and lab.get("le") != "+Inf" and not target_histograms:
                    continue
                if name == "rdma_probe_errors_total":
                    continue  # per target only for reasons that occurred
                lab.pop("target")
                lab.pop("device", None)
                lab.pop("port", None)
            elif "device" in lab:
                if lab["device"] != "mlx5_0":
                    continue
                lab.pop("device")
                dst = self.port if "port" in lab else self.device
                lab.pop("port", None)
            elif "netdev" in lab:
                if lab["netdev"] != "enp65s0f0np0":
                    continue
                lab.pop("netdev")
                dst = self.netdev
            else:
                dst = self.node
            key = (id(dst), name, tuple(sorted(lab.items())))
            if key in seen:
                continue
            seen.add(key)
            dst.append((name, lab, val))
        self.rtt_les = sorted({lab["le"] for n, lab, _ in synth if n == "rdma_probe_rtt_seconds_bucket"},
                              key=lambda x: float(x))
        self.contract = {c for c in CONTRACT
                         if any(c + suf in wanted for suf in ("", "_bucket", "_sum", "_count"))}


# ---- the fleet -----------------------------------------------------------------------------
class Series:
    __slots__ = ("name", "labels", "counter", "vals")

    def __init__(self, name, labels, counter, vals):
        self.name, self.labels, self.counter, self.vals = name, labels, counter, vals


TRAFFIC = re.compile(r"^rdma_(port|netdev)_((unicast_|multicast_)?packets_(transmitted|received)|"
                     r"data_(transmitted|received)_bytes|priority_(bytes|packets))_total$")


class Node:
    def __init__(self, idx, fleet):
        self.idx = idx
        self.name = f"gpu-{idx:04d}"
        self.rack = idx // fleet.rack_size
        self.switch = f"leaf-{self.rack:02d}"
        self.roce = idx % 2 == 1
        self.storage = self.roce and idx % 4 == 1
        self.address = f"10.{idx // 250}.{(idx % 250) // 50}.{idx % 50 + 1}"
        self.target = f"{self.address}:{PROBE_PORT}"
        if fleet.labels == "servicemonitor":
            self.job = "rdma-exporter"
            self.instance = f"10.244.{idx // 200}.{idx % 200 + 2}:9879"
            self.tlabels = {"job": self.job, "instance": self.instance, "namespace": "monitoring",
                            "pod": f"rdma-exporter-{idx:05x}", "service": "rdma-exporter",
                            "endpoint": "metrics", "container": "rdma-exporter", "node": self.name}
        else:
            self.job = "rdma"
            self.instance = f"{self.name}:9879"
            self.tlabels = {"job": self.job, "instance": self.instance}
        self.tlabels = dict(self.tlabels, cluster=fleet.cluster, switch=self.switch)
        self.ports = [f"mlx5_{i}" for i in range(10 if self.storage else 8)]
        self.series = []
        self.by_name = {}


class Fleet:
    def __init__(self, tmpl, nodes, minutes, labels, rack_size=16, k=64, cluster="fleet-a"):
        self.t, self.n, self.T = tmpl, nodes, minutes
        self.labels, self.rack_size, self.cluster = labels, rack_size, cluster
        self.k = min(k, nodes - 1)
        self.nodes = [Node(i, self) for i in range(nodes)]
        self.absent = {}        # node idx -> set of minutes without any series but up
        self.scrape_fail = {}   # node idx -> set of minutes with up 0
        self.port_down = {}     # (node idx, device) -> set of minutes DOWN
        self.extra = []         # series not the exporter's (kube-state-metrics)
        for nd in self.nodes:
            self._build(nd)
        for nd in self.nodes:
            self.extra.append(Series("kube_node_spec_unschedulable",
                                     {"job": "kube-state-metrics", "instance": "10.244.0.1:8080",
                                      "node": nd.name, "cluster": cluster}, False, [0] * minutes))

    def _add(self, nd, name, labels, val, counter=None):
        if counter is None:
            counter = name.endswith(("_total", "_sum", "_count", "_bucket"))
        s = Series(name, dict(nd.tlabels, **labels), counter, [val] * self.T)
        nd.series.append(s)
        nd.by_name.setdefault(name, []).append(s)
        return s

    def _ramp(self, s, per_min):
        s.vals = [s.vals[0] + per_min * m for m in range(self.T)]

    def _build(self, nd):
        t = self.t
        for name, lab, val in t.node:
            self._add(nd, name, lab, val)
        for i, dev in enumerate(nd.ports):
            storage = i >= 8
            rate = RATE_200G if storage else RATE_400G
            for name, lab, val in t.device:
                lab = dict(lab, device=dev)
                if name == "rdma_device_info":
                    lab.update(hca_type="MT4129", node_guid=f"b8ce:f603:{nd.idx:04x}:{i:04x}",
                               sys_image_guid=f"b8ce:f603:{nd.idx:04x}:0000")
                if name == "rdma_resources":
                    val = min(val, 64)  # healthy: far from rdma_resource_limit
                self._add(nd, name, lab, 1 if name == "rdma_device_responsive" else val)
            for name, lab, val in t.port:
                lab = dict(lab, device=dev, port="1")
                if name == "rdma_port_info":
                    lab["link_layer"] = "Ethernet" if nd.roce else "InfiniBand"
                if name == "rdma_port_netdev_info" and not nd.roce:
                    continue
                if name == "rdma_port_netdev_info":
                    lab["netdev"] = f"eth{i}"
                if name == "rdma_qps":
                    val = 0 if lab.get("state") == "ERR" else val
                if name == "rdma_port_rate_bytes_per_second":
                    val = rate
                elif name == "rdma_port_state":
                    val = 4
                elif name == "rdma_port_phys_state":
                    val = 5
                s = self._add(nd, name, lab, val)
                if s.counter and TRAFFIC.search(name):
                    self._ramp(s, rate * MINUTE // 100 if "bytes" in name else 1_000_000)
            if nd.roce:
                for name, lab, val in t.netdev:
                    s = self._add(nd, name, dict(lab, netdev=f"eth{i}"), val)
                    if s.counter and TRAFFIC.search(name):
                        self._ramp(s, 1_000_000)
                    elif name == "rdma_netdev_phy_bit_count_received_total":
                        self._ramp(s, 8 * rate * MINUTE)  # the PHY receives at line rate, idle or not
                    elif name == "rdma_netdev_fec_corrected_bit_errors_total":
                        # a healthy link's FEC corrects some bits: pre-FEC BER 1e-9..1e-6
                        self._ramp(s, int(8 * rate * MINUTE * HEALTHY_BER[(nd.idx + i) % len(HEALTHY_BER)]))
        # probes: from mlx5_0 port 1 to the next k nodes' first port
        pl = {"device": "mlx5_0", "port": "1"}
        for name, lab, val in t.loopback:
            s = self._add(nd, name, dict(lab, target="loopback", **pl), val)
            if s.counter and not name.endswith(("timeouts_total", "errors_total", "dropped_total")):
                self._ramp(s, PROBES_PER_MIN * (5e-6 if name.endswith("_sum") else 1))
        for j in range(1, self.k + 1):
            peer = self.nodes[(nd.idx + j) % self.n] if (nd.idx + j) % self.n < len(self.nodes) else None
            addr = f"10.{((nd.idx + j) % self.n) // 250}.{(((nd.idx + j) % self.n) % 250) // 50}." \
                   f"{((nd.idx + j) % self.n) % 50 + 1}:{PROBE_PORT}"
            del peer
            for name, lab, val in t.target:
                self._add(nd, name, dict(lab, target=addr, **pl), 0)
        if "rdma_probe_local_address_info" in t.contract:
            self._add(nd, "rdma_probe_local_address_info", dict(pl, address=nd.address), 1, False)
        for fam in ("rdma_probe_port_rtt_seconds", "rdma_probe_port_network_rtt_seconds"):
            if fam in t.contract:
                for le in t.rtt_les or ["+Inf"]:
                    self._add(nd, fam + "_bucket", dict(pl, le=le), 0)
                self._add(nd, fam + "_sum", pl, 0)
                self._add(nd, fam + "_count", pl, 0)

    # ---- timeline ------------------------------------------------------------------------
    def down(self, idx, dev, minutes):
        self.port_down.setdefault((idx, dev), set()).update(minutes)

    def finish(self):
        """Apply port states, probe outcomes and reboots' counter resets to the values."""
        T = self.T
        for (idx, dev), mins in self.port_down.items():
            nd = self.nodes[idx]
            for s in nd.series:
                if s.labels.get("device") != dev and not (nd.roce and s.labels.get("netdev") ==
                                                          f"eth{nd.ports.index(dev)}"):
                    continue
                if s.name == "rdma_port_state":
                    s.vals = [1 if m in mins else 4 for m in range(T)]
                elif s.name == "rdma_port_phys_state":
                    s.vals = [2 if m in mins else 5 for m in range(T)]
                elif s.name in ("rdma_port_link_downed_total", "rdma_netdev_carrier_down_events_total",
                                "rdma_netdev_link_down_events_total") or \
                        (s.name == "rdma_port_state_changes_total" and s.labels.get("state") == "DOWN"):
                    c, out = s.vals[0], []
                    for m in range(T):
                        if m in mins and (m - 1) not in mins:
                            c += 1
                        out.append(c)
                    s.vals = out
        # probes: a pair is answered when both ends are present and their first port is up
        def ok(i, m):
            return m not in self.absent.get(i, ()) and m not in self.port_down.get((i, "mlx5_0"), ())
        index = {nd.target: nd.idx for nd in self.nodes}
        for nd in self.nodes:
            fam = {}
            for s in nd.series:
                tgt = s.labels.get("target")
                if tgt and tgt != "loopback":
                    fam.setdefault(tgt, []).append(s)
            port_rtt = [s for s in nd.series if s.name.startswith("rdma_probe_port_")]
            answered_total = [0] * T
            for tgt, ss in fam.items():
                peer = index[tgt]
                sent = reps = 0
                sv, rv, tv = [], [], []
                for m in range(T):
                    sent += PROBES_PER_MIN
                    if ok(nd.idx, m) and ok(peer, m):
                        reps += PROBES_PER_MIN
                        answered_total[m] += PROBES_PER_MIN
                    sv.append(sent)
                    rv.append(reps)
                    tv.append(sent - reps)
                for s in ss:
                    if s.name == "rdma_probe_sent_total":
                        s.vals = sv
                    elif s.name == "rdma_probe_timeouts_total":
                        s.vals = tv
                    elif s.name == "rdma_probe_round_trip_seconds_total":
                        s.vals = [r * 5e-6 for r in rv]
                    elif s.name.endswith("_sum"):
                        s.vals = [r * 5e-6 for r in rv]
                    elif s.name.endswith(("_count", "_bucket", "replies_total")):
                        s.vals = rv if s.name.endswith(("_count", "replies_total")) or \
                            s.labels.get("le") == "+Inf" else [r if float(s.labels["le"]) >= 5e-6 else 0
                                                                for r in rv]
            acc, cum = 0, []
            for a in answered_total:
                acc += a
                cum.append(acc)
            for s in port_rtt:
                if s.name.endswith("_sum"):
                    s.vals = [c * 5e-6 for c in cum]
                elif s.name.endswith("_count") or s.labels.get("le") == "+Inf" or \
                        float(s.labels.get("le", "inf")) >= 5e-6:
                    s.vals = cum
        # reboots: counters restart from zero after an absence
        for idx, mins in self.absent.items():
            back = [m for m in range(1, T) if m not in mins and (m - 1) in mins]
            if not back or not getattr(self, "reboot", False):
                continue
            b = back[0]
            for s in self.nodes[idx].series:
                if s.counter:
                    base = s.vals[b]
                    s.vals = s.vals[:b] + [v - base for v in s.vals[b:]]

    def write_openmetrics(self, path, t0, step, sub=1, chunk=None):
        """All series, family by family, samples in time order; `up` from the scrape.
        The timeline has one value a minute; sub > 1 writes sub samples a minute
        (a scrape every step / sub seconds, half a scrape interval after the
        minute, as a scrape is never in phase with the rule evaluations): a
        minute's value is the one at its end; counters move to it linearly from
        the minute before (a reset, or no minute before, shows at once), gauges
        hold it through the minute (a port goes down as its link-down counter
        starts to move).
        chunk(path) is called whenever the file has grown past ~1 GB, and with
        the last one: each is its own create-blocks-from run (bounded memory)."""
        fams = {}
        for nd in self.nodes:
            for s in nd.series:
                fams.setdefault(s.name, []).append((nd.idx, s))
        n = 0
        every = step // sub
        off = every // 2 if sub > 1 else 0
        stamps = [[f" {t0 + m * step + j * every + off}\n" for j in range(sub)] for m in range(self.T)]
        fracs = [(j + 1) / sub for j in range(sub)]
        T = self.T
        part = [0]
        fh = open(path, "w")

        def roll():
            nonlocal fh
            if fh.tell() > (1 << 30) and chunk:
                fh.write("# EOF\n")
                fh.close()
                chunk(path)
                part[0] += 1
                fh = open(path, "w")

        def lines_of(pre, vals, gone, counter):
            out = []
            for m, v in enumerate(vals):
                if v is None or m in gone:
                    continue
                st = stamps[m]
                if sub == 1:
                    out.append(pre + repr(v) + st[0])
                    continue
                prv = vals[m - 1] if m > 0 and (m - 1) not in gone else None
                if counter and prv is not None and v > prv:
                    d = v - prv
                    out.extend(pre + repr(prv + d * fr) + st[j] for j, fr in enumerate(fracs))
                else:
                    r = repr(v)
                    out.extend(pre + r + st[j] for j in range(sub))
            return out
        for name, lst in fams.items():
            fh.write(f"# TYPE {name} unknown\n")
            for idx, s in lst:
                gone = self.absent.get(idx, set()) | self.scrape_fail.get(idx, set())
                lines = lines_of(f"{name}{fmt_labels(s.labels)} ", s.vals, gone, s.counter)
                fh.write("".join(lines))
                n += len(lines)
            roll()
        fh.write("# TYPE up unknown\n")
        for nd in self.nodes:
            ls = fmt_labels({k: v for k, v in nd.tlabels.items()})
            gone = self.absent.get(nd.idx, set()) | self.scrape_fail.get(nd.idx, set())
            fh.write("".join(f"up{ls} {0 if m in gone else 1}{stamps[m][j]}" for m in range(T) for j in range(sub)))
            n += T * sub
        for s in self.extra:
            fh.write(f"# TYPE {s.name} unknown\n")
            lines = lines_of(f"{s.name}{fmt_labels(s.labels)} ", s.vals, set(), False)
            fh.write("".join(lines))
            n += len(lines)
        fh.write("# EOF\n")
        fh.close()
        if chunk:
            chunk(path)
        return n

    def series_count(self):
        return sum(len(nd.series) for nd in self.nodes) + len(self.nodes) + len(self.extra)


def fmt_labels(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in sorted(d.items())) + "}"


# ---- scenarios -----------------------------------------------------------------------------
# Each: (name, issue-31 table text, labels mode, expected pages check, timeline function
# [, minutes [, shared run]]). The check: comma-separated "N" (pages), "<=N", "noprobe"
# (no probe alert paged), "sender" (a page names the PFC sender), "alerts=A|B" (the
# alerts paged are exactly these).
# Timelines run over MINUTES minutes; alerts are evaluated from WARMUP on; events start at E.
WARMUP, E = 30, 40
MINUTES = E + 35  # most scenarios; the ones with an hour-long event say so


def rng(a, b):
    return set(range(a, b))


def sc_symbol_errors(f):
    for s in f.nodes[0].by_name.get("rdma_port_symbol_errors_total", [])[:1]:
        s.vals = [s.vals[0] + (max(0, m - E) * 12) for m in range(f.T)]  # 0.2/s


def sc_trained_down(f):
    for s in f.nodes[2].by_name.get("rdma_port_rate_bytes_per_second", [])[:1]:
        s.vals = [RATE_100G if m >= E else RATE_400G for m in range(f.T)]


def sc_healthy(f):
    pass


def sc_reboot(f):
    f.absent[3] = rng(E, E + 5)
    f.reboot = True


def sc_node_down(f):
    f.absent[3] = rng(E, E + 60)


def sc_drained(f):
    for s in f.extra:
        if s.labels["node"] == f.nodes[5].name:
            s.vals = [1 if m >= E - 10 else 0 for m in range(f.T)]
    for dev in f.nodes[5].ports:   # maintenance: firmware update, ports down 30 min
        f.down(5, dev, rng(E, E + 30))


def sc_leaf(f):
    for nd in f.nodes:
        if nd.rack == 1:
            for dev in nd.ports[:8]:
                f.down(nd.idx, dev, rng(E, f.T))


def sc_job_crash(f):
    # issue 31: 512 nodes; a fleet smaller than that (fleet_scenarios: 32) all of them
    for nd in f.nodes[:512]:
        for s in nd.by_name.get("rdma_qps", []):
            if s.labels.get("state") == "ERR" and s.labels.get("type") == "RC":
                s.vals = [400 if E <= m < E + 30 else 0 for m in range(f.T)]
        for name in ("rdma_port_requester_transport_retries_exceeded_total",):
            for s in nd.by_name.get(name, []):
                s.vals = [s.vals[0] + (3 if m >= E else 0) for m in range(f.T)]


def sc_pfc_storm(f):
    sender = f.nodes[1]  # RoCE
    f.pfc_sender = sender
    for s in sender.by_name.get("rdma_netdev_priority_pause_frames_total", []):
        if s.labels.get("netdev") == "eth0" and s.labels.get("direction") == "tx" and \
                s.labels.get("priority") == "3":
            s.vals = [s.vals[0] + max(0, m - E) * 6_000_000 for m in range(f.T)]
    for s in sender.by_name.get("rdma_netdev_pause_storm_events_total", []):
        if s.labels.get("netdev") == "eth0":
            s.vals = [s.vals[0] + (1 if m >= E + 2 else 0) for m in range(f.T)]
    for nd in f.nodes:
        if nd.roce and nd.rack == sender.rack and nd is not sender:
            for s in nd.by_name.get("rdma_netdev_priority_pause_frames_total", []) + \
                    nd.by_name.get("rdma_netdev_priority_pause_duration_seconds_total", []):
                if s.labels.get("netdev") == "eth0" and s.labels.get("direction") == "rx" and \
                        s.labels.get("priority") == "3":
                    per = 6_000_000 if "frames" in s.name else 40  # 40 s paused per minute
                    s.vals = [s.vals[0] + max(0, m - E) * per for m in range(f.T)]


def sc_devices_gone(f):
    nd = f.nodes[4]
    for s in nd.series:
        if s.name.startswith(("rdma_device_", "rdma_port_", "rdma_netdev_", "rdma_qps", "rdma_probe_")) or \
                "device" in s.labels:
            s.vals = s.vals[:E] + [None] * (f.T - E)


def sc_flapping(f):
    for k in range(6):
        f.down(6, "mlx5_3", {E + 10 * k})


def sc_scrape_fail(f):
    for nd in f.nodes[::10]:
        f.scrape_fail[nd.idx] = rng(E, E + 30)


# The physical layer (issue 32). These share one fleet (one backfill, run
# "physical"): each touches one node of its own and returns it; the pages of a
# shared run are counted per scenario by the node the alerts name, and a page
# that names a node no scenario touched fails all of them.
def netdev_series(nd, name, netdev):
    return [s for s in nd.by_name.get(name, []) if s.labels.get("netdev") == netdev]


def sc_pcie_degraded(f):
    nd = f.nodes[8]  # InfiniBand; the slot (bridge="parent") stays Gen5 x16
    for s in nd.by_name.get("rdma_device_pcie_link_speed_transfers_per_second", []) + \
            nd.by_name.get("rdma_device_pcie_link_width", []):
        if s.labels.get("device") == "mlx5_3":
            low = 16e9 if "speed" in s.name else 8  # Gen5 x16 -> Gen4 x8
            s.vals = [low if m >= E else v for m, v in enumerate(s.vals)]
    return {nd.idx}


def sc_rx_power_low(f):
    nd = f.nodes[9]  # RoCE: lane 2 of eth5's module, falling over 6 minutes
    warn = alarm = None
    for s in netdev_series(nd, "rdma_netdev_module_threshold", "eth5"):
        if s.labels.get("quantity") == "rx_power_watts":
            warn = s.vals[0] if s.labels.get("level") == "low_warning" else warn
            alarm = s.vals[0] if s.labels.get("level") == "low_alarm" else alarm
    low = (warn + alarm) / 2  # below the warning threshold, above the alarm
    for s in netdev_series(nd, "rdma_netdev_module_lane_rx_power_watts", "eth5"):
        if s.labels.get("lane") == "2":
            v0 = s.vals[0]
            s.vals = [v0 if m < E else max(low, v0 - (v0 - low) * (m - E + 1) / 6) for m in range(f.T)]
    return {nd.idx}


def fec_ber_rising(f, nd, netdev):
    """The pre-FEC BER of netdev doubling every minute from 1e-6 at E to 5e-5
    (RDMAPreFECBERHigh: 1e-5), FEC still correcting every bit."""
    bits = netdev_series(nd, "rdma_netdev_phy_bit_count_received_total", netdev)[0]
    for s in netdev_series(nd, "rdma_netdev_fec_corrected_bit_errors_total", netdev):
        c, out = s.vals[0], [s.vals[0]]
        for m in range(1, f.T):
            if m < E:
                c += s.vals[m] - s.vals[m - 1]  # its healthy rate
            else:
                c += int(min(5e-5, 1e-6 * 2 ** (m - E)) * (bits.vals[m] - bits.vals[m - 1]))
            out.append(c)
        s.vals = out


def sc_pre_fec_ber(f):
    nd = f.nodes[11]
    fec_ber_rising(f, nd, "eth2")
    return {nd.idx}


def sc_fec_uncorrectable(f):
    nd = f.nodes[13]
    fec_ber_rising(f, nd, "eth4")
    # 10 minutes later FEC gives up on 2 blocks a second; each is a frame the
    # MAC drops with a bad FCS (mlx5 rx_crc_errors_phy)
    for name in ("rdma_netdev_fec_uncorrectable_blocks_total", "rdma_netdev_crc_errors_total"):
        for s in netdev_series(nd, name, "eth4"):
            s.vals = [s.vals[0] + max(0, m - E - 10) * 120 for m in range(f.T)]
    return {nd.idx}


def sc_counter_saturated(f):
    nd = f.nodes[10]  # InfiniBand, mlx5_2 port 1: PortXmitWait (32 bits) at 50,000 ticks/s
    per_min = 50_000 * MINUTE  # below RDMAPortTransmitWait's floor: no congestion alert
    for s in nd.by_name.get("rdma_port_transmit_wait_ticks_total", []):
        if s.labels.get("device") == "mlx5_2":
            s.vals = [U32_MAX - per_min * max(0, E - m) for m in range(f.T)]  # at its maximum from E on
            # the exporter's series exists only while the counter is at its maximum
            sat = f._add(nd, "rdma_port_statistic_saturated", dict(device="mlx5_2", port="1",
                                                                counter="port_xmit_wait"), 1, False)
            sat.vals = [None if m < E else 1 for m in range(f.T)]
    return {nd.idx}


def sc_flap_between_polls(f):
    # issue 33: an InfiniBand port (node 12, mlx5_4) down and up three times, each
    # shorter than a poll: rdma_port_state reads ACTIVE at every poll and
    # link_downed does not move (the SM took the logical state down); only the
    # events collector's transitions to DOWN count the flaps
    nd = f.nodes[12]
    for s in nd.by_name.get("rdma_port_state_changes_total", []):
        if s.labels.get("device") == "mlx5_4" and s.labels.get("state") in ("DOWN", "ACTIVE"):
            s.vals = [s.vals[0] + sum(1 for k in range(3) if m >= E + 1 + 10 * k) for m in range(f.T)]
    return {nd.idx}


def sc_devlink_fw_fatal(f):
    nd = f.nodes[14]  # issue 33: mlx5_1's firmware dies at E and is not recovered
    for name in ("rdma_devlink_health_state", "rdma_devlink_health_errors_total"):
        for s in nd.by_name.get(name, []):
            if s.labels.get("device") == "mlx5_1" and s.labels.get("reporter") == "fw_fatal":
                s.vals = [1 if m >= E else 0 for m in range(f.T)]
    return {nd.idx}


SCENARIOS = [
    ("symbol_errors", "one port's symbol errors rising", "static", "1", sc_symbol_errors),
    ("trained_down", "one 400G port trained down to 100G (others 400G and 200G)", "static", "1",
     sc_trained_down),
    ("healthy_mixed", "healthy mixed 200G/400G fleet", "static", "0", sc_healthy),
    ("reboot_5m", "node reboot, 5 minutes", "static", "0", sc_reboot),
    ("node_down_1h", "node down for an hour", "static", "1,noprobe", sc_node_down, E + 75),
    ("drained", "node drained or cordoned", "servicemonitor", "0", sc_drained),
    ("leaf_switch", "leaf switch fails (every port behind it down)", "static", "1", sc_leaf),
    ("job_crash", "a job crashes: QPs in error on 512 nodes at once", "static", "<=1", sc_job_crash),
    ("pfc_storm", "PFC storm: one NIC sends pauses, its neighbours receive them", "static", "1,sender",
     sc_pfc_storm),
    ("devices_gone_sm", "every RDMA device of a node gone, under ServiceMonitor labels", "servicemonitor",
     "1", sc_devices_gone),
    ("port_flapping", "a port flapping 6 times in an hour", "static", "1", sc_flapping, E + 70),
    ("scrape_fail_10pct", "exporter scrape failing on 10% of nodes", "static", "1", sc_scrape_fail),
    # issue 32: one run ("physical"), one node each, ServiceMonitor target labels (the
    # alerts must name the node by its node label, not the pod's IP)
    ("pcie_degraded", "one HCA's PCIe link trained down from Gen5 x16 to Gen4 x8", "servicemonitor",
     "1,alerts=RDMAPCIeLinkDegraded", sc_pcie_degraded, MINUTES, "physical"),
    ("rx_power_low", "one transceiver lane's receive power falling below its low warning threshold", "servicemonitor",
     "1,alerts=RDMATransceiverRxPowerLow", sc_rx_power_low, MINUTES, "physical"),
    ("pre_fec_ber", "one port's pre-FEC BER rising to 5e-5, FEC still correcting", "servicemonitor",
     "1,alerts=RDMAPreFECBERHigh", sc_pre_fec_ber, MINUTES, "physical"),
    ("fec_uncorrectable", "pre-FEC BER rising, then uncorrectable FEC blocks (and CRC errors) on the same port",
     "servicemonitor", "1,alerts=RDMAPreFECBERHigh|RDMAFECUncorrectableBlocks|RDMANetdevPhysicalErrors",
     sc_fec_uncorrectable, MINUTES, "physical"),
    ("counter_saturated", "a 32-bit port_xmit_wait stuck at 2^32-1 on one port", "servicemonitor",
     "1,alerts=RDMAPortCounterSaturated", sc_counter_saturated, MINUTES, "physical"),
    # issue 33: the events collector's flaps shorter than a poll, one page for the port
    ("flap_between_polls", "an IB port down and up three times between polls (port state ACTIVE at every poll)",
     "servicemonitor", "1,alerts=RDMAPortFlapping", sc_flap_between_polls, MINUTES, "physical"),
    ("devlink_fw_fatal", "one HCA's fw_fatal devlink health reporter in error (firmware dead, not recovered)",
     "servicemonitor", "1,alerts=RDMADevlinkHealthError", sc_devlink_fw_fatal,
     MINUTES, "physical"),
]


# ---- Alertmanager ------------------------------------------------------------------------
MATCHER = re.compile(r'^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"?(.*?)"?\s*$')


def parse_matchers(route, key_new, key_eq, key_re):
    out = []
    for m in route.get(key_new, []) or []:
        g = MATCHER.match(m)
        out.append((g.group(1), g.group(2), g.group(3)))
    for k, v in (route.get(key_eq) or {}).items():
        out.append((k, "=", v))
    for k, v in (route.get(key_re) or {}).items():
        out.append((k, "=~", v))
    return out


def matches(ms, labels):
    for name, op, val in ms:
        v = labels.get(name, "")
        if op == "=" and v != val or op == "!=" and v == val:
            return False
        if op == "=~" and not re.fullmatch(val, v) or op == "!~" and re.fullmatch(val, v):
            return False
    return True


class Alertmanager:
    def __init__(self, path):
        with open(path) as fh:
            self.cfg = yaml.safe_load(fh)
        self.notifiers = {r["name"] for r in self.cfg.get("receivers", [])
                          if any(k.endswith("_configs") and r[k] for k in r)}
        self.inhibit = [(parse_matchers(r, "source_matchers", "source_match", "source_match_re"),
                         parse_matchers(r, "target_matchers", "target_match", "target_match_re"),
                         r.get("equal", [])) for r in self.cfg.get("inhibit_rules", [])]

    def route(self, labels):
        """(route path, receiver, group_by) of the route an alert lands on."""
        def walk(r, path, recv, gb):
            recv = r.get("receiver", recv)
            gb = r.get("group_by", gb)
            for i, c in enumerate(r.get("routes", []) or []):
                if matches(parse_matchers(c, "matchers", "match", "match_re"), labels):
                    res = walk(c, path + (i,), recv, gb)
                    if not c.get("continue"):
                        return res
            return path, recv, gb
        return walk(self.cfg["route"], (), None, [])

    def sources(self, firing):
        """Per inhibit rule, the `equal` label values of its firing sources."""
        out = []
        for src, tgt, equal in self.inhibit:
            keys = {}
            for s in firing:
                if matches(src, s):
                    keys.setdefault(tuple(s.get(e, "") for e in equal), []).append(s)
            out.append(keys)
        return out

    def muted(self, alert, sources):
        # as Alertmanager: an alert does not inhibit itself
        for (src, tgt, equal), keys in zip(self.inhibit, sources):
            if matches(tgt, alert):
                hit = keys.get(tuple(alert.get(e, "") for e in equal), ())
                if any(s is not alert for s in hit):
                    return True
        return False


# ---- Prometheus ----------------------------------------------------------------------------
def parse_duration(s):
    if not s:
        return 0
    total = 0
    for num, unit in re.findall(r"(\d+)(ms|s|m|h|d|w|y)", s):
        total += int(num) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800,
                             "y": 31536000}[unit]
    return total


class Prometheus:
    def __init__(self, tsdb, tmp):
        self.tsdb, self.tmp, self.p = tsdb, tmp, None

    def start(self):
        cfg = os.path.join(self.tmp, "prometheus.yml")
        with open(cfg, "w") as fh:
            fh.write("global:\n  scrape_interval: 1m\n  evaluation_interval: 1m\n")
        for _ in range(5):
            self.port = free_port()
            self.log = open(os.path.join(self.tmp, "prometheus.log"), "w")
            self.p = subprocess.Popen(["prometheus", f"--config.file={cfg}",
                                       f"--storage.tsdb.path={self.tsdb}",
                                       f"--web.listen-address=127.0.0.1:{self.port}",
                                       "--storage.tsdb.retention.time=30d", "--log.level=warn"],
                                      stdout=self.log, stderr=subprocess.STDOUT)
            for _ in range(300):
                time.sleep(0.1)
                if self.p.poll() is not None:
                    break
                try:
                    # ours, not another scenario's that took the port first
                    flags = http_json(f"http://127.0.0.1:{self.port}/api/v1/status/flags", timeout=1)
                    if flags["data"].get("storage.tsdb.path") != self.tsdb:
                        break
                    with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1):
                        return
                except (OSError, ValueError, KeyError):
                    pass
            self.stop()
        with open(os.path.join(self.tmp, "prometheus.log")) as fh:
            sys.exit("fleet: prometheus did not start:\n" + fh.read()[-2000:])

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.p = None

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def query(self, path, **params):
        r = http_json(f"{self.url()}/api/v1/{path}?" + urllib.parse.urlencode(params), timeout=120)
        if r.get("status") != "success":
            raise RuntimeError(f"{path} {params}: {r}")
        return r["data"]


def load_rules(rules_dir):
    groups = []
    for f in sorted(os.listdir(rules_dir)):
        if f.endswith(".rules.yml"):
            with open(os.path.join(rules_dir, f)) as fh:
                for g in yaml.safe_load(fh)["groups"]:
                    groups.append(g)
    return groups


def record_levels(groups):
    """Recording rules in levels: a rule after every recording rule it reads."""
    recs = [(g, r) for g in groups for r in g["rules"] if "record" in r]
    names = {r["record"] for _, r in recs}
    level = {n: 0 for n in names}
    for _ in range(len(recs) + 1):
        changed = False
        for _, r in recs:
            deps = monlib.metric_names(r["expr"]) & names - {r["record"]}
            lv = 1 + max((level[d] for d in deps), default=-1) if deps else 0
            if lv > level[r["record"]]:
                level[r["record"]] = lv
                changed = True
        if not changed:
            break
    out = {}
    for g, r in recs:
        out.setdefault(level[r["record"]], []).append((g, r))
    return [out[k] for k in sorted(out)]


def backfill_rules(prom, groups, tmp, start, end):
    for i, lvl in enumerate(record_levels(groups)):
        by_group = {}
        for g, r in lvl:
            by_group.setdefault((g["name"], g.get("interval", "1m")), []).append(r)
        rf = os.path.join(tmp, f"level{i}.rules.yml")
        with open(rf, "w") as fh:
            yaml.safe_dump({"groups": [{"name": n, "interval": iv, "rules": rs}
                                       for (n, iv), rs in by_group.items()]}, fh)
        out = os.path.join(tmp, f"level{i}")
        r = subprocess.run(["promtool", "tsdb", "create-blocks-from", "rules", f"--start={int(start)}",
                            f"--end={int(end)}", f"--url={prom.url()}", f"--output-dir={out}",
                            "--eval-interval=1m", rf], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"fleet: promtool create-blocks-from rules (level {i}): {r.stdout}{r.stderr}")
        lap(f"level {i}: {len(lvl)} recording rules")
        prom.stop()
        for b in os.listdir(out):
            if os.path.isdir(os.path.join(out, b)) and b != "wal":
                shutil.move(os.path.join(out, b), os.path.join(prom.tsdb, b))
        shutil.rmtree(out, ignore_errors=True)
        prom.start()


def firing_alerts(prom, groups, start, end):
    """{step timestamp: [alert labels]} with `for:` applied as Prometheus does."""
    by_t = {}
    for g in groups:
        step = parse_duration(g.get("interval", "1m"))
        for r in g["rules"]:
            if "alert" not in r:
                continue
            hold = parse_duration(r.get("for"))
            data = prom.query("query_range", query=r["expr"], start=start, end=end, step=step)
            for res in data["result"]:
                labels = dict(res["metric"], **(r.get("labels") or {}), alertname=r["alert"])
                labels.pop("__name__", None)
                active_since, prev = None, None
                for ts, _ in res["values"]:
                    ts = float(ts)
                    if prev is None or ts - prev > step + 1:
                        active_since = ts
                    prev = ts
                    if ts - active_since >= hold:
                        by_t.setdefault(ts, []).append(labels)
    return by_t


def notifications(am, by_t):
    """{(route, group key): {"receiver", "alerts": {alertname+labels}}} over the timeline."""
    groups = {}
    for ts in sorted(by_t):
        firing = by_t[ts]
        sources = am.sources(firing)
        for a in firing:
            if am.muted(a, sources):
                continue
            path, recv, gb = am.route(a)
            key = (path, "..." if "..." in gb else tuple((k, a.get(k, "")) for k in gb))
            grp = groups.setdefault(key, {"receiver": recv, "alerts": {}})
            grp["alerts"][tuple(sorted(a.items()))] = a
    return groups


SELECTOR = re.compile(r'(?<![\w:"])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?')


def rule_selectors(groups):
    """{metric: [equality matchers of one selector]}: a series no selector of the rules
    can match is left out (all of a family when one selector has no equality)."""
    out = {}
    for g in groups:
        for r in g["rules"]:
            expr = re.sub(r'"(?:[^"\\]|\\.)*"(?![^{]*\})', '""', r["expr"])
            for m in SELECTOR.finditer(expr):
                eqs = dict(re.findall(r'([a-zA-Z_]\w*)\s*=\s*"([^"]*)"', m.group(2) or ""))
                out.setdefault(m.group(1), []).append(eqs)
    return out


def selected(sel, name, labels):
    alts = sel.get(name) or sel.get(base_name(name))
    if not alts:
        return True
    return any(all(labels.get(k) == v for k, v in eqs.items()) for eqs in alts)


def rules_read(groups):
    names = set()
    for g in groups:
        for r in g["rules"]:
            names |= monlib.metric_names(r["expr"])
    return names


# ---- main ------------------------------------------------------------------------------------
LAP = threading.local()


def lap(what):
    if os.environ.get("FLEET_VERBOSE"):
        now = time.monotonic()
        print(f"   {LAP.name}: {now - LAP.t:6.1f} s {what}", flush=True)
        LAP.t = now


def names_node(a, nd):
    return a.get("instance") == nd.instance or a.get("node") == nd.name


def run_scenarios(args, tmpl, groups, am, scs, tmp):
    """One fleet, one backfill, one evaluation: for one scenario, or for several
    that share a run (scenario field 7), each on nodes of its own (the node
    indexes its timeline returns); their notification groups are told apart by
    the nodes their alerts name. Returns a result per scenario."""
    run = scs[0][6] if len(scs[0]) > 6 else scs[0][0]
    LAP.t, LAP.name = time.monotonic(), run
    labels = scs[0][2]
    if any(sc[2] != labels for sc in scs):
        sys.exit(f"fleet: the scenarios of run {run} need the same target labels")
    minutes = max(sc[5] if len(sc) > 5 else MINUTES for sc in scs)
    f = Fleet(tmpl, args.nodes, minutes, labels, rack_size=args.rack_size, k=args.k)
    try:
        owned = [sc[4](f) for sc in scs]
    except IndexError:
        sys.exit(f"fleet: run {run} needs more nodes than --nodes {args.nodes}")
    if len(scs) > 1 and (not all(owned) or len(set().union(*owned)) < sum(map(len, owned))):
        sys.exit(f"fleet: every scenario of run {run} must return the nodes it touches, its own")
    f.finish()
    lap("fleet built")
    step = MINUTE
    t0 = (int(time.time()) // 7200) * 7200 - 4 * 7200  # 2 h aligned: the same blocks every run
    work = os.path.join(tmp, run)
    os.makedirs(work)
    om = os.path.join(work, "data.om")
    tsdb = os.path.join(work, "tsdb")
    blocks = [0]

    def chunk(path):
        out = os.path.join(work, f"blocks{blocks[0]}")
        r = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", path, out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"fleet: create-blocks-from openmetrics: {r.stdout[-2000:]}{r.stderr[-2000:]}")
        os.makedirs(tsdb, exist_ok=True)
        for b in os.listdir(out):
            if os.path.isdir(os.path.join(out, b)) and b != "wal":
                shutil.move(os.path.join(out, b), os.path.join(tsdb, b))
        shutil.rmtree(out, ignore_errors=True)
        blocks[0] += 1
    samples = f.write_openmetrics(om, t0, step, MINUTE // args.scrape, chunk)
    os.unlink(om)
    prom = Prometheus(tsdb, work)
    lap("write + create-blocks-from openmetrics")
    prom.start()
    try:
        end = t0 + (minutes - 1) * step
        backfill_rules(prom, groups, work, t0, end + 1)
        lap("recording rules backfilled")
        by_t = firing_alerts(prom, groups, t0 + WARMUP * step, end)
        lap("alert rules evaluated")
        cost = rule_cost(prom, groups, end, (minutes - 1) * step) if args.cost else None
    finally:
        prom.stop()
        shutil.rmtree(work, ignore_errors=True)
    grps = notifications(am, by_t)
    if len(scs) == 1:
        per, stray = [grps], []
    else:
        per, stray = [{} for _ in scs], []
        for key, g in grps.items():
            hit = [j for j, own in enumerate(owned)
                   if any(names_node(a, f.nodes[i]) for a in g["alerts"].values() for i in own)]
            for j in hit:
                per[j][key] = g
            if not hit and g["receiver"] in am.notifiers:
                stray.append(g)
    results = []
    for sc, sgrps in zip(scs, per):
        res = judge(sc, f, sgrps, am)
        res["ok"] &= target_labels_kept(f, sgrps, res["notes"])
        for g in stray:
            res["ok"] = False
            res["notes"].append(f"run {run}: a page on a node no scenario touched: "
                                f"{','.join(sorted({a['alertname'] for a in g['alerts'].values()}))} "
                                f"{summarize(next(iter(g['alerts'].values())))}")
        res.update(series=f.series_count(), samples=samples, cost=cost,
                   run=run if len(scs) > 1 else None)
        results.append(res)
    return results


def target_labels_kept(f, grps, notes):
    """Every alert about one of the fleet's exporters keeps its target's topology
    label and names its node (issue 31: `node` means one thing): else it groups
    apart from the node's other alerts and no inhibition by switch or node
    reaches it. Not `cluster`: an external label unless alerts/config.yml names
    it (cluster_label), and aggregations may drop it."""
    nodes = {nd.instance: nd for nd in f.nodes}
    bad = set()
    for g in grps.values():
        for a in g["alerts"].values():
            nd = nodes.get(a.get("instance"))
            if nd and (a.get("switch") != nd.switch or a.get("node") != nd.name):
                bad.add(f"{a['alertname']} {summarize(a)}")
    for b in sorted(bad)[:5]:
        notes.append(f"lost its target's labels (switch or node): {b}")
    return not bad


def judge(sc, f, grps, am):
    """A scenario's notification groups against the pages it must give."""
    name, text, _, want = sc[:4]
    pages = {k: g for k, g in grps.items() if g["receiver"] in am.notifiers}
    got = len(pages)
    paged = {a["alertname"] for g in pages.values() for a in g["alerts"].values()}
    notes = []
    ok = True
    for w in want.split(","):
        if w == "noprobe":
            if any(n.startswith("RDMAProbe") for n in paged):
                ok = False
                notes.append("a probe alert paged")
        elif w == "sender":
            snd = f.pfc_sender
            named = any(a.get("instance") == snd.instance or a.get("node") == snd.name
                        for g in pages.values() for a in g["alerts"].values())
            if not named:
                ok = False
                notes.append(f"no page names the sender {snd.instance}")
        elif w.startswith("alerts="):
            if paged != set(w[7:].split("|")):
                ok = False
                notes.append(f"alerts paged: {', '.join(sorted(paged)) or '-'}, not {w[7:]}")
        elif w.startswith("<="):
            ok &= got <= int(w[2:])
        else:
            ok &= got == int(w)
    return {"name": name, "text": text, "want": want.split(",")[0], "got": got, "ok": ok, "notes": notes,
            "pages": pages, "all_groups": grps}


RANGE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{[^}]*\})?\s*\[(\d+[smhdwy])(?::[^\]]*)?\]')


def rule_cost(prom, groups, at, history):
    """Per rule: samples one evaluation reads (Prometheus's query stats), evaluations
    a minute, the samples scaled to a full day where a window reaches past the
    history written, series in and out (recording rules), and the budget findings."""
    out = []
    for g in groups:
        per_min = 60 / parse_duration(g.get("interval", "1m"))
        for r in g["rules"]:
            name = r.get("alert") or r.get("record")
            d = prom.query("query", query=r["expr"], time=at, stats="all")
            samples = d.get("stats", {}).get("samples", {}).get("totalQueryableSamples", 0)
            longest = max((parse_duration(m.group(2)) for m in RANGE.finditer(r["expr"])), default=0)
            raw_long = sorted({f"{m.group(1)}[{m.group(2)}]" for m in RANGE.finditer(r["expr"])
                               if ":" not in m.group(1) and parse_duration(m.group(2)) > 3600})
            day = samples * (longest / history) if longest > history else samples
            findings = [f"raw range over 1h: {', '.join(raw_long)}"] if raw_long else []
            if re.search(r"histogram_quantile|quantile_over_time", r["expr"]):
                for n in monlib.metric_names(r["expr"]):
                    c = prom.query("query", query=f'count({{__name__="{n}", target!~"|loopback"}})', time=at)
                    if c["result"]:
                        findings.append(f"quantile over per-pair series {n}")
            rin = rout = None
            if "record" in r:
                rout = len(d["result"]) if isinstance(d["result"], list) else 1
                rin = 0
                for n in monlib.metric_names(r["expr"]):
                    c = prom.query("query", query=f'count({{__name__="{n}"}})', time=at)
                    rin += int(float(c["result"][0]["value"][1])) if c["result"] else 0
                if rout >= rin > 0:
                    findings.append(f"NOTE copies its input ({rin} series in, {rout} out)")
            out.append({"rule": name, "samples": samples, "per_min": per_min, "day_scaled": day,
                        "series_in": rin, "series_out": rout, "findings": findings})
    return out


def print_cost(cost, nodes, step):
    tot = sum(c["samples"] * c["per_min"] for c in cost)
    day = sum(c["day_scaled"] * c["per_min"] for c in cost)
    print(f"   cost at {nodes} nodes: {tot:,.0f} samples read per minute by all {len(cost)} rules "
          f"(the exporter's series sampled every {step} s"
          f"{', as the shipped ServiceMonitor scrapes' if step == 15 else ''}); "
          f"windows longer than the history written scaled to a day: {day:,.0f}")
    for c in sorted(cost, key=lambda c: -c["day_scaled"] * c["per_min"])[:12]:
        print(f"   top {c['day_scaled'] * c['per_min']:14,.0f} {c['rule']}")
    for c in cost:
        for fnd in c["findings"]:
            print(f"   {'' if fnd.startswith('NOTE') else 'BUDGET '}{c['rule']}: {fnd}")
    return tot, day


def summarize(a):
    return "{" + ",".join(f"{k}={a[k]}" for k in ("instance", "node", "device", "port", "netdev", "target",
                                                     "switch") if k in a) + "}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default=os.path.normpath(os.path.join(HERE, "..", "..")))
    ap.add_argument("--exporter", help="rdma_exporter binary (series shapes); default ROOT/build/rdma_exporter")
    ap.add_argument("--rules-dir", help="directory of *.rules.yml; default ROOT/alerts")
    ap.add_argument("--alertmanager", help="Alertmanager config; default ROOT/alerts/alertmanager.example.yml")
    ap.add_argument("--nodes", type=int, default=48)
    ap.add_argument("--rack-size", type=int, default=16, help="nodes behind one leaf switch")
    ap.add_argument("--k", type=int, default=64, help="pingmesh: targets each node probes")
    ap.add_argument("--scenario", help="comma-separated names (default: all)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--jobs", type=int, default=2, help="scenarios run at once")
    ap.add_argument("--cost", action="store_true", help="also print each rule's samples per evaluation")
    ap.add_argument("--full", action="store_true", help="every family of the exposition, not just those read")
    ap.add_argument("--target-histograms", action="store_true", help="per-target classic buckets")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--scrape", type=int, default=60, choices=(15, 20, 30, 60),
                    help="seconds between samples of the exporter's series (the shipped ServiceMonitor "
                         "scrapes every 15 s; 60 keeps the scenarios fast)")
    args = ap.parse_args()
    if args.list:
        for s in SCENARIOS:
            print(f"{s[0]:20} {s[3]:10} {s[1]}")
        return 0
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            print(f"fleet: {tool} not installed (scripts/install-deps.sh --test)", file=sys.stderr)
            return 1 if os.environ.get("CI") else 77
    root = args.root
    rules_dir = args.rules_dir or os.path.join(root, "alerts")
    amcfg = args.alertmanager or os.path.join(root, "alerts", "alertmanager.example.yml")
    binary = args.exporter or os.path.join(root, "build", "rdma_exporter")
    groups = load_rules(rules_dir)
    am = Alertmanager(amcfg)
    wanted = rules_read(groups) | INFO_JOINS
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below cleans up
    tmp = tempfile.mkdtemp(prefix="rdma-fleet-")
    try:
        exp = exporter_output(binary, os.path.join(root, "tests", "fixtures", "sysfs", "mlx5-roce"), tmp)
        with open(os.path.join(root, "tests", "monitoring", "fixtures", "synthetic-roce-node.prom")) as fh:
            synth = fh.read()
        tmpl = Templates(exp, synth, wanted, args.full, args.target_histograms, rule_selectors(groups))
        unknown = sorted(n for n in wanted - tmpl.known
                         if n.startswith("rdma_") and ":" not in n and base_name(n) not in tmpl.contract
                         and n not in UNHEALTHY_ONLY)
        if unknown:
            print(f"fleet: the rules read families no template has (left out): {', '.join(unknown)}")
        only = set(args.scenario.split(",")) if args.scenario else None
        started = time.monotonic()
        todo = [sc for sc in SCENARIOS if not only or sc[0] in only]
        runs, shared = [], {}  # scenarios of one run (field 7) share a fleet
        for sc in todo:
            if len(sc) > 6 and sc[6] in shared:
                shared[sc[6]].append(sc)
                continue
            runs.append([sc])
            if len(sc) > 6:
                shared[sc[6]] = runs[-1]

        def one(scs):
            t = time.monotonic()
            res = run_scenarios(args, tmpl, groups, am, scs, tmp)
            for r in res:
                r["seconds"] = round(time.monotonic() - t, 1)
            return res
        # the longest timelines first: the last run to start is a short one
        runs.sort(key=lambda scs: -max(sc[5] if len(sc) > 5 else MINUTES for sc in scs))
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            results = [r for rs in ex.map(one, runs) for r in rs]
        order = {sc[0]: i for i, sc in enumerate(SCENARIOS)}
        results.sort(key=lambda r: order[r["name"]])
        for res in results:
            print(f"== {res['name']}: {res['text']} ({res['series']} series, {res['samples']} samples, "
                  f"{res['seconds']} s{', run ' + res['run'] if res['run'] else ''})", flush=True)
            shown = sorted(res["all_groups"].items(), key=lambda kv: (kv[1]["receiver"] not in am.notifiers,
                                                                      str(kv[0])))
            if len(shown) > 12:
                print(f"   ({len(shown)} notification groups, the first 12:)")
            for key, g in shown[:12]:
                tag = "PAGE" if g["receiver"] in am.notifiers else "    "
                names = sorted({a["alertname"] for a in g["alerts"].values()})
                sample = [summarize(a) for a in list(g["alerts"].values())[:3]]
                print(f"   {tag} {g['receiver']:13} {len(g['alerts']):5} alerts {','.join(names)} "
                      f"e.g. {' '.join(sample)}")
            for n in res["notes"]:
                print(f"   !! {n}")
            if res["cost"]:
                res["cost_total"] = print_cost(res["cost"], args.nodes, args.scrape)
        print()
        print(f"{'scenario':20} {'expected':>8} {'got':>4}  result  alerts paged")
        for r in results:
            names = sorted({a["alertname"] for g in r["pages"].values() for a in g["alerts"].values()})
            print(f"{r['name']:20} {r['want']:>8} {r['got']:>4}  {'ok' if r['ok'] else 'FAIL':6}  "
                  f"{', '.join(names) or '-'}")
        bad = [r["name"] for r in results if not r["ok"]]
        print(f"\n{len(results) - len(bad)}/{len(results)} scenarios give their pages "
              f"({args.nodes} nodes, rules from {rules_dir}, {round(time.monotonic() - started)} s)")
        if args.json:
            with open(args.json, "w") as fh:
                json.dump([{k: r.get(k) for k in ("name", "want", "got", "ok", "series", "samples", "cost",
                                                  "cost_total", "seconds")} for r in results], fh, indent=1)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
