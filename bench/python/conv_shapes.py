"""Speed of the Fashion-MNIST configs' 3x3 convolution shapes on CPU in PyTorch: NHWC against NCHW, and
oneDNN against PyTorch's own (im2col + GEMM) path, forward and forward + backward (docs/training.md,
"The demo"). Benchmark code only: the library never imports it.

  python3 bench/python/conv_shapes.py --threads 2            # oneDNN
  python3 bench/python/conv_shapes.py --threads 2 --no-onednn
"""
import argparse
import time

import torch
import torch.nn.functional as F

# (batch, in channels, side, out channels) of fmnist_{none,ham} convolutions at batch 64 (D sees real ‖ fake: 128).
SHAPES = [(64, 16, 32, 1), (128, 1, 32, 16), (64, 32, 32, 16), (64, 16, 32, 16), (128, 16, 32, 16),
          (64, 64, 16, 32), (128, 32, 16, 32), (128, 16, 16, 32), (64, 128, 8, 64), (128, 64, 8, 64),
          (128, 64, 4, 64), (64, 32, 16, 32)]


def ms(fn, repeats):
    for _ in range(3):
        fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return 1000 * (time.perf_counter() - start) / repeats


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--no-onednn", action="store_true", help="torch.backends.mkldnn.enabled = False")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.backends.mkldnn.enabled = not a.no_onednn
    print("shape N×Cin×S×S→Cout | NHWC fwd ms | NHWC fwd+bwd ms | NCHW fwd ms | NCHW fwd+bwd ms | NHWC GFLOP/s fwd")
    for n, c, s, o in SHAPES:
        row = []
        for layout in (torch.channels_last, torch.contiguous_format):
            x = torch.randn(n, c, s, s).to(memory_format=layout).requires_grad_(c > 1)
            w = torch.randn(o, c, 3, 3).to(memory_format=layout).requires_grad_()
            b = torch.randn(o).requires_grad_()
            g = torch.randn(n, o, s, s).to(memory_format=layout)
            row += [ms(lambda: F.conv2d(x, w, b, padding=1), a.repeats),
                    ms(lambda: F.conv2d(x, w, b, padding=1).backward(g), a.repeats)]
        gflops = 2 * n * s * s * c * o * 9 / (row[0] * 1e6)
        print(f"{n}×{c}×{s}×{s}→{o} | {row[0]:.2f} | {row[1]:.2f} | {row[2]:.2f} | {row[3]:.2f} | {gflops:.0f}")


if __name__ == "__main__":
    main()
