#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what is missing, builds, and starts the exporter in the foreground
# on :9879 (any extra arguments are passed to rdma_exporter). While another
# process holds the apt lock, install-deps.sh waits for it (at most 10
# minutes, saying so) and shows apt's own progress.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/build-config.sh

scripts/install-deps.sh
configure_run build
cmake --build build -j"$(nproc)"
# Where the metrics are: the last --web.listen-address given, else :9879.
addr=:9879
prev=""
for a in "$@"; do
	case $a in
	--web.listen-address=*) addr=${a#*=} ;;
	*) [ "$prev" = --web.listen-address ] && addr=$a ;;
	esac
	prev=$a
done
host=${addr%:*}
case $host in "" | "0.0.0.0" | "[::]") host=localhost ;; esac
echo "starting build/rdma_exporter $* (metrics at http://$host:${addr##*:}/metrics, Ctrl-C stops)"
exec build/rdma_exporter "$@"
