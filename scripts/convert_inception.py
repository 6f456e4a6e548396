#!/usr/bin/env python3
"""Re-saves pytorch-fid's Inception weights so LibTorch can read them.

pytorch-fid's pt_inception-2015-12-05-6726825d.pth was written before PyTorch
1.6, in the legacy (non-zip) serialization that only Python's torch.load
understands. This loads it and writes the same state dict (name → tensor) with
torch.save's zip format, which hamgan reads with torch::pickle_load:

    .venv/bin/python scripts/convert_inception.py pt_inception-2015-12-05-6726825d.pth pt_inception-zip.pth
    hamgan fid A B --inception pt_inception-zip.pth

Needs only the `torch` Python package; tensors are copied unchanged.
"""
import sys

import torch


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    state = torch.load(src, map_location="cpu", weights_only=True)
    state = {k: v.contiguous() for k, v in state.items() if torch.is_tensor(v)}
    torch.save(state, dst)
    print(f"wrote {dst}: {len(state)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
