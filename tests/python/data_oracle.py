#!/usr/bin/env python3
"""Independent references for the data tests (PIL, h5py, numpy).

Raw files are plain uint8 / int64 little-endian arrays in C order, shapes given
on the command line. Exit status 0 = the check passed; otherwise a message on
stderr says what differed.
"""
import os
import sys

import numpy as np


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def png_check(png, raw, c, h, w):
    """A PNG written by HamGAN decodes (with PIL) to the expected (C, H, W) bytes."""
    from PIL import Image
    img = np.asarray(Image.open(png))
    want = np.fromfile(raw, np.uint8).reshape(c, h, w)
    got = img[None] if img.ndim == 2 else img.transpose(2, 0, 1)
    if got.shape != want.shape:
        fail(f"shape {got.shape} != {want.shape}")
    if not np.array_equal(got, want):
        fail(f"{int((got != want).sum())} bytes differ")


def make_image(rng, h, w, channels):
    # Smooth gradients plus noise: realistic enough for JPEG, distinct per pixel.
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 127 // max(h + w - 2, 1))], -1)
    img = np.clip(base + rng.integers(-20, 21, base.shape), 0, 255).astype(np.uint8)
    return img[..., 0] if channels == 1 else img


def biggan_prepare(img, size):
    """BigGAN-PyTorch make_hdf5 pixels: RGB, torchvision center_crop to the short
    side (round((H - s) / 2), Python rounding), PIL resize BILINEAR; returns CHW uint8
    without BigGAN's truncating float round trip (HamGAN stores PIL's bytes)."""
    from PIL import Image
    img = img.convert("RGB")
    w, h = img.size
    s = min(w, h)
    top, left = int(round((h - s) / 2.0)), int(round((w - s) / 2.0))
    img = img.crop((left, top, left + s, top + s)).resize((size, size), Image.BILINEAR)
    return np.asarray(img).transpose(2, 0, 1).copy()


def make_folder(root, size, raw_out):
    """Class folders with PNG (RGB, gray, palette, RGBA) and JPEG (RGB, gray) files
    of varied shapes; writes the expected prepared pixels (sorted class, sorted
    file order) and labels next to raw_out."""
    import os
    from PIL import Image
    rng = np.random.default_rng(7)
    classes = ["b_cat", "a_dog", "c_owl"]  # deliberately unsorted on creation
    shapes = [(37, 50), (64, 41), (33, 33), (80, 61)]
    for ci, cls in enumerate(classes):
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for k, (h, w) in enumerate(shapes):
            arr = make_image(rng, h, w, 3)
            im = Image.fromarray(arr)
            name = os.path.join(root, cls, f"img{k}")
            if k == 0:
                im.save(name + ".png")
            elif k == 1:
                im.convert("L").save(name + ".jpg", quality=90)
            elif k == 2:
                im.quantize(16).save(name + ".png")  # palette PNG
            else:
                im.save(name + ".JPEG", quality=85)
        if ci == 0:
            Image.fromarray(make_image(rng, 20, 30, 3)).convert("RGBA").save(os.path.join(root, cls, "sub_rgba.png"))
    imgs, labels = [], []
    for li, cls in enumerate(sorted(classes)):
        files = sorted(os.listdir(os.path.join(root, cls)))
        for f in files:
            imgs.append(biggan_prepare(Image.open(os.path.join(root, cls, f)), size))
            labels.append(li)
    np.stack(imgs).tofile(raw_out + ".imgs")
    np.asarray(labels, np.int64).tofile(raw_out + ".labels")
    print(len(labels))


def pil_resize(raw_in, c, h, w, size, raw_out):
    from PIL import Image
    arr = np.fromfile(raw_in, np.uint8).reshape(c, h, w)
    img = Image.fromarray(arr[0] if c == 1 else arr.transpose(1, 2, 0))
    out = img.resize((size, size), Image.BILINEAR) if c == 1 else None
    if c == 3:
        out = Image.fromarray(biggan_prepare(img, size).transpose(1, 2, 0))
    res = np.asarray(out)
    (res[None] if c == 1 else res.transpose(2, 0, 1)).astype(np.uint8).tofile(raw_out)


def h5_check(path, raw_imgs, raw_labels, n, c, h, w, num_classes):
    """A file HamGAN wrote has BigGAN's layout exactly and the expected content."""
    import h5py
    with h5py.File(path, "r") as f:
        imgs, labels = f["imgs"], f["labels"]
        if imgs.dtype != np.uint8 or imgs.shape != (n, c, h, w):
            fail(f"imgs {imgs.dtype} {imgs.shape}")
        if labels.dtype != np.int64 or labels.shape != (n,):
            fail(f"labels {labels.dtype} {labels.shape}")
        if imgs.chunks != (500, c, h, w) or labels.chunks != (500,):
            fail(f"chunks {imgs.chunks} {labels.chunks}")
        if imgs.maxshape[0] is not None and imgs.maxshape[0] < n:
            fail(f"maxshape {imgs.maxshape}")
        layout = imgs.attrs["layout"]
        layout = layout.decode() if isinstance(layout, bytes) else str(layout)
        if layout != "NCHW":
            fail(f"layout attribute {layout!r}")
        if int(f.attrs["num_classes"]) != num_classes:
            fail(f"num_classes {f.attrs['num_classes']}")
        want_i = np.fromfile(raw_imgs, np.uint8).reshape(n, c, h, w)
        want_l = np.fromfile(raw_labels, np.int64)
        if not np.array_equal(imgs[...], want_i):
            fail("imgs differ")
        if not np.array_equal(labels[...], want_l):
            fail("labels differ")
        # BigGAN-PyTorch's reader: ((x / 255) - 0.5) * 2 on imgs[i], labels[i].
        x = ((imgs[n - 1] / 255.0) - 0.5) * 2
        if x.min() < -1 or x.max() > 1:
            fail("BigGAN mapping out of range")


def h5_write(path, layout, n, c, h, w, raw_imgs, raw_labels, chunks, with_attr):
    """A file as h5py writes it for BigGAN (NCHW) or StudioGAN (NHWC)."""
    import h5py
    rng = np.random.default_rng(3)
    imgs = rng.integers(0, 256, (n, c, h, w), dtype=np.uint8)
    labels = rng.integers(0, 5, n).astype(np.int64)
    stored = imgs if layout == "NCHW" else imgs.transpose(0, 2, 3, 1)
    with h5py.File(path, "w") as f:
        kw = {"chunks": (min(chunks, n),) + stored.shape[1:]} if chunks else {}
        d = f.create_dataset("imgs", data=stored, dtype="uint8", maxshape=(n,) + stored.shape[1:], **kw)
        f.create_dataset("labels", data=labels, dtype="int64", chunks=(min(chunks, n),) if chunks else None)
        if with_attr:
            d.attrs["layout"] = layout
    imgs.tofile(raw_imgs)
    labels.tofile(raw_labels)


def h5_bad(path, kind):
    """Files that must be rejected with a clear message."""
    import h5py
    with h5py.File(path, "w") as f:
        if kind == "no_imgs":
            f.create_dataset("labels", data=np.zeros(4, np.int64))
        elif kind == "mismatch":
            f.create_dataset("imgs", data=np.zeros((4, 3, 8, 8), np.uint8))
            f.create_dataset("labels", data=np.zeros(5, np.int64))
        elif kind == "label_range":
            f.create_dataset("imgs", data=np.zeros((4, 3, 8, 8), np.uint8))
            f.create_dataset("labels", data=np.array([0, 1, 7, 2], np.int64))
            f.attrs["num_classes"] = 3
        elif kind == "float_imgs":
            f.create_dataset("imgs", data=np.zeros((4, 3, 8, 8), np.float32))
            f.create_dataset("labels", data=np.zeros(4, np.int64))
        elif kind == "rank3":
            f.create_dataset("imgs", data=np.zeros((4, 8, 8), np.uint8))
            f.create_dataset("labels", data=np.zeros(4, np.int64))
        else:
            fail(f"unknown kind {kind}")


def idx_dump(images_gz, labels_gz, k, out):
    """First k images/labels of an MNIST-style pair, decoded with gzip + numpy."""
    import gzip
    with gzip.open(images_gz, "rb") as f:
        data = f.read()
    n, h, w = np.frombuffer(data[4:16], ">u4")
    imgs = np.frombuffer(data[16:], np.uint8).reshape(n, h, w)
    with gzip.open(labels_gz, "rb") as f:
        labels = np.frombuffer(f.read()[8:], np.uint8)
    imgs[:k].tofile(out + ".imgs")
    labels[:k].astype(np.int64).tofile(out + ".labels")


def cmyk_jpeg(path, raw_out):
    """A CMYK JPEG as PIL writes it (Adobe marker, inverted channels) and PIL's RGB decode of it."""
    from PIL import Image
    rng = np.random.default_rng(5)
    Image.fromarray(make_image(rng, 24, 30, 3)).convert("CMYK").save(path, quality=95)
    rgb = np.asarray(Image.open(path).convert("RGB"))
    rgb.transpose(2, 0, 1).copy().tofile(raw_out)


def h5_damaged(path):
    """A compressed, checksummed BigGAN-layout file whose chunk data is then
    overwritten with zeros: opening works, reading the pixels fails."""
    import h5py
    rng = np.random.default_rng(9)
    with h5py.File(path, "w") as f:
        f.create_dataset("imgs", data=rng.integers(0, 256, (1000, 3, 8, 8), dtype=np.uint8), chunks=(500, 3, 8, 8),
                         compression="gzip", fletcher32=True)
        f.create_dataset("labels", data=np.zeros(1000, np.int64))
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size // 3)
        f.write(bytes(size // 3))


def jpeg_psnr(jpg, raw, c, h, w, min_db):
    """A JPEG written by HamGAN decodes (with PIL) to the (C, H, W) original within min_db of PSNR."""
    from PIL import Image
    img = Image.open(jpg)
    if img.format != "JPEG":
        fail(f"{jpg} is {img.format}, not JPEG")
    got = np.asarray(img).astype(np.float64)
    got = got[None] if got.ndim == 2 else got.transpose(2, 0, 1)
    want = np.fromfile(raw, np.uint8).reshape(c, h, w).astype(np.float64)
    if got.shape != want.shape:
        fail(f"shape {got.shape} != {want.shape}")
    mse = float(((got - want) ** 2).mean())
    psnr = float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)
    print(f"PSNR {psnr:.2f} dB")
    if psnr < min_db:
        fail(f"PSNR {psnr:.2f} dB < {min_db} dB")


# command -> (function, how its arguments are read)
COMMANDS = {
    "png-check": lambda a: png_check(a[0], a[1], *map(int, a[2:5])),
    "make-folder": lambda a: make_folder(a[0], int(a[1]), a[2]),
    "pil-resize": lambda a: pil_resize(a[0], *map(int, a[1:5]), a[5]),
    "h5-check": lambda a: h5_check(a[0], a[1], a[2], *map(int, a[3:8])),
    "h5-write": lambda a: h5_write(a[0], a[1], *map(int, a[2:6]), a[6], a[7], int(a[8]), a[9] == "1"),
    "idx-dump": lambda a: idx_dump(a[0], a[1], int(a[2]), a[3]),
    "cmyk-jpeg": lambda a: cmyk_jpeg(a[0], a[1]),
    "h5-damaged": lambda a: h5_damaged(a[0]),
    "jpeg-psnr": lambda a: jpeg_psnr(a[0], a[1], *map(int, a[2:5]), float(a[5])),
    "h5-bad": lambda a: h5_bad(a[0], a[1]),
}


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd not in COMMANDS:
        fail(f"unknown command {cmd}")
    COMMANDS[cmd](args)


if __name__ == "__main__":
    main()
