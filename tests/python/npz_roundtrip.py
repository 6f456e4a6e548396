"""numpy side of the .npz round trip (tests/metrics/npz_stats_test.cpp).

make DIR:    writes numpy_stored.npz (np.savez) and numpy_deflated.npz
             (np.savez_compressed) with known arrays, incl. float32, int64,
             uint8 and a Fortran-ordered matrix.
verify DIR:  checks that hamgan_stored.npz / hamgan_deflated.npz written by C++
             hold exactly the arrays of make, with the promised compression.
"""
import sys, zipfile
import numpy as np


def arrays():
    rng = np.random.default_rng(1234)
    return {
        "mu": rng.standard_normal(7),
        "sigma": np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5 - 1.0,
        "mu32": rng.standard_normal(5).astype(np.float32),
        "labels": np.arange(-3, 3, dtype=np.int64),
        "img": (np.arange(2 * 3 * 4) % 256).astype(np.uint8).reshape(2, 3, 4),
        "fortran": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "scalar": np.array(5, dtype=np.int64),
    }


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    a = arrays()
    if cmd == "make":
        np.savez(f"{d}/numpy_stored.npz", **a)
        np.savez_compressed(f"{d}/numpy_deflated.npz", **a)
        return 0
    for name, ctype in [("hamgan_stored", zipfile.ZIP_STORED), ("hamgan_deflated", zipfile.ZIP_DEFLATED)]:
        path = f"{d}/{name}.npz"
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.compress_type != ctype:
                    print(f"{path}: {info.filename} compression {info.compress_type}, expected {ctype}")
                    return 1
        with np.load(path) as f:
            if sorted(f.files) != sorted(a):
                print(f"{path}: keys {sorted(f.files)} != {sorted(a)}")
                return 1
            for k, v in a.items():
                got = f[k]
                if got.dtype != v.dtype or got.shape != v.shape or not np.array_equal(got, v):
                    print(f"{path}: {k} differs: {got.dtype}{got.shape} vs {v.dtype}{v.shape}")
                    return 1
    print("numpy read both files exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
