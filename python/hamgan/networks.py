"""HamGAN's generator and discriminator (gan/model/generator.cpp, discriminator.cpp, gblock.cpp, dblock.cpp,
model_plan.cpp), with every submodule, parameter and buffer named as the C++ modules name them, so
`state_dict()` keys are the exported tensor names without their "G." / "D." prefix."""
import torch
import torch.nn.functional as F
from torch import nn

from .blocks import context_block
from .config import context_side, model_config
from .layers import ConditionalBN, SNConv2d, SNEmbedding, SNLinear


def _width(numerator, side):
    """Width multiplier of a map of side `side` when the widest maps carry 16x."""
    return min(16, numerator // side)


def generator_plan(config):
    """[(name, in channels, out channels, output side)]: block1 upsamples 4 -> 8, ..., the last to resolution."""
    plan, ch, side = [], config["g_ch"] * _width(config["resolution"], 4), 4
    while side < config["resolution"]:
        out = config["g_ch"] * _width(config["resolution"], side * 2)
        plan.append((f"block{len(plan) + 1}", ch, out, side * 2))
        ch, side = out, side * 2
    return plan


def discriminator_plan(config):
    """Downsampling blocks resolution -> 4, then a final 4x4 block with an identity shortcut."""
    plan, ch, side = [], config["image_channels"], config["resolution"]
    while side > 4:
        out = config["d_ch"] * _width(config["resolution"] // 2, side // 2)
        plan.append((f"block{len(plan) + 1}", ch, out, side // 2))
        ch, side = out, side // 2
    plan.append((f"block{len(plan) + 1}", ch, ch, 4))
    return plan


def _positioned_block(config, plan, net, classes):
    """The context block after the first block whose output has the context side; errors name where."""
    side = context_side(config)
    index = next(i for i, b in enumerate(plan) if b[3] == side)
    key, channels = f"{net.lower()}_block", plan[index][2]
    try:
        block = context_block(config[key], channels, config, classes, config["init"])
    except ValueError as e:
        raise ValueError(f"{key} {config[key]} at {side}x{side} with {channels} channels: {e}; change "
                         f"{net.lower()}_ch or block_resolution") from None
    return index, block


def upsample2x(x):
    return F.interpolate(x, scale_factor=2.0, mode="nearest")


class GBlock(nn.Module):
    def __init__(self, cin, cout, classes, init="xavier"):
        super().__init__()
        self.bn1 = ConditionalBN(cin, classes)
        self.conv1 = SNConv2d(cin, cout, 3, init=init)
        self.bn2 = ConditionalBN(cout, classes)
        self.conv2 = SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init)

    def forward(self, x, y):
        h = self.conv1(upsample2x(torch.relu(self.bn1(x, y))))
        h = self.conv2(torch.relu(self.bn2(h, y)))
        return h + upsample2x(self.shortcut(x))  # a 1x1 conv commutes with nearest upsampling


class DBlock(nn.Module):
    def __init__(self, cin, cout, down, optimized, init="xavier"):
        super().__init__()
        self.conv1 = SNConv2d(cin, cout, 3, init=init)
        self.conv2 = SNConv2d(cout, cout, 3, init=init)
        self.shortcut = SNConv2d(cin, cout, 1, init=init) if optimized or down or cin != cout else None
        self.down, self.optimized = down or optimized, optimized

    def forward(self, x):
        h = self.conv2(torch.relu(self.conv1(x if self.optimized else torch.relu(x))))
        s = x
        if self.down:  # pooling before the 1x1 shortcut conv: both linear, they commute
            h, s = F.avg_pool2d(h, 2), F.avg_pool2d(x, 2)
        return h + (self.shortcut(s) if self.shortcut is not None else s)


class _Network(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = model_config(config)
        self.metadata = {}
        c = self.config
        self.resolution, self.image_channels = c["resolution"], c["image_channels"]
        self.num_classes, self.z_dim = c["num_classes"], c["z_dim"]

    def _check_labels(self, y, n):
        if y.dim() != 1 or y.size(0) != n or y.dtype != torch.int64:
            raise ValueError(f"{type(self).__name__}: labels must be int64 of shape ({n},), got "
                             f"{tuple(y.shape)} {y.dtype}")


class Generator(_Network):
    """G(z, y): z float (N, z_dim), y int64 (N,) in [0, num_classes) -> images (N, C, H, W) in [-1, 1]."""

    def __init__(self, config):
        super().__init__(config)
        c, plan = self.config, generator_plan(self.config)
        self.linear = SNLinear(c["z_dim"], 16 * plan[0][1], c["init"])
        for name, cin, cout, _ in plan:
            setattr(self, name, GBlock(cin, cout, c["num_classes"], c["init"]))
        self.block_names = [b[0] for b in plan]
        self.context_after, self.context = _positioned_block(c, plan, "G", c["num_classes"])
        self.bn = ConditionalBN(plan[-1][2], 0)
        self.conv_out = SNConv2d(plan[-1][2], c["image_channels"], 3, init=c["init"])

    def forward(self, z, y):
        if z.dim() != 2 or z.size(1) != self.z_dim:
            raise ValueError(f"Generator: z must be (N, {self.z_dim}), got {tuple(z.shape)}")
        self._check_labels(y, z.size(0))
        h = self.linear(z).view(z.size(0), -1, 4, 4)
        if self.conv_out.weight.is_contiguous(memory_format=torch.channels_last) and \
                not self.conv_out.weight.is_contiguous():  # NHWC weights: start G in that layout
            h = h.contiguous(memory_format=torch.channels_last)
        for i, name in enumerate(self.block_names):
            h = getattr(self, name)(h, y)
            if i == self.context_after:
                h = self.context(h, y)
        return torch.tanh(self.conv_out(torch.relu(self.bn(h))))


class Discriminator(_Network):
    """Projection D(x, y): images (N, C, H, W), y int64 (N,) -> logits (N,)."""

    def __init__(self, config):
        super().__init__(config)
        c, plan = self.config, discriminator_plan(self.config)
        for i, (name, cin, cout, _) in enumerate(plan):
            setattr(self, name, DBlock(cin, cout, i < len(plan) - 1, i == 0, c["init"]))
        self.block_names = [b[0] for b in plan]
        self.context_after, self.context = _positioned_block(c, plan, "D", 0)
        self.linear = SNLinear(plan[-1][2], 1, c["init"])
        self.embed = SNEmbedding(c["num_classes"], plan[-1][2], c["init"])

    def features(self, x):
        r = self.resolution
        if x.dim() != 4 or x.size(1) != self.image_channels or x.size(2) != r or x.size(3) != r:
            raise ValueError(f"Discriminator: images must be (N, {self.image_channels}, {r}, {r}), "
                             f"got {tuple(x.shape)}")
        h = x
        for i, name in enumerate(self.block_names):
            h = getattr(self, name)(h)
            if i == self.context_after:
                h = self.context(h)
        return torch.relu(h).sum((2, 3))  # sum, not mean, over H, W, as TF-GAN

    def forward(self, x, y):
        self._check_labels(y, x.size(0))
        h = self.features(x)
        return self.linear(h).squeeze(1) + (self.embed(y) * h).sum(1)
