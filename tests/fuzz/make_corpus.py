"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from real
files: Fashion-MNIST images and headers, numpy/h5py/PIL/torch writers, the
shipped experiment configs. Rerun after changing a reader's input format."""
import gzip
import io
import json
import os
import shutil
import struct
import sys
import zipfile

import h5py
import numpy as np
import torch
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
FMNIST = "/usr/share/datasets/fashion-mnist"


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data)


def fmnist(n):
    with gzip.open(os.path.join(FMNIST, "train-images-idx3-ubyte.gz")) as f:
        images = f.read(16 + 784 * n)
    with gzip.open(os.path.join(FMNIST, "train-labels-idx1-ubyte.gz")) as f:
        labels = f.read(8 + n)
    # Headers that count what follows (3 items, not the file's 60000).
    images = images[:4] + struct.pack(">I", n) + images[8:]
    labels = labels[:4] + struct.pack(">I", n) + labels[8:]
    return images, labels


images, labels = fmnist(3)
# IDX: [labels length (2 bytes)][flags: bit 0 = gzip][labels file][images file], as fuzz_idx.cpp splits it.
for gz in (0, 1):
    put("fuzz_idx", f"fmnist3_{'gz' if gz else 'plain'}", struct.pack(">HB", len(labels), gz) + labels + images)
pixels = np.frombuffer(images[16:], np.uint8).reshape(3, 28, 28)

for i, mode in enumerate(["L", "RGB", "P"]):
    img = Image.fromarray(pixels[i]).convert(mode)
    buf = io.BytesIO()
    img.save(buf, "PNG", interlace=(i == 1))
    put("fuzz_png", f"fmnist_{mode}.png", buf.getvalue())
    if mode != "P":
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=90, progressive=(i == 1))
        put("fuzz_jpeg", f"fmnist_{mode}.jpg", buf.getvalue())

for comp in (None, "lzf", "gzip"):
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        imgs = np.stack([np.stack([p[:8, :8]] * 3) for p in pixels])
        f.create_dataset("imgs", data=imgs, chunks=(2, 3, 8, 8), maxshape=(None, 3, 8, 8), compression=comp)
        f.create_dataset("labels", data=np.frombuffer(labels[8:], np.uint8).astype(np.int64), compression=comp)
    put("fuzz_hdf5", f"biggan_{comp or 'plain'}.hdf5", buf.getvalue())



def dataset_tool_zip(labelled, compression):
    """A ZIP as StyleGAN/EDM dataset_tool.py writes it: PNG members, dataset.json labels."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as z:
        names = []
        for i, p in enumerate(pixels):
            name = f"00000/img{i:08d}.png"
            img = io.BytesIO()
            Image.fromarray(p[:8, :8]).save(img, format="png", compress_level=0, optimize=False)
            z.writestr(name, img.getvalue())
            names.append([name, int(labels[8 + i])])
        z.writestr("dataset.json", json.dumps({"labels": names if labelled else None}))
    return buf.getvalue()


put("fuzz_zip", "dataset_tool_labelled.zip", dataset_tool_zip(True, zipfile.ZIP_STORED))
put("fuzz_zip", "dataset_tool_unlabelled_deflated.zip", dataset_tool_zip(False, zipfile.ZIP_DEFLATED))

rng = np.random.default_rng(0)
x = rng.standard_normal((20, 4))
for compressed in (False, True):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, mu=x.mean(0), sigma=np.cov(x, rowvar=False), n=np.int64(20))
    put("fuzz_npz", f"stats_{'deflated' if compressed else 'stored'}.npz", buf.getvalue())

for name in ("fmnist_ham.toml", "imagenet128_ham.toml"):
    shutil.copy(os.path.join(ROOT, "experiments", name), os.path.join(OUT, "fuzz_toml", name))


class Checkpoint(torch.nn.Module):
    """The keys CheckpointReader reads first, in LibTorch's archive format."""

    def __init__(self):
        super().__init__()
        self.register_buffer("format_version", torch.tensor(2))
        self.register_buffer("step", torch.tensor(5))
        self.register_buffer("noise_rng", torch.zeros(16, dtype=torch.uint8))
        self.model_config = "resolution = 32\nnum_classes = 10\n"

    def forward(self):
        return self.step


buf = io.BytesIO()
torch.jit.save(torch.jit.script(Checkpoint()), buf)
put("fuzz_checkpoint", "minimal.pt", buf.getvalue())
# safetensors as the library writes them: a small generator-like file with metadata, and odd dtypes.
from safetensors.torch import save as save_safetensors  # noqa: E402

put("fuzz_safetensors", "generator.safetensors",
    save_safetensors({"G.linear.weight": torch.randn(4, 3), "G.linear.u": torch.randn(4), "G.context.sigma":
                      torch.tensor(0.5)}, metadata={"format": "hamgan", "model": "resolution = 32\n"}))
put("fuzz_safetensors", "dtypes.safetensors",
    save_safetensors({"b": torch.tensor([True, False]), "h": torch.ones(2, 2).half(), "i": torch.arange(3),
                      "e": torch.zeros(0, 2), "bf": torch.ones(3).bfloat16()}))
print("corpus written to", OUT, file=sys.stderr)
