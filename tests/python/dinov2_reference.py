"""FD_DINOv2 references (tests/metrics/dinov2_test.cpp) on a small DINOv2 ViT with
seeded random weights.

Writes into DIR:
  dinov2.pt        the TorchScript module, written by scripts/convert_dinov2.py
  dinov2.safetensors  the same weights as scripts/convert_dinov2.py writes them for metrics/dinov2_vit.cpp
  bad_shape.pt     a TorchScript module returning (N, 3, 224, 224), not (N, D)
  a/, b/           two folders of 32×32 RGB PNGs (more images than D, so the
                   covariances are full rank)
  ref.npz          rgb (uint8 (N, 3, 32, 32)) and gray (uint8 (N, 1, 28, 28)) test
                   images; per mode M: pre_M_rgb / pre_M_gray (the network's input),
                   feat_M_rgb / feat_M_gray, fd_M (between folders a and b):
                     pil_bicubic        dgm-eval / EDM2 `pil`: PIL uint8 BICUBIC, /255, normalise
                     torch_bicubic      EDM2 `torch`: F.interpolate bicubic antialias on 0..255
                     legacy_tensorflow  torch-fidelity's FeatureExtractorDinoV2.forward itself
"""
import os
import sys

import numpy as np

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import timm  # noqa: F401
    from PIL import Image
    from pytorch_fid.fid_score import calculate_frechet_distance
    from torch_fidelity.feature_extractor_base import FeatureExtractorBase
    from torch_fidelity.feature_extractor_dinov2 import FeatureExtractorDinoV2
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs timm, pytorch-fid and torch-fidelity")
    sys.exit(3)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import convert_dinov2  # noqa: E402

d = sys.argv[1]
torch.set_num_threads(2)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]

# A DINOv2-architecture ViT (patch 14, LayerScale, 518² position grid) kept small.
model = convert_dinov2.from_timm("vit_small_patch14_dinov2", embed_dim=48, depth=2, num_heads=2)
g = torch.Generator().manual_seed(7)
with torch.no_grad():
    for name, p in model.named_parameters():
        if name.endswith(".gamma"):  # LayerScale: O(1) so the blocks matter
            p.copy_(0.5 + torch.rand(p.shape, generator=g))
        elif p.dim() == 1 and "norm" in name and name.endswith("weight"):
            p.copy_(1 + 0.1 * torch.randn(p.shape, generator=g))
        elif p.dim() == 1:
            p.copy_(0.05 * torch.randn(p.shape, generator=g))
        elif name.endswith("proj.weight") and p.dim() == 4:
            p.copy_(torch.randn(p.shape, generator=g) / p[0].numel() ** 0.5)
        elif p.dim() == 2:
            p.copy_(torch.randn(p.shape, generator=g) / p.shape[1] ** 0.5)
        else:  # class token and position embedding
            p.copy_(0.5 * torch.randn(p.shape, generator=g))
convert_dinov2.save_torchscript(model, f"{d}/dinov2.pt")
convert_dinov2.save_safetensors(model, f"{d}/dinov2.safetensors")  # the same weights for HamGAN's own ViT


class BadShape(nn.Module):
    def forward(self, x):
        return x * 2


torch.jit.trace(BadShape(), torch.zeros(1, 3, 224, 224)).save(f"{d}/bad_shape.pt")

# Images: two sets with different statistics, a few RGB and grayscale ones for the feature checks.
rng = np.random.default_rng(11)
n = 72  # > D = 48
to_u8 = lambda x: np.clip(x, 0, 255).astype(np.uint8)  # noqa: E731
set_a = to_u8(rng.normal(120, 60, (n, 32, 32, 3)))
ramp = np.linspace(0, 120, 32)[None, :, None, None]
set_b = to_u8(rng.normal(100, 50, (n, 32, 32, 3)) + ramp)
for name, s in (("a", set_a), ("b", set_b)):
    os.makedirs(f"{d}/{name}", exist_ok=True)
    for i, img in enumerate(s):
        Image.fromarray(img, "RGB").save(f"{d}/{name}/{i:04d}.png")
rgb = set_a[:3]  # (N, H, W, 3)
gray = rng.integers(0, 256, (2, 28, 28), dtype=np.uint8)


def normalise(x):  # EDM2: x/255, minus mean, over std
    x = x.to(torch.float32) / 255
    return (x - torch.tensor(MEAN).reshape(1, -1, 1, 1)) / torch.tensor(STD).reshape(1, -1, 1, 1)


def pil_input(hwc):  # dgm-eval (torchvision Resize on the PIL image) and EDM2 `pil`: uint8 out
    out = []
    for x in hwc:
        img = Image.fromarray(x, "RGB" if x.ndim == 3 else "L").convert("RGB")
        out.append(np.asarray(img.resize((224, 224), Image.Resampling.BICUBIC), dtype=np.uint8))
    return normalise(torch.from_numpy(np.stack(out)).permute(0, 3, 1, 2))


def torch_input(nchw):  # EDM2 `torch`, its default
    x = F.interpolate(nchw.to(torch.float32), size=(224, 224), mode="bicubic", antialias=True)
    return normalise(x)


class Recorder(nn.Module):  # the planted network, keeping the input torch-fidelity gives it
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        self.seen = x
        return self.net(x)


tfi = object.__new__(FeatureExtractorDinoV2)  # skip the hub download in __init__
FeatureExtractorBase.__init__(tfi, "dinov2-vit-s-14", ["dinov2"])
tfi.feature_extractor_internal_dtype = torch.float32
tfi.model = Recorder(model)
tfi.eval()


def tf_input(nchw):
    tfi(nchw.expand(-1, 3, -1, -1).contiguous())
    return tfi.model.seen


def as_nchw(hwc):
    t = torch.from_numpy(hwc)
    return t.permute(0, 3, 1, 2) if t.dim() == 4 else t[:, None]


modes = {"pil_bicubic": pil_input, "torch_bicubic": lambda x: torch_input(as_nchw(x)),
         "legacy_tensorflow": lambda x: tf_input(as_nchw(x))}
out = {"rgb": as_nchw(rgb).numpy(), "gray": as_nchw(gray).numpy()}
with torch.no_grad():
    for mode, prep in modes.items():
        for tag, imgs in (("rgb", rgb), ("gray", gray)):
            x = prep(imgs)
            out[f"pre_{mode}_{tag}"] = x.numpy()
            out[f"feat_{mode}_{tag}"] = model(x).numpy()
        if mode == "legacy_tensorflow":  # the features of torch-fidelity's own forward
            assert np.array_equal(tfi(as_nchw(rgb))[0].numpy(), out[f"feat_{mode}_rgb"])
        stats = []
        for s in (set_a, set_b):
            f = torch.cat([model(prep(s[i:i + 24])) for i in range(0, n, 24)]).double().numpy()
            stats.append((f.mean(0), np.cov(f, rowvar=False)))
        out[f"fd_{mode}"] = np.float64(calculate_frechet_distance(*stats[0], *stats[1]))
np.savez(f"{d}/ref.npz", **out)
