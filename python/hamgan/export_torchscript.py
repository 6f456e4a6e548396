"""A HamGAN generator (`hamgan export` safetensors) as a TorchScript module.

    python -m hamgan.export_torchscript G.safetensors G.pt [--fixed_bases SEED] [--torch_fidelity]

The output must end in .pt or .pth and may not be the input; it is written into a temporary directory beside it and
renamed into place when complete. Every error is one line, `hamgan.export_torchscript: error: ...`, exit 1.

The module is traced (torch.jit.trace) and loads with torch.jit.load in Python or LibTorch without this
package: forward(z float32 (N, z_dim), y int64 (N,)) -> float32 (N, C, H, W) in [-1, 1], any batch size N.

Hamburger blocks with ham_init = random keep drawing fresh bases at run time from torch's default
generator, as the PyTorch module does: torch.manual_seed(S) and then the same batches, in the same order,
give `hamgan sample --seed S`'s images. --fixed_bases SEED bakes one set in instead (hamgan.fix_ham_bases).
Blocks with ham_init = online keep their state: the module moves its online bases after every call, as the
PyTorch module in eval mode does.

--torch_fidelity: forward returns uint8 (N, 3, H, W) in [0, 255] (HamGAN's quantisation, x * 127.5 + 128
clamped and truncated; one channel repeated to three), what torch-fidelity takes from a generator. It loads
a TorchScript generator only from a path ending in .pth (`--input1 G.pth`), feeds it z drawn by numpy's
RandomState(--rng-seed) (--input1-model-z-type normal: float32 N(0, 1)) and, with
--input1-model-num-classes K > 0, int64 labels randint(0, K), in batches of --batch-size; on CUDA it moves
the module and its inputs to the GPU, where random bases come from the GPU's generator. See
hamgan.export_onnx for running torch-fidelity 0.4.0 with NumPy >= 1.24.
"""
import copy
import os
import sys
import warnings

import torch

from .export_common import example_inputs, parser, prepare, run_tool
from .output_file import atomic_output, check_output, write_failed

PROG = "python -m hamgan.export_torchscript"
SUFFIXES = (".pt", ".pth")  # docs/interop.md's G.pt; .pth is the name torch-fidelity loads


def export_torchscript(path, out, fixed_bases=None, torch_fidelity=False):
    """Writes the traced module to `out` (.pt, or .pth as torch-fidelity needs); returns G and the exported
    module (PyTorch) for comparisons. The output is checked before any work and replaced only when complete."""
    path, out = os.fspath(path), os.fspath(out)
    check_output(path, out, SUFFIXES, "TorchScript")
    if torch_fidelity and not out.endswith(".pth"):
        raise ValueError(f"{out}: torch-fidelity loads a TorchScript generator only from a file ending in .pth; "
                         f"name the output {out.rsplit('.', 1)[0]}.pth")
    with atomic_output(out) as tmp:
        G, module = prepare(path, fixed_bases, torch_fidelity)
        # Tracing runs forward once: keep the online bases it moves and the caller's random stream as they were.
        state = {k: v.clone() for k, v in module.named_buffers()}
        with warnings.catch_warnings(), torch.random.fork_rng(devices=[]), torch.no_grad():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)  # shape checks: fixed by (N, z_dim) inputs
            traced = torch.jit.trace(module, example_inputs(G), check_trace=False)  # fresh bases: no rerun check
            for name, buffer in list(module.named_buffers()) + list(traced.named_buffers()):
                buffer.copy_(state[name])
        try:
            traced.save(tmp)
        except Exception as e:  # LibTorch's writer: a RuntimeError on a full disk
            raise write_failed(out, e) from None
    return G, module


def max_difference(out, G, module, n=3, seed=1):
    """max |TorchScript - PyTorch| on a batch of n after torch.manual_seed(seed) on both (fresh state)."""
    z = torch.randn(n, G.z_dim, generator=torch.Generator().manual_seed(seed))
    y = torch.arange(n, dtype=torch.int64) % G.num_classes
    outputs = []
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        for net in (torch.jit.load(out), copy.deepcopy(module)):
            torch.manual_seed(seed)
            outputs.append(net(z, y).double())
    return (outputs[0] - outputs[1]).abs().max().item()


def main(argv=None):
    args = parser(PROG, __doc__, "the TorchScript file to write (.pth for torch-fidelity)").parse_args(argv)
    G, module = run_tool(PROG, lambda: export_torchscript(args.generator, args.out, args.fixed_bases,
                                                          args.torch_fidelity))
    delta = max_difference(args.out, G, module)
    print(f"wrote {args.out} (z_dim {G.z_dim}, {G.num_classes} classes, {G.image_channels}x{G.resolution}x"
          f"{G.resolution}{', uint8 for torch-fidelity' if args.torch_fidelity else ''}; max |TorchScript - "
          f"PyTorch| on a batch of 3 at one seed: {delta:.3g})")


if __name__ == "__main__":
    sys.exit(main())
