#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# guest-record-netlink.sh - runs INSIDE the rxe VM (see record-netlink.sh): starts a
# workload with many QPs, MRs, CQs and RDMA CM ids on rxe0 and records the raw netlink
# replies with nl_record into /mnt/host/out/rec, with `rdma -j res show` next to them.
set -u
O=/mnt/host/out/rec
IP=10.0.2.15
mkdir -p "$O"
retry() { local n=$1 i=0; shift; until "$@"; do i=$((i + 1)); [ $i -ge "$n" ] && return 1; sleep 0.5; done; }

# perftest's default port is ibv_rc_pingpong's (18515): move it. rxe caps a CQ at 32767
# entries, and perftest sizes one CQ for all QPs: -r/-t 256 for 64 QPs.
ib_send_bw -d rxe0 -x 1 -p 18600 -q 64 -r 256 -t 256 -D 60 > /tmp/bws.log 2>&1 &
( retry 60 ib_send_bw -d rxe0 -x 1 -p 18600 -q 64 -r 256 -t 256 -D 60 $IP > /tmp/bwc.log 2>&1 ) &
for _ in $(seq 1 120); do [ "$(rdma res show qp | grep -c ib_send_bw)" -ge 128 ] && break; sleep 0.5; done
ibv_rc_pingpong -d rxe0 -g 1 -n 100000000 > /dev/null 2>&1 &
sleep 0.5
( retry 30 ibv_rc_pingpong -d rxe0 -g 1 -n 100000000 $IP > /dev/null 2>&1 ) &
rping -s -a $IP -P > /dev/null 2>&1 &
sleep 0.5
( retry 30 rping -c -a $IP -C 100000000 -S 64 > /dev/null 2>&1 ) &
for _ in $(seq 1 60); do [ "$(rdma res show cm_id | grep -c CONNECT)" -ge 2 ] && break; sleep 0.5; done
sleep 1
rdma res show
nl_record "$O" || exit 1
for r in qp cq mr pd cm_id ctx srq; do rdma -j res show $r > "$O/rdma-res-$r.json"; done
rdma -j res show > "$O/rdma-res.json"
rdma -j statistic show > "$O/rdma-statistic.json"
kill $(pidof ib_send_bw ibv_rc_pingpong rping) 2>/dev/null
exit 0
