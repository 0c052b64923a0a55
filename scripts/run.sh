#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what is missing, builds, and starts the exporter in the foreground
# on :9879 (any extra arguments are passed to rdma_exporter).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMA_EXPORTER_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"
echo "starting build/rdma_exporter $* (metrics at http://localhost:9879/metrics, Ctrl-C stops)"
exec build/rdma_exporter "$@"
