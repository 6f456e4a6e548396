"""What the ONNX and TorchScript conversions share: the generator loaded for export, the graph's inputs
(z float32 (N, z_dim), y int64 (N,), N dynamic), the torch-fidelity output and the command line."""
import argparse
import sys

import torch
from torch import nn

from .ham import HamBlock, fix_ham_bases
from .io import load_generator


def quantize(images):
    """[-1, 1] -> uint8 as HamGAN quantises generated images (metrics/image_source.cpp): x * 127.5 + 128 in
    float32, clamped to [0, 255], truncated."""
    return (images.float() * 127.5 + 128.0).clamp(0.0, 255.0).to(torch.uint8)


class TorchFidelityOutput(nn.Module):
    """G(z, y) as torch-fidelity's feature extractors take images: uint8 (N, 3, H, W) in [0, 255], quantised
    by HamGAN's rule so both tools score the same pixels; one-channel images repeated to three."""

    def __init__(self, G):
        super().__init__()
        self.G = G

    def forward(self, z, y):
        x = quantize(self.G(z, y))
        return x.repeat(1, 3, 1, 1) if x.size(1) == 1 else x


def random_ham_blocks(G):
    """Names of the Hamburger blocks that draw fresh bases from torch's generator on every forward."""
    return [name for name, m in G.named_modules()
            if isinstance(m, HamBlock) and not m.online and m.fixed_bases is None]


def online_ham_blocks(G):
    return [name for name, m in G.named_modules() if isinstance(m, HamBlock) and m.online]


def example_inputs(G, n=2):
    """A batch to trace with, drawn from a private generator so the caller's RNG stream is untouched."""
    z = torch.randn(n, G.z_dim, generator=torch.Generator().manual_seed(0))
    return z, torch.arange(n, dtype=torch.int64) % G.num_classes


def prepare(path, fixed_bases, torch_fidelity):
    """The exported module: G from `path` with bases fixed when asked, wrapped for torch-fidelity when asked."""
    G = load_generator(path)
    if fixed_bases is not None:
        fix_ham_bases(G, fixed_bases)
    return G, (TorchFidelityOutput(G) if torch_fidelity else G)


class _OneLineParser(argparse.ArgumentParser):
    """argparse whose errors are one line, `hamgan.<tool>: error: ...`, exit status 2 as argparse's."""

    def error(self, message):
        print(f"{self.prog.split()[-1]}: error: {message}; see --help", file=sys.stderr)
        sys.exit(2)


def parser(prog, description, output):
    p = _OneLineParser(prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("generator", help="a .safetensors file written by `hamgan export`")
    p.add_argument("out", help=output)
    p.add_argument("--fixed_bases", type=int, default=None, metavar="SEED",
                   help="Hamburger blocks with ham_init = random use one set of bases drawn from SEED "
                        "(hamgan.fix_ham_bases) instead of fresh draws on every call")
    p.add_argument("--torch_fidelity", action="store_true",
                   help="output uint8 (N, 3, H, W) in [0, 255], as torch-fidelity's --input1 generator files need")
    return p


def fail(prog, message):
    """One line naming what is wrong and the fix, `hamgan.<tool>: error: ...`, exit status 1."""
    print(f"{prog.split()[-1]}: error: {' '.join(str(message).split())}", file=sys.stderr)
    sys.exit(1)


def run_tool(prog, export):
    """export() with every failure as one line and exit status 1: the library's ValueError / OSError lines,
    and anything else (an exporter's own error) by its type and first line, without a traceback."""
    try:
        return export()
    except (ValueError, OSError) as e:
        fail(prog, str(e))
    except Exception as e:  # noqa: BLE001: the command line promises one line, whatever failed
        first = (str(e).strip().splitlines() or [""])[0]
        fail(prog, f"export failed: {type(e).__name__}: {first}")
