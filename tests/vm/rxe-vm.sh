#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# rxe-vm.sh - boot Debian 12's stock kernel (linux-image-6.1.0-*-amd64) under QEMU with
# Soft-RoCE (rdma_rxe) and run a bash script inside the guest. The host kernel needs no
# RDMA support: the guest kernel is downloaded with apt and unpacked, never installed.
#
# Adapted from the workplace's shared rxe-vm script (run-rxe-vm.sh); this copy belongs to
# rdma_exporter and must work from a fresh clone on its own.
#
# Usage:
#   rxe-vm.sh GUEST_SCRIPT         run GUEST_SCRIPT with bash in the guest; its exit status
#                                  becomes ours (124: the VM hit RXEVM_TIMEOUT)
#   rxe-vm.sh --shell              interactive bash on the serial console ('poweroff -f' quits)
#   rxe-vm.sh --check              exit 0 if this host can run the VM (packages present or
#                                  installable, apt can fetch the kernel), else print why, exit 1
#   PEER=b.sh rxe-vm.sh a.sh       two VMs: A (10.0.2.15) runs a.sh, B (10.0.2.16) runs b.sh;
#                                  their eth0s are cabled together (real RoCEv2 on the wire)
#   EXTRA_BINS="build/rdma_exporter" rxe-vm.sh t.sh
#                                  bake host binaries (+ their shared libs, found with ldd)
#                                  into the guest as /usr/local/bin/<name>
#
# Guest environment when GUEST_SCRIPT starts (see guest-init.sh):
#   - modules: rdma_rxe ib_core ib_uverbs ib_umad rdma_ucm virtio_net e1000 9p
#   - eth0 = virtio-net 10.0.2.15/24 (QEMU user net; with PEER the A<->B link, B = 10.0.2.16),
#     advertised 100000Mb/s; eth1 = e1000 10.0.3.15/24 (QEMU user net)
#   - rxe0 on eth0, port ACTIVE, GIDs populated
#   - a private per-run host folder is mounted (9p, rw) at /mnt/host, the script's cwd;
#     files the script writes to /mnt/host/out/ come back to the host (see RXEVM_OUT)
#   - stdout+stderr -> out/guest.log (also printed by this script), exit status -> out/rc;
#     the guest then powers itself off
#   - /tmp is a tmpfs: host files reach the guest only via EXTRA_BINS or /mnt/host
#
# Environment knobs:
#   RXEVM_WORK      cache dir (kernel, initramfs, run dirs);
#                   default ${XDG_CACHE_HOME:-$HOME/.cache}/rdma_exporter-rxevm
#   RXEVM_OUT       where the guest's out/ dir, console logs (and peer/ for PEER mode) are
#                   copied after the run; default $RXEVM_WORK/last-run (replaced each run)
#   RXEVM_TIMEOUT   seconds before QEMU is killed (default 900)
#   RXEVM_ACCEL     tcg|kvm (default tcg)   RXEVM_MEM  MiB (1024)   RXEVM_SMP  vCPUs (2)
#   RXEVM_BOOT      pvh|bzimage (default pvh)
#   RXEVM_APPEND    more guest kernel arguments (e.g. 'tsc=reliable': a tsc clocksource)
#   RXEVM_KPKG      kernel package (default: what linux-image-amd64 depends on)
#   RXEVM_REBUILD=1 force an initramfs rebuild   RXEVM_BUILD_ONLY=1  stop after building
#   RXEVM_UDP_PORT  first of the two host UDP ports that wire PEER VMs (default: a free one)
#
# Concurrency: the cache is shared, builds are serialised with flock on $RXEVM_WORK/.lock;
# each run boots from its own hard link of the initramfs and its own share folder, so
# concurrent runs (even with different EXTRA_BINS) do not disturb each other.
#
# ACCEL=kvm does NOT work on kvm_pvm hosts: the stock kernel hangs or dies with "KVM internal
# error. Suberror: 1 ... emulation failure". TCG (software emulation) is the default.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
INIT_SRC=$HERE/guest-init.sh

WORK=${RXEVM_WORK:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdma_exporter-rxevm}
ACCEL=${RXEVM_ACCEL:-tcg}
MEM=${RXEVM_MEM:-1024}
SMP=${RXEVM_SMP:-2}
TIMEOUT=${RXEVM_TIMEOUT:-900}
BOOT=${RXEVM_BOOT:-pvh}
EXTRA_BINS=${EXTRA_BINS:-}
PEER=${PEER:-}
ARCH_TRIPLET=x86_64-linux-gnu

# Host packages (Debian 12 names) needed to build and boot the guest.
PKGS="qemu-system-x86 busybox-static cpio kmod xz-utils rdma-core ibverbs-utils
      ibverbs-providers perftest iproute2 ethtool rdmacm-utils lldpd"
# Guest kernel modules; their dependency closure is computed with the host's modprobe.
MODS="virtio_pci virtio_net e1000 9pnet_virtio 9p crc32_generic crc32c_generic crc32-pclmul
      ib_core ib_uverbs ib_umad rdma_ucm rdma_rxe veth"        # (siw is not built in Debian's 6.1)
# Host binaries copied into the guest with their libraries. bash is included because
# busybox ash prefers its own applets over $PATH (its 'ip' would shadow iproute2's).
GUEST_BINS="/usr/bin/bash /usr/bin/rdma /usr/sbin/ip /usr/sbin/ethtool
      /usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong /usr/bin/ibv_ud_pingpong
      /usr/bin/ib_send_lat /usr/bin/ib_send_bw /usr/bin/ib_write_lat /usr/bin/ib_write_bw
      /usr/bin/ib_read_lat /usr/bin/ib_read_bw /usr/bin/rping /usr/bin/udaddy /usr/bin/ucmatose
      /usr/lib/$ARCH_TRIPLET/libibverbs/librxe-rdmav34.so /usr/sbin/lldpd /usr/sbin/lldpcli"

T0=$(date +%s.%N)
log() { echo "[host $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 2; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
usage() { sed -n '/^# Usage:/,/^# Guest environment/p' "$SELF" | sed '$d; s/^# \{0,1\}//'; }

############################################################################
# Host prerequisites
############################################################################
missing_pkgs() {
    local p out=""
    for p in $PKGS; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || out="$out $p"; done
    echo "${out# }"
}
# Prints "sudo -n" / "" (root) when packages can be installed, fails otherwise.
apt_installer() {
    command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$(id -u)" = 0 ]; then echo ""; return 0; fi
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && { echo "sudo -n"; return 0; }
    return 1
}
kernel_pkg() {
    if [ -n "${RXEVM_KPKG:-}" ]; then echo "$RXEVM_KPKG"; return 0; fi
    apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
# A fresh machine may have no apt lists, or lists that name a kernel the mirror no
# longer has: refresh them once (when we may) before giving up.
APT_REFRESHED=0
apt_refresh() {
    local sudo
    [ "$APT_REFRESHED" = 1 ] && return 1
    APT_REFRESHED=1
    sudo=$(apt_installer) || return 1
    log "refreshing apt lists"
    $sudo apt-get update -qq || return 1
}
# Exit status 0 when this host can run the VM; otherwise says why on stderr.
check_host() {
    local ok=0 miss
    [ "$(uname -m)" = x86_64 ] || { log "host is $(uname -m), only x86_64 is supported"; ok=1; }
    command -v dpkg-query >/dev/null 2>&1 || { log "not a Debian-based host (no dpkg-query)"; return 1; }
    miss=$(missing_pkgs)
    if [ -n "$miss" ] && ! apt_installer >/dev/null; then
        log "missing packages ($miss) and no way to install them (need apt-get and root or sudo -n)"
        ok=1
    elif [ -z "$miss" ] && ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
        log "qemu-system-x86_64 is not on PATH"
        ok=1
    fi
    if ! ls "$WORK"/kernel-*/boot/vmlinuz-* >/dev/null 2>&1 && [ -z "$(kernel_pkg)" ] &&
        ! apt_installer >/dev/null; then
        log "no cached guest kernel and apt knows no linux-image-amd64 (Debian 12 apt sources needed)"
        ok=1
    fi
    return $ok
}
install_packages() {
    local miss sudo
    miss=$(missing_pkgs)
    [ -z "$miss" ] && return 0
    sudo=$(apt_installer) || die "missing packages: $miss (install them, or run as root)"
    log "installing: $miss"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $miss >/dev/null
}

############################################################################
# Guest kernel: the Debian kernel .deb is downloaded (not installed) and unpacked into
# $WORK/kernel-$KV, which never changes once complete. Sets KV and KERNEL.
############################################################################
prepare_kernel() {
    local kpkg kroot kimage pos
    kpkg=$(kernel_pkg)
    if [ -z "$kpkg" ] && apt_refresh; then kpkg=$(kernel_pkg); fi
    [ -n "$kpkg" ] || die "cannot resolve the kernel package (set RXEVM_KPKG)"
    KV=${kpkg#linux-image-}                           # e.g. 6.1.0-56-amd64
    kroot=$WORK/kernel-$KV
    if [ ! -f "$kroot/boot/vmlinuz-$KV" ]; then
        mkdir -p "$WORK/debs"
        if ! ls "$WORK/debs/${kpkg}"_*.deb >/dev/null 2>&1; then
            log "downloading $kpkg"
            (cd "$WORK/debs" && apt-get download "$kpkg" 2>&1 | grep -v '^W: Download is performed unsandboxed') || true
            if ! ls "$WORK/debs/${kpkg}"_*.deb >/dev/null 2>&1 && apt_refresh; then
                (cd "$WORK/debs" && apt-get download "$kpkg" 2>&1 | grep -v '^W: Download is performed unsandboxed') || true
            fi
            ls "$WORK/debs/${kpkg}"_*.deb >/dev/null 2>&1 || die "apt-get download $kpkg failed"
        fi
        log "unpacking $kpkg"
        rm -rf "$kroot.tmp"
        mkdir -p "$kroot.tmp"
        dpkg -x "$WORK/debs/${kpkg}"_*.deb "$kroot.tmp"
        depmod -b "$kroot.tmp" "$KV"
        mv "$kroot.tmp" "$kroot"
    fi
    KROOT=$kroot
    kimage=$kroot/boot/vmlinuz-$KV
    KERNEL=$kimage
    # PVH direct boot of the uncompressed ELF vmlinux skips SeaBIOS' real-mode path and the
    # (slow under TCG) in-guest xz decompression: ~3 s less per boot.
    if [ "$BOOT" = pvh ]; then
        if [ ! -f "$kroot/vmlinux" ]; then
            # Debian 6.1 has CONFIG_KERNEL_XZ=y: the payload starts at the first xz magic.
            pos=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$kimage" | head -1 | cut -d: -f1)
            # unxz complains about the trailing data after the stream; that is expected.
            tail -c +$((pos + 1)) "$kimage" | unxz > "$kroot/vmlinux.tmp" 2>/dev/null || true
            if head -c 4 "$kroot/vmlinux.tmp" | grep -q ELF; then
                mv "$kroot/vmlinux.tmp" "$kroot/vmlinux"
            else
                rm -f "$kroot/vmlinux.tmp"
                log "WARNING: could not extract vmlinux, booting the bzImage"
            fi
        fi
        [ -f "$kroot/vmlinux" ] && KERNEL=$kroot/vmlinux
    fi
    return 0
}

############################################################################
# Initramfs: busybox + modules + host RDMA userspace + EXTRA_BINS, with guest-init.sh as
# /init. Rebuilt when this script, guest-init.sh, the kernel or an EXTRA_BINS file changes.
# Sets INITRD.
############################################################################
copy_with_libs() {    # $1 host file, $2 destination inside the guest (default: same path)
    local f=$1 dst=${2:-$1} lib
    [ -e "$f" ] || { log "WARNING: $f not found, skipped"; return 0; }
    mkdir -p "$ROOT$(dirname "$dst")"
    cp -L "$f" "$ROOT$dst"
    { ldd "$f" 2>/dev/null || true; } | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | while read -r lib; do
        [ -e "$ROOT$lib" ] && continue
        mkdir -p "$ROOT$(dirname "$lib")"
        cp -L "$lib" "$ROOT$lib"
    done
}
build_initramfs() {
    local ko rel b a
    ROOT=$WORK/initramfs-root
    rm -rf "$ROOT"
    mkdir -p "$ROOT"/usr/bin "$ROOT"/usr/sbin "$ROOT"/usr/lib/$ARCH_TRIPLET "$ROOT"/usr/lib64 \
             "$ROOT"/usr/local/bin "$ROOT"/etc/libibverbs.d "$ROOT"/proc "$ROOT"/sys "$ROOT"/dev \
             "$ROOT"/tmp "$ROOT"/run "$ROOT"/mnt/host "$ROOT"/root "$ROOT"/var
    # merged-/usr layout, as on the Debian 12 host
    ln -s usr/bin "$ROOT/bin"; ln -s usr/sbin "$ROOT/sbin"
    ln -s usr/lib "$ROOT/lib"; ln -s usr/lib64 "$ROOT/lib64"

    # kernel modules, in load order
    : > "$ROOT/etc/boot-modules"
    for m in $MODS; do
        modprobe -d "$KROOT" -S "$KV" --show-depends "$m" | awk '$1 == "insmod" { print $2 }' \
            || log "WARNING: module $m not found in the kernel package"
    done | awk '!seen[$0]++' | while read -r ko; do
        rel=${ko#"$KROOT"/}                           # lib/modules/$KV/kernel/...
        mkdir -p "$ROOT/$(dirname "$rel")"
        cp "$ko" "$ROOT/$rel"
        echo "/$rel" >> "$ROOT/etc/boot-modules"
    done
    cp "$KROOT/lib/modules/$KV/modules.builtin" "$KROOT/lib/modules/$KV/modules.builtin.modinfo" \
       "$KROOT/lib/modules/$KV/modules.order" "$ROOT/lib/modules/$KV/"
    depmod -b "$ROOT" "$KV"                           # so that modprobe works in the guest too

    # userspace
    cp /bin/busybox "$ROOT/usr/bin/busybox"
    for b in $GUEST_BINS; do copy_with_libs "$b"; done
    # EXTRA_BINS go to /usr/local/bin/<name>: the guest's /tmp is a tmpfs, host paths there
    # would be hidden.
    for b in $EXTRA_BINS; do copy_with_libs "$b" "/usr/local/bin/$(basename "$b")"; done
    cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"
    if [ -d /etc/iproute2 ]; then cp -r /etc/iproute2 "$ROOT/etc/"; fi
    # busybox applets for everything not provided by a real tool above
    for a in $(/bin/busybox --list); do
        [ -e "$ROOT/usr/bin/$a" ] || [ -e "$ROOT/usr/sbin/$a" ] || ln -s busybox "$ROOT/usr/bin/$a"
    done
    ln -sf ../bin/busybox "$ROOT/usr/sbin/modprobe"   # the kernel's request_module() runs it
    # nobody: unprivileged runs (su nobody -s /bin/sh -c CMD)
    # _lldpd: lldpd's privilege separation (the LLDP check of guest-e2e.sh)
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n_lldpd:x:101:101::/run/lldpd:/bin/false\n' \
        > "$ROOT/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n_lldpd:x:101:\n' > "$ROOT/etc/group"
    printf '127.0.0.1 localhost\n10.0.2.15 guest\n10.0.2.16 peer\n' > "$ROOT/etc/hosts"
    install -m 0755 "$INIT_SRC" "$ROOT/init"

    (cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.tmp"
    mv "$INITRD.tmp" "$INITRD"                        # runs holding a hard link keep the old one
    log "initramfs: $(du -h "$INITRD" | cut -f1) compressed, $(du -sh "$ROOT" | cut -f1) unpacked"
}
prepare_initramfs() {
    local stamp b
    INITRD=$WORK/initramfs-$KV.cpio.gz
    # EXTRA_BINS by guest name and content, so that a staged copy elsewhere reuses the cache
    stamp=$( { echo "$KV"; cat "$SELF" "$INIT_SRC";
               for b in $EXTRA_BINS; do basename "$b"; cat "$b"; done; } | md5sum | cut -c1-32)
    if [ ! -f "$INITRD" ] || [ "${RXEVM_REBUILD:-0}" = 1 ] \
            || [ "$(cat "$INITRD.stamp" 2>/dev/null)" != "$stamp" ]; then
        log "building $INITRD"
        build_initramfs
        echo "$stamp" > "$INITRD.stamp"
    fi
}

############################################################################
# Per-run state: $RUN holds the share folders, console logs and a hard link of the initrd.
############################################################################
prep_share() {            # $1 share dir, $2 script to run there ("" = none: interactive shell)
    mkdir -p "$1/out"
    if [ -n "$2" ]; then cp "$2" "$1/guest.sh"; fi
}
pick_udp_port() {         # a port p such that p and p+1 look free
    local p _
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 40000))
        command -v ss >/dev/null 2>&1 || { echo "$p"; return; }
        ss -Hluna 2>/dev/null | awk -v a=":$p" -v b=":$((p + 1))" \
            '{ n = split($4, x, ":"); if (":" x[n] == a || ":" x[n] == b) f = 1 } END { exit !f }' \
            || { echo "$p"; return; }
    done
    echo 23456
}
qemu_cmd() {              # $1 share dir, $2 eth0 IPv4, $3 MAC prefix (5 octets), $4 eth0 -netdev
    local accel_opts
    # shellcheck disable=SC2054  # the commas are QEMU option syntax
    case "$ACCEL" in
        tcg) accel_opts=(-accel tcg,thread=multi -cpu max) ;;
        kvm) accel_opts=(-accel kvm -cpu host,-arch-capabilities) ;;   # not on kvm_pvm hosts
        *)   die "RXEVM_ACCEL must be tcg or kvm" ;;
    esac
    # shellcheck disable=SC2054
    QEMU=(qemu-system-x86_64 "${accel_opts[@]}" -smp "$SMP" -m "$MEM" -nographic -no-reboot
          -kernel "$KERNEL" -initrd "$RUN/initrd"
          -append "console=ttyS0 panic=-1 loglevel=4 rxevm.mode=$MODE rxevm.ip=$2${RXEVM_APPEND:+ $RXEVM_APPEND}"
          -netdev "$4" -device "virtio-net-pci,netdev=n0,mac=$3:56,speed=100000,duplex=full"
          -netdev user,id=n1,net=10.0.3.0/24 -device "e1000,netdev=n1,mac=$3:57"
          -virtfs "local,path=$1,mount_tag=hostshare,security_model=none,id=hostshare")
}
collect_out() {           # copy guest output + console logs to $RXEVM_OUT
    local dst=${RXEVM_OUT:-$WORK/last-run}
    [ -n "${RXEVM_OUT:-}" ] || rm -rf "$dst"
    mkdir -p "$dst"
    cp -r "$RUN/share/out/." "$dst/" 2>/dev/null || true
    cp "$RUN/console.log" "$dst/" 2>/dev/null || true
    if [ -n "$PEER" ]; then
        mkdir -p "$dst/peer"
        cp -r "$RUN/share-peer/out/." "$dst/peer/" 2>/dev/null || true
        cp "$RUN/console-peer.log" "$dst/peer/" 2>/dev/null || true
    fi
    log "guest output copied to $dst"
}
show_guest_log() {        # $1 title, $2 share dir, $3 console log
    echo "----- $1 -----"
    cat "$2/out/guest.log" 2>/dev/null || { echo "no guest.log; console:"; cat "$3" 2>/dev/null; }
}

############################################################################
# Main
############################################################################
MODE=run
SCRIPT=""
case "${1:-}" in
    --check) check_host; exit $? ;;
    --shell) MODE=shell ;;
    -h|--help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
    -*) usage >&2; exit 2 ;;
    *) SCRIPT=$(readlink -f "$1"); [ -f "$SCRIPT" ] || die "no such script: $1" ;;
esac
[ $# -le 1 ] || die "too many arguments"
# resolve user-supplied paths before anything changes directory
if [ -n "$PEER" ]; then
    [ "$MODE" = run ] || die "PEER needs a script for VM A, not --shell"
    PEER=$(readlink -f "$PEER"); [ -f "$PEER" ] || die "no such PEER script"
fi
_eb=""
for b in $EXTRA_BINS; do
    [ -f "$b" ] || die "EXTRA_BINS: no such file: $b"
    _eb="$_eb $(realpath -s "$b")"        # -s: a symlink's own name is the name in the guest
done
EXTRA_BINS=${_eb# }
[ -f "$INIT_SRC" ] || die "missing $INIT_SRC"

mkdir -p "$WORK"
# --- serialised section: package install, kernel, initramfs ---
exec 9>"$WORK/.lock"
if ! flock -n 9; then
    log "waiting for another run's lock on $WORK/.lock"
    flock 9
fi
install_packages
prepare_kernel
prepare_initramfs
if [ "${RXEVM_BUILD_ONLY:-0}" = 1 ]; then
    log "RXEVM_BUILD_ONLY=1: kernel $KERNEL, initrd $INITRD"
    exit 0
fi
mkdir -p "$WORK/runs"
# leftovers of runs that were SIGKILLed (e.g. by a ctest timeout)
find "$WORK/runs" -mindepth 1 -maxdepth 1 -mmin +720 -exec rm -rf {} + 2>/dev/null || true
RUN=$(mktemp -d "$WORK/runs/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
ln "$INITRD" "$RUN/initrd" 2>/dev/null || cp "$INITRD" "$RUN/initrd"
exec 9>&-
# --- end of serialised section ---

prep_share "$RUN/share" "$SCRIPT"
[ -z "$PEER" ] || prep_share "$RUN/share-peer" "$PEER"

TB=$(date +%s.%N)
set +e
if [ "$MODE" = shell ]; then
    qemu_cmd "$RUN/share" 10.0.2.15 52:54:00:12:34 "user,id=n0"
    log "booting: ${QEMU[*]}"
    "${QEMU[@]}"
    qrc=$?
elif [ -n "$PEER" ]; then
    port=${RXEVM_UDP_PORT:-$(pick_udp_port)}
    qemu_cmd "$RUN/share" 10.0.2.15 52:54:00:12:34 \
        "socket,id=n0,udp=127.0.0.1:$((port + 1)),localaddr=127.0.0.1:$port"
    QEMU_A=("${QEMU[@]}")
    qemu_cmd "$RUN/share-peer" 10.0.2.16 52:54:00:12:35 \
        "socket,id=n0,udp=127.0.0.1:$port,localaddr=127.0.0.1:$((port + 1))"
    QEMU_B=("${QEMU[@]}")
    log "booting A and B (eth0 wired over UDP ports $port/$((port + 1))): ${QEMU_A[*]}"
    timeout "$TIMEOUT" "${QEMU_A[@]}" < /dev/null > "$RUN/console.log" 2>&1 &
    pa=$!
    timeout "$TIMEOUT" "${QEMU_B[@]}" < /dev/null > "$RUN/console-peer.log" 2>&1 &
    pb=$!
    wait $pa; qrc=$?
    wait $pb; qrcb=$?
    [ "$qrc" != 0 ] || qrc=$qrcb
else
    qemu_cmd "$RUN/share" 10.0.2.15 52:54:00:12:34 "user,id=n0"
    log "booting: ${QEMU[*]}"
    timeout "$TIMEOUT" "${QEMU[@]}" < /dev/null > "$RUN/console.log" 2>&1
    qrc=$?
fi
set -e
TE=$(date +%s.%N)

[ "$MODE" = shell ] && { log "qemu exit=$qrc"; exit "$qrc"; }
show_guest_log "guest output" "$RUN/share" "$RUN/console.log"
[ -z "$PEER" ] || show_guest_log "peer guest output" "$RUN/share-peer" "$RUN/console-peer.log"
echo "-----"
collect_out
RC=$(cat "$RUN/share/out/rc" 2>/dev/null || echo 1)
if [ -n "$PEER" ] && [ "$RC" = 0 ]; then RC=$(cat "$RUN/share-peer/out/rc" 2>/dev/null || echo 1); fi
[ "$qrc" != 124 ] || log "TIMEOUT: the VM ran longer than ${TIMEOUT}s and was killed"
log "qemu exit=$qrc  qemu wall=$(elapsed "$TB" "$TE")s  total wall=$(elapsed "$T0" "$TE")s  guest rc=$RC"
[ "$qrc" = 0 ] || exit "$qrc"
exit "$RC"
