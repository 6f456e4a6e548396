"""The CUDA toolkit pieces a LibTorch build needs, as pip requirements of torch's own CUDA version.

`python scripts/cuda_wheels.py missing` prints one requirement a line for what is not installed yet
(nothing for a torch without CUDA); `installed` prints the names of those that are, which only a build
needs (the container image removes them once hamgan is built). torch 2.9 and later depend on NVIDIA's `cuda-toolkit` meta-package
for their runtime libraries; its extras `nvcc`, `crt`, `cccl` and `nvvm` pin the compiler, the C runtime
headers, CCCL and NVVM of exactly that release. Older CUDA 12 builds get the -cu12 wheels of the same
major.minor instead.
"""
import importlib.metadata as md
import re
import sys


def requirements(cuda):
    """(distribution, version prefix) pairs for torch's CUDA version string, e.g. '13.0'."""
    try:
        toolkit = md.version("cuda-toolkit")
    except md.PackageNotFoundError:
        toolkit = None
    if toolkit:
        pairs = []
        for req in md.requires("cuda-toolkit") or []:
            m = re.match(r"([A-Za-z0-9_.-]+)==([0-9.]+?)(\.\*)?;.*extra == '(nvcc|crt|cccl|nvvm)'", req)
            if m:
                pairs.append((m.group(1), m.group(2)))
        return pairs
    major, minor = cuda.split(".")[:2]
    if int(major) >= 13:
        names = ["nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-cuda-cccl", "nvidia-nvvm"]
    else:  # the CUDA 12 nvcc wheel carries crt and nvvm itself
        names = [f"nvidia-cuda-nvcc-cu{major}", f"nvidia-cuda-cccl-cu{major}"]
    return [(n, f"{major}.{minor}") for n in names]


def installed(name, prefix):
    try:
        v = md.version(name)
    except md.PackageNotFoundError:
        return False
    return v == prefix or v.startswith(prefix + ".")


def main():
    if sys.argv[1:] not in (["missing"], ["installed"]):
        sys.exit("usage: cuda_wheels.py missing|installed")
    import torch

    if not torch.version.cuda:
        return
    for name, prefix in requirements(torch.version.cuda):
        if sys.argv[1] == "installed":
            if installed(name, prefix):
                print(name)
        elif not installed(name, prefix):
            print(f"{name}=={prefix}.*")


if __name__ == "__main__":
    main()
