#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# record-netlink.sh NL_RECORD OUTDIR - records raw RDMA netlink replies of a busy Soft-RoCE
# device as regression fixtures: boots the rxe VM with NL_RECORD (build/tests/tools/nl_record)
# baked in, runs guest-record-netlink.sh there and copies the recordings to OUTDIR
# (for example tests/fixtures/netlink/rxe-busy). Review the result, then commit it.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 path/to/nl_record OUTDIR" >&2; exit 2; }
BIN=$(readlink -f "$1")
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/record-netlink.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ln -s "$BIN" "$STAGE/nl_record"
RXEVM_OUT="$STAGE/out" EXTRA_BINS="$STAGE/nl_record" "$HERE/rxe-vm.sh" "$HERE/guest-record-netlink.sh"
mkdir -p "$2"
cp "$STAGE"/out/rec/* "$2"/
echo "recorded into $2:"
ls -l "$2"
