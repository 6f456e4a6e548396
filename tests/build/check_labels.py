#!/usr/bin/env python3
"""The labels and timeouts of every ctest test (tests/labels.txt, tests/labels.cmake).

  check_labels.py CTEST BUILD_DIR LABELS_FILE PYTHON OMP_WAIT

Fails, naming each problem, when a test lacks a TIMEOUT or has not exactly one of the labels fast and
slow, when a line of LABELS_FILE names no registered test (a renamed or removed test would otherwise
keep a stale line, and its successor the wrong labels), when a named test lacks that line's label,
when a test of test_cuda lacks `cuda`, when a test's OpenMP threads would spin while idle (its
ENVIRONMENT_MODIFICATION lacks OMP_WAIT, CMakeLists.txt's test_omp_wait), or when a test whose command
runs PYTHON lacks `python`.
"""
import json
import os
import subprocess
import sys
import tempfile


def read_list(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split() if line[:1].islower() else []
            if fields:
                entries.append((number, fields[0], fields[1]))
    return entries


def names(entry, tests):
    if entry.endswith("*"):
        return [t for t in tests if t.startswith(entry[:-1])]
    return [entry] if entry in tests else []


def registered(ctest, build_dir):
    # Through a directory of its own: ctest -N rewrites Testing/Temporary/LastTest.log where it runs,
    # which in the build directory is the log of the ctest run this check is part of.
    with tempfile.TemporaryDirectory() as top:
        with open(os.path.join(top, "CTestTestfile.cmake"), "w", encoding="utf-8") as f:
            f.write('subdirs("%s")\n' % build_dir.replace("\\", "/"))
        out = subprocess.run([ctest, "--test-dir", top, "-N", "--show-only=json-v1"], check=True,
                             capture_output=True, text=True).stdout
    tests = {}
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests[t["name"]] = (t.get("command", []), props)
    return tests


def main():
    ctest, build_dir, list_file, python, omp_wait = sys.argv[1:6]
    tests = registered(ctest, build_dir)
    unbuilt = sorted(n for n in tests if n.endswith("_NOT_BUILT"))
    problems = []
    for name, (command, props) in sorted(tests.items()):
        if name in unbuilt:
            continue
        labels = set(props.get("LABELS", []))
        if not props.get("TIMEOUT"):
            problems.append(f"{name}: no TIMEOUT")
        if len(labels & {"fast", "slow"}) != 1:
            problems.append(f"{name}: labels {sorted(labels)}, not exactly one of fast and slow")
        if omp_wait not in props.get("ENVIRONMENT_MODIFICATION", []):
            problems.append(f"{name}: its OpenMP threads spin while idle (no {omp_wait})")
        if command and os.path.basename(command[0]) == "test_cuda" and "cuda" not in labels:
            problems.append(f"{name}: a test of tests/cuda without the label cuda")
        if python in command and "python" not in labels:
            problems.append(f"{name}: runs {python} without the label python")
    for number, label, entry in read_list(list_file):
        matched = names(entry, tests)
        if not matched:
            problems.append(f"{list_file}:{number}: {entry} names no registered test")
        for name in matched:
            if label not in tests[name][1].get("LABELS", []):
                problems.append(f"{list_file}:{number}: {name} lacks the label {label}")
    for p in problems:
        print(p)
    if unbuilt:
        print("not built, so their tests are not registered: " + ", ".join(n[:-len("_NOT_BUILT")] for n in unbuilt))
    print(f"{len(tests)} tests, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
