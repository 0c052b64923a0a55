#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Every path a document names in backticks exists (docs/CONTRIBUTING.md rule 19):
# in README.md and docs/**/*.md, an inline code span's words that look like a path
# of this repository (a '/' and a first folder of the tree's top level, or a file
# name ending in a known extension) must name a file or folder of the tree. A path
# with a '/' is looked up from the repository root and from the document's folder;
# a path as an #include spells it (`base/log.h`) from src/ and collectors/ too;
# a bare file name (`worker.c`) must be the name of some file of the tree. Paths on
# the target system (/etc/..., /sys/...), URLs, placeholders (collectors/NAME/,
# ./DEB) and globs are not checked. tests/lint/docs-paths-exceptions.txt lists the paths that
# are named on purpose without existing, each with its reason.
#
# Also: the lints and comments cite the rules as "docs/CONTRIBUTING.md rule N";
# every such N is a rule of that file, and nothing cites the old "house rule N".
#
#   tests/lint/docs-paths.py [SOURCE_DIR]
#   tests/lint/docs-paths.py --self-test
import fnmatch
import os
import re
import sys
import tempfile

TOP = ("src", "collectors", "tests", "docs", "scripts", "deploy", "packaging", "alerts",
       "dashboards", "systemd", "cmake")
EXT = (".c", ".h", ".sh", ".py", ".md", ".yml", ".yaml", ".json", ".cmake", ".proto",
       ".service", ".socket", ".nhc", ".spec", ".txt", ".j2")
# Words that stand for a name, not a name: collectors/NAME/, fuzz_NAME.c.
PLACEHOLDER = re.compile(r"NAME|ARCH|VERSION|FAMILY|\bX\b|<|>|\{|\}|\$|\*|\?|\.\.\.")
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FENCE = re.compile(r"^\s*(```|~~~)")
RULE = re.compile(r"CONTRIBUTING\.md rule (\d+)")
OLD_RULE = re.compile(r"house rule", re.I)
SKIP_DIRS = {".git", "node_modules", "__pycache__"}


def documents(root):
    out = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    for d, dirs, files in os.walk(os.path.join(root, "docs")):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        out += [os.path.relpath(os.path.join(d, f), root) for f in sorted(files) if f.endswith(".md")]
    return out


def spans(text):
    """(line number, code span text) outside fenced code blocks."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            for m in SPAN.finditer(line):
                yield n, m.group(1)


def candidate(word):
    """The repository path a word of a code span names, or None."""
    word = word.strip("()[],;'\"")
    word = re.sub(r"[.:]+$", "", word)
    word = re.sub(r":\d+(-\d+)?$", "", word)  # file.c:123
    word = word.split("#", 1)[0]
    if not word or word.startswith(("/", "~", "-", "=")) or "://" in word or "=" in word:
        return None
    if PLACEHOLDER.search(word) or word.startswith("@"):
        return None
    # an upper-case word alone is a placeholder too (./DEB); a bare extension
    # (`.c`) names no file
    if any(re.fullmatch(r"[A-Z][A-Z_]+", part) for part in word.split("/")):
        return None
    if word.startswith(".") and "/" not in word:
        return None
    first = word.split("/", 1)[0]
    if "/" in word and (first in TOP or first in (".", "..")):
        return word
    if word.endswith(EXT) and re.fullmatch(r"[\w./+-]+", word):
        return word
    return None


def basenames(root):
    names = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        names.update(files)
    return names


def load_exceptions(root, path):
    out = []
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return out, []
    bad = []
    with open(full) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                bad.append(f"{path}:{n}: '{parts[0]}' has no reason")
                continue
            out.append(parts[0])
    return out, bad


def exists(root, doc, path, names):
    if "/" not in path.rstrip("/"):
        return path.rstrip("/") in names or os.path.exists(os.path.join(root, path))
    # from the root, the document's folder, and as an #include names it (from
    # src/ or collectors/: `base/log.h`)
    for base in (root, os.path.join(root, os.path.dirname(doc)), os.path.join(root, "src"),
                 os.path.join(root, "collectors")):
        if os.path.exists(os.path.normpath(os.path.join(base, path))):
            return True
    return False


def rule_count(root):
    path = os.path.join(root, "docs", "CONTRIBUTING.md")
    if not os.path.isfile(path):
        return 0
    with open(path) as f:
        return sum(1 for line in f if re.match(r"^\d+\. ", line))


def check_citations(root):
    faults = []
    rules = rule_count(root)
    for top in ("src", "collectors", "tests", "scripts", "CMakeLists.txt"):
        start = os.path.join(root, top)
        walk = [(root, [], [top])] if os.path.isfile(start) else os.walk(start)
        for d, dirs, files in walk:
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and x != "fixtures"]
            for f in files:
                p = os.path.join(d, f)
                rel = os.path.relpath(p, root)
                if rel == "tests/lint/docs-paths.py":
                    continue
                try:
                    with open(p, encoding="utf-8") as fh:
                        text = fh.read()
                except (UnicodeDecodeError, OSError):
                    continue
                for n, line in enumerate(text.splitlines(), 1):
                    if OLD_RULE.search(line):
                        faults.append(f"{rel}:{n}: cites a 'house rule': cite docs/CONTRIBUTING.md rule N")
                    for m in RULE.finditer(line):
                        if not 1 <= int(m.group(1)) <= rules:
                            faults.append(f"{rel}:{n}: docs/CONTRIBUTING.md has no rule {m.group(1)}")
    return faults


def check(root):
    exc_file = "tests/lint/docs-paths-exceptions.txt"
    exceptions, faults = load_exceptions(root, exc_file)
    used = set()
    names = basenames(root)
    checked = 0
    for doc in documents(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for n, span in spans(text):
            for word in span.split():
                path = candidate(word)
                if path is None:
                    continue
                checked += 1
                hit = [e for e in exceptions if fnmatch.fnmatchcase(path, e)]
                if hit:
                    used.update(hit)
                    continue
                if not exists(root, doc, path, names):
                    faults.append(f"{doc}:{n}: `{path}` is not in the tree")
    for e in exceptions:
        if e not in used:
            print(f"# note: {exc_file}: '{e}' is named by no document now")
    faults += check_citations(root)
    return checked, faults


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        write("src/base/log.c", "/* docs/CONTRIBUTING.md rule 1 */\n")
        write("docs/CONTRIBUTING.md", "# x\n\n1. **One.** one\n2. **Two.** two\n")
        write("docs/collectors/sysfs.md", "x\n")
        write("README.md", "`src/base/log.c`, `log.c`, `/etc/default/x`, `collectors/NAME/`,\n"
              "`scripts/run.sh --x` ok\n```\n`src/gone.c` in a fence\n```\n")
        write("docs/a.md", "see `collectors/sysfs.md` and `src/base/` and `tests/x.sh:12`\n")
        write("tests/lint/docs-paths-exceptions.txt", "tests/x.sh  made by the test\n")
        checked, faults = check(root)
        assert faults == ["README.md:2: `scripts/run.sh` is not in the tree"], faults
        write("scripts/run.sh", "")
        write("docs/b.md", "`src/base/gone.h` `nothere.py` `deploy/kubernetes/overlays/lldp`\n")
        write("src/base/x.c", "/* house rule 3; docs/CONTRIBUTING.md rule 7 */\n")
        checked, faults = check(root)
        want = ["docs/b.md:1: `src/base/gone.h` is not in the tree",
                "docs/b.md:1: `nothere.py` is not in the tree",
                "docs/b.md:1: `deploy/kubernetes/overlays/lldp` is not in the tree",
                "src/base/x.c:1: cites a 'house rule': cite docs/CONTRIBUTING.md rule N",
                "src/base/x.c:1: docs/CONTRIBUTING.md has no rule 7"]
        assert faults == want, faults
        write("tests/lint/docs-paths-exceptions.txt", "tests/x.sh\n")
        _, faults = check(root)
        assert any("has no reason" in f for f in faults), faults
    print("ok - docs-paths self-test")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
    checked, faults = check(root)
    for f in faults:
        print(f"not ok - {f}")
    print(f"docs-paths: {checked} paths checked, {len(faults)} faults")
    if faults:
        print("docs-paths: fix the path, or list it with its reason in "
              "tests/lint/docs-paths-exceptions.txt (docs/CONTRIBUTING.md rule 19)")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
