"""HDF5 files with Fletcher-32 checksums as h5py writes them (fletcher32=True), for the reader's check.
  write DIR          -> DIR/lzf_fletcher.hdf5: imgs uint8 (700,3,16,16) in chunks of 500, LZF then
                        Fletcher-32 (h5py's order); labels int64, the same filters
                        DIR/plain_fletcher.hdf5: imgs (30,3,5,5) in chunks of 7 images (525 bytes, odd),
                        Fletcher-32 alone; DIR/fletcher_expected.npz: both files' pixels and labels
  flip FILE K        -> flips one byte in the middle of chunk K of "imgs" (in place)
  read FILE          -> exit 0 when h5py reads every image and label, 3 when HDF5 refuses a chunk
  filters FILE       -> prints the filter ids of "imgs" in pipeline order
"""
import sys

import h5py
import numpy as np

cmd = sys.argv[1]
if cmd == "write":
    d = sys.argv[2]
    rng = np.random.default_rng(1)
    imgs = rng.integers(0, 256, size=(700, 3, 16, 16), dtype=np.uint8)
    imgs[:, :, :8] = 9  # compressible, so LZF applies
    labels = rng.integers(0, 5, size=700).astype(np.int64)
    with h5py.File(d + "/lzf_fletcher.hdf5", "w") as f:
        kw = dict(compression="lzf", fletcher32=True)
        f.create_dataset("imgs", data=imgs, chunks=(500, 3, 16, 16), maxshape=(None, 3, 16, 16), **kw)
        f.create_dataset("labels", data=labels, chunks=(500,), maxshape=(None,), **kw)
    small = rng.integers(0, 256, size=(30, 3, 5, 5), dtype=np.uint8)
    small_labels = rng.integers(0, 3, size=30).astype(np.int64)
    with h5py.File(d + "/plain_fletcher.hdf5", "w") as f:
        f.create_dataset("imgs", data=small, chunks=(7, 3, 5, 5), fletcher32=True)
        f.create_dataset("labels", data=small_labels, chunks=(7,), fletcher32=True)
    np.savez(d + "/fletcher_expected.npz", imgs=imgs, labels=labels, small=small, small_labels=small_labels)
elif cmd == "flip":
    path, k = sys.argv[2], int(sys.argv[3])
    with h5py.File(path, "r") as f:
        info = f["imgs"].id.get_chunk_info(k)
        at = info.byte_offset + info.size // 2
    with open(path, "r+b") as raw:
        raw.seek(at)
        byte = raw.read(1)[0]
        raw.seek(at)
        raw.write(bytes([byte ^ 0x10]))
elif cmd == "read":
    try:
        with h5py.File(sys.argv[2], "r") as f:
            f["imgs"][...], f["labels"][...]
    except OSError as e:
        print("h5py refuses:", e)
        sys.exit(3)
else:
    with h5py.File(sys.argv[2], "r") as f:
        plist = f["imgs"].id.get_create_plist()
        print(",".join(str(plist.get_filter(i)[0]) for i in range(plist.get_nfilters())))
