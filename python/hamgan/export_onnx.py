"""A HamGAN generator (`hamgan export` safetensors) as an ONNX graph.

    python -m hamgan.export_onnx G.safetensors G.onnx [--fixed_bases SEED] [--opset N] [--torch_fidelity]

The graph takes z float32 (N, z_dim) and y int64 (N,) with a dynamic batch axis N and returns `images`,
float32 (N, C, H, W) in [-1, 1]. It is written by torch.onnx.export's torch.export-based exporter
(dynamo=True, torch >= 2.9's default; needs onnxscript), which traces the dynamic batch symbolically. The
legacy TorchScript-based exporter (dynamo=False) gives a correct dynamic batch too and exports in 0.3 s
instead of 5-10 s, but it is deprecated and its tracing run moves online Hamburger bases before they are
captured.

The output must end in .onnx and may not be the input; --opset must lie in the range the exporter writes
(18 to onnxscript's maximum, 25 with onnxscript 0.7). Both are checked before any work, and the graph is
written beside the output and renamed into place when complete. Every error is one line,
`hamgan.export_onnx: error: ...`, exit status 1.

Hamburger blocks with ham_init = random draw fresh bases from torch's generator on every forward, numbers
an ONNX runtime cannot reproduce: such a generator is refused unless --fixed_bases SEED bakes one set of
bases into the graph (hamgan.fix_ham_bases: the same outputs as the PyTorch module after
fix_ham_bases(G, SEED)). Blocks with ham_init = online use their exported bases on every call: ONNX holds
no state, while the PyTorch module moves its online bases after each eval batch, so the graph equals a
freshly loaded module's first batch. ONNX has no linear solve: the concept decomposition's final ridge
solve (ham_type = cd) is exported as Gauss-Jordan elimination unrolled over the rank, which its symmetric
positive definite Gram matrix D^T D + beta I needs no pivoting for.

--torch_fidelity: the graph returns uint8 (N, 3, H, W) in [0, 255] (HamGAN's quantisation, x * 127.5 + 128
clamped and truncated; one channel repeated to three), which is what torch-fidelity's feature extractors
take from a generator. torch-fidelity feeds an .onnx generator its inputs by position: z drawn by numpy's
RandomState(--rng-seed) (--input1-model-z-type normal: float32 N(0, 1); `unit` and `uniform_0_1` exist too),
then, with --input1-model-num-classes K > 0, labels randint(0, K) as int64, in batches of --batch-size. Its
0.4.0 release draws those labels with `dtype=np.int`, which NumPy 1.24 removed; with a newer NumPy run it as

    python -c "import numpy; numpy.int = int; from torch_fidelity.fidelity import main; main()" \\
        --input1 G.onnx --input1-model-z-size Z --input1-model-num-classes K --input1-model-num-samples N \\
        --input2 IMAGES/ --fid --isc
"""
import contextlib
import copy
import io
import os
import sys
import warnings

import torch

from .export_common import example_inputs, online_ham_blocks, parser, prepare, random_ham_blocks, run_tool
from .ham import HamBlock
from .output_file import atomic_output, check_output, write_failed

PROG = "python -m hamgan.export_onnx"
MIN_OPSET = 18  # torchlib's opset (torch.onnx's TORCHLIB_OPSET): the exporter writes no lower one


def solve_spd(a, b):
    """a^-1 b for batched symmetric positive definite a (B, r, r) and b (B, r, n): Gauss-Jordan elimination
    without pivoting, unrolled over the r columns into ops ONNX has."""
    r = a.size(-1)
    m = torch.cat([a, b], -1)
    eye = torch.eye(r, dtype=m.dtype, device=m.device)
    for k in range(r):
        row = m[:, k:k + 1, :] / m[:, k:k + 1, k:k + 1]          # pivot row scaled to a leading 1
        e = eye[:, k:k + 1]                                      # (r, 1): row k
        m = m - (m[:, :, k:k + 1] * (1 - e)) * row              # column k cleared in every other row
        m = m * (1 - e) + e * row                                # row k replaced by the scaled pivot row
    return m[:, :, r:]


def _exportable_cd(module):
    """CD blocks compute their final codes with solve_spd instead of torch.linalg.solve_ex (ham.py's
    HamBlock.final_codes for cd: C = X^T D (D^T D + beta I)^-1)."""
    for m in module.modules():
        if isinstance(m, HamBlock) and m.kind == "cd":
            def final_codes(X, bases, codes, block=m):
                eye = torch.eye(block.rank, dtype=bases.dtype, device=bases.device)
                gram = torch.bmm(bases.transpose(1, 2), bases) + block.beta * eye
                return solve_spd(gram, torch.bmm(bases.transpose(1, 2), X)).transpose(1, 2)
            m.final_codes = final_codes


def supported_opsets():
    """(lowest, highest) opset torch.onnx's exporter writes as asked: below torchlib's opset 18 it falls back to
    18 (with a logged traceback), above onnxscript's version converter's maximum it cannot convert."""
    try:
        from onnxscript.version_converter import _version_converter as converter
        highest = converter.SUPPORTED_MAX_ONNX_OPSET
    except (ImportError, AttributeError):  # no converter (the export itself needs onnxscript): torchlib's only
        highest = MIN_OPSET
    return MIN_OPSET, highest


def check_opset(opset):
    if opset is None:
        return
    lo, hi = supported_opsets()
    if isinstance(opset, bool) or not isinstance(opset, int) or not lo <= opset <= hi:
        raise ValueError(f"--opset {opset} is not supported; give an opset from {lo} to {hi} (or leave it out "
                         f"for {MIN_OPSET})")


def export_onnx(path, out, fixed_bases=None, opset=None, torch_fidelity=False):
    """Writes the graph to `out` (.onnx); returns G and the exported module (G, or G wrapped for
    torch-fidelity). Raises ValueError for a generator with random Hamburger bases and no fixed_bases, and for
    an output or opset that would not give the file asked for, before any export work."""
    path, out = os.fspath(path), os.fspath(out)
    check_opset(opset)
    check_output(path, out, (".onnx",), "ONNX")
    with atomic_output(out) as tmp:
        G, module = prepare(path, fixed_bases, torch_fidelity)
        random_blocks = random_ham_blocks(G)
        if random_blocks:
            raise ValueError(f"{path}: Hamburger block {random_blocks[0]} (ham_init = random) draws fresh bases "
                             f"on every forward, which an ONNX graph cannot reproduce; pass --fixed_bases SEED to "
                             f"bake one set in")
        exported = copy.deepcopy(module)  # CD's solve replaced for the graph only: the module stays as loaded
        _exportable_cd(exported)
        batch = torch.export.Dim("N")
        inputs = example_inputs(G)
        large = sum(t.numel() * t.element_size() for t in module.state_dict().values()) > 1.5 * 2 ** 30
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")  # exporter chatter: deprecations in its own dependencies, axis renames
            program = torch.onnx.export(exported, inputs, None, dynamo=True,
                                        dynamic_shapes=({0: batch}, {0: batch}), input_names=["z", "y"],
                                        output_names=["images"], opset_version=opset)
        written = program.model.opset_imports.get("", None)
        if opset is not None and written != opset:  # the exporter falls back silently where it cannot convert
            raise ValueError(f"--opset {opset}: the exporter could only write opset {written} for this generator; "
                             f"leave --opset out")
        try:
            program.save(tmp, external_data=large)  # one file below protobuf's 2 GB limit
        except Exception as e:  # a full disk: OSError, or protobuf's own error
            raise write_failed(out, e) from None
    return G, module


def max_difference(out, G, module, n=3):
    """max |ONNX - PyTorch| on a batch of n (a size other than the traced one): None without onnxruntime."""
    try:
        import onnxruntime
    except ImportError:
        return None
    z = torch.randn(n, G.z_dim, generator=torch.Generator().manual_seed(1))
    y = torch.arange(n, dtype=torch.int64) % G.num_classes
    got = onnxruntime.InferenceSession(out, providers=["CPUExecutionProvider"]).run(
        None, {"z": z.numpy(), "y": y.numpy()})[0]
    with torch.no_grad():
        want = module(z, y)
    return (torch.from_numpy(got).double() - want.double()).abs().max().item()


def main(argv=None):
    p = parser(PROG, __doc__, "the .onnx file to write")
    lo, hi = supported_opsets()
    p.add_argument("--opset", type=int, default=None, metavar="N",
                   help=f"ONNX opset, {lo} to {hi} (default: the exporter's, {MIN_OPSET})")
    args = p.parse_args(argv)
    G, module = run_tool(PROG, lambda: export_onnx(args.generator, args.out, args.fixed_bases, args.opset,
                                                   args.torch_fidelity))
    online = online_ham_blocks(G)
    if online:
        print(f"note: Hamburger block {online[0]} (ham_init = online) uses its exported bases on every call")
    delta = max_difference(args.out, G, module)
    check = "" if delta is None else f"; max |ONNX - PyTorch| on a batch of 3: {delta:.3g}"
    print(f"wrote {args.out} (z_dim {G.z_dim}, {G.num_classes} classes, {G.image_channels}x{G.resolution}x"
          f"{G.resolution}{', uint8 for torch-fidelity' if args.torch_fidelity else ''}{check})")


if __name__ == "__main__":
    sys.exit(main())
