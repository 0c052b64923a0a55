#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""SPDX 2.3 JSON SBOM of the container image (scripts/build-image.sh).

    image-sbom.py --files LIST --binary PATH --version V [--name NAME] -o OUT

LIST: the files the image holds that were copied from this machine, one absolute
path a line (build-image.sh writes it; the path in the image is the path here).
Each is looked up in the dpkg database (dpkg -S, trying the /usr-merged and
unmerged spellings and the resolved path): the Debian package that ships it is
listed with its version and architecture (dpkg-query), its source package, a
purl (pkg:deb/debian/NAME@VERSION?arch=...&distro=debian-N, which Trivy and Grype
match against Debian's security tracker), and its license from
/usr/share/doc/PKG/copyright where that file is machine-readable (DEP-5; the
"Files: *" paragraph, as an SPDX expression when every name is known, else
NOASSERTION). The exporter itself (PATH, which is not from a Debian package) is
a package of its own. Every copied file is listed with its SHA-1 and SHA-256 and
the package that CONTAINS it. A copied file that no package owns is an error
(exit 1): the SBOM would not list everything the image holds.
SOURCE_DATE_EPOCH, when set, is the creation time.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import uuid
from urllib.parse import quote

# Debian copyright-format short names -> SPDX identifiers (the common ones).
LICENSES = {
    "gpl-2": "GPL-2.0-only", "gpl-2+": "GPL-2.0-or-later", "gpl-3": "GPL-3.0-only",
    "gpl-3+": "GPL-3.0-or-later", "lgpl-2": "LGPL-2.0-only", "lgpl-2+": "LGPL-2.0-or-later",
    "lgpl-2.1": "LGPL-2.1-only", "lgpl-2.1+": "LGPL-2.1-or-later", "lgpl-3": "LGPL-3.0-only",
    "lgpl-3+": "LGPL-3.0-or-later", "bsd-2-clause": "BSD-2-Clause",
    "bsd-3-clause": "BSD-3-Clause", "expat": "MIT", "mit": "MIT", "zlib": "Zlib",
    "apache-2.0": "Apache-2.0", "isc": "ISC", "mpl-2.0": "MPL-2.0", "public-domain": None,
    "gfdl-1.3+": "GFDL-1.3-or-later", "openssl": "OpenSSL", "curl": "curl",
}
MAX_FILES = 10000


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def spdx_id(s):
    return re.sub(r"[^A-Za-z0-9.-]", "-", s)


def candidates(path):
    """The spellings dpkg may have recorded for PATH (merged /usr)."""
    out = [path]
    real = os.path.realpath(path)
    for p in (path, real):
        for a, b in (("/usr/lib/", "/lib/"), ("/usr/lib64/", "/lib64/"), ("/usr/bin/", "/bin/"),
                     ("/usr/sbin/", "/sbin/")):
            if p.startswith(a):
                out.append(b + p[len(a):])
            elif p.startswith(b):
                out.append(a + p[len(b):])
        out.append(p)
    seen = []
    for p in out:
        if p not in seen:
            seen.append(p)
    return seen


def owner(path, arch=None):
    """The package shipping PATH; of several (a Multi-Arch: same file that
    foo:amd64 and foo:arm64 both ship), the one of ARCH."""
    for p in candidates(path):
        r = run(["dpkg", "-S", p])
        if r.returncode == 0:
            for line in r.stdout.splitlines():
                pkgs, _, f = line.partition(": ")
                if f.strip() == p and not pkgs.startswith("diversion by"):
                    names = [n.strip() for n in pkgs.split(",")]
                    mine = [n for n in names if arch and n.endswith(":" + arch)]
                    return (mine or names)[0]
    return None


def dep5_license(pkg):
    """The license of the "Files: *" paragraph of a DEP-5 copyright file, as SPDX."""
    name = pkg.split(":")[0]
    try:
        with open(f"/usr/share/doc/{name}/copyright", encoding="utf-8", errors="replace") as f:
            text = f.read(200000)
    except OSError:
        return "NOASSERTION"
    if not re.match(r"Format:\s*\S*copyright-format/1\.0", text):
        return "NOASSERTION"
    for para in re.split(r"\n\s*\n", text):
        if re.search(r"^Files:\s*\*\s*$", para, re.M):
            m = re.search(r"^License:\s*(.+)$", para, re.M)
            if not m:
                return "NOASSERTION"
            return spdx_expression(m.group(1).strip())
    return "NOASSERTION"


def spdx_expression(debian):
    parts = re.split(r"\s+(or|and)\s+", debian, flags=re.I)
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            out.append(p.upper())
            continue
        p = p.strip("() ,").lower()
        if p.endswith(" with openssl exception") or " with " in p:
            return "NOASSERTION"
        spdx = LICENSES.get(p)
        if not spdx:
            return "NOASSERTION"
        out.append(spdx)
    return " ".join(out)


def checksums(path):
    h1, h256 = hashlib.sha1(), hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h1.update(block)
            h256.update(block)
    return [{"algorithm": "SHA1", "checksumValue": h1.hexdigest()},
            {"algorithm": "SHA256", "checksumValue": h256.hexdigest()}]


def os_release():
    info = {}
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                info[k] = v.strip('"')
    except OSError:
        pass
    return info.get("ID", "debian"), info.get("VERSION_ID", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--name", default="rdma-exporter")
    ap.add_argument("--arch", help="the image's Debian architecture: of the packages that "
                    "share a file, the one of this architecture")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()

    with open(a.files, encoding="utf-8") as f:
        files = sorted({l.strip() for l in f if l.strip()})
    if len(files) > MAX_FILES:
        print(f"image-sbom: {len(files)} files, more than {MAX_FILES}", file=sys.stderr)
        return 1
    distro, distro_version = os_release()
    owners, unowned = {}, []
    for path in files:
        if not os.path.isfile(path):
            print(f"image-sbom: {path}: not a file here", file=sys.stderr)
            return 1
        pkg = owner(path, a.arch)
        if pkg:
            owners.setdefault(pkg, []).append(path)
        else:
            unowned.append(path)
    if unowned:
        for p in unowned:
            print(f"image-sbom: {p}: no Debian package ships it (dpkg -S)", file=sys.stderr)
        return 1

    fmt = "${Package}\t${Version}\t${Architecture}\t${source:Package}\t${source:Version}\t${Maintainer}\n"
    r = run(["dpkg-query", "-W", "-f", fmt] + sorted(owners))
    if r.returncode != 0:
        print(f"image-sbom: dpkg-query failed: {r.stderr.strip()}", file=sys.stderr)
        return 1
    meta = {}
    for line in r.stdout.splitlines():
        name, version, arch, src, srcver, maint = line.split("\t")
        meta[name] = meta[f"{name}:{arch}"] = (name, version, arch, src, srcver, maint)

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
            else datetime.datetime.now(datetime.timezone.utc))
    image_id = "SPDXRef-Image"
    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{a.name}-image-{a.version}",
        "documentNamespace": "https://spdx.org/spdxdocs/%s-image-%s-%s" % (
            a.name, a.version, uuid.uuid5(uuid.NAMESPACE_URL, a.name + a.version + "".join(files))),
        "creationInfo": {
            "created": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "creators": ["Tool: rdma_exporter-image-sbom.py", "Organization: rdma_exporter"],
        },
        "documentDescribes": [image_id],
        "packages": [{
            "SPDXID": image_id, "name": f"{a.name}-image", "versionInfo": a.version,
            "downloadLocation": "NOASSERTION", "primaryPackagePurpose": "CONTAINER",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
        }, {
            "SPDXID": "SPDXRef-Package-rdma-exporter", "name": a.name, "versionInfo": a.version,
            "downloadLocation": os.environ.get("IMAGE_SOURCE") or "NOASSERTION",
            "primaryPackagePurpose": "APPLICATION", "filesAnalyzed": False,
            "licenseConcluded": "Apache-2.0", "licenseDeclared": "Apache-2.0",
            "copyrightText": "NOASSERTION",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:generic/{a.name}@{a.version}"}],
        }],
        "files": [],
        "relationships": [
            {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
             "relatedSpdxElement": image_id},
            {"spdxElementId": image_id, "relationshipType": "CONTAINS",
             "relatedSpdxElement": "SPDXRef-Package-rdma-exporter"},
        ],
    }
    # The distribution the libraries come from, as an OPERATING-SYSTEM package: how
    # Trivy tells which security tracker to match the deb packages against.
    if distro_version:
        doc["packages"].append({
            "SPDXID": "SPDXRef-OperatingSystem", "name": distro, "versionInfo": distro_version,
            "downloadLocation": "NOASSERTION", "primaryPackagePurpose": "OPERATING-SYSTEM",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION"})
        doc["relationships"].append({"spdxElementId": image_id, "relationshipType": "CONTAINS",
                                     "relatedSpdxElement": "SPDXRef-OperatingSystem"})
    bin_id = "SPDXRef-File-usr-bin-rdma-exporter"
    doc["files"].append({"SPDXID": bin_id, "fileName": "/usr/bin/rdma_exporter",
                         "checksums": checksums(a.binary), "licenseConcluded": "Apache-2.0",
                         "copyrightText": "NOASSERTION"})
    doc["relationships"].append({"spdxElementId": "SPDXRef-Package-rdma-exporter",
                                 "relationshipType": "CONTAINS", "relatedSpdxElement": bin_id})
    for pkg in sorted(owners):
        if pkg not in meta:
            print(f"image-sbom: dpkg-query knows nothing of {pkg}", file=sys.stderr)
            return 1
        name, version, arch, src, srcver, maint = meta[pkg]
        pid = spdx_id(f"SPDXRef-Package-deb-{name}-{arch}")
        # The epoch as a qualifier, as Trivy and Syft write Debian purls.
        epoch, _, upstream = version.rpartition(":")
        purl = f"pkg:deb/{distro}/{name}@{quote(upstream, safe='.-_~')}?arch={arch}"
        if epoch:
            purl += f"&epoch={epoch}"
        if distro_version:
            purl += f"&distro={distro}-{distro_version}"
        if src and src != name:
            purl += f"&upstream={src}"
        lic = dep5_license(pkg)
        doc["packages"].append({
            "SPDXID": pid, "name": name, "versionInfo": version,
            "supplier": f"Organization: {maint}" if maint else "NOASSERTION",
            "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
            "licenseConcluded": lic, "licenseDeclared": lic, "copyrightText": "NOASSERTION",
            "sourceInfo": f"built from the Debian source package {src} {srcver or version}",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": purl}],
        })
        doc["relationships"].append({"spdxElementId": image_id, "relationshipType": "CONTAINS",
                                     "relatedSpdxElement": pid})
        for path in sorted(owners[pkg]):
            fid = spdx_id("SPDXRef-File" + path)
            doc["files"].append({"SPDXID": fid, "fileName": path, "checksums": checksums(path),
                                 "licenseConcluded": "NOASSERTION",
                                 "copyrightText": "NOASSERTION"})
            doc["relationships"].append({"spdxElementId": pid, "relationshipType": "CONTAINS",
                                         "relatedSpdxElement": fid})
    tmp = a.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, a.output)
    ndeb = sum(p["SPDXID"].startswith("SPDXRef-Package-deb-") for p in doc["packages"])
    print(f"image-sbom: {a.output}: {ndeb} Debian packages, "
          f"{len(doc['files'])} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
