# SPDX-License-Identifier: Apache-2.0
#
# Sourced by package.sh (the .deb) and package-rpm.sh (the RPM) with the build
# dir as $1: what both need before their own checks. Sets BUILD (absolute) and
# SRC (the source dir that build was configured from), sources
# tests/include/tap.sh ($TMP, ok, not_ok, check) and defines package_build and
# package_expected_files.

BUILD=${1:?usage: ${0##*/} BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../include/tap.sh"
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt")

# package_build DEB|RPM OUTDIR [CPACK_ARGS...]: cpack in the build dir. -B: the
# package goes to OUTDIR, never next to the build's own files. Prints the
# package's path; where cpack fails, nothing, and its log (OUTDIR.log) as
# comments on stderr.
package_build() {
	local gen=$1 out=$2 name=rdma-exporter_ ext=deb
	shift 2
	[ "$gen" = RPM ] && name=rdma-exporter- ext=rpm
	if (cd "$BUILD" && cpack -G "$gen" -B "$out" "$@") >"$out.log" 2>&1; then
		ls "$out/$name"*."$ext" 2>/dev/null | head -1
	else
		sed 's/^/# /' "$out.log" >&2
	fi
}

# package_expected_files FILE: the files both packages install (directories
# left out), sorted: the fixed list, then the alert rules and dashboards once
# the tree has them.
package_expected_files() {
	local d
	cat >"$1" <<'LIST'
/etc/default/rdma_exporter
/usr/bin/rdma_exporter
/usr/lib/systemd/system/rdma_exporter.service
/usr/lib/systemd/system/rdma_exporter.socket
/usr/share/doc/rdma-exporter/changelog.gz
/usr/share/doc/rdma-exporter/copyright
/usr/share/man/man1/rdma_exporter.1.gz
/usr/share/rdma_exporter/nhc/rdma_exporter.nhc
LIST
	for d in alerts dashboards; do
		[ -d "$SRC/$d" ] &&
			(cd "$SRC/$d" && find . -type f ! -name '.*' ! -name '*.py' | sed "s#^\./#/usr/share/rdma_exporter/$d/#")
	done >>"$1"
	sort -o "$1" "$1"
}
