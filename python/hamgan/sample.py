"""Samples of an exported generator as an .npz in the layout of the evaluators researchers use:

    python -m hamgan.sample G.safetensors --n 50000 --labels balanced --out samples.npz

arr_0: uint8 (N, H, W, 3), the images quantised as `hamgan fid` scores them (HWC, RGB; a one-channel
model's images repeated over the three channels, as Inception and DINOv2 take RGB); arr_1: int64 (N,), the
class of each image. That is what OpenAI's guided-diffusion `image_sample.py` writes and what its
evaluator (`evaluations/evaluator.py`) and dgm-eval read with `np.load(path)["arr_0"]`. The file is
written entry by entry, so memory stays at one batch, and lands under its name only when complete.
"""
import os
import sys
import time
import zipfile

import numpy as np
import torch

from .export_common import _OneLineParser, quantize, run_tool
from .io import load_generator
from .output_file import atomic_output, check_output, write_failed

PROG = "python -m hamgan.sample"


def draw_labels(n, num_classes, mode, generator):
    """balanced: i mod K (each class n/K times, in order); random: uniform, from `generator`."""
    if mode == "balanced":
        return torch.arange(n, dtype=torch.int64) % num_classes
    return torch.randint(num_classes, (n,), generator=generator, dtype=torch.int64)


class _Progress:
    """One line on stderr with count, rate and ETA; redrawn in place on a terminal, every 10% elsewhere."""

    def __init__(self, total, enabled):
        self.total, self.enabled, self.start, self.shown = total, enabled, time.monotonic(), -1
        self.tty = sys.stderr.isatty()

    def update(self, done):
        if not self.enabled:
            return
        tenth = done * 10 // self.total
        if not self.tty and tenth == self.shown and done < self.total:
            return
        self.shown = tenth
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = done / elapsed
        eta = (self.total - done) / rate if rate > 0 else 0.0
        line = (f"sample {done}/{self.total} img  {rate:.1f} img/s  "
                f"ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        sys.stderr.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _write_entry_header(f, shape, dtype):
    """The .npy header of a C-order array, written before its bytes (NPY format 1.0, which numpy reads everywhere)."""
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(f, header)


def _check(n, batch_size, labels):
    if n < 1:
        raise ValueError(f"--n must be >= 1, got {n}")
    if batch_size < 1:
        raise ValueError(f"--batch_size must be >= 1, got {batch_size}")
    if labels not in ("balanced", "random"):
        raise ValueError(f"--labels must be balanced or random, got {labels!r}")


def _write_npz(path, G, z, y, batch_size, device, bar):
    """arr_0 batch by batch (zip64, stored: np.load maps it without inflating), then arr_1."""
    n = z.size(0)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        with archive.open("arr_0.npy", "w", force_zip64=True) as entry:
            shape = None
            for i in range(0, n, batch_size):
                images = quantize(G(z[i:i + batch_size].to(device), y[i:i + batch_size].to(device))).cpu()
                if images.size(1) == 1:
                    images = images.expand(-1, 3, -1, -1)
                hwc = images.permute(0, 2, 3, 1).contiguous().numpy()
                if shape is None:
                    shape = (n,) + hwc.shape[1:]
                    _write_entry_header(entry, shape, np.uint8)
                entry.write(hwc.tobytes())
                bar.update(min(n, i + batch_size))
        with archive.open("arr_1.npy", "w") as entry:
            _write_entry_header(entry, (n,), np.int64)
            entry.write(y.numpy().astype("<i8").tobytes())
    return shape


def write_samples(path, n, out, labels="balanced", seed=0, batch_size=250, device="cpu", progress=True):
    """Samples the generator file `path` into `out`. z ~ N(0, I) and then the labels come from
    torch.Generator().manual_seed(seed); torch's global seed is set to `seed` once, before the first batch,
    for the Hamburger's random bases (as `hamgan sample` does), and restored afterwards. The output is
    checked before any work and replaced only when complete. Returns arr_0's shape."""
    path, out = os.fspath(path), os.fspath(out)
    _check(n, batch_size, labels)
    check_output(path, out, (".npz",), "npz")
    G = load_generator(path, device)
    generator = torch.Generator().manual_seed(seed)
    z = torch.randn(n, G.z_dim, generator=generator)
    y = draw_labels(n, G.num_classes, labels, generator)
    with atomic_output(out) as tmp, torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(seed)
        try:
            return _write_npz(tmp, G, z, y, batch_size, device, _Progress(n, progress))
        except OSError as e:  # a full disk, a vanished directory
            raise write_failed(out, e) from None


def main(argv=None):
    p = _OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("generator", help="a .safetensors file written by `hamgan export`")
    p.add_argument("--n", type=int, required=True, help="number of images")
    p.add_argument("--labels", choices=("balanced", "random"), default="balanced",
                   help="balanced: class i mod K; random: uniform classes")
    p.add_argument("--out", required=True, help="the .npz to write")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch_size", type=int, default=250)
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ...")
    p.add_argument("--no_progress", action="store_true", help="no progress line on stderr")
    a = p.parse_args(argv)
    shape = run_tool(PROG, lambda: write_samples(a.generator, a.n, a.out, a.labels, a.seed, a.batch_size, a.device,
                                                 not a.no_progress))
    print(f"{a.n} samples of {a.generator} -> {a.out} (arr_0 uint8 {'x'.join(map(str, shape))}, arr_1 int64)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
