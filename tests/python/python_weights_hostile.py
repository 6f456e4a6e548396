"""Hostile weight files for hamgan.load_generator / load_discriminator and the export tools: NaN and inf
weights, a negative BatchNorm running_var, a float64 model beyond float32's range given to save_generator,
empty or invalid `model` metadata, and metadata claiming 10,000,000 classes over tensors for 5. Each is one
ValueError line naming the tensor or key (the tools: `hamgan.<tool>: error: ...`, exit 1, the input
byte-identical, nothing written), raised before the network is built or the export starts; the forged size
allocates nothing (a child under a 6 GiB address-space limit, its peak memory measured).

Usage: python_weights_hostile.py. Exits 0 when all hold, 1 otherwise, 3 without torch or safetensors."""
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

from hostile_common import PACKAGE_ROOT, check, expect_refused, finish, make_generator, tamper
import hamgan
import torch

NAN, INF = float("nan"), float("inf")
HUGE = 10_000_000
# (label, change(tensors, metadata), loader, words the one line must hold)
CASES = [
    ("NaN weight", lambda t, m: t["G.block2.conv1.weight"].view(-1).__setitem__(7, NAN), "G",
     ["G.block2.conv1.weight", "non-finite"]),
    ("inf bias", lambda t, m: t["G.linear.bias"].__setitem__(0, -INF), "G", ["G.linear.bias", "non-finite"]),
    ("negative running_var", lambda t, m: t["G.block1.bn2.running_var"].__setitem__(3, -0.25), "G",
     ["G.block1.bn2.running_var", "negative", "-0.25"]),
    ("NaN in D", lambda t, m: t["D.embed.weight"].__setitem__(1, NAN), "D", ["D.embed.weight", "non-finite"]),
    ("empty model metadata", lambda t, m: m.update(model=""), "G", ["'model'", "empty"]),
    ("model metadata not TOML", lambda t, m: m.update(model="num_classes = = 3"), "G", ["model", "TOML"]),
    ("model metadata out of range", lambda t, m: m.update(model=m["model"].replace("num_classes = 5",
                                                                                    "num_classes = 0")),
     "G", ["num_classes", ">= 1"]),
    ("model metadata beyond int64 sizes", lambda t, m: m.update(model=m["model"].replace(
        "num_classes = 5", f"num_classes = {2 ** 62}")), "G", ["too large"]),
    ("float64 tensor", lambda t, m: t.update({"G.linear.bias": t["G.linear.bias"].double()}), "G",
     ["G.linear.bias", "float64", "float32"]),
]


def forged_classes(t, m):
    m.update(model=m["model"].replace("num_classes = 5", f"num_classes = {HUGE}"))


def loader_errors(g, work):
    """Every case through the library: one ValueError line, raised before any network is built."""
    built = []
    original = hamgan.io._build

    def counting(cls, config):
        built.append(cls.__name__)
        return original(cls, config)

    for label, change, net, words in CASES:
        bad = tamper(g, work / "bad.safetensors", change)
        built.clear()
        load = hamgan.load_discriminator if net == "D" else hamgan.load_generator
        try:
            with mock.patch.object(hamgan.io, "_build", counting):
                load(bad)
            check(False, f"{label}: loaded without an error")
        except Exception as e:  # noqa: BLE001: another exception type is a failure to report, not a crash
            text = str(e)
            check(isinstance(e, ValueError) and all(w in text for w in words) and "\n" not in text and not built,
                  f"{label}: one-line ValueError naming {words}, no network built ({built}): "
                  f"{type(e).__name__}: {text[:200]}")


def size_bound(g):
    """The per-network bound `hamgan import` applies (2^29 values), here lowered to 1000 to meet it."""
    import hamgan.checked_read as checked_read
    with mock.patch.object(checked_read, "MAX_PARAMETERS", 1000):
        try:
            hamgan.load_generator(g)
            check(False, "size bound: loaded without an error")
        except ValueError as e:
            check("more than the 1,000" in str(e) and "\n" not in str(e), f"size bound: one line: {e}")


def save_overflow(work):
    """A float64 network whose weights exceed float32's range: save_generator refuses rather than write inf."""
    G = hamgan.build_generator({"z_dim": 16, "g_ch": 8, "num_classes": 5}).double()
    with torch.no_grad():
        G.block1.conv2.weight[0, 0, 1, 1] = 1e300
    out = work / "overflow.safetensors"
    try:
        hamgan.save_generator(G, str(out))
        check(False, "float64 beyond float32: saved without an error")
    except ValueError as e:
        check("G.block1.conv2.weight" in str(e) and "float32" in str(e) and not out.exists(),
              f"float64 beyond float32: refused naming the tensor, nothing written: {e}")


CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
sys.path.insert(0, sys.argv[2])
import hamgan
try:
    hamgan.load_generator(sys.argv[1])
    print("loaded")
except Exception as e:
    print(type(e).__name__, str(e).replace(chr(10), " | "))
print("maxrss_mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def limited(*_):
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


def forged_size(g, work):
    """10,000,000 classes in the metadata over tensors for 5 (the old loader built 20 GB of BN tables first)."""
    bad = tamper(g, work / "forged.safetensors", forged_classes)
    r = subprocess.run([sys.executable, "-c", CHILD, bad, PACKAGE_ROOT], capture_output=True, text=True)
    lines = r.stdout.splitlines()
    first = lines[0] if lines else r.stderr.strip()[-300:]
    rss = int(lines[-1].split()[1]) if lines and lines[-1].startswith("maxrss_mib") else -1
    check(first.startswith("ValueError") and "num_classes = 10000000" in first and "G.block1.bn1.gain" in first,
          f"forged num_classes: one line naming the key, its value and the tensor: {first}")
    check(0 < rss < 1500, f"forged num_classes: peak memory {rss} MiB (10M classes of BN gains and biases: 13 GB)")
    out = work / "forged.onnx"
    # Under the same address-space limit, so an unchecked tool fails instead of filling the machine.
    expect_refused("forged num_classes, export_onnx", "export_onnx", [bad, out], ["num_classes = 10000000"], [bad],
                   absent=[out], preexec=limited)


def main():
    torch.set_num_threads(min(2, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        g = make_generator(work / "G.safetensors")
        loader_errors(g, work)
        save_overflow(work)
        size_bound(g)
        forged_size(g, work)
        nan = tamper(g, work / "nan.safetensors", CASES[0][1])
        expect_refused("NaN weight, export_onnx", "export_onnx", [nan, work / "G.onnx"], ["G.block2.conv1.weight"],
                       [nan], absent=[work / "G.onnx"])
        negative = tamper(g, work / "var.safetensors", CASES[2][1])
        expect_refused("negative running_var, export_torchscript", "export_torchscript", [negative, work / "G.pt"],
                       ["G.block1.bn2.running_var"], [negative], absent=[work / "G.pt"])
        empty = tamper(g, work / "empty.safetensors", CASES[4][1])
        expect_refused("empty model metadata, export_torchscript", "export_torchscript", [empty, work / "G.pt"],
                       ["empty"], [empty], absent=[work / "G.pt"])
    return finish("python_weights_hostile")


if __name__ == "__main__":
    sys.exit(main())
