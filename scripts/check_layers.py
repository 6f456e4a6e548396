#!/usr/bin/env python3
"""Checks the include rules of docs/architecture.md: each room includes only
the rooms below it (and itself), and no two source files include each other
in a cycle (a .h/.cpp pair counts as one file). Exits 1 naming each breach."""
import os
import re
import sys

# Room -> the rooms it may include (besides itself).
ALLOWED = {
    "core": [],
    "data": ["core"],
    "modules": ["core"],
    "metrics": ["core", "data", "modules"],
    "gan/model": ["core", "modules"],
    "gan/report": ["core", "data"],
    "gan/checkpoint": ["core", "data", "modules", "gan/model"],
    "gan/sample": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint"],
    "gan/eval": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/report"],
    "gan/train": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
                  "gan/report"],
    "experiments": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
                    "gan/report", "gan/train"],
    "cli": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
            "gan/report", "gan/train", "experiments"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(path):
    for room in sorted(ALLOWED, key=len, reverse=True):
        if path == room or path.startswith(room + "/"):
            return room
    return None


def main(root):
    files = {}
    for room in ALLOWED:
        base = os.path.join(root, room)
        for dirpath, _, names in os.walk(base):
            for n in names:
                if n.endswith((".h", ".cpp", ".cu")):
                    rel = os.path.relpath(os.path.join(dirpath, n), root)
                    if room_of(rel) == room:
                        with open(os.path.join(root, rel), encoding="utf-8") as f:
                            files[rel] = INCLUDE.findall(f.read())
    problems = []
    graph = {}
    for rel, includes in sorted(files.items()):
        room = room_of(rel)
        unit = os.path.splitext(rel)[0]
        for inc in includes:
            target_room = room_of(inc)
            if target_room is None:
                continue  # third-party or test headers
            if target_room != room and target_room not in ALLOWED[room]:
                problems.append(f"{rel} includes {inc}: {room} may not include {target_room}")
            target = os.path.splitext(inc)[0]
            if target != unit:
                graph.setdefault(unit, set()).add(target)
    # Cycles among units (depth-first search with colours).
    colour, stack = {}, []

    def visit(u):
        colour[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if colour.get(v) == 1:
                problems.append("include cycle: " + " -> ".join(stack[stack.index(v):] + [v]))
            elif colour.get(v) is None:
                visit(v)
        stack.pop()
        colour[u] = 2

    for u in sorted(graph):
        if colour.get(u) is None:
            visit(u)
    for p in problems:
        print("layering: " + p)
    print(f"layering: {len(files)} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
