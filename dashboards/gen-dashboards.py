#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# The Grafana dashboards in this directory (rdma-fleet.json, rdma-node.json,
# rdma-pingmesh.json). The JSON files are checked in for import; this module is
# their source, run by scripts/gen-monitoring.py with the configuration in
# alerts/config.yml (one generator for the rules and the dashboards): edit it,
# run that, commit both. ctest monitoring_generated fails if they differ.
#
# Conventions: schemaVersion 39 (Grafana 10.4/11); every panel and query uses
# the datasource variable ${datasource} (no datasource UID is hard-coded); stable
# dashboard UIDs; template variables datasource, job, instance, device, port.
# Panels read the recording rules of alerts/rdma-recording.rules.yml where one
# exists, so the dashboards and the alerts show the same numbers.
import json

DS = {"type": "prometheus", "uid": "${datasource}"}
SCHEMA_VERSION = 39
# alerts/config.yml's selector: the job variable offers only the jobs it matches.
JOB_SELECTOR = ""
# The shares of probers and targets that fire the two aggregate probe alerts (alerts/config.yml).
PEER_UNREACHABLE = 0.5
LOCAL_PORT_SUSPECT = 0.5
# alerts/config.yml's topology_label (switch where empty: rdma_port:topology:info's label).
TOPOLOGY = "switch"
SEL = 'job=~"$job", instance=~"$instance"'


def mean_rtt(sel):
    """The mean RTT per prober port and target, from the raw per-target sum of the
    replies' RTTs and their count of the nodes shown (no recording rule reads them:
    issue 31; in the text exposition at default flags since issue 40, where the
    per-target histogram is not), or where Prometheus scrapes native histograms,
    their recorded mean."""
    by = "sum by (job, instance, device, port, target) "
    return ("%s(rate(rdma_probe_round_trip_seconds_total{%s}[$__rate_interval])) / "
            "%s(rate(rdma_probe_replies_total{%s}[$__rate_interval])) or "
            "rdma_probe:rtt_seconds:mean5m{%s}" % (by, sel, by, sel, sel))


SELD = SEL + ', device=~"$device"'
SELP = SELD + ', port=~"$port"'
# join a netdev family to its RDMA port (and filter by the device and port variables)
TO_PORT = ' * on (job, instance, netdev) group_left (device, port) rdma_port_netdev_info{%s}' % SELP

PORT_STATES = {"0": "NOP", "1": "DOWN", "2": "INIT", "3": "ARMED", "4": "ACTIVE", "5": "ACTIVE_DEFER"}
PHYS_STATES = {"1": "Sleep", "2": "Polling", "3": "Disabled", "4": "Training", "5": "LinkUp",
               "6": "LinkErrorRecovery", "7": "PhyTest"}


def mappings(states, good):
    return [{"type": "value", "options": {
        k: {"text": v, "color": "green" if k == good else "red", "index": i}
        for i, (k, v) in enumerate(states.items())}}]


def target(expr, legend="", ref="A", fmt=None, instant=False):
    t = {"refId": ref, "datasource": DS, "editorMode": "code", "expr": expr,
         "legendFormat": legend, "range": not instant, "instant": instant}
    if fmt:
        t["format"] = fmt
    return t


def thresholds(*steps):
    """steps: (value or None, color)..."""
    return {"mode": "absolute", "steps": [{"value": v, "color": c} for v, c in steps]}


class Dashboard:
    def __init__(self, uid, title, description, instance_multi=True, extra_vars=()):
        self.uid, self.title, self.description = uid, title, description
        self.panels = []
        self.next_id = 1
        self.x = self.y = 0
        self.row_h = 0
        self.instance_multi = instance_multi
        self.extra_vars = list(extra_vars)

    # ---- layout ---------------------------------------------------------------------
    def _place(self, w, h):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        pos = {"h": h, "w": w, "x": self.x, "y": self.y}
        self.x += w
        self.row_h = max(self.row_h, h)
        return pos

    def row(self, title):
        if self.x:
            self.x, self.y = 0, self.y + self.row_h
        self.panels.append({"type": "row", "id": self.next_id, "title": title, "collapsed": False,
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}, "panels": []})
        self.next_id += 1
        self.y += 1
        self.row_h = 0

    def _panel(self, kind, title, description, targets, w, h, field_defaults=None,
               options=None, overrides=None, transformations=None):
        p = {"type": kind, "id": self.next_id, "title": title, "description": description,
             "datasource": DS, "gridPos": self._place(w, h), "targets": targets,
             "fieldConfig": {"defaults": field_defaults or {}, "overrides": overrides or []},
             "options": options or {}}
        if transformations:
            p["transformations"] = transformations
        self.next_id += 1
        self.panels.append(p)
        return p

    # ---- panel kinds ----------------------------------------------------------------
    def timeseries(self, title, description, targets, unit="short", w=12, h=8, min_=0,
                   stack=False, overrides=None):
        d = {"unit": unit, "custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10,
                                      "showPoints": "never", "spanNulls": False,
                                      "stacking": {"mode": "normal" if stack else "none",
                                                   "group": "A"}}}
        if min_ is not None:
            d["min"] = min_
        return self._panel("timeseries", title, description, targets, w, h, d,
                           {"legend": {"displayMode": "table", "placement": "bottom",
                                       "showLegend": True, "calcs": ["mean", "max", "lastNotNull"]},
                            "tooltip": {"mode": "multi", "sort": "desc"}}, overrides)

    def stat(self, title, description, targets, unit="short", w=6, h=4, steps=None, maps=None):
        d = {"unit": unit, "thresholds": thresholds(*(steps or [(None, "green")])),
             "color": {"mode": "thresholds"}}
        if maps:
            d["mappings"] = maps
        return self._panel("stat", title, description, targets, w, h, d,
                           {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                            "colorMode": "background", "graphMode": "none", "textMode": "auto",
                            "orientation": "auto", "justifyMode": "auto"})

    def table(self, title, description, targets, unit="short", w=12, h=8, steps=None,
              maps=None, sort="Value", desc=True, hide=("Time", "__name__"), links=None,
              transformations=None, cell="color-background"):
        d = {"unit": unit, "custom": {"align": "auto", "cellOptions": {"type": cell}},
             "thresholds": thresholds(*(steps or [(None, "green")])), "color": {"mode": "thresholds"}}
        if maps:
            d["mappings"] = maps
        if links:
            d["links"] = links
        tr = [{"id": "organize", "options": {"excludeByName": {k: True for k in hide},
                                             "renameByName": {"Value": "value"}}}]
        if transformations:
            tr = transformations
        return self._panel("table", title, description, targets, w, h, d,
                           {"showHeader": True, "cellHeight": "sm",
                            "sortBy": [] if sort is None else
                            [{"displayName": "value" if sort == "Value" else sort, "desc": desc}]},
                           transformations=tr)

    def bargauge(self, title, description, targets, unit="percentunit", w=12, h=8, max_=1,
                 steps=None):
        d = {"unit": unit, "min": 0, "max": max_,
             "thresholds": thresholds(*(steps or [(None, "green")])), "color": {"mode": "thresholds"}}
        return self._panel("bargauge", title, description, targets, w, h, d,
                           {"displayMode": "gradient", "orientation": "horizontal", "showUnfilled": True,
                            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}})

    def heatmap(self, title, description, targets, w=12, h=8):
        return self._panel("heatmap", title, description, targets, w, h, {},
                           {"calculate": False, "cellGap": 1, "yAxis": {"unit": "s", "axisPlacement": "left"},
                            "color": {"mode": "scheme", "scheme": "Spectral", "steps": 64,
                                      "exponent": 0.5, "fill": "dark-orange", "reverse": True},
                            "rowsFrame": {"layout": "auto"}, "cellValues": {"unit": "short"},
                            "tooltip": {"show": True, "yHistogram": True},
                            "legend": {"show": True}, "exemplars": {"color": "rgba(255,0,255,0.7)"},
                            "filterValues": {"le": 1e-9}})

    # ---- the whole dashboard --------------------------------------------------------
    def variables(self):
        def qvar(name, label, query, multi=True, include_all=True):
            v = {"name": name, "label": label, "type": "query", "datasource": DS,
                 "definition": query,
                 "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
                 "refresh": 2, "regex": "", "sort": 1, "multi": multi, "includeAll": include_all,
                 "current": {}, "options": [], "hide": 0}
            if include_all:
                v["allValue"] = ".*"
            return v
        vs = [{"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
               "refresh": 1, "regex": "", "current": {}, "options": [], "hide": 0},
              qvar("job", "Job", "label_values(rdma_exporter_build_info{%s}, job)" % JOB_SELECTOR),
              qvar("instance", "Instance", 'label_values(rdma_exporter_build_info{job=~"$job"}, instance)',
                   multi=self.instance_multi, include_all=self.instance_multi),
              qvar("device", "Device", "label_values(rdma_port_info{%s}, device)" % SEL),
              qvar("port", "Port", "label_values(rdma_port_info{%s}, port)" % SELD)]
        for name, label, query in self.extra_vars:
            vs.append(qvar(name, label, query))
        return vs

    def json(self):
        return {
            "uid": self.uid, "title": self.title, "description": self.description,
            "tags": ["rdma", "rdma_exporter"], "editable": True, "graphTooltip": 1,
            "schemaVersion": SCHEMA_VERSION, "version": 1, "timezone": "", "refresh": "30s",
            "time": {"from": "now-6h", "to": "now"}, "timepicker": {}, "fiscalYearStartMonth": 0,
            "liveNow": False, "weekStart": "",
            "annotations": {"list": [{
                "name": "RDMA alerts", "datasource": DS, "enable": True, "hide": False,
                "iconColor": "red", "step": "60s", "titleFormat": "{{alertname}}",
                "textFormat": "{{instance}} {{device}} {{port}} {{netdev}} {{target}}",
                "expr": 'ALERTS{alertname=~"RDMA.*", alertstate="firing", %s}' % SEL,
                "useValueForTime": False}]},
            "links": [{"title": "RDMA dashboards", "type": "dashboards", "tags": ["rdma"],
                       "asDropdown": True, "includeVars": True, "keepTime": True, "icon": "external link",
                       "targetBlank": False, "tooltip": "", "url": ""}],
            "templating": {"list": self.variables()},
            "panels": self.panels,
        }


NODE_LINK = [{"title": "Node / port detail",
              "url": "/d/rdma-node/rdma-node-port-detail?${datasource:queryparam}&var-job=${__data.fields.job}"
                     "&var-instance=${__data.fields.instance}"}]


# ============================================================================ fleet
def fleet():
    d = Dashboard("rdma-fleet", "RDMA / Fleet overview",
                  "Every RDMA port of the fleet: states, the worst error, pause and probe numbers first.")
    d.row("Ports")
    d.stat("Ports ACTIVE", "Ports with rdma_port_state 4 (ACTIVE).",
           [target("count(rdma_port_state{%s} == 4) or vector(0)" % SELP, instant=True)])
    d.stat("Ports not up", "Ports not ACTIVE or not LinkUp (the condition of RDMADeviceDown).",
           [target("count(rdma_port_state{%s} != 4 or rdma_port_phys_state{%s} != 5) or vector(0)"
                   % (SELP, SELP), instant=True)],
           steps=[(None, "green"), (1, "red")])
    d.stat("Exporters up", "Share of rdma_exporter targets Prometheus scrapes successfully.",
           [target('avg(up{job=~"$job", instance=~"$instance"})', instant=True)], unit="percentunit",
           steps=[(None, "red"), (0.99, "green")])
    d.stat("RDMA alerts firing", "Alerts of alerts/rdma-alerts.rules.yml firing now.",
           [target('count(ALERTS{alertname=~"RDMA.*", alertstate="firing", %s}) or vector(0)' % SEL,
                   instant=True)], steps=[(None, "green"), (1, "red")])
    d.bargauge("Ports by state", "Number of ports in each IB port state (4 ACTIVE; 1 DOWN, 2 INIT, 3 ARMED).",
               [target('count_values("state", rdma_port_state{%s})' % SELP, legend="state {{state}}",
                       instant=True)],
               unit="short", max_=None, w=8)
    d.table("Ports not up, worst first", "Ports whose state is not ACTIVE or whose physical state "
            "is not LinkUp; value is the state (rdma_port_state, or rdma_port_phys_state where the "
            "state is ACTIVE).",
            [target("sort(rdma_port_state{%s} != 4 or rdma_port_phys_state{%s} != 5)" % (SELP, SELP),
                    fmt="table", instant=True)], w=16, sort="value", desc=False,
            steps=[(None, "red")], links=NODE_LINK)
    d.table("Ports ACTIVE per switch, worst first", "Share of the ports behind each %s that are "
            "ACTIVE (rdma_port:topology:info: the target's %s label, else the system name of the "
            "port's LLDP neighbour, lldp collector; RDMALeafSwitchDown fires when most of a "
            "switch's ports in use are down)." % (TOPOLOGY, TOPOLOGY),
            [target("sort(count by (%s) (rdma_port:topology:info{%s} and on (job, instance, device, "
                    "port) rdma_port_state == 4) / count by (%s) (rdma_port:topology:info{%s}))"
                    % (TOPOLOGY, SELP, TOPOLOGY, SELP), fmt="table", instant=True)],
            unit="percentunit", w=8, sort="value", desc=False,
            steps=[(None, "red"), (0.5, "orange"), (1, "green")])

    d.row("Errors and pauses, worst first")
    d.table("Ports with the most errors", "Link and receive errors per second (rdma_port:errors_all:rate5m).",
            [target("topk(10, rdma_port:errors_all:rate5m{%s})" % SELP, fmt="table", instant=True)],
            unit="short", steps=[(None, "green"), (0.01, "yellow"), (1, "red")], links=NODE_LINK)
    d.table("Ports with the most RoCE transport events",
            "Sequence errors, timeouts, retransmissions, RNR and out-of-buffer drops per second, summed.",
            [target('topk(10, sum by (job, instance, device, port) '
                    '(rdma_port:roce_events:rate5m{%s, counter!~"cnp_.*|ecn_.*"}))' % SELP,
                    fmt="table", instant=True)],
            steps=[(None, "green"), (1, "yellow"), (10, "red")], links=NODE_LINK)
    d.table("Priorities paused the longest", "Share of wall time paused per netdev, direction and priority.",
            [target("topk(10, rdma_netdev:priority_pause_ratio:rate5m{%s})" % SEL, fmt="table",
                    instant=True)], unit="percentunit",
            steps=[(None, "green"), (0.05, "yellow"), (0.2, "red")], links=NODE_LINK)
    d.table("Ports with the most CNPs", "Congestion notification packets handled (this port's flows are "
            "slowed) or sent (this port is congested) per second.",
            [target('topk(10, rdma_port:roce_events:rate5m{%s, counter=~"cnp_packets_handled|cnp_packets_sent"})'
                    % SELP, fmt="table", instant=True)],
            steps=[(None, "green"), (1000, "yellow")], links=NODE_LINK)
    d.timeseries("Errors per second by instance", "rdma_port:errors_all:rate5m summed per instance.",
                 [target("sum by (instance) (rdma_port:errors_all:rate5m{%s})" % SELP, "{{instance}}")])
    d.timeseries("Longest pause share by instance", "The most paused priority of each instance.",
                 [target("max by (instance) (rdma_netdev:priority_pause_ratio:rate5m{%s})" % SEL,
                         "{{instance}}")], unit="percentunit")
    d.timeseries("Throughput by instance", "Bits per second, received and transmitted, over all ports.",
                 [target('8 * sum by (instance) (rate(rdma_port_data_received_bytes_total{%s}[$__rate_interval]))' % SELP,
                         "{{instance}} rx"),
                  target('8 * sum by (instance) (rate(rdma_port_data_transmitted_bytes_total{%s}[$__rate_interval]))' % SELP,
                         "{{instance}} tx", ref="B")], unit="bps")
    d.timeseries("Link flaps by instance", "rdma_port_link_downed_total increases in the last hour.",
                 [target("sum by (instance) (increase(rdma_port_link_downed_total{%s}[1h]))" % SELP,
                         "{{instance}}")])

    d.row("Probes, worst first")
    d.table("Slowest probing ports (p99)", "p99 probe RTT per prober port, over all its remote targets, "
            "over 5m (rdma_probe_port:rtt_seconds:p99_5m, as RDMAHighLatency).",
            [target("topk(10, rdma_probe_port:rtt_seconds:p99_5m{%s})" % SELP, fmt="table", instant=True)],
            unit="s", steps=[(None, "green"), (0.0001, "yellow"), (0.001, "red")], links=NODE_LINK)
    d.table("Lossiest probe paths", "Share of probes that timed out per prober port and target over 5m.",
            [target("topk(10, rdma_probe:loss:ratio_rate5m{%s})" % SELP, fmt="table", instant=True)],
            unit="percentunit", steps=[(None, "green"), (0.001, "yellow"), (0.02, "red")], links=NODE_LINK)
    d.timeseries("Worst p99 probe RTT by instance", "The slowest local port of each prober.",
                 [target("max by (instance) (rdma_probe_port:rtt_seconds:p99_5m{%s})" % SELP, "{{instance}}")],
                 unit="s")
    d.stat("Unreachable probe targets", "Targets that most of their probers fail to reach "
           "(rdma_probe_target:probers_failing:ratio5m, as RDMAProbePeerUnreachable), of those the "
           "selected instances probe.",
           [target('count(rdma_probe_target:probers_failing:ratio5m{job=~"$job"} > %s and on (job, target) '
                   "rdma_probe_pair:failing:bool5m{%s}) or vector(0)" % (PEER_UNREACHABLE, SEL), instant=True)],
           steps=[(None, "green"), (1, "red")], w=6)
    d.stat("Probers with a suspect port", "Probers that fail to reach most of their targets "
           "(rdma_probe_prober:targets_failing:ratio5m, as RDMAProbeLocalPortSuspect).",
           [target("count(rdma_probe_prober:targets_failing:ratio5m{%s} > %s) or vector(0)"
                   % (SEL, LOCAL_PORT_SUSPECT), instant=True)],
           steps=[(None, "green"), (1, "red")], w=6)
    d.stat("Probe targets", "Targets loaded from the targets files, summed over exporters.",
           [target("sum(rdma_probe_targets{%s})" % SEL, instant=True)], w=6)

    d.row("Exporters")
    d.table("Collectors, failing first", "rdma_exporter_collector_success per exporter and collector.",
            [target("sort(rdma_exporter_collector_success{%s})" % SEL, fmt="table", instant=True)],
            sort="value", desc=False, steps=[(None, "red"), (1, "green")], links=NODE_LINK)
    d.table("Snapshot age, oldest first", "Seconds since each exporter's last poll started.",
            [target("sort_desc(time() - rdma_exporter_last_poll_timestamp_seconds{%s})" % SEL,
                    fmt="table", instant=True)], unit="s",
            steps=[(None, "green"), (60, "red")], links=NODE_LINK)
    d.timeseries("Values skipped per poll", "rdma_exporter:read_errors_per_poll:rate5m.",
                 [target("rdma_exporter:read_errors_per_poll:rate5m{%s}" % SEL, "{{instance}} {{collector}}")])
    d.table("Versions", "Exporters per version.",
            [target("count by (version, revision) (rdma_exporter_build_info{%s})" % SEL, fmt="table",
                    instant=True)], cell="auto")
    return d


# ============================================================================ node
def node():
    d = Dashboard("rdma-node", "RDMA / Node and port detail",
                  "One node's RDMA ports: state, throughput, errors, the physical layer (PCIe, optics, FEC, BER), "
                  "RoCE transport, PFC per priority, "
                  "resources and probe latency.", instance_multi=False)
    d.row("Ports")
    d.stat("Port state", "rdma_port_state per port.",
           [target("rdma_port_state{%s}" % SELP, "{{device}}/{{port}}", instant=True)],
           maps=mappings(PORT_STATES, "4"), w=6)
    d.stat("Physical state", "rdma_port_phys_state per port.",
           [target("rdma_port_phys_state{%s}" % SELP, "{{device}}/{{port}}", instant=True)],
           maps=mappings(PHYS_STATES, "5"), w=6)
    d.stat("Link rate", "rdma_port_rate_bytes_per_second in bits per second (RDMAPortRateDegraded "
           "fires when it drops below the day's highest).",
           [target("8 * rdma_port_rate_bytes_per_second{%s}" % SELP, "{{device}}/{{port}}", instant=True)],
           unit="bps", w=6)
    d.stat("Link flaps (24h)", "Transitions to DOWN over the last day: the events collector's "
           "rdma_port_state_changes_total (flaps shorter than a poll included), or "
           "rdma_port_link_downed_total increases where it is off.",
           [target("max without (state) (increase(rdma_port_state_changes_total{%s, state=\"DOWN\"}[1d])) "
                   "or increase(rdma_port_link_downed_total{%s}[1d])" % (SELP, SELP), "{{device}}/{{port}}",
                   instant=True)], steps=[(None, "green"), (1, "red")], w=6)
    d.table("Devices", "rdma_device_info: firmware, board, driver.",
            [target("rdma_device_info{%s}" % SELD, fmt="table", instant=True)],
            hide=("Time", "__name__", "Value", "job"), cell="auto", sort="device", desc=False)
    d.table("Ports and netdevs", "rdma_port_info joined with rdma_port_netdev_info.",
            [target("rdma_port_info{%s} * on (job, instance, device, port) group_left (netdev) "
                    "rdma_port_netdev_info{%s}" % (SELP, SELP), fmt="table", instant=True)],
            hide=("Time", "__name__", "Value", "job"), cell="auto", sort="device", desc=False)
    d.table("Neighbours (LLDP)", "The switch and switch port at the other end of each RoCE port's "
            "cable, from the LLDP frames its netdev hears (rdma_port_neighbor_info; lldp collector, "
            "off by default; gone when the frame's TTL runs out).",
            [target("rdma_port_neighbor_info{%s}" % SELP, fmt="table", instant=True)],
            hide=("Time", "__name__", "Value", "job"), cell="auto", sort="device", desc=False, w=24)

    d.row("Throughput")
    d.timeseries("Data, bits per second", "Received (up) and transmitted (down) data.",
                 [target("8 * rate(rdma_port_data_received_bytes_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} rx"),
                  target("-8 * rate(rdma_port_data_transmitted_bytes_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} tx", ref="B")], unit="bps", min_=None)
    d.timeseries("Packets per second", "Received (up) and transmitted (down) packets.",
                 [target("rate(rdma_port_packets_received_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} rx"),
                  target("-rate(rdma_port_packets_transmitted_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} tx", ref="B")], unit="pps", min_=None)
    d.timeseries("Link utilisation", "Data rate over the link rate, each direction.",
                 [target("rate(rdma_port_data_received_bytes_total{%s}[$__rate_interval]) / on (job, instance, "
                         "device, port) rdma_port_rate_bytes_per_second{%s}" % (SELP, SELP),
                         "{{device}}/{{port}} rx"),
                  target("rate(rdma_port_data_transmitted_bytes_total{%s}[$__rate_interval]) / on (job, "
                         "instance, device, port) rdma_port_rate_bytes_per_second{%s}" % (SELP, SELP),
                         "{{device}}/{{port}} tx", ref="B")], unit="percentunit")
    d.timeseries("Transmit wait", "Ticks the port had data to send but no credits (congestion "
                 "downstream), per second.",
                 [target("rate(rdma_port_transmit_wait_ticks_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}}")])

    d.row("Errors")
    d.timeseries("Port errors by counter", "rdma_port:errors:rate5m: symbol, link integrity, recovery, "
                 "receive, ICRC errors and buffer overruns per second.",
                 [target("rdma_port:errors:rate5m{%s}" % SELP, "{{device}}/{{port}} {{counter}}")])
    d.timeseries("Discards", "Packets discarded per second, transmit and receive.",
                 [target("rate(rdma_port_discards_transmitted_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} tx"),
                  target("rate(rdma_port_discards_received_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} rx", ref="B")])
    d.timeseries("NIC errors and drops", "The RoCE netdev's CRC and symbol errors, discards and "
                 "out-of-buffer drops per second (ethtool collector).",
                 [target("rdma_netdev:errors:rate5m{%s}%s" % (SEL, TO_PORT),
                         "{{netdev}} {{counter}} {{direction}}")])
    d.timeseries("CQE errors", "Work completions in error per second, requester and responder.",
                 [target("rate(rdma_port_requester_cqe_errors_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} requester"),
                  target("rate(rdma_port_responder_cqe_errors_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} responder", ref="B")])

    d.row("Physical layer")
    d.timeseries("PCIe link speed", "Each RDMA device's PCIe link speed against the device's maximum, "
                 "in GT/s (RDMAPCIeLinkDegraded fires when it runs below both the device's and its slot's "
                 "maximum).",
                 [target("rdma_device_pcie_link_speed_transfers_per_second{%s} / 1e9" % SELD, "{{device}}"),
                  target("rdma_device_pcie_link_max_speed_transfers_per_second{%s} / 1e9" % SELD,
                         "{{device}} max", ref="B")], w=8)
    d.timeseries("PCIe link width", "Lanes each RDMA device's PCIe link trained at, against the "
                 "device's maximum.",
                 [target("rdma_device_pcie_link_width{%s}" % SELD, "{{device}}"),
                  target("rdma_device_pcie_link_max_width{%s}" % SELD, "{{device}} max", ref="B")], w=8)
    d.timeseries("PCIe AER errors", "PCIe errors the devices reported per second, by severity "
                 "(correctable, nonfatal, fatal) and type.",
                 [target("rate(rdma_device_pcie_errors_total{%s}[$__rate_interval])" % SELD,
                         "{{device}} {{severity}} {{type}}")], w=8)
    d.timeseries("Devlink health reporters", "Errors per second each devlink health reporter of the RDMA "
                 "devices counted (mlx5 fw, fw_fatal, tx, rx), and each reporter's state: 0 healthy, 1 "
                 "error (RDMADevlinkHealthError, RDMADevlinkHealthErrorsRising).",
                 [target("rate(rdma_devlink_health_errors_total{%s}[$__rate_interval])" % SELD,
                         "{{device}} {{reporter}} errors"),
                  target("rdma_devlink_health_state{%s}" % SELD, "{{device}} {{reporter}} state",
                         ref="B")], w=8)
    d.timeseries("Module temperature", "Transceiver temperature of each netdev, with the module's own "
                 "high warning and alarm thresholds (RDMATransceiverTemperatureHigh).",
                 [target("rdma_netdev_module_temperature_celsius{%s}%s" % (SEL, TO_PORT), "{{netdev}}"),
                  target('rdma_netdev_module_threshold{%s, quantity="temperature_celsius", level=~"high_.*"} > 0'
                         % SEL, "{{netdev}} {{level}}", ref="B")], unit="celsius", w=8, min_=None)
    def lane_power(title, description, quantity, levels):
        # per lane in dBm (10 log10 of mW), with the module's own thresholds of those levels
        d.timeseries(title, description,
                     [target("10 * log10(1000 * rdma_netdev_module_lane_%s{%s}%s)" % (quantity, SEL, TO_PORT),
                             "{{netdev}} lane {{lane}}"),
                      target('10 * log10(1000 * rdma_netdev_module_threshold{%s, quantity="%s", '
                             'level=~"%s"})' % (SEL, quantity, levels), "{{netdev}} {{level}}", ref="B")],
                     unit="dBm", w=8, min_=None)
    lane_power("Receive power per lane", "Optical power each lane receives in dBm (10 log10 of mW), "
               "with the module's own low warning and alarm thresholds (RDMATransceiverRxPowerLow).",
               "rx_power_watts", "low_.*")
    lane_power("Transmit power per lane", "Optical power each lane transmits in dBm, with the "
               "module's own low and high alarm thresholds.", "tx_power_watts", ".*_alarm")
    d.timeseries("FEC blocks", "FEC codewords corrected and not correctable (frames lost; "
                 "RDMAFECUncorrectableBlocks) per second.",
                 [target("rate(rdma_netdev_fec_corrected_blocks_total{%s}[$__rate_interval])%s" % (SEL, TO_PORT),
                         "{{netdev}} corrected"),
                  target("rate(rdma_netdev_fec_uncorrectable_blocks_total{%s}[$__rate_interval])%s"
                         % (SEL, TO_PORT), "{{netdev}} uncorrectable", ref="B")], w=8)
    d.timeseries("Bit error ratios", "Pre-FEC bit error ratio per netdev over 5m "
                 "(rdma_netdev:pre_fec_ber:ratio5m, RDMAPreFECBERHigh above 1e-5) and InfiniBand errors "
                 "per bit over 12m by counter (rdma_port:errors_per_bit:ratio12m, RDMASymbolBERHigh "
                 "above 1e-14 for symbol errors). No line: no errors.",
                 [target("rdma_netdev:pre_fec_ber:ratio5m{%s}%s" % (SEL, TO_PORT), "{{netdev}} pre-FEC"),
                  target("rdma_port:errors_per_bit:ratio12m{%s}" % SELP, "{{device}}/{{port}} {{counter}}",
                         ref="B")], unit="sci", w=8)
    d.timeseries("Laser bias per lane", "Transmit laser bias current per lane, with the module's own "
                 "high warning and alarm thresholds (RDMATransceiverTxBiasHigh).",
                 [target("rdma_netdev_module_lane_tx_bias_current_amperes{%s}%s" % (SEL, TO_PORT),
                         "{{netdev}} lane {{lane}}"),
                  target('rdma_netdev_module_threshold{%s, quantity="tx_bias_current_amperes", '
                         'level=~"high_.*"} > 0' % SEL, "{{netdev}} {{level}}", ref="B")], unit="amp", w=8)

    d.row("RoCE transport")
    d.timeseries("Transport events", "Sequence errors, ACK timeouts, RNR NAKs, retransmissions, "
                 "retry-exceeded and out-of-buffer drops per second.",
                 [target('rdma_port:roce_events:rate5m{%s, counter!~"cnp_.*|ecn_.*"}' % SELP,
                         "{{device}}/{{port}} {{counter}}")])
    d.timeseries("Congestion control", "ECN-marked packets received, CNPs sent, handled and ignored, "
                 "per second.",
                 [target('rdma_port:roce_events:rate5m{%s, counter=~"cnp_.*|ecn_.*"}' % SELP,
                         "{{device}}/{{port}} {{counter}}")])

    d.row("PFC per priority")
    d.timeseries("Pause frames per priority", "PFC pause (XOFF) frames per second; rx: the peer "
                 "paused us, tx: we paused the peer.",
                 [target("rate(rdma_netdev_priority_pause_frames_total{%s}[$__rate_interval])%s"
                         % (SEL, TO_PORT), "{{netdev}} prio {{priority}} {{direction}}")])
    d.timeseries("Pause time per priority", "Share of wall time each priority was paused.",
                 [target("rate(rdma_netdev_priority_pause_duration_seconds_total{%s}[$__rate_interval])%s"
                         % (SEL, TO_PORT), "{{netdev}} prio {{priority}} {{direction}}")],
                 unit="percentunit")
    d.timeseries("Traffic per priority", "Bits per second on each priority: where RoCE really goes.",
                 [target("8 * rate(rdma_netdev_priority_bytes_total{%s}[$__rate_interval])%s"
                         % (SEL, TO_PORT), "{{netdev}} prio {{priority}} {{direction}}")], unit="bps")
    d.timeseries("Drops per priority", "Packets the NIC discarded per priority and reason, per second.",
                 [target("rate(rdma_netdev_priority_packets_discarded_total{%s}[$__rate_interval])%s"
                         % (SEL, TO_PORT), "{{netdev}} prio {{priority}} {{reason}}")])
    d.table("PFC enabled", "rdma_netdev_pfc_enabled per priority (1: lossless).",
            [target("rdma_netdev_pfc_enabled{%s}%s" % (SEL, TO_PORT), fmt="table", instant=True)],
            transformations=[{"id": "groupingToMatrix", "options": {
                "rowField": "netdev", "columnField": "priority", "valueField": "Value"}}],
            maps=[{"type": "value", "options": {"0": {"text": "off", "color": "text", "index": 0},
                                                 "1": {"text": "PFC", "color": "green", "index": 1}}}],
            sort=None)
    d.timeseries("Pause storms", "Pause storm watchdog events in the last hour (mlx5).",
                 [target("increase(rdma_netdev_pause_storm_events_total{%s}[1h])%s" % (SEL, TO_PORT),
                         "{{netdev}} {{level}}")])

    d.row("Resources")
    d.bargauge("Table utilisation", "rdma_resources / rdma_resource_limit per device and resource.",
               [target("rdma_device:resource_utilisation:ratio{%s}" % SELD, "{{device}} {{resource}}",
                       instant=True)], steps=[(None, "green"), (0.7, "yellow"), (0.9, "red")])
    d.timeseries("Resources", "rdma_resources per device and type.",
                 [target("rdma_resources{%s}" % SELD, "{{device}} {{resource}}")])
    d.timeseries("QPs by state", "Queue pairs per state (every type and port of the device).",
                 [target("sum by (device, state) (rdma_qps{%s})" % SELP, "{{device}} {{state}}")],
                 stack=True)
    d.timeseries("QPs in ERR", "Queue pairs in the ERR state per port and type.",
                 [target('sum by (device, port, type) (rdma_qps{%s, state="ERR"})' % SELP,
                         "{{device}}/{{port}} {{type}}")])
    d.timeseries("Registered memory", "Sum of memory region lengths per device.",
                 [target("rdma_mr_registered_bytes{%s}" % SELD, "{{device}}")], unit="bytes")
    d.table("Processes by QPs", "The processes holding the most QPs (rdma_process_qps). Needs "
            "--collector.netlink.top-processes=N (default 0: off; rdma_workload_qps is on).",
            [target("topk(10, rdma_process_qps{%s})" % SELD, fmt="table", instant=True)], cell="auto")
    d.timeseries("RDMA CM ids by state", "rdma_cm_ids per port space and state.",
                 [target("sum by (device, ps, state) (rdma_cm_ids{%s})" % SELP, "{{device}} {{ps}} {{state}}")])
    d.timeseries("CQs, MRs, PDs", "Completion queues, memory regions and protection domains.",
                 [target("rdma_cqs{%s}" % SELD, "{{device}} CQs"),
                  target("rdma_mrs{%s}" % SELD, "{{device}} MRs", ref="B"),
                  target("rdma_pds{%s}" % SELD, "{{device}} PDs", ref="C")])

    d.row("Probes")
    d.heatmap("Probe RTT", "Round-trip times of all probes leaving the selected ports to remote "
              "targets (rdma_probe_port_rtt_seconds buckets).",
              [target("sum by (le) (rate(rdma_probe_port_rtt_seconds_bucket{%s}[$__rate_interval]))"
                      " or sum(rate(rdma_probe_port_rtt_seconds{%s}[$__rate_interval]))" % (SELP, SELP),
                      "{{le}}", fmt="heatmap")])
    d.timeseries("Probe RTT p50 / p95 / p99", "Quantiles of the probe RTT per local port, over all its "
                 "remote targets (rdma_probe_port_rtt_seconds).",
                 [target("histogram_quantile(%s, sum by (le, device, port) (rate(rdma_probe_port_rtt_seconds_bucket{%s}"
                         "[$__rate_interval]))) or histogram_quantile(%s, sum by (device, port) "
                         "(rate(rdma_probe_port_rtt_seconds{%s}[$__rate_interval])))" % (q, SELP, q, SELP),
                         "%s {{device}}/{{port}}" % n, ref=r)
                  for q, n, r in (("0.5", "p50", "A"), ("0.95", "p95", "B"), ("0.99", "p99", "C"))],
                 unit="s")
    d.timeseries("Network RTT p50 / p99", "Quantiles per local port of rdma_probe_port_network_rtt_seconds: "
                 "the round trip less the responder's turnaround (its host delay, measured on its own clock). "
                 "Needs --collector.probe.target-detail where Prometheus scrapes the text exposition "
                 "(native histograms have it at default flags).",
                 [target("histogram_quantile(%s, sum by (le, device, port) (rate(rdma_probe_port_network_rtt_seconds_bucket"
                         "{%s}[$__rate_interval]))) or histogram_quantile(%s, sum by (device, port) "
                         "(rate(rdma_probe_port_network_rtt_seconds{%s}[$__rate_interval])))" % (q, SELP, q, SELP),
                         "%s {{device}}/{{port}}" % n, ref=r)
                  for q, n, r in (("0.5", "p50", "A"), ("0.99", "p99", "B"))], unit="s")
    d.timeseries("Mean RTT per target", "The mean round trip to each "
                 "target, from the sum of its replies' RTTs and their count (per-target quantiles need "
                 "--collector.probe.target-histograms).",
                 [target(mean_rtt(SELP), "{{device}}/{{port}} {{target}}")],
                 unit="s")
    d.timeseries("Responder turnaround", "The mean time "
                 "each target's responder took between receiving a probe and sending its reply. "
                 "Needs --collector.probe.target-histograms (rdma_probe_responder_turnaround_seconds_total).",
                 [target("sum by (job, instance, device, port, target) (rate(rdma_probe_responder_turnaround_seconds_total{%s}"
                         "[$__rate_interval])) / sum by (job, instance, device, port, target) "
                         "(rate(rdma_probe_replies_total{%s}[$__rate_interval]))" % (SELP, SELP), "{{target}}")],
                 unit="s")
    d.timeseries("Probe loss", "Share of probes that timed out per target (5m).",
                 [target("rdma_probe:loss:ratio_rate5m{%s}" % SELP, "{{device}}/{{port}} {{target}}")],
                 unit="percentunit")
    d.timeseries("Probe errors", "Probe failures per second by reason.",
                 [target("sum by (target, reason) (rate(rdma_probe_errors_total{%s}[$__rate_interval]))"
                         % SEL, "{{target}} {{reason}}")])
    d.timeseries("Responder", "Probe requests this node's responder answered and dropped, per second.",
                 [target("rate(rdma_probe_responder_requests_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} answered"),
                  target("rate(rdma_probe_responder_dropped_total{%s}[$__rate_interval])" % SELP,
                         "{{device}}/{{port}} dropped {{reason}}", ref="B")])

    d.row("Exporter")
    d.stat("Collectors", "rdma_exporter_collector_success per collector.",
           [target("rdma_exporter_collector_success{%s}" % SEL, "{{collector}}", instant=True)],
           steps=[(None, "red"), (1, "green")], w=8,
           maps=[{"type": "value", "options": {"0": {"text": "failing", "index": 0},
                                                "1": {"text": "ok", "index": 1}}}])
    d.timeseries("Collector duration", "Time of each collector's last run.",
                 [target("rdma_exporter_collector_duration_seconds{%s}" % SEL, "{{collector}}")],
                 unit="s", w=8)
    d.timeseries("Values skipped per poll", "rdma_exporter:read_errors_per_poll:rate5m.",
                 [target("rdma_exporter:read_errors_per_poll:rate5m{%s}" % SEL, "{{collector}}")], w=8)
    return d


# ============================================================================ pingmesh
def pingmesh():
    sel = SELP + ', target=~"$target"'
    d = Dashboard("rdma-pingmesh", "RDMA / Pingmesh",
                  "Probe latency and loss between nodes: rows are probers (instance), columns targets.",
                  extra_vars=[("target", "Target",
                               'label_values(rdma_probe_sent_total{%s, target!="loopback"}, target)' % SEL)])
    peers = sel + ', target!="loopback"'

    def matrix(title, description, expr, unit, steps):
        d.table(title, description, [target(expr, fmt="table", instant=True)], unit=unit, w=12, h=10,
                steps=steps, sort=None,
                transformations=[{"id": "groupingToMatrix", "options": {
                    "rowField": "instance", "columnField": "target", "valueField": "Value"}}])

    d.row("Matrices")
    matrix("Mean RTT, prober x target", "The mean RTT (from the sum of the replies' RTTs "
           "and their count), the worst local port of each prober.",
           "max by (instance, target) (%s)" % mean_rtt(peers), "s",
           [(None, "green"), (0.0001, "yellow"), (0.001, "red")])
    matrix("Loss, prober x target", "rdma_probe:loss:ratio_rate5m, the worst local port of each prober.",
           "max by (instance, target) (rdma_probe:loss:ratio_rate5m{%s})" % peers, "percentunit",
           [(None, "green"), (0.001, "yellow"), (0.02, "red")])

    matrix("Failing, prober x target", "rdma_probe_pair:failing:bool5m: 1 where a prober reached under "
           "10% of its attempts to a target over 5m (a column: RDMAProbePeerUnreachable; a row: "
           "RDMAProbeLocalPortSuspect).",
           'rdma_probe_pair:failing:bool5m{%s, target=~"$target"}' % SEL, "short",
           [(None, "green"), (1, "red")])

    d.row("Suspects")
    d.table("Targets most probers cannot reach", "rdma_probe_target:probers_failing:ratio5m: the share of "
            "a target's probers that fail to reach it (probers with a suspect port left out); over the "
            "threshold (0.5 by default) fires RDMAProbePeerUnreachable. Targets the selected instances "
            "probe.",
            [target('sort_desc(rdma_probe_target:probers_failing:ratio5m{job=~"$job", target=~"$target"} '
                    "> 0 and on (job, target) rdma_probe_pair:failing:bool5m{%s})" % SEL,
                    fmt="table", instant=True)],
            unit="percentunit", steps=[(None, "green"), (0.01, "yellow"), (PEER_UNREACHABLE, "red")])
    d.table("Probers failing most targets", "rdma_probe_prober:targets_failing:ratio5m: the share of its "
            "targets a prober fails to reach; over the threshold (0.5 by default) fires "
            "RDMAProbeLocalPortSuspect.",
            [target("sort_desc(rdma_probe_prober:targets_failing:ratio5m{%s} > 0)" % SEL,
                    fmt="table", instant=True)],
            unit="percentunit", steps=[(None, "green"), (0.01, "yellow"), (LOCAL_PORT_SUSPECT, "red")],
            links=NODE_LINK)

    d.row("Worst pairs")
    d.table("Slowest pairs (mean)", "The 20 slowest prober and target pairs by mean RTT.",
            [target("topk(20, %s)" % mean_rtt(peers), fmt="table", instant=True)],
            unit="s", steps=[(None, "green"), (0.0001, "yellow"), (0.001, "red")], links=NODE_LINK)
    d.table("Failing targets", "Probe errors per second by reason (resolve: address, sideband or QP "
            "not learned).",
            [target("sort_desc(sum by (job, instance, target, reason) (rate(rdma_probe_errors_total{%s}"
                    "[$__rate_interval])) > 0)" % SEL, fmt="table", instant=True)],
            steps=[(None, "red")], links=NODE_LINK)
    d.timeseries("Mean RTT per pair", "The mean RTT of each pair over time.",
                 [target(mean_rtt(peers), "{{instance}} -> {{target}}")], unit="s")
    d.timeseries("Loss per pair", "rdma_probe:loss:ratio_rate5m over time.",
                 [target("rdma_probe:loss:ratio_rate5m{%s}" % peers, "{{instance}} -> {{target}}")],
                 unit="percentunit")
    d.heatmap("RTT of all peer probes", "All probes to peers (loopback left out; "
              "rdma_probe_port_rtt_seconds, all targets of the selected probers).",
              [target("sum by (le) (rate(rdma_probe_port_rtt_seconds_bucket{%s}[$__rate_interval]))"
                      " or sum(rate(rdma_probe_port_rtt_seconds{%s}[$__rate_interval]))" % (SEL, SEL),
                      "{{le}}", fmt="heatmap")])
    d.timeseries("Loopback mean RTT", "Each port probing itself: the HCA, driver and host alone.",
                 [target(mean_rtt(SELP + ', target="loopback"'),
                         "{{instance}} {{device}}/{{port}}")], unit="s")

    d.row("Targets files")
    d.stat("Targets loaded", "rdma_probe_targets summed over the selected probers.",
           [target("sum(rdma_probe_targets{%s})" % SEL, instant=True)], w=8)
    d.stat("Targets probed", "rdma_probe_targets_probed summed (at most max-targets per prober).",
           [target("sum(rdma_probe_targets_probed{%s})" % SEL, instant=True)], w=8)
    d.stat("Targets files OK", "Probers whose last targets file read succeeded, out of all.",
           [target("avg(rdma_probe_targets_file_reload_success{%s})" % SEL, instant=True)],
           unit="percentunit", steps=[(None, "red"), (1, "green")], w=8)
    return d


def generate(cfg):
    """{file name: JSON text} of every dashboard, for scripts/gen-monitoring.py."""
    global JOB_SELECTOR, PEER_UNREACHABLE, LOCAL_PORT_SUSPECT, TOPOLOGY
    JOB_SELECTOR = cfg["selector"]
    TOPOLOGY = cfg["topology_label"] or "switch"
    PEER_UNREACHABLE = cfg["thresholds"]["RDMAProbePeerUnreachable"]
    LOCAL_PORT_SUSPECT = cfg["thresholds"]["RDMAProbeLocalPortSuspect"]
    out = {}
    for name, fn in (("rdma-fleet.json", fleet), ("rdma-node.json", node), ("rdma-pingmesh.json", pingmesh)):
        out[name] = json.dumps(fn().json(), indent=2, sort_keys=False) + "\n"
    return out
