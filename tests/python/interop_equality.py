"""The exported generator against `hamgan sample` (tests/interop/interop_equality_test.cpp).

    interop_equality.py DIR

DIR/cases.txt: one line per case, `NAME SEED BATCH ONNX` (`hamgan sample --seed SEED --batch_size BATCH`;
ONNX 1: also export to ONNX, the slow part at about 8 s a graph), with
DIR/NAME/G.safetensors (`hamgan export`) and DIR/NAME/samples.npz (`hamgan sample --float`). For each case
writes a line to DIR/results.txt, `case NAME pt A ts B onnx C sigma0 D reseed E refused F`:
  pt      max |hamgan.load_generator(G)(z, y) - x| after torch.manual_seed(SEED), the npz's batches in order
  ts      the same for the TorchScript export (torch.jit.load), random bases drawn at run time
  onnx    max |onnxruntime - PyTorch|, batches of 5 and 7 (dynamic batch), each batch against a freshly loaded
          G, since an ONNX graph keeps no online-bases state; the graph is exported as is, or with
          --fixed_bases 7 on both where that export was refused (-1: not asked)
  sigma0  max |G - G with every context sigma set to 0|: how much the block changes the images
  reseed  max |TorchScript at seed SEED + 1 - x|: what the seed decides (random bases only)
  refused 1 when the ONNX export without --fixed_bases was refused in one line naming it (-1: not asked)
"""
import copy
import os
import sys

try:
    import numpy as np
    import onnxruntime
    import onnxscript  # noqa: F401  (torch.onnx's exporter needs it)
    import safetensors  # noqa: F401
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs onnx, onnxruntime, onnxscript, safetensors")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import hamgan  # noqa: E402
from hamgan.export_onnx import export_onnx  # noqa: E402
from hamgan.export_torchscript import export_torchscript  # noqa: E402

FIXED = 7
torch.set_num_threads(2)


def batched(net, z, y, batch, seed):
    """net over (z, y) in batches of `batch`, in order, after torch.manual_seed(seed), as `hamgan sample`."""
    torch.manual_seed(seed)
    with torch.no_grad():
        return torch.cat([net(z[i:i + batch], y[i:i + batch]) for i in range(0, len(z), batch)])


def max_abs(a, b):
    return (a.double() - b.double()).abs().max().item()


def without_context(G):
    G0 = copy.deepcopy(G)
    with torch.no_grad():
        for name, p in G0.named_parameters():
            if name.startswith("context.") and name.endswith("sigma"):
                p.zero_()
    return G0


def onnx_check(path, G, z, y, work):
    """(refused, delta): the export without --fixed_bases, refused in one line for random bases and then made
    with --fixed_bases 7, and max |ONNX - PyTorch with the same bases| in batches of 5 and then 7."""
    out = os.path.join(work, "G.onnx")
    try:
        export_onnx(path, out)
        refused = 0
    except ValueError as e:
        if "--fixed_bases" not in str(e) or "\n" in str(e):
            raise
        refused = 1
        export_onnx(path, out, fixed_bases=FIXED)
    session = onnxruntime.InferenceSession(out, providers=["CPUExecutionProvider"])
    reference = hamgan.fix_ham_bases(copy.deepcopy(G), FIXED)  # a no-op where nothing draws bases
    worst = 0.0
    for lo, hi in ((0, 5), (5, 12)):
        got = session.run(None, {"z": z[lo:hi].numpy(), "y": y[lo:hi].numpy()})[0]
        with torch.no_grad():
            want = copy.deepcopy(reference)(z[lo:hi], y[lo:hi])
        worst = max(worst, max_abs(torch.from_numpy(got), want))
    return refused, worst


def check(work, seed, batch, onnx):
    path = os.path.join(work, "G.safetensors")
    samples = np.load(os.path.join(work, "samples.npz"))
    x, y, z = (torch.from_numpy(samples[k]) for k in ("x", "y", "z"))
    G = hamgan.load_generator(path)
    pt = batched(copy.deepcopy(G), z, y, batch, seed)
    r = {"pt": max_abs(pt, x),
         "sigma0": max_abs(pt, batched(without_context(G), z, y, batch, seed))}
    ts_path = os.path.join(work, "G.pt")
    export_torchscript(path, ts_path)
    r["ts"] = max_abs(batched(torch.jit.load(ts_path), z, y, batch, seed), x)
    r["reseed"] = max_abs(batched(torch.jit.load(ts_path), z, y, batch, seed + 1), x)
    r["refused"], r["onnx"] = onnx_check(path, G, z, y, work) if onnx else (-1, -1)
    return r


def main(root):
    lines = []
    with open(os.path.join(root, "cases.txt")) as f:
        cases = [line.split() for line in f if line.strip()]
    for name, seed, batch, onnx in cases:
        r = check(os.path.join(root, name), int(seed), int(batch), onnx == "1")
        lines.append(f"case {name} " + " ".join(f"{k} {v:.6g}" for k, v in r.items()))
        print(lines[-1], flush=True)
    with open(os.path.join(root, "results.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
