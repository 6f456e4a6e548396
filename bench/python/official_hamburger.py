"""Times the official PyTorch Hamburger on CPU, the way `hamgan bench modules`
times `ham:nmf`, for a side-by-side comparison (docs/ham.md, "Against the
official Hamburger").

The block is HamburgerV1 with NMF and the one-step gradient, from
Enjoy-Hamburger's seg/HamNet, imported from a checkout the caller names with
--repo. Nothing of it is copied here. Two things let it run on a CPU:
`Tensor.cuda` becomes a no-op (the module builds its random bases with
`.cuda()`), and the module directory goes on sys.path (its `settings` and
`sync_bn` imports).

What is timed matches modules/bench_modules.cpp: the median over --repeats,
after --warmup, of (training) a forward and a backward with respect to the
input and the parameters, and (inference) a forward in eval mode without
autograd. d = C and r = C/8, K = --steps (training and evaluation alike).

  python3 bench/python/official_hamburger.py --repo PATH/Enjoy-Hamburger --shape 1 512 64 64 --threads 1
Prints one JSON object.
"""
import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time

import torch

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--repo", required=True, help="a checkout of github.com/Gsunshine/Enjoy-Hamburger")
p.add_argument("--shape", type=int, nargs=4, default=[1, 512, 64, 64], metavar=("N", "C", "H", "W"))
p.add_argument("--threads", type=int, default=1)
p.add_argument("--steps", type=int, default=6)
p.add_argument("--warmup", type=int, default=2)
p.add_argument("--repeats", type=int, default=5)
a = p.parse_args()

module_dir = os.path.join(a.repo, "seg", "HamNet")
if not os.path.isfile(os.path.join(module_dir, "hamburger", "burger.py")):
    sys.exit(f"official_hamburger.py: {module_dir}/hamburger/burger.py not found; "
             "pass --repo a checkout of Enjoy-Hamburger")
sys.path.insert(0, module_dir)
torch.Tensor.cuda = lambda self, *args, **kwargs: self
with contextlib.redirect_stdout(io.StringIO()):  # the module prints its settings
    from hamburger.burger import HamburgerV1

torch.set_num_threads(a.threads)
torch.manual_seed(0)
n, c, h, w = a.shape


class Args:
    HAM_TYPE = "NMF"
    MD_S = 1
    MD_D = c
    MD_R = c // 8
    TRAIN_STEPS = a.steps
    EVAL_STEPS = a.steps
    RAND_INIT = True


with contextlib.redirect_stdout(io.StringIO()):
    block = HamburgerV1(c, Args())
x = torch.randn(n, c, h, w)
grad_out = torch.randn(n, c, h, w)


def median_ms(fn):
    for _ in range(a.warmup):
        fn()
    times = []
    for _ in range(a.repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def train_step():
    xg = x.clone().requires_grad_(True)
    block(xg).backward(grad_out)


def infer():
    with torch.no_grad():
        block(x)


block.train()
train_ms = median_ms(train_step)
block.eval()
fwd_ms = median_ms(infer)
print(json.dumps({"block": "Enjoy-Hamburger HamburgerV1 (NMF, one-step)", "shape": a.shape, "threads": a.threads,
                  "steps": a.steps, "params": sum(q.numel() for q in block.parameters()),
                  "train_ms": round(train_ms, 3), "fwd_ms": round(fwd_ms, 3), "torch": torch.__version__}))
