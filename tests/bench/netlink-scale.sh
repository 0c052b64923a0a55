#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing about time): the netlink
# collector's pure parsers on synthetic RDMA netlink dumps of a big host,
# 100,000 QPs of 1,000 processes over 8 devices by default, with their MRs
# and CQs: parse + aggregate time per pass (min and median), QPs per second,
# bytes of reply parsed, and the memory the aggregates take. Exits non-zero
# only when a reply does not parse or the aggregates miss objects.
#
# Builds nothing: give it the binary of a build tree.
#
#   cmake --build build --target netlink-scale
#   tests/bench/netlink-scale.sh build/tests/bench/netlink-scale [--qps N] [--procs N] \
#       [--devices N] [--reps N] [--mrs N] [--cqs N]
set -euo pipefail
BIN=${1:?usage: netlink-scale.sh BINARY [--qps N] [--procs N] [--devices N] [--reps N]}
shift
if [ ! -x "$BIN" ]; then
	echo "netlink-scale.sh: $BIN is not an executable (cmake --build BUILD --target netlink-scale)" >&2
	exit 2
fi
exec "$BIN" "$@"
