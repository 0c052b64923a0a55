#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails a test run in which a test did not run: the skip guard of scripts/test.sh.

    check-skips.py [--ci] --allowed FILE --stage NAME JUNIT

JUNIT is the report of `ctest --output-junit`. A test did not run when its
<testcase> has status "notrun" or "disabled", or a <skipped> element: exit 77
with SKIP_RETURN_CODE, SKIP_REGULAR_EXPRESSION matched, DISABLED, or an
executable that is missing. Each is printed with ctest's reason and the test's
own words (its last output line that mentions a skip, else its last line).

FILE (tests/skip-allowed.txt) lists the tests that may skip, one a line:
"TESTNAME reason...", # starts a comment. With --ci (CI=true) it must list
none: in CI every test runs, and the file only says so.

Exit 0: every test ran (or skipped as allowed); 1: a test did not run, the
allowed list is not empty in CI or cannot be read, or the report cannot be
read (a missing report fails: no report, no proof that tests ran).
"""
import argparse
import html
import re
import sys
import xml.etree.ElementTree as ET

SKIP_WORD = re.compile(r"skip", re.IGNORECASE)
# ctest writes valid XML, but a test's output is not ours to trust: where the
# parser refuses the file, the <testcase> tags are read one by one.
TESTCASE = re.compile(r"<testcase\b([^>]*)>(.*?)</testcase>", re.DOTALL)
ATTR = re.compile(r'(\w+)="([^"]*)"')
SKIPPED = re.compile(r"<skipped\b([^>]*)>")
SYSTEM_OUT = re.compile(r"<system-out>(.*?)</system-out>", re.DOTALL)


class GuardError(Exception):
    pass


def read_allowed(path):
    """{test: reason} from FILE; a line without a reason is an error."""
    allowed = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise GuardError(f"cannot read {path}: {e.strerror}") from e
    for n, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            raise GuardError(f"{path}:{n}: '{parts[0]}' has no reason (TESTNAME reason...)")
        allowed[parts[0]] = parts[1]
    return allowed


def why(message, output):
    """ctest's reason and the test's own last word on it, on one line."""
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    said = [l for l in lines if SKIP_WORD.search(l)]
    last = (said or lines or [""])[-1][:400]
    return "; ".join(x for x in (message, last) if x)


def from_tree(root):
    cases = []
    for tc in root.iter("testcase"):
        skipped = tc.find("skipped")
        out = tc.find("system-out")
        cases.append((tc.get("name", "?"), tc.get("status", ""),
                      skipped.get("message", "skipped") if skipped is not None else None,
                      out.text if out is not None else ""))
    return cases


def from_text(text):
    cases = []
    for m in TESTCASE.finditer(text):
        attrs = dict(ATTR.findall(m.group(1)))
        sk = SKIPPED.search(m.group(2))
        out = SYSTEM_OUT.search(m.group(2))
        cases.append((html.unescape(attrs.get("name", "?")), attrs.get("status", ""),
                      html.unescape(dict(ATTR.findall(sk.group(1))).get("message", "skipped"))
                      if sk else None,
                      html.unescape(out.group(1)) if out else ""))
    return cases


def read_report(path):
    """[(name, reason)] of the tests that did not run, and how many tests there were."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GuardError(f"no ctest report {path}: {e.strerror}") from e
    try:
        cases = from_tree(ET.fromstring(data))
    except ET.ParseError:
        cases = from_text(data.decode("utf-8", "replace"))
        if not cases and b"<testsuite" not in data:
            raise GuardError(f"{path} is not a ctest JUnit report") from None
    notrun = []
    for name, status, skipped, out in cases:
        if status in ("notrun", "disabled") or skipped is not None:
            notrun.append((name, why(skipped or status, out)))
    return notrun, len(cases)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ci", action="store_true", help="CI: the allowed list must be empty")
    ap.add_argument("--allowed", required=True, help="tests/skip-allowed.txt")
    ap.add_argument("--stage", default="ctest", help="the run's name in messages")
    ap.add_argument("junit", help="the report of ctest --output-junit")
    a = ap.parse_args()
    tag = f"skip guard ({a.stage})"
    try:
        allowed = read_allowed(a.allowed)
        notrun, total = read_report(a.junit)
    except GuardError as e:
        print(f"{tag}: FAIL: {e}", file=sys.stderr)
        return 1
    status = 0
    if a.ci and allowed:
        print(f"{tag}: FAIL: {a.allowed} must list no test in CI, it lists: "
              f"{', '.join(sorted(allowed))}", file=sys.stderr)
        status = 1
    for name, reason in notrun:
        if name in allowed and not a.ci:
            print(f"{tag}: {name} did not run, allowed by {a.allowed}: {allowed[name]} ({reason})")
            continue
        print(f"{tag}: FAIL: {name} did not run: {reason}", file=sys.stderr)
        status = 1
    bad = [n for n, _ in notrun if n not in allowed or a.ci]
    if bad:
        print(f"{tag}: FAIL: {len(bad)} of {total} tests did not run ({', '.join(bad)}). "
              f"A test that cannot run here must not pass for one that did: install what it "
              f"needs (scripts/install-deps.sh --test), or, outside CI only, list it with its "
              f"reason in {a.allowed}.", file=sys.stderr)
    elif status == 0:
        print(f"{tag}: all {total} tests ran")
    return status


if __name__ == "__main__":
    sys.exit(main())
