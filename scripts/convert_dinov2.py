"""Writes the TorchScript file FD_DINOv2 reads (`hamgan fid --features dinov2:FILE`).

The module maps float32 (N, 3, 224, 224) images, already normalised with ImageNet's
mean and std, to the (N, D) CLS embedding: DINOv2's `x_norm_clstoken`, what
torch.hub's `dinov2_vitl14` returns, the network of dgm-eval, EDM2 and torch-fidelity.
Nothing is downloaded; bring the weights:

  # timm's model definition with the original or timm's weights (.pth or .safetensors)
  python scripts/convert_dinov2.py --timm vit_large_patch14_dinov2.lvd142m \
      --weights dinov2_vitl14_pretrain.pth --out dinov2_vitl14.pt
  # a local clone of facebookresearch/dinov2 and its checkpoint
  python scripts/convert_dinov2.py --hub-dir dinov2 --arch dinov2_vitl14 \
      --weights dinov2_vitl14_pretrain.pth --out dinov2_vitl14.pt

The hub network is built for 518×518 and resamples its 37×37 position embedding
to the 16×16 patches of a 224 input on every call (bicubic, scale factor
(16 + 0.1)/37, no antialiasing); timm resamples differently when built for 224,
so the timm path bakes in the hub's resampling to give the hub's features.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SIZE = 224


def hub_pos_embed(pos_embed, patch_size, size=SIZE, offset=0.1):
    """The hub's interpolate_pos_encoding for a size×size input: (1, 1 + n², D)."""
    cls, patches = pos_embed[:, :1].float(), pos_embed[:, 1:].float()
    m = int(math.sqrt(patches.shape[1]))
    n = size // patch_size
    if m == n:
        return pos_embed
    grid = patches.reshape(1, m, m, -1).permute(0, 3, 1, 2)
    s = float(n + offset) / m
    grid = F.interpolate(grid, scale_factor=(s, s), mode="bicubic", antialias=False)
    assert grid.shape[-2:] == (n, n)
    return torch.cat([cls, grid.permute(0, 2, 3, 1).reshape(1, n * n, -1)], dim=1).to(pos_embed.dtype)


class TimmDinoCls(nn.Module):
    """A timm DINOv2 ViT run as the hub runs it: patch tokens, class token, position
    embedding (resampled once, as above), blocks, final norm, class token out."""

    def __init__(self, vit, size=SIZE):
        super().__init__()
        if getattr(vit, "reg_token", None) is not None or getattr(vit, "no_embed_class", False):
            raise ValueError("only DINOv2 ViTs without register tokens are supported")
        patch = vit.patch_embed.patch_size
        patch = patch[0] if isinstance(patch, (tuple, list)) else patch
        self.proj = vit.patch_embed.proj
        self.patch_norm = vit.patch_embed.norm
        self.cls_token = vit.cls_token
        self.pos_embed = nn.Parameter(hub_pos_embed(vit.pos_embed.detach(), patch, size), requires_grad=False)
        self.blocks = vit.blocks
        self.norm = vit.norm

    def forward(self, x):
        x = self.patch_norm(self.proj(x).flatten(2).transpose(1, 2))
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.norm(self.blocks(x))[:, 0]


def from_timm(name, weights=None, **kwargs):
    """timm's `name` (e.g. vit_large_patch14_dinov2.lvd142m) with a local weights file,
    or with timm's initialisation when weights is None; returns the CLS module."""
    import timm

    if weights is None:
        vit = timm.create_model(name, pretrained=False, num_classes=0, **kwargs)
    else:  # timm's loader converts the original DINOv2 checkpoints as well as its own
        vit = timm.create_model(name, pretrained=True, num_classes=0, pretrained_cfg_overlay=dict(file=weights), **kwargs)
    return TimmDinoCls(vit.eval()).eval()


def from_hub(hub_dir, arch, weights):
    """The hub's own model class from a local clone; forward returns x_norm_clstoken."""
    model = torch.hub.load(hub_dir, arch, source="local", pretrained=False)
    if weights.endswith(".safetensors"):
        from safetensors.torch import load_file

        state = load_file(weights)
    else:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


def save_torchscript(model, out, size=SIZE, seed=0):
    """Traces `model` on a 224×224 batch, saves it, reloads it and checks it against the
    eager model on a batch of a different size; returns the reloaded module."""
    model = model.eval().requires_grad_(False)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        traced = torch.jit.trace(model, torch.randn(2, 3, size, size, generator=g), check_trace=False)
        traced.save(out)
        loaded = torch.jit.load(out)
        probe = torch.randn(3, 3, size, size, generator=g)
        want, got = model(probe), loaded(probe)
    if want.dim() != 2 or got.shape != want.shape:
        raise SystemExit(f"{out}: output {tuple(got.shape)} is not (N, D) CLS embeddings")
    err = (got - want).abs().max().item()
    if err > 1e-4 * max(1.0, want.abs().max().item()):
        raise SystemExit(f"{out}: the saved module differs from the model by {err:g}")
    return loaded


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--timm", metavar="NAME", help="timm model name, e.g. vit_large_patch14_dinov2.lvd142m")
    src.add_argument("--hub-dir", metavar="DIR", help="local clone of facebookresearch/dinov2")
    p.add_argument("--arch", default="dinov2_vitl14", help="hub entry point with --hub-dir (default dinov2_vitl14)")
    p.add_argument("--weights", required=True, help="checkpoint file (.pth or .safetensors)")
    p.add_argument("--out", required=True, help="TorchScript file to write")
    a = p.parse_args()
    model = from_timm(a.timm, a.weights) if a.timm else from_hub(a.hub_dir, a.arch, a.weights)
    loaded = save_torchscript(model, a.out)
    dim = loaded(torch.zeros(1, 3, SIZE, SIZE)).shape[1]
    print(f"wrote {a.out}: (N, 3, {SIZE}, {SIZE}) → (N, {dim}); use --features dinov2:{a.out}")


if __name__ == "__main__":
    main()
