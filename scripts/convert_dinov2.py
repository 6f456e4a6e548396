"""Writes the file FD_DINOv2 reads (`hamgan fid --features dinov2:FILE`).

The network maps float32 (N, 3, 224, 224) images, already normalised with ImageNet's
mean and std, to the (N, D) CLS embedding: DINOv2's `x_norm_clstoken`, what
torch.hub's `dinov2_vitl14` returns, the network of dgm-eval, EDM2 and torch-fidelity.
Nothing is downloaded; bring the weights:

  # timm's model definition with the original or timm's weights (.pth or .safetensors)
  python scripts/convert_dinov2.py --timm vit_large_patch14_dinov2.lvd142m \
      --weights dinov2_vitl14_pretrain.pth --out dinov2_vitl14.safetensors
  # legacy: a TorchScript file (.pt), also from a local clone of facebookresearch/dinov2
  python scripts/convert_dinov2.py --hub-dir dinov2 --arch dinov2_vitl14 \
      --weights dinov2_vitl14_pretrain.pth --out dinov2_vitl14.pt

A .safetensors output holds the ViT's weights under timm's names (patch projection
`proj.*`, `cls_token`, `pos_embed` already resampled for a 224 input, `blocks.N.*`,
`norm.*`) with the architecture in its metadata (format hamgan-dinov2); HamGAN runs
it with its own LibTorch ViT (metrics/dinov2_vit.cpp), so no TorchScript, which
PyTorch has deprecated, is involved. A .pt output is the traced module (legacy).

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


SAFETENSORS_FORMAT, SAFETENSORS_VERSION = "hamgan-dinov2", "1"
BLOCK_TENSORS = ("norm1.weight", "norm1.bias", "attn.qkv.weight", "attn.qkv.bias", "attn.proj.weight",
                 "attn.proj.bias", "ls1.gamma", "norm2.weight", "norm2.bias", "mlp.fc1.weight", "mlp.fc1.bias",
                 "mlp.fc2.weight", "mlp.fc2.bias", "ls2.gamma")


def save_safetensors(model, out, size=SIZE):
    """The CLS module's (TimmDinoCls) weights and architecture as metrics/dinov2_vit.cpp reads them; the file is
    written beside `out` and renamed over it only when complete."""
    import os

    from safetensors.torch import save_file

    if not isinstance(model, TimmDinoCls):
        raise SystemExit("a .safetensors output is written from timm's model (--timm; timm's loader also reads "
                         "the original DINOv2 checkpoints); --hub-dir writes TorchScript (.pt)")
    block = model.blocks[0]
    if not isinstance(model.patch_norm, nn.Identity) or not all(
            isinstance(getattr(b.attn, n, nn.Identity()), nn.Identity) for b in model.blocks
            for n in ("q_norm", "k_norm")):
        raise SystemExit("this ViT normalises patches, queries or keys; DINOv2's do not, and the file has no place "
                         "for those weights")
    state = {k: v.detach().float().contiguous() for k, v in model.state_dict().items()}
    expected = {"proj.weight", "proj.bias", "cls_token", "pos_embed", "norm.weight", "norm.bias"}
    expected |= {f"blocks.{i}.{t}" for i in range(len(model.blocks)) for t in BLOCK_TENSORS}
    if set(state) != expected:
        raise SystemExit(f"unexpected ViT tensors: extra {sorted(set(state) - expected)[:3]}, missing "
                         f"{sorted(expected - set(state))[:3]}")
    metadata = {"format": SAFETENSORS_FORMAT, "format_version": SAFETENSORS_VERSION, "image_size": str(size),
                "patch_size": str(model.proj.kernel_size[0]), "depth": str(len(model.blocks)),
                "num_heads": str(block.attn.num_heads), "layer_norm_eps": repr(model.norm.eps),
                "mlp_activation": "gelu_erf"}
    tmp = f"{out}.tmp.{os.getpid()}"
    try:
        save_file(state, tmp, metadata=metadata)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return state["cls_token"].shape[-1]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--timm", metavar="NAME", help="timm model name, e.g. vit_large_patch14_dinov2.lvd142m")
    src.add_argument("--hub-dir", metavar="DIR", help="local clone of facebookresearch/dinov2")
    p.add_argument("--arch", default="dinov2_vitl14", help="hub entry point with --hub-dir (default dinov2_vitl14)")
    p.add_argument("--weights", required=True, help="checkpoint file (.pth or .safetensors)")
    p.add_argument("--out", required=True, help="FILE.safetensors (HamGAN's ViT) or FILE.pt (TorchScript, legacy)")
    a = p.parse_args()
    if not a.out.endswith((".safetensors", ".pt")):
        raise SystemExit(f"--out {a.out}: name it FILE.safetensors (or FILE.pt for TorchScript)")
    model = from_timm(a.timm, a.weights) if a.timm else from_hub(a.hub_dir, a.arch, a.weights)
    if a.out.endswith(".safetensors"):
        dim = save_safetensors(model, a.out)
    else:
        dim = save_torchscript(model, a.out)(torch.zeros(1, 3, SIZE, SIZE)).shape[1]
    print(f"wrote {a.out}: (N, 3, {SIZE}, {SIZE}) → (N, {dim}); use --features dinov2:{a.out}")


if __name__ == "__main__":
    main()
