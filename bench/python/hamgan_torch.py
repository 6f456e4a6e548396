"""The networks of a HamGAN config in PyTorch eager Python, for bench/python/train_step.py: built from
what `hamgan model-info --config F` prints, with the layers of the C++ library (gan/model/*.cpp,
modules/spectral_norm.cpp, conditional_bn.cpp, attention.cpp, ham_block.cpp, ham_decomposition.cpp).

Under bf16 autocast the same parts stay float32 as in the library (modules/fp32_region.h): spectral
norm's power iteration and W / sigma, batch-norm statistics and normalisation, attention softmaxes and
the Hamburger's decomposition; convolutions and the other matrix products run in bf16."""
import re
import subprocess

import torch
import torch.nn.functional as F
from torch import nn

from hamgan_torch_blocks import context_block
from hamgan_torch_layers import ConditionalBN, SNConv2d, SNEmbedding, SNLinear


# ---------------------------------------------------------------- model-info

def model_info(hamgan, config):
    """The model as `hamgan model-info` describes it: header values, each net's context and part parameter counts."""
    text = subprocess.run([hamgan, "model-info", "--config", config], check=True, capture_output=True,
                          text=True).stdout
    header = dict(re.findall(r"(\w+) (\w+)(?:,|$)", text.splitlines()[0].split(":", 1)[1]))
    info = {k: int(header[k]) for k in ("resolution", "image_channels", "num_classes", "z_dim", "g_ch", "d_ch")}
    info["init"] = header["init"]
    info["side"] = int(re.search(r"context at (\d+)x", text).group(1))
    for net in ("G", "D"):
        m = re.search(rf"^{net} \(context: (.*)\)$", text, re.M)
        info[net + "_context"] = m.group(1)
        section = text.split(f"\n{net} (context:")[1].split("\n", 1)[1]
        info[net + "_total"] = int(re.search(r"^\s+total\s+([\d,]+)", section, re.M).group(1).replace(",", ""))
    return info


def parse_context(description):
    """'none', 'sa(C=256, qk=32, v=128, pooled keys)' or 'ham(nmf, d=32, r=4, K=6/6, one-step, T=1,
    init=random, cbn)' -> dict."""
    if description == "none":
        return {"name": "none"}
    if description.startswith("sa("):
        if not description.endswith("pooled keys)"):
            raise SystemExit(f"train_step.py: context block '{description}' is not reproduced here (sa: pooled keys only)")
        return {"name": "sa"}
    m = re.match(r"ham\((\w+), d=\d+, r=(\d+), K=(\d+)/\d+, ([\w-]+), T=([\d.e+-]+), init=(\w+)", description)
    if not m or m.group(1) != "nmf" or m.group(6) != "random":
        raise SystemExit(f"train_step.py: context block '{description}' is not reproduced here (none, sa, ham nmf random)")
    return {"name": "ham", "rank": int(m.group(2)), "steps": int(m.group(3)), "gradient": m.group(4),
            "temperature": float(m.group(5))}


# ---------------------------------------------------------------- G and D (gan/model/*.cpp)

def width(numerator, side):
    return min(16, numerator // side)


def up2(x):
    return F.interpolate(x, scale_factor=2, mode="nearest")


class GBlock(nn.Module):
    def __init__(self, cin, cout, classes, init):
        super().__init__()
        self.bn1, self.bn2 = ConditionalBN(cin, classes), ConditionalBN(cout, classes)
        self.conv1, self.conv2 = SNConv2d(cin, cout, 3, init=init), SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init)

    def forward(self, x, y):
        h = self.conv1(up2(torch.relu(self.bn1(x, y))))
        h = self.conv2(torch.relu(self.bn2(h, y)))
        return h + up2(self.shortcut(x))  # 1x1 conv commutes with nearest upsampling


class Generator(nn.Module):
    def __init__(self, m, ctx):
        super().__init__()
        res, classes, init = m["resolution"], m["num_classes"], m["init"]
        self.stem = m["g_ch"] * width(res, 4)
        self.linear = SNLinear(m["z_dim"], 16 * self.stem, init)
        self.blocks, ch, side = nn.ModuleList(), self.stem, 4
        self.context_after = -1
        while side < res:
            out = m["g_ch"] * width(res, side * 2)
            self.blocks.append(GBlock(ch, out, classes, init))
            if side * 2 == m["side"]:
                self.context_after, ctx_ch = len(self.blocks) - 1, out
            ch, side = out, side * 2
        self.context = context_block(ctx, ctx_ch, classes, init)
        self.bn = ConditionalBN(ch, 0)
        self.conv_out = SNConv2d(ch, m["image_channels"], 3, init=init)

    def forward(self, z, y):
        h = self.linear(z).view(z.size(0), -1, 4, 4)
        for i, block in enumerate(self.blocks):
            h = block(h, y)
            if i == self.context_after:
                h = self.context(h, y)
        return torch.tanh(self.conv_out(torch.relu(self.bn(h))))


class DBlock(nn.Module):
    def __init__(self, cin, cout, down, optimized, init):
        super().__init__()
        self.conv1, self.conv2 = SNConv2d(cin, cout, 3, init=init), SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init) if optimized or down or cin != cout else None
        self.down, self.optimized = down or optimized, optimized

    def forward(self, x):
        h = self.conv2(torch.relu(self.conv1(x if self.optimized else torch.relu(x))))
        s = x
        if self.down:  # pooling before the 1x1 shortcut conv: both linear, they commute
            h, s = F.avg_pool2d(h, 2), F.avg_pool2d(x, 2)
        return h + (self.shortcut(s) if self.shortcut is not None else s)


class Discriminator(nn.Module):
    def __init__(self, m, ctx):
        super().__init__()
        res, init = m["resolution"], m["init"]
        self.blocks, ch, side = nn.ModuleList(), m["image_channels"], res
        self.context_after = -1
        while side > 4:
            out = m["d_ch"] * width(res // 2, side // 2)
            self.blocks.append(DBlock(ch, out, True, len(self.blocks) == 0, init))
            if side // 2 == m["side"]:
                self.context_after, ctx_ch = len(self.blocks) - 1, out
            ch, side = out, side // 2
        self.blocks.append(DBlock(ch, ch, False, False, init))
        self.context = context_block(ctx, ctx_ch, 0, init)
        self.linear = SNLinear(ch, 1, init)
        self.embed = SNEmbedding(m["num_classes"], ch, init)

    def forward(self, x, y):
        h = x
        for i, block in enumerate(self.blocks):
            h = block(h)
            if i == self.context_after:
                h = self.context(h)
        h = torch.relu(h).sum((2, 3))
        return self.linear(h).squeeze(1) + (self.embed(y) * h).sum(1)
