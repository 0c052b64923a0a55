#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The rooms of src/ and collectors/ and who may use whom (docs/architecture.md).

layers.py ROOT [BUILD_DIR]   fails, listing each one, on:
  - an #include "..." that a lower room makes of a higher one, or between two
    rooms of the same height (http and the collectors);
  - a collector including another collector's header, unless the header is
    one of SHARED below (named, with the reason);
  - a room above the collectors including a collector's header other than
    its main one (collectors/NAME/NAME.h);
  - an #include "..." that names no file of the tree (GENERATED aside);
  - a circle: files that include each other, directly or through others,
    counting a .c and its .h as one (so a.c -> b.h and b.c -> a.h is one);
  - with BUILD_DIR: a call circle, objects (.o under BUILD_DIR/src and
    BUILD_DIR/collectors) that call each other, read from nm.
layers.py --self-test        plants each kind of fault in a scratch tree and
                             checks that it is reported.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (room, path prefix under ROOT, height): a room may include its own headers
# and those of lower rooms only. Two rooms of one height never use each other.
ROOMS = [
    ("base", "src/base/", 0),
    ("exposition", "src/exposition/", 1),
    # The RDMA netlink helper below every collector that speaks it (transport,
    # request engine, shared reply parsers, generic netlink helpers, and the
    # counter names sysfs and netlink both use), as rdma-core's util/rdma_nl.c.
    # Above exposition: the counter-name table carries enum metric_type.
    ("rdmanl", "src/rdmanl/", 2),
    ("collector-interface", "src/collector.h", 2),
    ("collectors", "collectors/", 3),
    ("http", "src/http/", 3),
    ("daemon", "src/daemon/", 4),
    ("check", "src/check/", 5),
    ("main", "src/main.c", 6),
]

# Headers of one collector that another may include, with the reason. None
# today: what two collectors share lives in a room below them (src/rdmanl/,
# src/base/). An entry reads "collectors/NAME/FILE.h": "why".
SHARED = {}

# Made at build time, not in the tree.
GENERATED = {"metrics.pb-c.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(rel):
    for name, prefix, height in ROOMS:
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            return name, height
    return None, None


def collector_of(rel):
    parts = rel.split("/")
    return parts[1] if parts[0] == "collectors" and len(parts) > 2 else None


def sources(root):
    out = []
    for top in ("src", "collectors"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def resolve(root, rel, name):
    """The tree path an #include "name" of file rel finds, as the compiler
    would: the file's own folder, then src/, then collectors/."""
    for base in (os.path.dirname(rel), "src", "collectors"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check_include(rel, target):
    """The fault of rel including target, or None."""
    room, height = room_of(rel)
    troom, theight = room_of(target)
    if room is None or troom is None:
        return f"{rel}: includes {target}, which is in no room of the table"
    own, other = collector_of(rel), collector_of(target)
    if room == troom == "collectors":
        if own != other and target not in SHARED:
            return (f"{rel}: includes {target}: a collector uses another only through "
                    f"a named shared header (tests/lint/layers.py SHARED)")
        return None
    if troom == "collectors" and height > theight:
        if os.path.basename(target) != f"{other}.h" and target not in SHARED:
            return (f"{rel}: includes {target}: above the collectors only a "
                    f"collector's main header (collectors/{other}/{other}.h) is used")
        return None
    if room != troom and height <= theight:
        return (f"{rel}: includes {target}: room {room} may not use room {troom} "
                f"(lower never uses higher, nor one of its own height)")
    return None


def strongly_connected(graph):
    """Tarjan's components of more than one node, iteratively."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    return comps


def include_faults(root):
    faults, graph = [], {}
    for rel in sources(root):
        with open(os.path.join(root, rel), errors="replace") as fh:
            names = INCLUDE.findall(fh.read())
        node = os.path.splitext(rel)[0]
        graph.setdefault(node, set())
        for name in names:
            target = resolve(root, rel, name)
            if target is None:
                if name not in GENERATED:
                    faults.append(f"{rel}: #include \"{name}\" names no file of src/ or collectors/")
                continue
            fault = check_include(rel, target)
            if fault:
                faults.append(fault)
            tnode = os.path.splitext(target)[0]
            if tnode != node:
                graph[node].add(tnode)
    for comp in strongly_connected(graph):
        faults.append("include circle: " + " <-> ".join(comp))
    return faults


def call_faults(build):
    """Objects that call each other, from their defined and undefined symbols."""
    objs = []
    for top in ("src", "collectors"):
        for d, _, files in os.walk(os.path.join(build, top)):
            objs += [os.path.join(d, f) for f in files if f.endswith(".o") and "pb-c" not in f]
    if not objs:
        return [f"no object files under {build}/src or {build}/collectors: build first"]
    defs, uses = {}, {}
    for o in objs:
        name = os.path.relpath(o, build).replace("/CMakeFiles/", "/").replace(".c.o", ".c")
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        uses[name] = set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRVW":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses[name].add(p[1])
    graph = {n: {defs[s] for s in u if s in defs and defs[s] != n} for n, u in uses.items()}
    return ["call circle: " + " <-> ".join(c) for c in strongly_connected(graph)]


def run(root, build=None):
    faults = include_faults(root)
    if build:
        faults += call_faults(build)
    return faults


def self_test():
    """Each planted fault is reported; the clean scratch tree passes."""
    tmp = tempfile.mkdtemp()
    try:
        def put(rel, text=""):
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)

        put("src/base/log.h")
        put("src/base/log.c", '#include "base/log.h"\n')
        put("src/exposition/metrics.h", '#include "base/log.h"\n')
        put("src/collector.h", '#include "exposition/metrics.h"\n')
        put("src/http/http.h")
        put("src/daemon/daemon.h")
        put("src/daemon/daemon.c", '#include "daemon/daemon.h"\n#include "http/http.h"\n'
            '#include "sysfs/sysfs.h"\n')
        put("src/check/check.c", '#include "daemon/daemon.h"\n')
        put("src/main.c", '#include "daemon/daemon.h"\n')
        put("collectors/sysfs/sysfs.h", '#include "collector.h"\n')
        put("src/rdmanl/sysfs_names.h", '#include "exposition/metrics.h"\n')
        put("collectors/sysfs/sysfs_scan.h", '#include "rdmanl/sysfs_names.h"\n')
        put("collectors/netlink/netlink.c", '#include "rdmanl/sysfs_names.h"\n#include "base/log.h"\n')
        clean = run(tmp)
        cases = [
            ("lower uses higher", "src/base/log.c", '#include "daemon/daemon.h"\n', "room base may not use room daemon"),
            ("same height", "src/http/http.h", '#include "sysfs/sysfs.h"\n', "room http may not use room collectors"),
            ("rdmanl uses a collector", "src/rdmanl/sysfs_names.h", '#include "sysfs/sysfs.h"\n',
             "room rdmanl may not use room collectors"),
            ("rdmanl and collector.h, one height", "src/rdmanl/sysfs_names.h",
             '#include "collector.h"\n', "room rdmanl may not use room collector-interface"),
            ("collector's private header", "collectors/netlink/netlink.c",
             '#include "sysfs/sysfs_scan.h"\n', "named shared header"),
            ("collector internals from above", "src/daemon/daemon.c",
             '#include "sysfs/sysfs_scan.h"\n', "main header"),
            ("unknown header", "src/main.c", '#include "nowhere.h"\n', "names no file"),
            ("circle", "src/daemon/daemon.h", '#include "daemon/poller.h"\n', "include circle"),
        ]
        put("src/daemon/poller.h")
        put("src/daemon/poller.c", '#include "daemon/daemon.h"\n')
        failed = 0
        if clean:
            print("not ok - the clean scratch tree passes:", clean)
            failed += 1
        else:
            print("ok - the clean scratch tree passes")
        for what, rel, text, expect in cases:
            path = os.path.join(tmp, rel)
            with open(path) as fh:
                before = fh.read()
            put(rel, before + text)
            got = run(tmp)
            put(rel, before)
            if any(expect in f for f in got):
                print(f"ok - {what} is reported")
            else:
                print(f"not ok - {what} is reported (got {got})")
                failed += 1
        # A header named in SHARED may be used by another collector.
        put("collectors/netlink/netlink.c", '#include "sysfs/sysfs_scan.h"\n')
        SHARED["collectors/sysfs/sysfs_scan.h"] = "self-test"
        try:
            got = [f for f in run(tmp) if "named shared header" in f]
        finally:
            del SHARED["collectors/sysfs/sysfs_scan.h"]
        if got:
            print(f"not ok - a header named in SHARED is allowed (got {got})")
            failed += 1
        else:
            print("ok - a header named in SHARED is allowed")
        # Two objects that call each other, compiled here.
        objdir = os.path.join(tmp, "build", "src", "x")
        os.makedirs(objdir)
        for me, other in (("a", "b"), ("b", "a")):
            put(f"obj/{me}.c", f"void {other}_f(void);\nvoid {me}_f(void) {{ {other}_f(); }}\n")
            subprocess.run(["cc", "-c", "-o", os.path.join(objdir, f"{me}.c.o"),
                            os.path.join(tmp, "obj", f"{me}.c")], check=True)
        if any("call circle" in f for f in call_faults(os.path.join(tmp, "build"))):
            print("ok - a call circle between two objects is reported")
        else:
            print("not ok - a call circle between two objects is reported")
            failed += 1
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp)


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    faults = run(argv[1], argv[2] if len(argv) == 3 else None)
    for f in faults:
        print(f)
    if faults:
        print(f"layers: {len(faults)} fault(s); the rooms and rules: docs/architecture.md", file=sys.stderr)
        return 1
    print(f"layers: {len(sources(argv[1]))} files in their rooms, no circles")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
