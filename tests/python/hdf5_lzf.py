"""LZF HDF5 files as BigGAN-PyTorch's make_hdf5.py --compression lzf writes them (h5py),
and the reverse check: `write DIR` writes a file, `read FILE` prints a checksum of it.
  write DIR    -> DIR/lzf.hdf5 (imgs uint8 (N,3,H,W), labels int64, chunks of 500, LZF)
                  and DIR/blosc.hdf5 (imgs with filter id 32001, which no build here has)
  read FILE    -> prints "N C H W sum_imgs sum_labels filter_ids"
"""
import sys

import h5py
import numpy as np

if sys.argv[1] == "write":
    d = sys.argv[2]
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, size=(700, 3, 16, 16), dtype=np.uint8)
    imgs[:, :, :8] = 7  # compressible
    labels = rng.integers(0, 5, size=700).astype(np.int64)
    with h5py.File(d + "/lzf.hdf5", "w") as f:
        f.create_dataset("imgs", data=imgs, chunks=(500, 3, 16, 16), maxshape=(None, 3, 16, 16), compression="lzf")
        f.create_dataset("labels", data=labels, chunks=(500,), maxshape=(None,), compression="lzf")
    np.savez(d + "/lzf_expected.npz", imgs=imgs, labels=labels)
    with h5py.File(d + "/blosc.hdf5", "w") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((10, 3, 4, 4))
        dcpl.set_filter(32001, h5py.h5z.FLAG_OPTIONAL, ())
        space = h5py.h5s.create_simple((10, 3, 4, 4))
        h5py.h5d.create(f.id, b"imgs", h5py.h5t.STD_U8LE, space, dcpl=dcpl)
        f.create_dataset("labels", data=np.zeros(10, np.int64))
else:
    with h5py.File(sys.argv[2], "r") as f:
        imgs, labels = f["imgs"][...], f["labels"][...]
        filters = sorted(set(f["imgs"]._filters.keys()) | set(f["labels"]._filters.keys()))
    print(*imgs.shape, int(imgs.astype(np.int64).sum()), int(labels.sum()), ",".join(map(str, filters)))
