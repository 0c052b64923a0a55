#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turns CHANGELOG.md (Keep a Changelog) into the package changelogs.

    gen-changelog.py --format deb|rpm --version V --date YYYY-MM-DD[THH:MM:SS] \\
        --maintainer 'Name <mail>' [--package NAME] [--release R] [-o OUT] CHANGELOG.md
    gen-changelog.py --print-version --version V CHANGELOG.md

--version is the project version (CMakeLists.txt). Released sections
("## [X.Y.Z] - YYYY-MM-DD") become entries of their own version and date. A
non-empty "## [Unreleased]" section becomes the top entry, dated --date (the
build's time, SOURCE_DATE_EPOCH honoured by CMake; it must come after the last
release, which lintian and rpm check), with the version the package
gets, which --print-version prints: the project version when no section has
released it yet, else the project version + "+dev" (after the release, before
the next one, in both dpkg's and rpm's ordering). Debian entries of unreleased
changes go to the UNRELEASED distribution, released ones to unstable.

Fails (exit 1, one line) on what would make a wrong package changelog: no
section, a heading it cannot read, a version out of order, an entry with no
change, a released version above the project version.
"""
import argparse
import datetime
import re
import sys
import textwrap

HEADING = re.compile(r"^## \[(?P<ver>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$")
VERSION = re.compile(r"^\d+(\.\d+)*$")
LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
WIDTH = 79


class ChangelogError(Exception):
    pass


def vkey(version):
    return tuple(int(x) for x in version.split("."))


def parse(text):
    """Sections as dicts: version ("Unreleased" or X.Y.Z), date, groups
    [(group, [item, ...]), ...], in file order."""
    sections = []
    cur = None
    group = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            m = HEADING.match(line)
            if not m:
                raise ChangelogError(f"line {n}: unreadable heading: {line}")
            ver, date = m.group("ver"), m.group("date")
            if ver == "Unreleased":
                if date or sections:
                    raise ChangelogError(f"line {n}: [Unreleased] comes first, without a date")
            elif not VERSION.match(ver) or not date:
                raise ChangelogError(f"line {n}: want '## [X.Y.Z] - YYYY-MM-DD': {line}")
            cur = {"version": ver, "date": date, "groups": []}
            sections.append(cur)
            group = None
        elif cur is None:
            continue
        elif line.startswith("### "):
            group = (line[4:].strip(), [])
            cur["groups"].append(group)
        elif line.startswith("- "):
            if group is None:
                raise ChangelogError(f"line {n}: a change outside a '### ' group")
            group[1].append(line[2:].strip())
        elif line.startswith("  ") and line.strip() and group and group[1]:
            group[1][-1] += " " + line.strip()
        elif line.startswith("["):
            continue  # link reference definitions at the end
        elif line.strip():
            raise ChangelogError(f"line {n}: neither a heading nor a '- ' change: {line}")
    return sections


def check(sections, project_version):
    released = [s for s in sections if s["version"] != "Unreleased"]
    if not released and not sections:
        raise ChangelogError("no section")
    for a, b in zip(released, released[1:]):
        if vkey(a["version"]) <= vkey(b["version"]) or a["date"] < b["date"]:
            raise ChangelogError(f"{a['version']} is listed above {b['version']} but is not newer")
    if released and vkey(released[0]["version"]) > vkey(project_version):
        raise ChangelogError(
            f"{released[0]['version']} is released but the project version is {project_version}")
    for s in released:
        if not any(items for _, items in s["groups"]):
            raise ChangelogError(f"{s['version']} lists no change")


def entries(sections, project_version, now):
    """(version, datetime, distribution, groups) for each package changelog entry."""
    check(sections, project_version)
    released = {s["version"] for s in sections if s["version"] != "Unreleased"}
    pending = [s for s in sections if s["version"] == "Unreleased" and any(i for _, i in s["groups"])]
    if not pending and project_version not in released:
        raise ChangelogError(
            f"the project version {project_version} has no entry: list its changes under [Unreleased]")
    out = []
    for s in sections:
        if s["version"] == "Unreleased":
            if not any(items for _, items in s["groups"]):
                continue
            ver = project_version + ("+dev" if project_version in released else "")
            out.append((ver, now, "UNRELEASED", s["groups"]))
        else:
            day = datetime.datetime.fromisoformat(s["date"])
            if out and out[-1][1] <= day:
                raise ChangelogError(
                    f"the unreleased entry's date {now.isoformat()} is not after {s['version']}'s")
            out.append((s["version"], day, "unstable", s["groups"]))
    return out


def plain(item):
    """Markdown inline to plain text: links lose their target."""
    return LINK.sub(r"\1", item)


def wrap(text, first, rest):
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False)


def render_deb(ents, package, maintainer):
    out = []
    for ver, d, dist, groups in ents:
        out.append(f"{package} ({ver}) {dist}; urgency=medium")
        out.append("")
        for name, items in groups:
            if not items:
                continue
            out.append(f"  * {name}:")
            for item in items:
                out.extend(wrap(plain(item), "    - ", "      "))
        out.append("")
        out.append(f" -- {maintainer}  {d.strftime('%a, %d %b %Y %H:%M:%S')} +0000")
        out.append("")
    return "\n".join(out)


def render_rpm(ents, maintainer, release):
    out = []
    for ver, d, _, groups in ents:
        out.append(f"* {d.strftime('%a %b %d %Y')} {maintainer} - {ver}-{release}")
        for name, items in groups:
            for item in items:
                out.extend(wrap(f"{name}: {plain(item)}", "- ", "  "))
        out.append("")
    # rpm expands macros in %changelog: a literal % is written %%.
    return "\n".join(out).replace("%", "%%")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("changelog")
    ap.add_argument("--version", required=True, help="the project version")
    ap.add_argument("--format", choices=("deb", "rpm"))
    ap.add_argument("--print-version", action="store_true")
    ap.add_argument("--date", help="YYYY-MM-DD[THH:MM:SS] (UTC) of an unreleased entry (default: now)")
    ap.add_argument("--maintainer", default="rdma_exporter maintainers <rdma-exporter@example.org>")
    ap.add_argument("--package", default="rdma-exporter")
    ap.add_argument("--release", default="1", help="RPM release of every entry")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    if not VERSION.match(args.version):
        ap.error(f"--version {args.version}: want X.Y.Z")
    try:
        if args.date:
            now = datetime.datetime.fromisoformat(args.date)
        else:
            now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
        with open(args.changelog, encoding="utf-8") as f:
            ents = entries(parse(f.read()), args.version, now)
        if not ents:
            raise ChangelogError("no entry with a change")
    except (OSError, ValueError, ChangelogError) as e:
        print(f"gen-changelog: {args.changelog}: {e}", file=sys.stderr)
        return 1
    if args.print_version:
        print(ents[0][0])
        return 0
    if not args.format:
        ap.error("--format or --print-version")
    if args.format == "deb":
        text = render_deb(ents, args.package, args.maintainer)
    else:
        text = render_rpm(ents, args.maintainer, args.release)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
