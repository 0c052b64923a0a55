#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts/gen-changelog.py: CHANGELOG.md as a Debian changelog (dpkg-parsechangelog
# reads every entry, the top one has the package version, no line over 80 columns)
# and as an RPM %changelog (rpmspec parses it in a minimal spec: dates, weekdays and
# order), then a small changelog whose both renderings are compared in full, the
# version rules (+dev after a release, the bumped version before one) and the
# refusals (versions out of order, a version without changes).
#
# Exit 77 (skipped) where a tool is missing; exit 1 (failed) instead with
# RDMA_EXPORTER_PACKAGE_REQUIRED=1 (CI).
#
#   changelog.sh SOURCE_DIR
set -u
SRC=$(cd "${1:?usage: changelog.sh SOURCE_DIR}" && pwd)
. "$(dirname "$0")/../include/skip.sh"
for t in python3 dpkg-parsechangelog rpmspec; do
	command -v "$t" >/dev/null ||
		skip RDMA_EXPORTER_PACKAGE_REQUIRED "$t not found (scripts/install-deps.sh --test installs it)"
done
. "$(dirname "$0")/../include/tap.sh"
GEN=("python3" "$SRC/scripts/gen-changelog.py")
PROJ=$(sed -n 's/^project(rdma_exporter VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
MAINT="Test Maintainer <test@example.org>"

# rpm_parse FILE: the %changelog of a minimal spec, as rpm reads it; rpmspec's
# complaints (dates, weekdays, order) in $TMP/rpmspec.err.
rpm_parse() {
	{
		printf 'Name: t\nVersion: 1\nRelease: 1\nSummary: t\nLicense: Apache-2.0\n'
		printf '%%description\nt\n%%changelog\n'
		cat "$1"
	} >"$TMP/t.spec"
	rpmspec -q --qf '[* %{CHANGELOGTIME:day} %{CHANGELOGNAME}\n%{CHANGELOGTEXT}\n\n]' "$TMP/t.spec" 2>"$TMP/rpmspec.err"
}

# --- the project's CHANGELOG.md ---------------------------------------------------
VER=$("${GEN[@]}" --print-version --version "$PROJ" "$SRC/CHANGELOG.md")
echo "# project version $PROJ, package version $VER"
check "CHANGELOG.md: --print-version" test -n "$VER"
"${GEN[@]}" --format deb --version "$PROJ" --date 2030-01-02 --maintainer "$MAINT" \
	-o "$TMP/changelog" "$SRC/CHANGELOG.md"
"${GEN[@]}" --format rpm --version "$PROJ" --date 2030-01-02 --maintainer "$MAINT" \
	-o "$TMP/rpm-changelog" "$SRC/CHANGELOG.md"
sections=$(grep -c '^## \[' "$SRC/CHANGELOG.md")
check "deb: dpkg-parsechangelog reads $sections entries" \
	test "$(dpkg-parsechangelog -l "$TMP/changelog" --all --format rfc822 | grep -c '^Version:')" = "$sections"
check "deb: the top entry has the package version" \
	test "$(dpkg-parsechangelog -l "$TMP/changelog" -S Version)" = "$VER"
check "deb: dpkg-parsechangelog gives the maintainer" \
	test "$(dpkg-parsechangelog -l "$TMP/changelog" -S Maintainer)" = "$MAINT"
check "deb: no line over 80 columns but the trailers" \
	bash -c "! grep -v '^ -- ' '$TMP/changelog' | awk 'length > 80' | grep -q ."
rpm_parse "$TMP/rpm-changelog" >"$TMP/rpm-parsed"
check "rpm: rpmspec reads $sections entries" test "$(grep -c '^\* ' "$TMP/rpm-parsed")" = "$sections"
check "rpm: the top entry is $VER-1" bash -c "head -1 '$TMP/rpm-parsed' | grep -q ' - $VER-1\$'"
check "rpm: rpmspec complains of nothing" test ! -s "$TMP/rpmspec.err"
sed 's/^/# rpmspec: /' "$TMP/rpmspec.err"

# --- a small changelog, both renderings in full --------------------------------------
cat >"$TMP/small.md" <<'MD'
# Changelog

Text before the first section is not rendered.

## [Unreleased]

### Changed
- **flags**: `--web.listen-address` takes a [list](docs/configuration.md), which is a
  long line that has to wrap to stay within the eighty columns of a changelog line.
- 100% of the ports.

## [1.1.0] - 2026-03-04

### Added
- One.

### Fixed
- Two.

## [1.0.0] - 2026-01-31

### Added
- First.

[1.0.0]: https://example.org/1.0.0
MD
cat >"$TMP/small.deb" <<'DEB'
rdma-exporter (1.1.0+dev) UNRELEASED; urgency=medium

  * Changed:
    - **flags**: `--web.listen-address` takes a list, which is a long line that
      has to wrap to stay within the eighty columns of a changelog line.
    - 100% of the ports.

 -- Test Maintainer <test@example.org>  Wed, 02 Jan 2030 00:00:00 +0000

rdma-exporter (1.1.0) unstable; urgency=medium

  * Added:
    - One.
  * Fixed:
    - Two.

 -- Test Maintainer <test@example.org>  Wed, 04 Mar 2026 00:00:00 +0000

rdma-exporter (1.0.0) unstable; urgency=medium

  * Added:
    - First.

 -- Test Maintainer <test@example.org>  Sat, 31 Jan 2026 00:00:00 +0000
DEB
cat >"$TMP/small.rpm" <<'RPM'
* Wed Jan 02 2030 Test Maintainer <test@example.org> - 1.1.0+dev-1
- Changed: **flags**: `--web.listen-address` takes a list, which is a long line
  that has to wrap to stay within the eighty columns of a changelog line.
- Changed: 100%% of the ports.

* Wed Mar 04 2026 Test Maintainer <test@example.org> - 1.1.0-1
- Added: One.
- Fixed: Two.

* Sat Jan 31 2026 Test Maintainer <test@example.org> - 1.0.0-1
- Added: First.
RPM
gen_small() { # gen_small FORMAT PROJECT_VERSION [FILE]
	"${GEN[@]}" --format "$1" --version "$2" --date 2030-01-02 --maintainer "$MAINT" "${3:-$TMP/small.md}"
}
check "small: the Debian changelog, in full" diff <(gen_small deb 1.1.0) "$TMP/small.deb"
check "small: the RPM changelog, in full" diff <(gen_small rpm 1.1.0) "$TMP/small.rpm"
check "small: dpkg-parsechangelog reads 3 entries" \
	test "$(gen_small deb 1.1.0 | dpkg-parsechangelog -l - --all --format rfc822 |
	sed -n 's/^Version: //p' | tr '\n' ' ')" = "1.1.0+dev 1.1.0 1.0.0 "
gen_small rpm 1.1.0 >"$TMP/small.rpm.out"
rpm_parse "$TMP/small.rpm.out" >"$TMP/small.rpm.parsed"
check "small: rpmspec reads 3 entries, a % as itself" bash -c \
	"[ \$(grep -c '^\* ' '$TMP/small.rpm.parsed') -eq 3 ] && grep -qx -- '- Changed: 100% of the ports.' '$TMP/small.rpm.parsed'"
check "small: a bumped project version names the unreleased entry" \
	test "$("${GEN[@]}" --print-version --version 1.2.0 "$TMP/small.md")" = 1.2.0

# --- refusals --------------------------------------------------------------------------
refuses() { # refuses DESCRIPTION PROJECT_VERSION < CHANGELOG
	local d=$1
	cat >"$TMP/bad.md"
	if "${GEN[@]}" --print-version --version "$2" "$TMP/bad.md" >/dev/null 2>"$TMP/err"; then
		not_ok "refused: $d"
	else
		ok "refused: $d ($(cat "$TMP/err"))"
	fi
}
refuses "versions out of order" 1.1.0 <<'MD'
## [1.0.0] - 2026-03-04
### Added
- One.
## [1.1.0] - 2026-01-31
### Added
- Two.
MD
refuses "a release above the project version" 1.0.0 <<'MD'
## [1.1.0] - 2026-03-04
### Added
- One.
MD
refuses "a project version with no entry" 1.2.0 <<'MD'
## [Unreleased]
## [1.1.0] - 2026-03-04
### Added
- One.
MD
refuses "a release without a date" 1.1.0 <<'MD'
## [1.1.0]
### Added
- One.
MD
if "${GEN[@]}" --format deb --version 1.1.0 --date 2026-03-04T00:00:00 "$TMP/small.md" >/dev/null 2>"$TMP/err"; then
	not_ok "refused: an unreleased entry dated at the last release"
else
	ok "refused: an unreleased entry dated at the last release ($(cat "$TMP/err"))"
fi
check "an unreleased entry later on the day of the last release: its time" bash -c \
	"$(printf '%q ' "${GEN[@]}") --format deb --version 1.1.0 --date 2026-03-04T09:15:00 '$TMP/small.md' |
	grep -q '^ -- .*  Wed, 04 Mar 2026 09:15:00 +0000\$'"
refuses "a change outside a group" 1.1.0 <<'MD'
## [1.1.0] - 2026-03-04
- One.
MD

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
