#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Every metric name a rule, a dashboard panel or a dashboard variable uses is
# one the exporter exports: in its real output on the fixture trees (the e2e
# golden files, which tests/e2e/e2e.sh keeps equal to the binary's output) or
# defined in its sources ("rdma_..." literals in src/ and collectors/, for the
# collectors that need hardware); or a recording rule of alerts/, or a series
# Prometheus makes (up, ALERTS). Names in the synthetic expositions of
# tests/monitoring/fixtures must be defined in the sources, and their label names
# be those the collectors' unit tests (tests/collectors/) assert for the family.
# A typo or a renamed family fails here in a second; monitoring-e2e.py repeats
# the check against live scrapes of the binary.
#
#   names-check.py [SOURCE_DIR]
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monlib  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
t = monlib.Counter()

observed = monlib.golden_names(ROOT)
t(len(observed) > 50, f"{len(observed)} families in tests/e2e/golden/*.prom")
only_sources = monlib.check_names(ROOT, observed, t)
print("# used but only defined in the sources (not producible here): " + " ".join(sorted(only_sources)))

# The check itself catches a misspelt or renamed family.
sources = monlib.source_families(ROOT)
for bad in ("rdma_port_recieved_packets_total", "rdma_port_received_packets_total",
            "rdma_probe_rtt_seconds_buckets"):
    t(not (monlib.known(bad, observed) or monlib.known(bad, sources)),
      f"self-test: {bad} is rejected")
t(monlib.metric_names('sum by (le, target) (rate(rdma_probe_rtt_seconds_bucket{a=~"$b"}[5m])) > 0.001')
  == {"rdma_probe_rtt_seconds_bucket"}, "name extraction (self-test)")

sys.exit(t.summary())
