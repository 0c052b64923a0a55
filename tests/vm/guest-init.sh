#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# /init of the rxe test VM's initramfs (copied there by rxe-vm.sh; runs under busybox sh).
# Brings up the network, mounts the host share, creates the Soft-RoCE device rxe0 on eth0,
# then runs /mnt/host/guest.sh with bash (or an interactive shell) and powers the VM off.
#
# Kernel command line parameters (set by rxe-vm.sh):
#   rxevm.ip=A.B.C.D    eth0's IPv4 address (default 10.0.2.15)
#   rxevm.mode=shell    interactive shell on the serial console instead of guest.sh
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root

uptime_s() { cut -d' ' -f1 /proc/uptime; }
cmdline_arg() { sed -n "s/.*rxevm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev/shm
echo "[guest] init start, uptime $(uptime_s)s"

# Modules in dependency order, as listed by the host's modprobe --show-depends.
while read -r ko; do
    insmod "$ko" 2>/dev/null || echo "[guest] insmod failed (ignored): $ko"
done < /etc/boot-modules

ip link set lo up
ip4=$(cmdline_arg ip)
ip4=${ip4:-10.0.2.15}
ip addr add "$ip4/24" dev eth0 && ip link set eth0 up && ip route add default via 10.0.2.2
ip addr add 10.0.3.15/24 dev eth1 && ip link set eth1 up
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 hostshare /mnt/host \
    || echo "[guest] 9p mount FAILED"
rdma link add rxe0 type rxe netdev eth0 || echo "[guest] rdma link add FAILED"

# Wait (at most 20 s) until the port is ACTIVE and GID 1 (IPv4-mapped / link-local) is populated.
P=/sys/class/infiniband/rxe0/ports/1
i=0
while [ $i -lt 200 ]; do
    st=$(cat $P/state 2>/dev/null)
    g1=$(cat $P/gids/1 2>/dev/null)
    case "$st" in
        *ACTIVE*) [ -n "$g1" ] && [ "$g1" != "0000:0000:0000:0000:0000:0000:0000:0000" ] && break ;;
    esac
    sleep 0.1
    i=$((i + 1))
done
echo "[guest] rxe0 ready ($(cat $P/state 2>/dev/null)), uptime $(uptime_s)s"

if [ "$(cmdline_arg mode)" = shell ] || [ ! -f /mnt/host/guest.sh ]; then
    echo "[guest] interactive shell; 'poweroff -f' to quit"
    cd /mnt/host 2>/dev/null || cd /
    setsid sh -c 'exec bash </dev/ttyS0 >/dev/ttyS0 2>&1'
else
    mkdir -p /mnt/host/out
    cd /mnt/host || exit 1
    echo "[guest] running /mnt/host/guest.sh"
    (bash /mnt/host/guest.sh; echo $? > /tmp/guest.rc) 2>&1 | tee /mnt/host/out/guest.log
    rc=$(cat /tmp/guest.rc 2>/dev/null || echo 255)
    echo "$rc" > /mnt/host/out/rc
    echo "[guest] guest.sh finished (rc=$rc), uptime $(uptime_s)s"
fi
sync
poweroff -f
