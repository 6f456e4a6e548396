"""R1/R2's input-gradient norms and their gradient in D's parameters, by PyTorch autograd on the Python
mirror of the discriminator (tests/interop/penalty_reference_test.cpp).

    penalty_reference.py DIR

DIR/cases.txt: one line per case, `NAME SEED`, with DIR/NAME/D.safetensors (the planted discriminator, its
u vectors before the forward) and DIR/NAME/inputs.safetensors (images, labels). SEED >= 0: the Hamburger's
random initial bases, torch.Generator().manual_seed(SEED) drawing (batch, d, r) as the C++ block's
generator does; -1: none (no random bases). For each case D runs in training mode (one power iteration,
the train steps), and DIR/NAME/reference.safetensors gets the logits, the per-image norms
||dD(x_i)/dx_i||^2 and `grad.<parameter>`: the gradient of their mean, from
torch.autograd.grad(create_graph=True) and a second torch.autograd.grad.

Spectral norm is computed here in plain differentiable ops, W / (u'^T W v) or W / max(1, u'^T W v) with u',
v the power iteration's vectors as constants, instead of the package's custom autograd function, so that
the reference's second backward pass owes nothing to a hand-written backward.
"""
import os
import sys

try:
    import safetensors  # noqa: F401
    import torch
    from safetensors.torch import load_file, save_file
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs safetensors")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import hamgan  # noqa: E402
import hamgan.layers  # noqa: E402
from hamgan.ham import HamBlock, random_bases  # noqa: E402

torch.set_num_threads(1)  # networks this small run fastest on one thread


def l2_normalize(x):
    return x * torch.rsqrt(torch.clamp_min(x.square().sum(), hamgan.layers.SN_EPS))


def plain_spectral_normalize(weight, u, exact, update):
    with torch.no_grad():
        w = weight.detach().reshape(weight.size(0), -1)
        v = l2_normalize(w.t() @ u)
        u_new = l2_normalize(w @ v)
        if update:
            u.copy_(u_new)
    sigma = torch.dot(u_new, weight.reshape(weight.size(0), -1) @ v)
    return weight / (sigma if exact else torch.clamp_min(sigma, 1.0))


def run_case(work, seed):
    D = hamgan.load_discriminator(os.path.join(work, "D.safetensors"))
    D.train()
    D.requires_grad_(True)
    inputs = load_file(os.path.join(work, "inputs.safetensors"))
    images, labels = inputs["images"], inputs["labels"]
    if seed >= 0:
        for m in D.modules():
            if isinstance(m, HamBlock):
                generator = torch.Generator().manual_seed(seed)
                m.fixed_bases = random_bases(m.kind, images.size(0), m.channels, m.rank, generator=generator)
    x = images.clone().requires_grad_(True)
    logits = D(x, labels)
    (grad_x,) = torch.autograd.grad(logits.sum(), x, create_graph=True)
    norms = grad_x.square().flatten(1).sum(1)
    named = list(D.named_parameters())
    grads = torch.autograd.grad(norms.mean(), [p for _, p in named], allow_unused=True)
    out = {"logits": logits.detach(), "norms": norms.detach()}
    for (name, p), g in zip(named, grads):
        out["grad." + name] = (torch.zeros_like(p) if g is None else g).detach().contiguous()
    save_file(out, os.path.join(work, "reference.safetensors"))


def main():
    root = sys.argv[1]
    hamgan.layers.spectral_normalize = plain_spectral_normalize
    with open(os.path.join(root, "cases.txt")) as f:
        cases = [line.split() for line in f if line.strip()]
    for name, seed in cases:
        run_case(os.path.join(root, name), int(seed))
        print(f"case {name} done")


if __name__ == "__main__":
    main()
