"""Checks `hamgan sample` array files with numpy and h5py:
check_samples.py FILE.npz FILE.hdf5 N C R NUM_CLASSES
- npz: x uint8 (N, C, R, R), y int64 class-balanced (i % NUM_CLASSES)
- hdf5: imgs / labels with exactly the same contents (same seed)
- the images are not constant. Exits non-zero with a message on any mismatch."""
import sys

import h5py
import numpy as np

npz_path, h5_path = sys.argv[1], sys.argv[2]
n, c, r, k = (int(a) for a in sys.argv[3:7])
with np.load(npz_path) as f:
    x, y = f["x"], f["y"]
assert x.dtype == np.uint8, x.dtype
assert x.shape == (n, c, r, r), x.shape
assert y.dtype == np.int64, y.dtype
assert np.array_equal(y, np.arange(n) % k), y
assert x.std() > 1.0, "images are constant"
with h5py.File(h5_path, "r") as f:
    imgs, labels = f["imgs"][...], f["labels"][...]
assert imgs.dtype == np.uint8 and labels.dtype == np.int64, (imgs.dtype, labels.dtype)
assert np.array_equal(imgs, x), "hdf5 images differ from npz"
assert np.array_equal(labels, y), "hdf5 labels differ from npz"
print("ok", x.shape, float(x.mean()))
