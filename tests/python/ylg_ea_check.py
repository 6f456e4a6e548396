"""The Python `ylg` and `ea` blocks (python/hamgan/ylg.py, external_attention.py) against independent oracles.

    ylg_ea_check.py HAMGAN_BINARY

(a) ea: tests/python/ea_reference.py on the module's normalised weights (no BN), and the same formulation
    in float64 torch with TF-GAN batch norm (G's ea_cbn), in eval and training mode, with gradients;
(b) ylg: a per-query loop over each head's allowed keys, written from docs/modules.md (ESA ranks, the four
    1-D patterns, query q on key-grid row q mod n, heads re-merged as channel d * 8 + h), against the
    vectorised module (float32 to 1e-5, float64 to 1e-10, training mode and gradients);
(c) parameter counts against the context rows of `hamgan model-info --config T.toml` at resolution 64.
Each block also runs under CPU bf16 autocast. Exit 0: all pass, 1: a failure, 3: no torch or numpy."""
import copy
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print(f"missing test package ({e}); install torch and numpy")
    sys.exit(3)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from hamgan.external_attention import ExternalAttention  # noqa: E402
from hamgan.ylg import YLGAttention  # noqa: E402

torch.set_num_threads(2)
torch.manual_seed(0)  # the blocks' initial weights
FAILED = []
SIGMA = 0.75  # the residual gain the checks set: exact in float32, so the float64 oracles see the same value


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILED.append(what)


def max_abs(a, b):
    return (a.double() - b.double()).abs().max().item()


def rel_err(a, b):  # relative to b's largest entry (at least 1): intermediates and gradients of size > 1
    return max_abs(a, b) / max(1.0, b.double().abs().max().item())


def close(a, b, terms):  # a float32 sum of many terms that may cancel: equal relative to the terms' sizes
    return abs(a.item() - b.item()) <= 1e-7 * terms.abs().sum().item()


def randomize(block, gen):
    """Non-trivial state: sigma, u and BN tables random, so every part of the block shows in the output."""
    with torch.no_grad():
        block.sigma.fill_(SIGMA)
        for name, t in block.named_buffers():
            t.copy_(torch.rand(t.shape, generator=gen) + 0.5 if name.endswith("running_var")
                    else torch.randn(t.shape, generator=gen))
        for name, p in block.named_parameters():
            if ".gain" in name or name.endswith("bn.bias"):
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5 + (1.0 if ".gain" in name else 0.0))


def weights(block, names):
    """The normalised weights an eval forward uses (eval: u is not advanced), float64, as (out, in)."""
    was = block.training
    with torch.no_grad():
        w = [getattr(block.eval(), n).normalized_weight().double().flatten(1) for n in names]
    block.train(was)
    return w


# ---------------------------------------------------------------- (a) ea

def ea_oracle(x, w, heads, sigma, bn, y, training):
    """ea_reference.py's order (conv1, M_k, softmax over n, L1 over S, M_v, conv2) plus TF-GAN batch norm."""
    wq, wk, wv, wo = w
    b, c, h, wd = x.shape
    n, d = h * wd, c // heads
    q = torch.einsum("oc,bcn->bon", wq, x.reshape(b, c, n)).reshape(b, heads, d, n)
    attn = torch.softmax(torch.einsum("sd,bhdn->bhsn", wk, q), -1)
    attn = attn / (1e-9 + attn.sum(-2, keepdim=True))
    vals = torch.einsum("ds,bhsn->bhdn", wv, attn).reshape(b, c, n)
    o = torch.einsum("oc,bcn->bon", wo, vals).reshape(b, c, h, wd)
    if bn is not None:
        if training:
            mean, var = o.mean((0, 2, 3), keepdim=True), o.var((0, 2, 3), unbiased=False, keepdim=True)
        else:
            mean, var = bn.running_mean.double().view(1, c, 1, 1), bn.running_var.double().view(1, c, 1, 1)
        gain, bias = bn.gain.detach().double()[y], bn.bias.detach().double()[y]
        o = (o - mean) / torch.sqrt(var + 1e-3) * gain[..., None, None] + bias[..., None, None]
    return x + sigma * o


def run_ea_reference_script(block, x, work):
    with torch.no_grad():
        out = block.eval()(x, None)
    w = weights(block, ("query", "memory_key", "memory_value", "out"))
    np.savez(os.path.join(work, "ea.npz"), x=x.numpy(), wq=w[0].numpy(), wk=w[1].numpy(), wv=w[2].numpy(),
             wo=w[3].numpy(), heads=np.array([block.heads]), sigma=np.array([block.sigma.item()]),
             y=out.detach().numpy())
    r = subprocess.run([sys.executable, os.path.join(HERE, "ea_reference.py"), work], capture_output=True, text=True)
    return r.returncode == 0, r.stdout.strip()


def check_block(tag, block, x, y, names, oracle, train, gen, tol64=1e-10):
    """Eval (float32 and float64) and, when `train`, training mode with gradients against
    oracle(x64, weights, sigma, training); x scaled so the softmaxes are peaked and a wrong key set shows."""
    block.eval()
    with torch.no_grad():
        out = block(x, y)
    err = max_abs(out, oracle(x.double(), weights(block, names), SIGMA, False))
    check(err < 1e-5, f"{tag} eval: {err:.2e}")
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):  # the softmaxes stay float32
        low = block(x, y)
    check(bool(torch.isfinite(low).all()) and rel_err(low, out) < 0.05, f"{tag} bf16: {rel_err(low, out):.2e}")
    block64 = copy.deepcopy(block).double()  # float64 weights normalised in float64: the formula, not rounding
    with torch.no_grad():
        err = max_abs(block64(x.double(), y), oracle(x.double(), weights(block64, names), SIGMA, False))
    check(err < tol64, f"{tag} float64: {err:.2e} (< {tol64:g})")
    if train:
        block.train()
        w = weights(block, names)  # from the u this training forward starts at
        u_before = getattr(block, names[0]).u.clone()
        xg = x.clone().requires_grad_(True)
        out = block(xg, y)
        r = torch.randn(out.shape, generator=gen)
        (out * r).sum().backward()
        x64, s64 = x.double().requires_grad_(True), torch.tensor(SIGMA, dtype=torch.float64, requires_grad=True)
        expected = oracle(x64, w, s64, True)
        (expected * r.double()).sum().backward()
        check(max_abs(out, expected) < 1e-5, f"{tag} train: {max_abs(out, expected):.2e}")
        sigma_terms = r.double() * (expected - x64).detach() / SIGMA  # d sum(r * out) / d sigma, term by term
        check(rel_err(xg.grad, x64.grad) < 1e-5 and close(block.sigma.grad, s64.grad, sigma_terms),
              f"{tag} train grad x, sigma, relative: {rel_err(xg.grad, x64.grad):.2e}")
        check(all(p.grad is not None and torch.isfinite(p.grad).all() for p in block.parameters()), f"{tag} grads")
        check(max_abs(getattr(block, names[0]).u, u_before) > 1e-6, f"{tag} training advances u")
    extra = {"bn.gain", "bn.bias", "bn.running_mean", "bn.running_var"} if getattr(block, "bn", None) else set()
    expected_names = {f"{m}.{t}" for m in names for t in ("weight", "u")} | {"sigma"} | extra
    check(set(block.state_dict()) == expected_names, f"{tag} tensor names {sorted(block.state_dict())}")


def check_ea(work):
    gen = torch.Generator().manual_seed(1)
    names = ("query", "memory_key", "memory_value", "out")
    for heads, memory, classes in ((1, 64, 0), (4, 16, 0), (1, 32, 5), (2, 24, 5)):
        tag = f"ea C=64 S={memory} H={heads} classes={classes}"
        block = ExternalAttention(64, {"ea_memory": memory, "ea_heads": heads, "ea_cbn": True}, classes)
        randomize(block, gen)
        x = torch.randn(3, 64, 6, 10, generator=gen) * 2
        y = torch.tensor([0, 4, 2]) if classes else None
        if block.bn is None:
            ok, line = run_ea_reference_script(block, x, work)
            check(ok, f"{tag} eval vs ea_reference.py ({line})")
        oracle = lambda x64, w, s, training: ea_oracle(x64, w, heads, s, block.bn, y, training)  # noqa: E731
        # hamgan.layers.ConditionalBN normalises in float32 whatever the input: only 1e-6 with BN in float64.
        check_block(tag, block, x, y, names, oracle, True, gen, 1e-10 if block.bn is None else 1e-6)


# ---------------------------------------------------------------- (b) ylg

def ylg_loop(x, w, sigma):
    """docs/modules.md, `ylg`, one query and one head at a time; softmax over the allowed keys only."""
    wt, wp, wg, wo = w
    b, c, hh, ww = x.shape
    rows, cols = hh // 2, ww // 2
    n, n_out, dq, dv, s = rows * cols, hh * ww, c // 64, c // 16, math.isqrt(rows * cols)
    conv = lambda wt_, t: torch.einsum("oc,bchw->bohw", wt_, t)  # noqa: E731
    q = conv(wt, x).reshape(b, c // 8, n_out)
    k = F.max_pool2d(conv(wp, x), 2).reshape(b, c // 8, n)
    v = F.max_pool2d(conv(wg, x), 2).reshape(b, c // 2, n)
    order = [r * cols + (dist - r) for dist in range(rows + cols - 1) for r in range(rows) if 0 <= dist - r < cols]
    rank = {cell: i for i, cell in enumerate(order)}
    rules = {"LeftFloor": lambda o, i: o - o % s <= i <= o,
             "RightFloor": lambda o, i: o <= i and i - i % s <= o,  # same s-block, i >= o
             "LeftRepetitive": lambda o, i: i == o or i % s == s - 1,
             "RightRepetitive": lambda o, i: i == o or (i % s == 0 and i + s - 1 < n)}
    heads = ["RightFloor", "RightRepetitive"] * 2 + ["LeftFloor", "LeftRepetitive"] * 2
    allowed = {(p, o): [order[i] for i in range(n) if rules[p](o, i)] for p in rules for o in range(n)}
    columns = [[None] * n_out for _ in range(c // 2)]
    for head, pattern in enumerate(heads):
        for query in range(n_out):
            keys = allowed[(pattern, rank[query % n])]  # the key-grid row of query q is q mod n
            logits = torch.einsum("bd,bdk->bk", q[:, head * dq:(head + 1) * dq, query],
                                  k[:, head * dq:(head + 1) * dq, keys])
            out = torch.einsum("bk,bdk->bd", torch.softmax(logits, -1), v[:, head * dv:(head + 1) * dv, keys])
            for d in range(dv):
                columns[d * 8 + head][query] = out[:, d]  # interleaved re-merge
    merged = torch.stack([torch.stack(col, -1) for col in columns], 1).reshape(b, c // 2, hh, ww)
    return x + sigma * conv(wo, merged), merged


def check_ylg():
    gen = torch.Generator().manual_seed(2)
    names = ("theta", "phi", "g", "o")
    for c, hh, ww, train in ((128, 32, 32, False), (64, 8, 12, True), (64, 6, 12, True), (64, 4, 8, False),
                             (128, 2, 2, True)):
        tag = f"ylg C={c} {hh}x{ww}"
        block = YLGAttention(c, {}, 0)
        randomize(block, gen)
        x = torch.randn(2, c, hh, ww, generator=gen) * 3
        seen = []
        block.o.register_forward_pre_hook(lambda _m, args: seen.append(args[0].detach()))
        with torch.no_grad():
            block.eval()(x)
        merged = ylg_loop(x.double(), weights(block, names), SIGMA)[1]
        check(rel_err(seen[-1], merged) < 1e-5, f"{tag} attended (o's input): {rel_err(seen[-1], merged):.2e}")
        check_block(tag, block, x, None, names, lambda x64, w, s, _training: ylg_loop(x64, w, s)[0], train, gen)


# ---------------------------------------------------------------- (c) parameter counts

def check_counts(binary, work):
    """G's and D's context rows (channels, params) of model-info against the Python blocks' parameters."""
    for name, opts in (("ylg", {}), ("ea", {}), ("ea", {"ea_memory": 32, "ea_heads": 4, "ea_cbn": False}),
                       ("ea", {"ea_memory": 48, "ea_heads": 2, "ea_cbn": True})):
        path = os.path.join(work, "T.toml")
        with open(path, "w") as f:
            f.write(f'resolution = 64\nnum_classes = 10\ng_block = "{name}"\nd_block = "{name}"\n' +
                    "".join(f"{k} = {str(v).lower()}\n" for k, v in opts.items()))
        text = subprocess.run([binary, "model-info", "--config", path], capture_output=True, text=True,
                              check=True).stdout
        rows = re.findall(r"^\s*context\s+(\d+)x\d+x\d+\s+([\d,]+)\s*$", text, re.M)
        check(len(rows) == 2, f"{name} {opts}: two context rows in model-info's output")
        for net, (channels, params) in zip(("G", "D"), rows):
            block = (YLGAttention if name == "ylg" else ExternalAttention)(int(channels), opts, 10 if net == "G" else 0)
            ours = sum(p.numel() for p in block.parameters())
            check(ours == int(params.replace(",", "")), f"{net} {name} {opts}: C={channels} python {ours:,} "
                                                        f"model-info {params}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as work:
        check_ea(work)
        check_ylg()
        check_counts(sys.argv[1], work)
    print("all checks passed" if not FAILED else f"{len(FAILED)} check(s) failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
