#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The .deb installed with apt in a fresh Debian 13 (trixie) root: cpack -G DEB in
# this build dir, then scripts/install-test.sh DEB trixie (apt-get install with
# trixie's libraries, --version, a fixture scrape with `once` and over HTTP,
# `check` exit 0, remove, purge: every file gone). One root only, for CI's time:
# trixie is the newest Debian (its t64 library names, its apt) beside this
# bookworm host, and this build's own .deb is the one installed (a Debian 12
# build: it needs glibc 2.36, so not Debian 11; the release build in a Debian 11
# root and the three roots are scripts/release.sh --check). The root comes from
# mmdebstrap, cached (scripts/root-lib.sh); cost: about 1 minute with an empty
# cache, 30 s with it (apt fetches the runtime libraries either way).
# Exit 77 (skipped) without root, mmdebstrap or a reachable mirror; exit 1
# instead with RDMA_EXPORTER_PACKAGE_REQUIRED=1 (CI).
#   package-install-root.sh BUILD_DIR
set -u
. "$(dirname "$0")/../include/skip.sh"
[ "$(id -u)" -eq 0 ] || skip RDMA_EXPORTER_PACKAGE_REQUIRED "not root (chroot)"
for t in mmdebstrap cpack dpkg-deb unshare; do
	command -v "$t" >/dev/null ||
		skip RDMA_EXPORTER_PACKAGE_REQUIRED "$t not found (scripts/install-deps.sh --test installs it)"
done
. "$(dirname "$0")/package-lib.sh"
. "$SRC/scripts/root-lib.sh"
host=$(root_mirror | sed -E 's#^https?://([^/:]+).*#\1#')
timeout 10 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
	skip RDMA_EXPORTER_PACKAGE_REQUIRED "the Debian mirror $host cannot be reached"

DEB=$(package_build DEB "$TMP/out")
if [ -z "$DEB" ]; then
	not_ok "cpack -G DEB"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "cpack -G DEB: $(basename "$DEB")"
"$SRC/scripts/install-test.sh" "$DEB" trixie
