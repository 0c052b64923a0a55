#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts/image-sbom.py on the files scripts/build-image.sh would copy from this
# machine (the ldd closure of the build's binary and of the ibverbs providers, their
# driver files, the dynamic loader), without building the image: the document is
# SPDX 2.3 JSON (spdxVersion, dataLicense, SPDXID, documentNamespace, creationInfo,
# documentDescribes), every package has name, versionInfo, downloadLocation, SPDXID
# and a purl, every relationship names elements that exist, the image DESCRIBED and
# CONTAINS each package, every copied library's Debian package (dpkg -S) is listed with
# dpkg-query's version, every file has SHA-1 and SHA-256; and a copied file that no
# package owns fails the script (exit 1).
#   image-sbom.sh BUILD_DIR
set -u
. "$(dirname "$0")/../include/skip.sh"
for t in dpkg dpkg-query ldd python3; do
	command -v "$t" >/dev/null || skip RDMA_EXPORTER_PACKAGE_REQUIRED "$t not found"
done
. "$(dirname "$0")/package-lib.sh"
BIN=$BUILD/rdma_exporter
[ -x "$BIN" ] || { not_ok "no $BIN"; exit 1; }

PROVIDERS=$(dirname "$(ldconfig -p | awk '/libibverbs.so.1 / && !n++ { print $NF }')")/libibverbs
{
	for o in "$BIN" "$PROVIDERS"/*.so; do
		[ -e "$o" ] && ldd "$o"
	done | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	ls "$PROVIDERS"/*.so /etc/libibverbs.d/* 2>/dev/null
} | sed 's#^/lib/#/usr/lib/#; s#^/lib64/#/usr/lib64/#' | sort -u >"$TMP/files"
ok "$(wc -l <"$TMP/files") files as build-image.sh copies them"
SBOM=$TMP/sbom.spdx.json
if SOURCE_DATE_EPOCH=1700000000 python3 "$SRC/scripts/image-sbom.py" --files "$TMP/files" \
	--binary "$BIN" --version 1.2.3-test -o "$SBOM" >"$TMP/out" 2>&1; then
	ok "image-sbom.py: $(cat "$TMP/out")"
else
	not_ok "image-sbom.py"
	sed 's/^/# /' "$TMP/out"
	exit 1
fi
# The package of each copied file, as dpkg says, with its version.
while read -r f; do
	r=$(readlink -f "$f")
	for p in "$f" "${f/#\/usr\/lib\//\/lib\/}" "${f/#\/usr\/lib64\//\/lib64\/}" "$r" \
		"${r/#\/usr\/lib\//\/lib\/}"; do
		o=$(dpkg -S "$p" 2>/dev/null | awk -F': ' -v p="$p" '$2 == p { sub(/,.*/, "", $1); print $1; exit }')
		[ -n "$o" ] && break
	done
	echo "${o:-UNOWNED:$f}"
done <"$TMP/files" | sort -u >"$TMP/owners"
while read -r o; do
	case $o in UNOWNED:*) echo "$o" ;; *) dpkg-query -W -f='${Package}\t${Version}\n' "$o" ;; esac
done <"$TMP/owners" | sort -u >"$TMP/want"
python3 - "$SBOM" "$TMP/want" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
bad = 0
def check(desc, cond):
    global bad
    bad += not cond
    print(("ok - " if cond else "not ok - ") + desc)
    return cond
for k in ("spdxVersion", "dataLicense", "SPDXID", "name", "documentNamespace", "creationInfo",
          "packages", "relationships", "documentDescribes"):
    check(f"document has {k}", k in doc)
check("spdxVersion SPDX-2.3, dataLicense CC0-1.0, SPDXID SPDXRef-DOCUMENT",
      doc.get("spdxVersion") == "SPDX-2.3" and doc.get("dataLicense") == "CC0-1.0"
      and doc.get("SPDXID") == "SPDXRef-DOCUMENT")
check("creationInfo: created from SOURCE_DATE_EPOCH, a Tool creator",
      doc["creationInfo"].get("created") == "2023-11-14T22:13:20Z"
      and any(c.startswith("Tool: ") for c in doc["creationInfo"].get("creators", [])))
pk = doc["packages"]
check("every package has SPDXID, name, versionInfo, downloadLocation, licenseConcluded",
      all(all(p.get(k) for k in ("SPDXID", "name", "versionInfo", "downloadLocation",
                                 "licenseConcluded")) for p in pk))
ids = [p["SPDXID"] for p in pk] + [f["SPDXID"] for f in doc.get("files", [])]
check("SPDXIDs unique", len(ids) == len(set(ids)))
ids = set(ids) | {"SPDXRef-DOCUMENT"}
rel = doc["relationships"]
check("every relationship names existing elements",
      all(r["spdxElementId"] in ids and r["relatedSpdxElement"] in ids for r in rel))
img = doc["documentDescribes"][0]
check("the document DESCRIBES the image", {"spdxElementId": "SPDXRef-DOCUMENT",
      "relationshipType": "DESCRIBES", "relatedSpdxElement": img} in rel)
contained = {r["relatedSpdxElement"] for r in rel
             if r["spdxElementId"] == img and r["relationshipType"] == "CONTAINS"}
check("the image CONTAINS every other package",
      contained == {p["SPDXID"] for p in pk if p["SPDXID"] != img})
ex = [p for p in pk if p["name"] == "rdma-exporter"]
check("rdma-exporter itself: version 1.2.3-test, Apache-2.0",
      len(ex) == 1 and ex[0]["versionInfo"] == "1.2.3-test"
      and ex[0]["licenseDeclared"] == "Apache-2.0")
have = {(p["name"], p["versionInfo"]) for p in pk}
missing = [w for w in want if tuple(w) not in have]
check(f"every copied file's Debian package listed with dpkg's version ({len(want)})",
      not missing) or print("# missing: %s" % missing)
debs = [p for p in pk if p["SPDXID"].startswith("SPDXRef-Package-deb-")]
check("every Debian package has a pkg:deb purl with arch and distro",
      all(any(r["referenceType"] == "purl" and r["referenceLocator"].startswith(
          "pkg:deb/") and "arch=" in r["referenceLocator"] and "distro=" in r["referenceLocator"]
          for r in p.get("externalRefs", [])) for p in debs))
files = doc.get("files", [])
check("every file has a SHA1 and a SHA256 checksum and a package that CONTAINS it",
      all({c["algorithm"] for c in f["checksums"]} >= {"SHA1", "SHA256"} for f in files)
      and {f["SPDXID"] for f in files} <= {r["relatedSpdxElement"] for r in rel
                                          if r["relationshipType"] == "CONTAINS"})
check("the distribution as an OPERATING-SYSTEM package (debian, its version)",
      any(p.get("primaryPackagePurpose") == "OPERATING-SYSTEM" and p["name"] == "debian"
          and p["versionInfo"] for p in pk))
check("libc6 and libibverbs1 among the packages", {"libc6", "libibverbs1"} <= {p["name"] for p in pk})
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fail=$((fail + 1))
# A file two architectures' packages share (Multi-Arch: same; the :arm64 twins are
# there after install-deps.sh --test): --arch picks the image's.
shared=$(ls /etc/libibverbs.d/*.driver 2>/dev/null | head -1)
if [ -n "$shared" ] && dpkg -S "$shared" 2>/dev/null | grep -q ':amd64, .*:arm64'; then
	echo "$shared" >"$TMP/shared"
	for arch in arm64 amd64; do
		python3 "$SRC/scripts/image-sbom.py" --files "$TMP/shared" --binary "$BIN" --version 1 \
			--arch "$arch" -o "$TMP/shared-$arch.json" >"$TMP/out" 2>&1
		check "a file ibverbs-providers:amd64 and :arm64 share: --arch $arch lists the $arch package" \
			grep -q "pkg:deb/debian/ibverbs-providers@[^\"]*arch=$arch" "$TMP/shared-$arch.json"
	done
else
	echo "# no file shared by ibverbs-providers:amd64 and :arm64 here: --arch not checked"
fi
echo "not a packaged file" >"$TMP/stray"
echo "$TMP/stray" >>"$TMP/files"
python3 "$SRC/scripts/image-sbom.py" --files "$TMP/files" --binary "$BIN" --version 1 \
	-o "$TMP/bad.json" >"$TMP/out" 2>&1
rc=$?
check "a copied file no package owns: exit 1, named, no SBOM written" bash -c \
	"[ $rc = 1 ] && grep -q 'stray: no Debian package ships it' '$TMP/out' && [ ! -e '$TMP/bad.json' ]"
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
