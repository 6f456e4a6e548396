"""The `ylg` context block, YLG local attention (modules/ylg_block.cpp, ylg_masks.cpp; Daras et al., CVPR
2020): SAGAN's four bias-free exact-SN 1x1 convs (theta, phi: C -> C/8, g: C -> C/2, o: C/2 -> C) and
residual x + sigma * o, with 8 heads of contiguous channel blocks (q/k C/64, v C/16 per head), each head's
keys restricted by its mask through a finite -1000 logit bias, and the heads re-merged interleaved
(channel d * 8 + h). This is the C++ dense-mask kernel; its blocked kernel agrees to float32 rounding."""
import math

import torch
import torch.nn.functional as F
from torch import nn

from .layers import SNConv2d

HEADS = 8  # hard-coded in the reference
MASK_BIAS = -1000.0  # the reference's finite bias on disallowed keys (not -inf)
# Head order of the reference: RightFloor, RightRepetitive, RF, RR, LeftFloor, LeftRepetitive, LF, LR.
HEAD_PATTERNS = ("RF", "RR", "RF", "RR", "LF", "LR", "LF", "LR")
_is_compiling = getattr(torch.compiler, "is_compiling", None) or torch._dynamo.is_compiling  # torch < 2.3


def esa_cells(rows, cols):
    """Row-major cell of each ESA rank: cells by Manhattan distance from (0, 0), ties by row ascending."""
    return sorted(range(rows * cols), key=lambda cell: (cell // cols + cell % cols, cell // cols))


def allowed_1d(pattern, o, i, n, s):
    """May output rank o attend input rank i (tensors broadcast)? The 1-D patterns of ylg/masks.py."""
    if pattern == "LF":
        return (i <= o) & (i >= o - o % s)
    if pattern == "RF":
        return (o <= i) & (o >= i - i % s)
    if pattern == "LR":
        return (i == o) | (i % s == s - 1)
    if pattern == "RR":  # LR's columns shifted left by s - 1: block starts of complete blocks only
        return (i == o) | ((i % s == 0) & (i + s - 1 < n))
    raise ValueError(f"unknown YLG pattern {pattern}")


def ylg_masks(height, width):
    """Allowed keys, bool (8, H*W, (H/2)*(W/2)): the 1-D patterns moved to the key grid through the ESA order,
    the n x n mask stacked 4 times (the reference's tiling: query q uses key-grid row q mod n)."""
    if height < 2 or width < 2 or height % 2 or width % 2:
        raise ValueError(f"ylg attention needs an even feature map of at least 2x2, got {height}x{width}")
    rows, cols = height // 2, width // 2
    n = rows * cols
    s = math.isqrt(n)
    cells = esa_cells(rows, cols)
    rank_of = [0] * n
    for rank, cell in enumerate(cells):
        rank_of[cell] = rank
    r = torch.arange(n)
    by_rank = torch.stack([allowed_1d(p, r[:, None], r[None, :], n, s) for p in HEAD_PATTERNS])  # (8, n, n)
    idx = torch.tensor(rank_of)
    by_cell = by_rank[:, idx][:, :, idx]  # [h, cell(o), cell(i)] = by_rank[h, o, i]
    return by_cell.repeat(1, height * width // n, 1)


class YLGAttention(nn.Module):
    """`ylg`: no options; channels a multiple of 64, even H and W. The masks are constants built per input
    size (not saved, as in the C++)."""

    def __init__(self, channels, opts=None, classes=0, init="xavier"):
        super().__init__()
        if channels < 64 or channels % 64:
            raise ValueError(f"context block ylg needs channels divisible by 64 (8 heads of C/64 query/key "
                             f"channels), got {channels}")
        c = channels
        self.channels = c
        self.theta = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.phi = SNConv2d(c, c // 8, 1, bias=False, exact=True, init=init)
        self.g = SNConv2d(c, c // 2, 1, bias=False, exact=True, init=init)
        self.o = SNConv2d(c // 2, c, 1, bias=False, exact=True, init=init)
        self.sigma = nn.Parameter(torch.zeros(()))
        self._bias_cache = {}

    def mask_bias(self, height, width, like):
        """(8, H*W, H*W/4): 0 on allowed keys, -1000 elsewhere, in like's dtype and device."""
        key = (height, width, like.device, like.dtype)
        bias = self._bias_cache.get(key)
        if bias is None:
            masks = ylg_masks(height, width)
            bias = (1.0 - masks.to(torch.float64)).mul(MASK_BIAS).to(like.device, like.dtype)
            if not _is_compiling():  # a graph capture's fake tensor must not outlive it
                self._bias_cache = {key: bias}
        return bias

    def forward(self, x, y=None):
        c = self.channels
        if x.dim() != 4 or x.size(1) != c or x.size(2) % 2 or x.size(3) % 2 or x.size(2) < 2 or x.size(3) < 2:
            raise ValueError(f"context block ylg: expected (N, {c}, H, W) with even H and W, got {tuple(x.shape)}")
        b, height, width = x.size(0), x.size(2), x.size(3)
        n_out = height * width
        n = n_out // 4
        q = self.theta(x).reshape(b, HEADS, -1, n_out).transpose(2, 3)  # (B, 8, N, C/64), contiguous blocks
        k = F.max_pool2d(self.phi(x), 2).reshape(b, HEADS, -1, n)       # (B, 8, C/64, n)
        v = F.max_pool2d(self.g(x), 2).reshape(b, HEADS, -1, n)         # (B, 8, C/16, n)
        logits = q.matmul(k) + self.mask_bias(height, width, x)          # no 1/sqrt(d) scale
        if logits.dtype in (torch.float16, torch.bfloat16):
            logits = logits.float()  # float32 softmax, as the C++ (to_fp32_if_reduced)
        out = torch.softmax(logits, -1).matmul(v.transpose(2, 3))        # (B, 8, N, C/16)
        # Heads re-merged interleaved: channel d * 8 + h.
        merged = out.permute(0, 3, 1, 2).reshape(b, c // 2, height, width)
        return x + self.sigma * self.o(merged)

    def extra_repr(self):
        return f"C={self.channels}, heads={HEADS}, qk/head={self.channels // 64}, v/head={self.channels // 16}"
