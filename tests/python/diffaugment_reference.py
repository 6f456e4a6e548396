"""DiffAugment with ADA's per-image probability, written from the definitions (tests/train/augment_test.cpp).

DiffAugment (Zhao et al., NeurIPS 2020; mit-han-lab/data-efficient-gans): color = brightness (add b),
saturation (scale each pixel's deviation from its mean over channels by s), contrast (scale the deviation
from the image's mean by c); translation by (dy, dx), out(i, j) = in(i + dy, j + dx) inside the image and 0
outside; cutout zeroes rows [oy - ch // 2, oy - ch // 2 + ch) x columns [ox - cw // 2, ...) clipped to the
image, with ch = int(H * 0.5 + 0.5). Each image is handled on its own, with slicing, in float64 torch;
gradients come from torch autograd.

Usage: diffaugment_reference.py DIR. DIR/augment.npz holds `cases` and, per case k, k_x (N, C, H, W), k_policy
(op codes 0 color, 1 translation, 2 cutout, in order), the draws k_brightness, k_saturation, k_contrast (N),
k_shift, k_cutout_offset (N, 2), k_apply (N, 5) (brightness, saturation, contrast, translation, cutout), a
weight k_w, HamGAN's output k_y and its gradient k_grad of sum(y * w) with respect to x. A case whose k_apply
is all true is compared with plain DiffAugment, which has no probability. Exits 0 when every output and
gradient agrees to 1e-6, 1 otherwise, 3 without torch."""
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs numpy and torch")
    sys.exit(3)

TOLERANCE = 1e-6


def brightness(x, b):
    return x + b


def saturation(x, s):
    m = x.mean(dim=0, keepdim=True)
    return (x - m) * s + m


def contrast(x, c):
    m = x.mean()
    return (x - m) * c + m


def translate(x, dy, dx):
    _, h, w = x.shape
    out = torch.zeros_like(x)
    r0, r1 = max(0, -dy), min(h, h - dy)
    c0, c1 = max(0, -dx), min(w, w - dx)
    if r0 < r1 and c0 < c1:
        out[:, r0:r1, c0:c1] = x[:, r0 + dy:r1 + dy, c0 + dx:c1 + dx]
    return out


def cutout(x, oy, ox):
    _, h, w = x.shape
    ch, cw = int(h * 0.5 + 0.5), int(w * 0.5 + 0.5)
    top, left = oy - ch // 2, ox - cw // 2
    mask = torch.ones(h, w, dtype=x.dtype)
    mask[max(0, top):max(0, min(h, top + ch)), max(0, left):max(0, min(w, left + cw))] = 0
    return x * mask


def augment_image(x, policy, d, n, use):
    """One image through the policy; use(t) says whether transform t (0..4) applies."""
    for op in policy:
        if op == 0:
            if use(0):
                x = brightness(x, float(d["brightness"][n]))
            if use(1):
                x = saturation(x, float(d["saturation"][n]))
            if use(2):
                x = contrast(x, float(d["contrast"][n]))
        elif op == 1 and use(3):
            x = translate(x, int(d["shift"][n, 0]), int(d["shift"][n, 1]))
        elif op == 2 and use(4):
            x = cutout(x, int(d["cutout_offset"][n, 0]), int(d["cutout_offset"][n, 1]))
    return x


def diffaugment(x, policy, d):
    return torch.stack([augment_image(x[n], policy, d, n, lambda t: True) for n in range(x.shape[0])])


def with_probability(x, policy, d):
    apply = d["apply"]
    return torch.stack([augment_image(x[n], policy, d, n, lambda t, n=n: bool(apply[n, t]))
                        for n in range(x.shape[0])])


def main():
    a = np.load(f"{sys.argv[1]}/augment.npz")
    ok = True
    for k in range(int(a["cases"].item())):
        def get(name):
            return a[f"{k}_{name}"]
        policy = [int(v) for v in get("policy")]
        d = {name: get(name) for name in ("brightness", "saturation", "contrast", "shift", "cutout_offset", "apply")
             if f"{k}_{name}" in a.files}
        x = torch.tensor(get("x"), dtype=torch.float64, requires_grad=True)
        plain = bool(d["apply"].all())
        y = (diffaugment if plain else with_probability)(x, policy, d)
        (y * torch.tensor(get("w"), dtype=torch.float64)).sum().backward()
        y_err = np.abs(y.detach().numpy() - get("y")).max()
        g_err = np.abs(x.grad.numpy() - get("grad")).max()
        good = y_err <= TOLERANCE and g_err <= TOLERANCE
        ok &= bool(good)
        print(f"case {k}: policy {policy} {tuple(x.shape)} {'DiffAugment' if plain else 'per-image p'}: "
              f"max |y - ref| {y_err:.2e}, max |grad - ref| {g_err:.2e}{'' if good else '  MISMATCH'}")
    sys.exit(0 if ok else 1)


main()
