#!/usr/bin/env python3
"""Checks the layering of the built libraries from their object files.

usage: check-layers.py BUILD_DIR

1. Library direction: each library may use symbols only from the libraries
   below it (docs/architecture.md); the runtime from none of lib/.
2. No cycle between the files of one library: the graph "file A calls a
   function defined in file B" has no cycle.
3. No library code prints: no object of lib/ or runtime/ refers to stdio's
   printing functions or to stderr/stdout.
Prints one line per violation and exits 1 if there is any.
"""
import collections
import glob
import os
import subprocess
import sys

# Library (object folder) -> the libraries it may use.
ALLOWED = {
    "TilusUtils": set(),
    "TilusLayout": {"TilusUtils"},
    "TilusTypes": set(),
    "TilusTargetInfo": set(),
    "TilusDialect": {"TilusLayout", "TilusTypes", "TilusTargetInfo", "TilusUtils"},
    "TilusTransforms": {"TilusDialect", "TilusLayout", "TilusTypes", "TilusTargetInfo",
                        "TilusUtils"},
    "TilusConversion": {"TilusTransforms", "TilusDialect", "TilusLayout",
                        "TilusTypes", "TilusTargetInfo", "TilusUtils"},
    "TilusTarget": {"TilusConversion", "TilusTransforms", "TilusDialect",
                    "TilusLayout", "TilusTypes", "TilusTargetInfo", "TilusUtils"},
    "TilusRegistration": {"TilusConversion", "TilusTransforms", "TilusDialect",
                          "TilusLayout", "TilusTypes", "TilusTargetInfo",
                          "TilusUtils"},
    "TilusRuntime": set(),
}
PRINTING = {"printf", "fprintf", "vfprintf", "puts", "fputs", "fputc", "putchar",
            "perror", "fwrite", "stderr", "stdout", "__fprintf_chk",
            "__printf_chk", "__vfprintf_chk"}


def members(archive):
    """{member: (defined symbols, used symbols)} of a static library."""
    out = subprocess.run(["nm", archive], capture_output=True, text=True,
                         check=True).stdout
    result, current = {}, None
    for line in out.splitlines():
        if line.endswith(":") and " " not in line:
            current = line[:-1]
            result[current] = (set(), set())
            continue
        parts = line.split()
        if current is None:
            continue
        if len(parts) == 3 and parts[1] in "TDBRC":
            result[current][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            result[current][1].add(parts[1])
    return result


def main():
    build = sys.argv[1]
    objects = {}  # "library/member" -> library
    defined_by, used_by = {}, {}
    for lib in ALLOWED:
        # The build's own archives, not copies installed by tests (test/).
        found = [path for path in glob.glob(os.path.join(build, "**", f"lib{lib}.a"),
                                            recursive=True)
                 if not os.path.relpath(path, build).startswith("test" + os.sep)]
        if len(found) != 1:
            print(f"expected one lib{lib}.a under {build}, found {len(found)}")
            return 1
        for member, (defined, used) in members(found[0]).items():
            obj = f"{lib}/{member}"
            objects[obj] = lib
            used_by[obj] = used
            for name in defined:
                defined_by[name] = obj
    problems = []
    short = lambda obj: obj.split("/", 1)[1]
    graph = collections.defaultdict(set)
    for obj, used in used_by.items():
        lib = objects[obj]
        for name in used:
            if name in PRINTING:
                problems.append(f"{obj} prints ({name})")
            other = defined_by.get(name)
            if other is None or other == obj:
                continue
            if objects[other] == lib:
                graph[obj].add(other)
            elif objects[other] not in ALLOWED[lib]:
                problems.append(f"{obj} uses {name} of {other}")
    # Cycles: strongly connected components of more than one file.
    index, low, stack, on_stack, counter = {}, {}, [], set(), [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                problems.append("cycle: " + " <-> ".join(
                    sorted(short(o) for o in component)))

    sys.setrecursionlimit(10000)
    for obj in list(objects):
        if obj not in index:
            connect(obj)
    for p in sorted(set(problems)):
        print(p)
    print(f"checked {len(objects)} objects of {len(ALLOWED)} libraries: "
          f"{len(set(problems))} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
