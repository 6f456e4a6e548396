"""hamgan.blocks.HamburgerBlock against the C++ block's tensors (tests/interop/block_gradient_test.cpp).

    block_gradient_check.py DIR

DIR/cases.txt: `NAME TYPE GRADIENT CHANNELS CLASSES DTYPE` per line, DIR/NAME.npz the C++ side's state
before the forward (state.*), input x, labels, upstream gradient w, output and gradients (grad.*). The
Python block, built from HamburgerOptions, loads the state strictly, runs the same training-mode forward
and backward of sum(out * w), and must give the same output and gradients: relative error (Frobenius)
below 1e-8 in float64 (CD's solve at temperature 0.01 turns rounding into a few 1e-10) and 1e-5 in
float32, and a one-step input gradient that differs from BPTT's (so the comparison can tell the two
gradients apart).
"""
import os
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs numpy and torch")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from hamgan.blocks import HamburgerBlock, HamburgerOptions  # noqa: E402

torch.set_num_threads(2)
TOLERANCE = {"float64": 1e-8, "float32": 1e-5}


def relative_error(got, want):
    want = want.double()
    return ((got.double() - want).norm() / want.norm().clamp_min(1e-300)).item()


def check_case(directory, name, kind, gradient, channels, classes, dtype):
    with np.load(os.path.join(directory, name + ".npz")) as f:
        t = {key: torch.from_numpy(f[key]) for key in f.files}
    options = HamburgerOptions(type=kind, gradient=gradient, train_steps=3, init="online")
    block = HamburgerBlock(channels, options, num_classes=classes).to(getattr(torch, dtype))
    block.load_state_dict({k[len("state."):]: v for k, v in t.items() if k.startswith("state.")}, strict=True)
    block.train()
    x = t["x"].clone().requires_grad_(True)
    out = block(x, t["labels"]) if classes else block(x)
    (out * t["w"]).sum().backward()
    got = {"out": out.detach(), "grad.x": x.grad}
    got.update({"grad." + n: p.grad for n, p in block.named_parameters()})
    expected = sorted(k for k in t if k.startswith("grad.") or k == "out")
    if sorted(got) != expected:
        return [f"{name}: tensors {sorted(got)} != the C++ side's {expected}"], t["grad.x"]
    problems = []
    worst = 0.0
    for key in expected:
        if got[key] is None:
            problems.append(f"{name}: {key} has no gradient in Python")
            continue
        err = relative_error(got[key], t[key])
        worst = max(worst, err)
        if not err < TOLERANCE[dtype]:
            problems.append(f"{name}: {key} relative error {err:.3g} >= {TOLERANCE[dtype]:g}")
    if not t["grad.x"].abs().sum() > 0:
        problems.append(f"{name}: the C++ input gradient is zero; the case checks nothing")
    print(f"{name}: {len(expected)} tensors, worst relative error {worst:.3g}")
    return problems, t["grad.x"]


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, "cases.txt")) as f:
        cases = [line.split() for line in f if line.strip()]
    if len(cases) < 20:
        print(f"FAIL: {len(cases)} cases in cases.txt, expected the full grid")
        return 1
    problems, input_gradients = [], {}
    for name, kind, gradient, channels, classes, dtype in cases:
        p, grad_x = check_case(directory, name, kind, gradient, int(channels), int(classes), dtype)
        problems += p
        input_gradients[name] = grad_x
    for name, grad_x in input_gradients.items():
        bptt = input_gradients.get(name.replace("_onestep_", "_bptt_"))
        if "_onestep_" in name and bptt is not None and relative_error(grad_x, bptt) < 1e-3:
            problems.append(f"{name}: the one-step input gradient equals BPTT's; the two are not told apart")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
