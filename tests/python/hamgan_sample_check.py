"""`python -m hamgan.sample` against the readers of the evaluators (tests/interop/python_package_test.cpp):
numpy's np.load (dgm-eval, clean-fid) and a streaming reader written as OpenAI's guided-diffusion
evaluator reads arr_0 (the zip entry opened, the .npy magic and header parsed by numpy, then the rows in
batches).

    hamgan_sample_check.py TMPDIR

A small Hamburger generator (one channel, so the RGB repeat is exercised) is saved with
hamgan.save_generator and sampled in batches that do not divide N. The file must hold exactly arr_0
(uint8 N x H x W x 3) and arr_1 (int64 N); the images must equal G's outputs computed here in the same
batches from the documented draws, quantised by HamGAN's rule written in numpy (x * 127.5 + 128 in float32,
clipped, truncated); the labels must be
i mod K (balanced) or torch.randint after z from the same generator (random). Bad arguments must give one
line on stderr, exit 1 and leave no file.
"""
import os
import subprocess
import sys
import zipfile

try:
    import numpy as np
    import safetensors  # noqa: F401
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs numpy, torch, safetensors")
    sys.exit(3)

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
sys.path.insert(0, PACKAGE)
import hamgan  # noqa: E402

torch.set_num_threads(2)
N, BATCH, SEED = 23, 10, 5


def run_sampler(*args):
    env = dict(os.environ, PYTHONPATH=PACKAGE)
    return subprocess.run([sys.executable, "-m", "hamgan.sample", *args], env=env, capture_output=True, text=True)


def expected_images(G, z, y):
    torch.manual_seed(SEED)  # the Hamburger's random bases, once before the batches
    parts = []
    with torch.no_grad():
        for i in range(0, N, BATCH):
            parts.append(G(z[i:i + BATCH], y[i:i + BATCH]).numpy())
    x = np.concatenate(parts).astype(np.float32)
    u8 = np.clip(x * np.float32(127.5) + np.float32(128.0), 0, 255).astype(np.uint8)  # (N, 1, H, W)
    return np.repeat(u8.transpose(0, 2, 3, 1), 3, axis=3)


def streamed_arr_0(path, batch=7):
    """arr_0 read as the guided-diffusion evaluator streams it, batch by batch from the zip entry."""
    with zipfile.ZipFile(path) as archive, archive.open("arr_0.npy") as f:
        version = np.lib.format.read_magic(f)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        shape, fortran, dtype = read_header[version](f)
        assert not fortran and not dtype.hasobject
        row = int(np.prod(shape[1:])) * dtype.itemsize
        parts = []
        for i in range(0, shape[0], batch):
            count = min(batch, shape[0] - i)
            parts.append(np.frombuffer(f.read(row * count), dtype=dtype).reshape((count,) + tuple(shape[1:])))
        return np.concatenate(parts)


def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)


def main():
    tmp = sys.argv[1]
    config = {"resolution": 32, "image_channels": 1, "num_classes": 7, "z_dim": 16, "g_ch": 8, "d_ch": 8,
              "g_block": "ham", "d_block": "none"}
    G = hamgan.build_generator(config)
    with torch.no_grad():
        for m in G.modules():  # a visible context block: sigma = 0 would hide the bases' draws
            if isinstance(m, hamgan.ham.HamBlock):
                m.sigma.fill_(0.7)
    path = os.path.join(tmp, "G.safetensors")
    hamgan.save_generator(G, path)
    G = hamgan.load_generator(path)
    for labels in ("balanced", "random"):
        out = os.path.join(tmp, f"{labels}.npz")
        r = run_sampler(path, "--n", str(N), "--batch_size", str(BATCH), "--seed", str(SEED), "--labels", labels,
                        "--out", out, "--no_progress")
        check(r.returncode == 0, f"{labels}: exit {r.returncode}: {r.stderr}")
        with np.load(out) as f:
            check(sorted(f.files) == ["arr_0", "arr_1"], f"{labels}: entries {f.files}")
            images, y = f["arr_0"], f["arr_1"]
        check(images.dtype == np.uint8 and images.shape == (N, 32, 32, 3), f"{labels}: {images.dtype} {images.shape}")
        check(y.dtype == np.int64 and y.shape == (N,), f"{labels}: labels {y.dtype} {y.shape}")
        g = torch.Generator().manual_seed(SEED)
        z = torch.randn(N, 16, generator=g)
        want_y = np.arange(N) % 7 if labels == "balanced" else torch.randint(7, (N,), generator=g).numpy()
        check(np.array_equal(y, want_y), f"{labels}: labels {y} != {want_y}")
        want = expected_images(G, z, torch.from_numpy(want_y))
        check(np.array_equal(images, want), f"{labels}: images differ in {(images != want).sum()} bytes")
        check(np.array_equal(streamed_arr_0(out), images), f"{labels}: the streaming reader reads other bytes")
        check(len(np.unique(images)) > 20, f"{labels}: images barely vary")
        print(f"{labels}: {N} images and labels equal the reference")
    for args, word in ((["--n", "0"], "--n"), (["--batch_size", "0", "--n", "3"], "--batch_size"),
                       (["--n", "3", "--labels", "balanced"], "npz")):
        bad = os.path.join(tmp, "bad.npz" if word != "npz" else "bad.png")
        r = run_sampler(path, *args, "--out", bad)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and word in lines[0], f"{args}: exit {r.returncode}, {r.stderr}")
        check(not os.path.exists(bad) and not any(".tmp" in name for name in os.listdir(tmp)), f"{args}: file left")
    r = run_sampler(os.path.join(tmp, "absent.safetensors"), "--n", "3", "--out", os.path.join(tmp, "x.npz"))
    check(r.returncode == 1 and "absent.safetensors" in r.stderr and not os.path.exists(os.path.join(tmp, "x.npz")),
          f"missing generator: exit {r.returncode}, {r.stderr}")
    print("bad arguments: one line, exit 1, no file")


if __name__ == "__main__":
    main()
