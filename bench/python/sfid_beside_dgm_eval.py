"""sFID beside dgm-eval's `sinception` (layer mixed_6e), on the same weights and images.

Runs dgm-eval's own InceptionEncoder(sinception=True) from a checkout (imported from
there, never copied) and `hamgan fid A B --sfid --sfid_layer mixed_6e --resize
legacy_pytorch` (dgm-eval's preprocessing: to_tensor, F.interpolate to 299, 2x−1) on the
same images written as two PNG folders in --work, then prints both sFIDs (dgm-eval's
compute_FD_with_stats on its features; HamGAN's printed `sFID:`).

  git -C DGM_EVAL_REPO worktree add /tmp/dgm-eval HEAD
  .venv/bin/python bench/python/sfid_beside_dgm_eval.py --dgm-eval /tmp/dgm-eval \
      --weights WEIGHTS.pth --hamgan build/hamgan
WEIGHTS.pth: pytorch-fid's FID Inception state dict (the released one, or planted
random weights such as tests/python/sfid_reference.py writes).
"""
import argparse, os, re, subprocess, sys, tempfile, time, types
import numpy as np
import torch
from PIL import Image

p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
p.add_argument("--dgm-eval", required=True, help="dgm-eval checkout (the directory holding dgm_eval/)")
p.add_argument("--weights", required=True, help="pytorch-fid FID Inception state dict (.pth)")
p.add_argument("--hamgan", required=True, help="the hamgan executable")
p.add_argument("--n", type=int, default=128, help="images per set")
p.add_argument("--work", default=None, help="exchange directory (default: a temporary one)")
args = p.parse_args()
work = args.work or tempfile.mkdtemp(prefix="sfid_dgm_")
os.makedirs(work, exist_ok=True)

# Two sets of 64×64 images from different distributions: smooth colour fields, and
# the same with noise and a colour cast.
g = torch.Generator().manual_seed(3)
coarse = torch.rand(2 * args.n, 3, 6, 6, generator=g)
base = torch.nn.functional.interpolate(coarse, size=(64, 64), mode="bicubic")
a = (base[:args.n].clamp(0, 1) * 255).round().to(torch.uint8)
b = (base[args.n:] * 210 + 35 * torch.rand(args.n, 3, 64, 64, generator=g) + torch.tensor([20.0, 0, -15]).view(1, 3, 1, 1))
b = b.clamp(0, 255).round().to(torch.uint8)
for name, images in (("a", a), ("b", b)):
    os.makedirs(f"{work}/{name}", exist_ok=True)
    for i, im in enumerate(images):
        Image.fromarray(im.permute(1, 2, 0).numpy(), "RGB").save(f"{work}/{name}/{i:04d}.png")

# dgm-eval, imported from the checkout without its models/metrics __init__ (which pull in
# every encoder): register those two packages by path only.
sys.path.insert(0, os.path.abspath(args.dgm_eval))
import dgm_eval  # noqa: E402
for sub in ("models", "metrics"):
    pkg = types.ModuleType(f"dgm_eval.{sub}")
    pkg.__path__ = [os.path.join(os.path.abspath(args.dgm_eval), "dgm_eval", sub)]
    sys.modules[f"dgm_eval.{sub}"] = pkg
import dgm_eval.models.inception as dinc  # noqa: E402
from dgm_eval.metrics.fd import compute_statistics, compute_FD_with_stats  # noqa: E402

state = torch.load(args.weights, map_location="cpu")
dinc.load_state_dict_from_url = lambda *a_, **k: state  # its fid_inception_v3 then loads these weights
encoder = dinc.InceptionEncoder(sinception=True).eval()
torch.set_num_threads(min(4, os.cpu_count() or 1))


def dgm_features(images):  # dgm-eval: PIL RGB → encoder.transform → model → [0], (c, h, w) order
    out = []
    for lo in range(0, len(images), 32):
        batch = torch.stack([encoder.transform(Image.fromarray(im.permute(1, 2, 0).numpy(), "RGB"))
                             for im in images[lo:lo + 32]])
        with torch.no_grad():
            out.append(encoder(batch)[0].numpy())
    return np.concatenate(out).astype(np.float64)


t0 = time.time()
dgm = {"a": dgm_features(a), "b": dgm_features(b)}
t_dgm = time.time() - t0
t0 = time.time()
out = subprocess.run([args.hamgan, "fid", f"{work}/a", f"{work}/b", "--sfid", "--sfid_layer", "mixed_6e",
                      "--resize", "legacy_pytorch", "--inception", args.weights, "--n", "0", "--size", "64",
                      "--device", "cpu"], check=True, capture_output=True, text=True).stdout
t_ham = time.time() - t0
fd_ham = float(re.search(r"sFID: ([-+0-9.eE]+)", out).group(1))
(mu_a, sig_a), (mu_b, sig_b) = compute_statistics(dgm["a"]), compute_statistics(dgm["b"])
t0 = time.time()
fd_dgm = compute_FD_with_stats(mu_a, mu_b, sig_a, sig_b)
fd_dgm = fd_dgm[0] if isinstance(fd_dgm, tuple) else fd_dgm
t_fd = time.time() - t0
print(f"images: 2 × {args.n} at 64×64, layer mixed_6e, weights {args.weights}")
print(f"sFID dgm-eval {fd_dgm:.6f}  HamGAN {fd_ham:.6f}  relative difference {abs(fd_dgm - fd_ham) / abs(fd_dgm):.2e}")
print(f"time: dgm-eval features {t_dgm:.1f} s, its FD {t_fd:.1f} s; HamGAN's whole command {t_ham:.1f} s")
