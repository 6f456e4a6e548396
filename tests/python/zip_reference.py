#!/usr/bin/env python3
"""Independent references for the ZIP dataset and ADM-crop tests (zipfile, PIL, numpy).

ZIPs are written the way StyleGAN2-ADA's and EDM's dataset_tool.py write them
(zipfile ZIP_STORED, PIL PNG compress_level=0, dataset.json from json.dumps), and
read back the way their training datasets read them. Raw files are uint8 / int64
C-order arrays. Exit status 0 = done or the check passed; 3 = a package is missing.

make DIR            writes DIR/{rgb,gray,mixed}.zip with the expected .imgs/.labels/.shape
check ZIP RAW N C H W    a ZIP hamgan wrote holds exactly what dataset_tool.py would
make-bad DIR        archives a reader must refuse
crops DIR           for each DIR/*.in (with .shape "C H W SIZE"): ADM's center_crop_arr
resizes DIR         for each DIR/*.in (with .shape "C H W OUT_H OUT_W FILTER"): PIL resize
"""
import io
import json
import os
import sys
import zipfile

try:
    import numpy as np
    from PIL import Image
except ImportError as e:
    print(f"missing package: {e}", file=sys.stderr)
    sys.exit(3)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def member_name(idx):  # dataset_tool.py's archive_fname
    idx_str = f"{idx:08d}"
    return f"{idx_str[:5]}/img{idx_str}.png"


def png_bytes(img, **kw):
    buf = io.BytesIO()
    img.save(buf, format="png", **kw)
    return buf.getvalue()


def dataset_tool_zip(path, arrays, labels, compression=zipfile.ZIP_STORED):
    """dataset_tool.py convert's ZIP: stored PNGs at level 0, then dataset.json."""
    with zipfile.ZipFile(path, mode="w", compression=compression) as z:
        for idx, arr in enumerate(arrays):
            z.writestr(member_name(idx), png_bytes(Image.fromarray(arr), compress_level=0, optimize=False))
        rows = None if labels is None else [[member_name(i), int(l)] for i, l in enumerate(labels)]
        z.writestr("dataset.json", json.dumps({"labels": rows}))


def chw(arr):
    return arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)


def save_expected(stem, arrays, labels):
    np.stack([chw(a) for a in arrays]).astype(np.uint8).tofile(stem + ".imgs")
    np.asarray(labels, np.int64).tofile(stem + ".labels")
    c, h, w = chw(arrays[0]).shape
    with open(stem + ".shape", "w") as f:
        f.write(f"{len(arrays)} {c} {h} {w} {int(max(labels)) + 1}\n")


def make(d):
    rng = np.random.default_rng(11)
    # RGB 32x32 with labels, as dataset_tool writes an ImageNet-like set.
    rgb = [rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(36)]
    rgb_labels = rng.integers(0, 7, len(rgb))
    dataset_tool_zip(f"{d}/rgb.zip", rgb, rgb_labels)
    save_expected(f"{d}/rgb", rgb, rgb_labels)
    # Gray 16x16 (StyleGAN2-ADA keeps L images one-channel), labels null: class 0.
    gray = [rng.integers(0, 256, (16, 16), dtype=np.uint8) for _ in range(25)]
    dataset_tool_zip(f"{d}/gray.zip", gray, None)
    save_expected(f"{d}/gray", gray, [0] * len(gray))
    # Deflated members added out of order, PNG variants (default level, palette,
    # RGBA), a JPEG, a directory entry and a non-image member; labels by name.
    names = [f"b/{k:03d}.png" for k in range(12)] + ["a/z.PNG", "a/photo.jpg"]
    order = rng.permutation(len(names))
    labels = {n: int(rng.integers(0, 4)) for n in names}
    with zipfile.ZipFile(f"{d}/mixed.zip", mode="w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("b/", b"")
        z.writestr("README.txt", "not an image")
        for k in order:
            name, arr = names[k], rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)
            img = Image.fromarray(arr)
            if name.endswith(".jpg"):
                smooth = np.clip(np.mgrid[0:20, 0:24][1][..., None] * 10 + np.arange(3) * 40, 0, 255).astype(np.uint8)
                buf = io.BytesIO()
                Image.fromarray(smooth).save(buf, format="jpeg", quality=95)
                data = buf.getvalue()
            elif k % 3 == 1:
                data = png_bytes(img.quantize(32))
            elif k % 3 == 2:
                data = png_bytes(img.convert("RGBA"))
            else:
                data = png_bytes(img)
            z.writestr(name, data)
        z.writestr("dataset.json", json.dumps({"labels": [[n, labels[n]] for n in reversed(names)]}))
    with zipfile.ZipFile(f"{d}/mixed.zip") as z:  # StyleGAN's ImageFolderDataset order and decoding
        images = sorted(n for n in z.namelist() if n.split(".")[-1].lower() in ("png", "jpg", "jpeg"))
        arrays = [np.asarray(Image.open(io.BytesIO(z.read(n))).convert("RGB")) for n in images]
    save_expected(f"{d}/mixed", arrays, [labels[n] for n in images])
    with open(f"{d}/mixed.jpeg_index", "w") as f:
        f.write(f"{images.index('a/photo.jpg')}\n")


def check(path, raw, n, c, h, w):
    want = np.fromfile(raw + ".imgs", np.uint8).reshape(n, c, h, w)
    want_labels = np.fromfile(raw + ".labels", np.int64)
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        if names != [member_name(i) for i in range(n)] + ["dataset.json"]:
            fail(f"member names/order differ: {names[:3]} ... {names[-2:]}")
        if any(i.compress_type != zipfile.ZIP_STORED for i in infos):
            fail("a member is not ZIP_STORED")
        bad = z.testzip()
        if bad is not None:
            fail(f"CRC mismatch in {bad}")
        text = z.read("dataset.json").decode()
        expected_json = json.dumps({"labels": [[member_name(i), int(l)] for i, l in enumerate(want_labels)]})
        if text != expected_json:
            fail(f"dataset.json differs: {text[:80]!r} vs {expected_json[:80]!r}")
        labels = {x[0]: x[1] for x in json.loads(text)["labels"]}
        images = sorted(x for x in names if x.split(".")[-1].lower() == "png")
        for i, name in enumerate(images):
            img = Image.open(io.BytesIO(z.read(name)))
            if img.mode != ("L" if c == 1 else "RGB") or img.size != (w, h):
                fail(f"{name}: mode {img.mode} size {img.size}")
            if not np.array_equal(chw(np.asarray(img)), want[i]):
                fail(f"{name}: pixels differ")
            if labels[name] != want_labels[i]:
                fail(f"{name}: label {labels[name]} != {want_labels[i]}")


def make_bad(d):
    rng = np.random.default_rng(5)
    a = [rng.integers(0, 256, (16, 16, 3), dtype=np.uint8) for _ in range(3)]
    dataset_tool_zip(f"{d}/ok.zip", a, [0, 1, 2])
    with zipfile.ZipFile(f"{d}/missing_member.zip", "w") as z:  # labels name an image that is not there
        for i in range(2):
            z.writestr(member_name(i), png_bytes(Image.fromarray(a[i])))
        z.writestr("dataset.json", json.dumps({"labels": [[member_name(i), i] for i in range(3)]}))
    with zipfile.ZipFile(f"{d}/unlabelled.zip", "w") as z:  # an image without a label
        for i in range(3):
            z.writestr(member_name(i), png_bytes(Image.fromarray(a[i])))
        z.writestr("dataset.json", json.dumps({"labels": [[member_name(i), i] for i in range(2)]}))
    big = rng.integers(0, 256, (24, 24, 3), dtype=np.uint8)
    dataset_tool_zip(f"{d}/mixed_sizes.zip", [a[0], big, a[1]], [0, 0, 0])
    dataset_tool_zip(f"{d}/mixed_channels.zip", [a[0], a[1][..., 0]], [0, 0])
    for name, value in [("float_label", 1.5), ("vector_label", [0.25, 0.75]), ("negative_label", -1)]:
        with zipfile.ZipFile(f"{d}/{name}.zip", "w") as z:
            z.writestr(member_name(0), png_bytes(Image.fromarray(a[0])))
            z.writestr("dataset.json", json.dumps({"labels": [[member_name(0), value]]}))
    with zipfile.ZipFile(f"{d}/bad_json.zip", "w") as z:
        z.writestr(member_name(0), png_bytes(Image.fromarray(a[0])))
        z.writestr("dataset.json", '{"labels": [["00000/img00000000.png", 1]')
    with zipfile.ZipFile(f"{d}/no_labels_key.zip", "w") as z:
        z.writestr(member_name(0), png_bytes(Image.fromarray(a[0])))
        z.writestr("dataset.json", json.dumps({"classes": 3}))
    with zipfile.ZipFile(f"{d}/empty.zip", "w"):
        pass
    with zipfile.ZipFile(f"{d}/only_json.zip", "w") as z:
        z.writestr("dataset.json", json.dumps({"labels": None}))
    with open(f"{d}/not_a_zip.zip", "w") as f:
        f.write("plain text, not an archive\n")
    with zipfile.ZipFile(f"{d}/not_png.zip", "w") as z:  # an image name holding text
        z.writestr(member_name(0), b"this is not a PNG")
    # A damaged stored member: one payload byte flipped, so the CRC no longer matches.
    dataset_tool_zip(f"{d}/bad_crc.zip", a[:2], [0, 1])
    with zipfile.ZipFile(f"{d}/bad_crc.zip") as z:
        info = z.getinfo(member_name(1))
    data = bytearray(open(f"{d}/bad_crc.zip", "rb").read())
    start = info.header_offset + 30 + len(info.filename)
    data[start + info.file_size // 2] ^= 0xFF
    open(f"{d}/bad_crc.zip", "wb").write(bytes(data))


def center_crop_arr(pil_image, image_size):
    """guided-diffusion image_datasets.py, as EDM2's dataset_tool.py quotes it."""
    while min(*pil_image.size) >= 2 * image_size:
        pil_image = pil_image.resize(tuple(x // 2 for x in pil_image.size), resample=Image.BOX)
    scale = image_size / min(*pil_image.size)
    pil_image = pil_image.resize(tuple(round(x * scale) for x in pil_image.size), resample=Image.BICUBIC)
    arr = np.array(pil_image)
    crop_y = (arr.shape[0] - image_size) // 2
    crop_x = (arr.shape[1] - image_size) // 2
    return arr[crop_y : crop_y + image_size, crop_x : crop_x + image_size]


def to_image(raw, c, h, w):
    arr = np.fromfile(raw, np.uint8).reshape(c, h, w)
    return Image.fromarray(arr[0] if c == 1 else arr.transpose(1, 2, 0))


def each_case(d):
    for f in sorted(os.listdir(d)):
        if f.endswith(".in"):
            stem = os.path.join(d, f[:-3])
            yield stem, open(stem + ".shape").read().split()


def crops(d):
    for stem, (c, h, w, size) in each_case(d):
        out = center_crop_arr(to_image(stem + ".in", int(c), int(h), int(w)), int(size))
        chw(out).astype(np.uint8).tofile(stem + ".want")


def resizes(d):
    filters = {"box": Image.BOX, "bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}
    for stem, (c, h, w, oh, ow, name) in each_case(d):
        out = to_image(stem + ".in", int(c), int(h), int(w)).resize((int(ow), int(oh)), filters[name])
        chw(np.asarray(out)).astype(np.uint8).tofile(stem + ".want")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(args[0])
    elif cmd == "check":
        check(args[0], args[1], *map(int, args[2:6]))
    elif cmd == "make-bad":
        make_bad(args[0])
    elif cmd == "crops":
        crops(args[0])
    elif cmd == "resizes":
        resizes(args[0])
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
