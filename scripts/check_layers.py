#!/usr/bin/env python3
"""Checks the include rules of docs/architecture.md (and that its room table and
hook order match the code): each room includes only
the rooms below it (and itself), and no two source files include each other
in a cycle (a .h/.cpp pair counts as one file). Also checks that no source,
script or doc cites a document that is not in the repository (a numbered
section sign, or a document by name that is not in docs/): such facts belong
in docs/*.md.
Exits 1 naming each breach."""
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
    "gan/step": ["core", "data", "modules", "gan/model", "gan/checkpoint"],
    "gan/train": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
                  "gan/report", "gan/step"],
    "gan/interop": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
                    "gan/report", "gan/step", "gan/train"],
    "experiments": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
                    "gan/report", "gan/step", "gan/train"],
    "cli": ["core", "data", "modules", "metrics", "gan/model", "gan/checkpoint", "gan/sample", "gan/eval",
            "gan/report", "gan/step", "gan/train", "gan/interop", "experiments"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Citations of documents outside the repository: a section sign followed by a number, the names of
# documents that are not in docs/, or their directory (written so this file does not match).
OUTSIDE_CITATION = re.compile(r"\xa7\s*\d|\b(?:style|ecosystem|structure|paper|external-attention)\.md\b"
                              r"|shared[/]reference")
# A section of a publication named on the same line (e.g. "Numerical Recipes \xa76.4") is fine.
PUBLICATION_SECTION = re.compile(r"(?:Recipes|et al\.)[^\xa7]*\xa7")
CITING_FILES = (".h", ".cpp", ".cu", ".py", ".sh", ".md", ".txt", ".cmake", ".toml")


def room_of(path):
    for room in sorted(ALLOWED, key=len, reverse=True):
        if path == room or path.startswith(room + "/"):
            return room
    return None


def outside_citations(root):
    problems = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")) and d not in ("runs", "__pycache__"))
        for n in sorted(names):
            if not n.endswith(CITING_FILES):
                continue
            path = os.path.join(dirpath, n)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if OUTSIDE_CITATION.search(line) and not PUBLICATION_SECTION.search(line):
                        problems.append(f"{rel}:{number} cites a document that is not in the repository; "
                                        "cite the docs/*.md section that states the fact")
    return problems


def architecture_doc(root):
    """docs/architecture.md names every room of ALLOWED in its table, and its line of
    standard hooks lists the hooks standard_hooks() builds, in the same order."""
    problems = []
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        doc = f.read()
    documented = set(re.findall(r"^\| `([a-z/]+)/` \|", doc, re.M))
    for room in sorted(set(ALLOWED) ^ documented):
        where = "is missing from" if room in ALLOWED else "is not a room of scripts/check_layers.py but is in"
        problems.append(f"room {room} {where} the table of docs/architecture.md")
    with open(os.path.join(root, "gan", "train", "hooks.cpp"), encoding="utf-8") as f:
        code = f.read()
    body = re.search(r"TrainHooks standard_hooks\([^)]*\) \{(.*?)\n\}", code, re.S)
    built = re.findall(r"make_(\w+)_hook\(", body.group(1)) if body else []
    line = re.search(r"^Standard hooks, in order: (.*)$", doc, re.M)
    listed = re.findall(r"`(\w+)`", line.group(1).split("(")[0]) if line else []
    if built != listed:
        problems.append(f"docs/architecture.md lists the standard hooks {listed}, gan/train/hooks.cpp builds {built}")
    return problems


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
    citations = outside_citations(root)
    for p in citations:
        print("citations: " + p)
    print(f"citations: {len(citations)} problems")
    doc = architecture_doc(root)
    for p in doc:
        print("architecture: " + p)
    print(f"architecture: {len(doc)} problems")
    return 1 if problems or citations or doc else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
