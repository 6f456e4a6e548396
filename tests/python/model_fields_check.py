"""The Python package's copy of the model keys and context blocks against the C++ tables.

Usage: model_fields_check.py HAMGAN_BIN, or model_fields_check.py --json FILE (a saved
`hamgan model-info --fields_json`). python/hamgan/config.py copies by hand what the binary generates from
model_config_fields() and the block registry: BLOCK_TABLE (the blocks in registry order, each block's
option keys, types, defaults and choices) and FIELDS (every model key in text order). Each difference is
printed on one line; exits 0 when there is none, 1 otherwise (2 when the JSON cannot be had)."""
import ast
import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "hamgan"
CONFIG = "python/hamgan/config.py"
PY_TYPES = {"int": int, "float": float, "bool": bool, "string": str, "choice": str}


def package_config():
    """hamgan.config without running the package's __init__, which imports torch; the tables need none."""
    package = types.ModuleType("hamgan")
    package.__path__ = [str(PACKAGE)]
    sys.modules["hamgan"] = package
    return importlib.import_module("hamgan.config")


def stop(line):
    print(f"model_fields_check: {line}")
    sys.exit(2)


def cpp_fields(argv):
    """The binary's JSON as a dict, or exits 2 with one line saying why there is none."""
    if len(argv) == 3 and argv[1] == "--json":
        source = argv[2]
        try:
            text = Path(source).read_text()
        except OSError as e:
            stop(f"cannot read {source} ({e.strerror}); give a file written by `hamgan model-info --fields_json`")
    elif len(argv) == 2:
        source = f"{argv[1]} model-info --fields_json"
        try:
            run = subprocess.run([argv[1], "model-info", "--fields_json"], capture_output=True, text=True,
                                 timeout=60)
        except OSError as e:
            stop(f"cannot run {argv[1]} ({e.strerror}); give the built hamgan executable")
        except subprocess.TimeoutExpired:
            stop(f"`{source}` did not finish within 60 s")
        if run.returncode != 0:
            last = (run.stderr.strip().splitlines() or ["no message"])[-1]
            stop(f"`{source}` exited with {run.returncode}: {last}")
        text = run.stdout
    else:
        stop("usage: model_fields_check.py HAMGAN_BIN | --json FILE")
    try:
        data = json.loads(text)
        if not all(isinstance(data.get(k), list) for k in ("model_fields", "blocks")):
            raise ValueError("model_fields or blocks is not a list")
        return data
    except ValueError as e:
        stop(f"{source} is not the model-info --fields_json layout ({e})")


def default_problem(field, default):
    """'' when the Python default equals the C++ default text read as the field's type, else why not."""
    kind, text = field["type"], field["default"]
    try:
        if kind == "bool":
            same = isinstance(default, bool) and text in ("true", "false") and default == (text == "true")
        elif kind == "int":
            same = type(default) is int and default == int(text)
        elif kind == "float":  # C++ writes the shortest decimal that reads back exactly, so == is exact
            same = type(default) in (int, float) and float(default) == float(text)
        else:
            same = default == text
    except ValueError:
        same = False
    shown = str(default).lower() if isinstance(default, bool) else default  # as C++ writes it: true, nmf, 0.01
    return "" if same else f"default is {text} in C++, {shown} in Python"


def field_differences(where, field, row):
    """One line per difference between a C++ field (JSON) and a Python row (key, type, default, check)."""
    _, kind, default, check = row
    wanted = PY_TYPES.get(field["type"])
    if wanted is not kind:
        return [f"{where}: type is {field['type']} in C++, {kind.__name__} in Python ({CONFIG})"]
    out = []
    problem = default_problem(field, default)
    if problem:
        out.append(f"{where}: {problem} ({CONFIG})")
    if field["type"] == "choice":
        ours = getattr(check, "values", None)
        if ours is None:
            out.append(f"{where}: C++ allows {', '.join(field['choices'])}; the Python check lists none "
                       f"(use _one_of in {CONFIG})")
        elif set(ours) != set(field["choices"]):
            only_cpp = ", ".join(str(c) for c in field["choices"] if c not in ours) or "(nothing)"
            only_py = ", ".join(str(c) for c in ours if c not in field["choices"]) or "(nothing)"
            out.append(f"{where}: choices differ: only in C++: {only_cpp}; only in Python: {only_py} ({CONFIG})")
    return out


def list_differences(what, cpp_rows, py_rows):
    """Missing and extra keys, then each common key's differences, then order (rows keyed by name)."""
    cpp_names, py_names = [f["name"] for f in cpp_rows], [r[0] for r in py_rows]
    out = [f"{what} '{n}': in C++, missing from {CONFIG}" for n in cpp_names if n not in py_names]
    out += [f"{what} '{n}': in {CONFIG}, not in C++" for n in py_names if n not in cpp_names]
    py = {r[0]: r for r in py_rows}
    for field in cpp_rows:
        if field["name"] in py:
            out += field_differences(f"{what} '{field['name']}'", field, py[field["name"]])
    out += order_difference(what, [n for n in cpp_names if n in py], [n for n in py_names if n in cpp_names])
    return out


def order_difference(what, cpp_names, py_names):
    """[] when the two name lists are equal, else one line naming the first position where they differ."""
    if cpp_names == py_names:
        return []
    i = next((i for i, (a, b) in enumerate(zip(cpp_names, py_names)) if a != b), min(len(cpp_names), len(py_names)))
    at = [names[i] if i < len(names) else "(nothing)" for names in (cpp_names, py_names)]
    return [f"{what} order differs at position {i + 1}: C++ has '{at[0]}', Python '{at[1]}' ({CONFIG})"]


def class_problem(name, path):
    """'' when python/hamgan/<module>.py defines <Class> for `name`'s "module.Class", else what is wrong."""
    module, _, cls = path.partition(".")
    source = PACKAGE / f"{module}.py"
    if not source.is_file():
        return f"block '{name}': {CONFIG} names {path}, but python/hamgan/{module}.py does not exist"
    tree = ast.parse(source.read_text(), str(source))
    if not any(isinstance(n, ast.ClassDef) and n.name == cls for n in tree.body):
        return f"block '{name}': {CONFIG} names {path}, but python/hamgan/{module}.py has no class {cls}"
    return ""


def differences(data, config):
    out = []
    cpp_blocks = {b["name"]: b["options"] for b in data["blocks"]}
    table = config.BLOCK_TABLE
    out += [f"block '{n}': registered in C++, missing from BLOCK_TABLE in {CONFIG}" for n in cpp_blocks
            if n not in table]
    out += [f"block '{n}': in BLOCK_TABLE in {CONFIG}, not registered in C++" for n in table if n not in cpp_blocks]
    common = [n for n in cpp_blocks if n in table]
    out += order_difference("block (BLOCK_TABLE)", common, [n for n in table if n in cpp_blocks])
    for name in common:
        out += list_differences(f"block '{name}' option", cpp_blocks[name], table[name][1])
        out += [p for p in [class_problem(name, table[name][0])] if p]
    # The model keys: block options were compared above, so only the others here, then the whole order.
    option_keys = {f["name"] for options in cpp_blocks.values() for f in options}
    option_keys |= {r[0] for _, rows in table.values() for r in rows}
    cpp_model = [f for f in data["model_fields"] if f["name"] not in option_keys]
    py_model = [r for r in config.FIELDS if r[0] not in option_keys]
    out += list_differences("model key", cpp_model, py_model)
    cpp_order, py_order = [f["name"] for f in data["model_fields"]], [r[0] for r in config.FIELDS]
    if not out:  # the same keys in another order would make model_config_to_text differ
        out += order_difference("model key (FIELDS)", cpp_order, py_order)
    return out


def main(argv):
    data, config = cpp_fields(argv), package_config()
    try:
        found = differences(data, config)
    except KeyError as e:
        stop(f"a field or block in the JSON lacks {e}; regenerate it with `hamgan model-info --fields_json`")
    except TypeError as e:
        stop(f"the JSON is not the model-info --fields_json layout ({e}); regenerate it with the binary")
    for line in found:
        print(line)
    if found:
        print(f"model_fields_check: {len(found)} difference(s) between {CONFIG} and the C++ tables; "
              f"make the Python tables say what `hamgan model-info --fields_json` says")
        return 1
    print(f"model_fields_check: {CONFIG} matches the C++ tables ({len(data['blocks'])} blocks, "
          f"{len(data['model_fields'])} model keys)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
