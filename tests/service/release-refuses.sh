#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts/release.sh's refusals, before it builds anything, in a scratch clone of
# this checkout's HEAD: a checkout with an untracked file or an uncommitted change,
# a VERSION that is not CMakeLists.txt's, a CHANGELOG.md without a "## [VERSION] -
# DATE" entry (an "Unreleased" section is not one), and a missing arm64
# toolchain file (cmake/toolchain-aarch64-linux-gnu.cmake); and the same clone with the entry made (the Unreleased
# section released as VERSION) passes them (RELEASE_REFUSALS_ONLY=1 stops there).
#   release-refuses.sh SOURCE_DIR
set -u
SRC=${1:?usage: release-refuses.sh SOURCE_DIR}
. "$(dirname "$0")/../include/tap.sh"
command -v git >/dev/null || { echo "# SKIP: no git"; exit 77; }
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || { echo "# SKIP: $SRC is not a checkout"; exit 77; }

R=$TMP/repo
git clone -q --no-hardlinks "$SRC" "$R" || { not_ok "git clone"; exit 1; }
git -C "$R" -c user.name=t -c user.email=t@example.org checkout -q -B t HEAD
commit() { git -C "$R" -c user.name=t -c user.email=t@example.org commit -qam "$1"; }
# The scripts as in the working tree (this test checks them before they are committed).
cp "$SRC/scripts/release.sh" "$SRC/scripts/gen-changelog.py" "$R/scripts/"
git -C "$R" add scripts
commit "the working tree's release.sh" >/dev/null 2>&1
export RELEASE_REFUSALS_ONLY=1
# refuses DESCRIPTION PATTERN ARGS...: release.sh ARGS exits 1, PATTERN on stderr.
refuses() {
	local d=$1 pat=$2 rc
	shift 2
	"$R/scripts/release.sh" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q -- "$pat" "$TMP/err"; then
		ok "$d"
	else
		not_ok "$d (exit $rc)"
		sed 's/^/# /' "$TMP/out" "$TMP/err"
	fi
}
V=$(sed -n 's/^project(rdma_exporter VERSION \([0-9.]*\).*/\1/p' "$R/CMakeLists.txt")
NEXT=$(echo "$V" | awk -F. '{printf "%d.%d.0", $1, $2 + 1}')

echo x >"$R/untracked"
refuses "an untracked file: refused" "uncommitted changes or untracked files" --no-arm64 "$V"
rm "$R/untracked"
echo "# edit" >>"$R/README.md"
refuses "an uncommitted change: refused" "uncommitted changes or untracked files" --no-arm64 "$V"
git -C "$R" checkout -q README.md

grep -q "^## \[$V\] - " "$R/CHANGELOG.md" &&
	refuses "$V with unreleased changes listed after its entry: refused" "lists unreleased changes" \
		--no-arm64 "$V"
refuses "a VERSION that is not the project version: refused" "not $NEXT" --no-arm64 "$NEXT"
refuses "not X.Y.Z: refused" "is not X.Y.Z" --no-arm64 "v$V"
sed -i "s/^project(rdma_exporter VERSION $V/project(rdma_exporter VERSION $NEXT/" "$R/CMakeLists.txt"
commit "version $NEXT"
refuses "no CHANGELOG.md entry for $NEXT (only Unreleased): refused" "no '## \[$NEXT\]" --no-arm64 "$NEXT"

# Released: the Unreleased section becomes NEXT's entry.
sed -i "s/^## \[Unreleased\]\$/## [$NEXT] - 2026-11-27/" "$R/CHANGELOG.md"
commit "release $NEXT"
git -C "$R" rm -q cmake/toolchain-aarch64-linux-gnu.cmake
commit "no arm64 toolchain file" >/dev/null 2>&1
refuses "without the arm64 toolchain file: refused, saying so" "toolchain-aarch64-linux-gnu.cmake is absent" "$NEXT"
if "$R/scripts/release.sh" --no-arm64 "$NEXT" >"$TMP/out" 2>"$TMP/err" &&
	grep -q 'the checks before building pass' "$TMP/out"; then
	ok "a clean checkout with a CHANGELOG.md entry for $NEXT: accepted"
else
	not_ok "a clean checkout with a CHANGELOG.md entry for $NEXT: accepted"
	sed 's/^/# /' "$TMP/out" "$TMP/err"
fi
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
