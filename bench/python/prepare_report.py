"""The report of bench/prepare_vs_make_hdf5.sh: rates, their ratio, the agreement
of the two HDF5 files and the machine, printed as a table and written as JSON."""
import argparse
import glob
import json
import os
import platform
import subprocess
import time

import h5py
import numpy as np
import torch


def command_output(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    release = dict(l.rstrip("\n").split("=", 1) for l in open("/etc/os-release") if "=" in l)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cpu": cpu, "cores": os.cpu_count(), "os": release.get("PRETTY_NAME", "").strip('"'),
            "kernel": platform.release(), "memory_gib": round(memory / 2**30, 1)}


def versions(repo):
    import PIL
    import torchvision
    from PIL import features
    return {"hamgan": command_output(["git", "describe", "--always", "--dirty"]),
            "biggan_pytorch": command_output(["git", "-C", repo, "rev-parse", "--short", "HEAD"]),
            "python": platform.python_version(), "torch": torch.__version__, "torchvision": torchvision.__version__,
            "pillow": PIL.__version__, "pillow_libjpeg_turbo": features.version("libjpeg_turbo") or "",
            "h5py": h5py.__version__,
            "system_libjpeg_turbo": command_output(["dpkg-query", "-W", "-f=${Version}", "libjpeg62-turbo"])}


def agreement(ours_path, theirs_path):
    """How our bytes relate to make_hdf5.py's: equal labels; pixels one level apart
    where BigGAN's float round trip truncates (docs/data.md), which is checked by
    applying that round trip to ours."""
    with h5py.File(ours_path, "r") as a, h5py.File(theirs_path, "r") as b:
        ours, theirs = a["imgs"][...], b["imgs"][...]
        labels_equal = bool(np.array_equal(a["labels"][...], b["labels"][...]))
        layout = {k: [str(a[k].chunks), str(b[k].chunks), a[k].compression, b[k].compression]
                  for k in ("imgs", "labels")}
    diff = ours.astype(np.int16) - theirs.astype(np.int16)
    x = (torch.from_numpy(ours).float().div(255) - 0.5) / 0.5  # ToTensor, Normalize(0.5, 0.5)
    round_trip = (255 * ((x + 1) / 2.0)).byte().numpy()           # make_hdf5.py's .byte()
    return {"shape_equal": ours.shape == theirs.shape, "labels_equal": labels_equal,
            "pixels_differing_fraction": float(np.count_nonzero(diff)) / diff.size,
            "max_abs_difference": int(np.abs(diff).max()), "ours_higher_where_different": bool((diff >= 0).all()),
            "equal_after_biggan_round_trip_of_ours": bool(np.array_equal(round_trip, theirs)),
            "chunks_and_compression_ours_theirs": layout,
            "bytes_ours": os.path.getsize(ours_path), "bytes_theirs": os.path.getsize(theirs_path)}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    for a in ("--work", "--jpegs", "--repo", "--out"):
        p.add_argument(a, required=True)
    p.add_argument("--workers", type=int, required=True)
    a = p.parse_args()
    files = glob.glob(os.path.join(a.jpegs, "*", "*.JPEG"))
    n = len(files)
    runs = []
    for line in open(os.path.join(a.work, "runs.tsv")):
        comp, rep, s0, s1, t0, t1, t2, load_before, load_after = line.rstrip("\n").split("\t")
        startup, t0, t1, t2 = float(s1) - float(s0), float(t0), float(t1), float(t2)
        theirs = json.load(open(os.path.join(a.work, f"theirs_times_{comp}_{rep}.json")))
        runs.append({"compression": comp, "repeat": int(rep), "ours_s": t1 - t0, "theirs_s": t2 - t1,
                     "ours_img_per_s": n / (t1 - t0), "theirs_img_per_s": n / (t2 - t1),
                     "ratio": (t2 - t1) / (t1 - t0), "theirs_import_s": theirs["import_s"],
                     "theirs_img_per_s_without_imports": n / theirs["run_s"],
                     "ratio_without_their_imports": theirs["run_s"] / (t1 - t0),
                     "ours_startup_s": startup, "ours_img_per_s_without_startup": n / (t1 - t0 - startup),
                     "ratio_without_startup_and_imports": theirs["run_s"] / (t1 - t0 - startup),
                     "load_average_before": load_before, "load_average_after": load_after})
    report = {
        "what": "hamgan prepare against BigGAN-PyTorch make_hdf5.py: folder of JPEGs to a 128x128 HDF5",
        "images": n, "classes": len(os.listdir(a.jpegs)),
        "jpeg_mean_kib": sum(os.path.getsize(f) for f in files) / n / 1024,
        "jpegs": "bench/python/make_jpeg_folder.py: about 500x375 (a quarter portrait), quality 90, seed 0",
        "size": 128, "workers": a.workers,
        "commands": {
            "ours": f"hamgan prepare --input DIR --output F.hdf5 --size 128 --workers {a.workers} --no_progress "
                    "[--compression lzf]",
            "theirs": f"python make_hdf5.py --dataset I128 --data_root ROOT --num_workers {a.workers} [--compression]"},
        "timing": "wall time of each whole command, start-up included; ratio = ours img/s / theirs img/s; "
                  "'without_imports' leaves out make_hdf5.py's Python imports, 'without_startup' our start-up "
                  "(the whole time of prepare on a folder of one image)",
        "machine": machine(), "versions": versions(a.repo), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "runs": runs,
        "agreement": {c: agreement(os.path.join(a.work, f"ours_{c}.hdf5"), os.path.join(a.work, f"theirs_{c}.hdf5"))
                      for c in ("none", "lzf")},
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"{n} JPEGs ({report['jpeg_mean_kib']:.0f} KiB on average) -> 128x128 HDF5, {a.workers} workers, "
          f"{report['machine']['cores']} cores ({report['machine']['cpu']})")
    print("| compression | repeat | hamgan prepare img/s | make_hdf5.py img/s | ratio | without start-up / imports: "
          "prepare img/s | make_hdf5.py img/s | ratio | load average before → after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['compression']} | {r['repeat']} | {r['ours_img_per_s']:.0f} | {r['theirs_img_per_s']:.0f} | "
              f"{r['ratio']:.2f}x | {r['ours_img_per_s_without_startup']:.0f} | "
              f"{r['theirs_img_per_s_without_imports']:.0f} | {r['ratio_without_startup_and_imports']:.2f}x | "
              f"{r['load_average_before']} → {r['load_average_after']} |")
    for c, g in report["agreement"].items():
        print(f"{c}: labels equal {g['labels_equal']}, {g['pixels_differing_fraction']:.2%} of pixel bytes differ "
              f"(at most {g['max_abs_difference']}), equal after BigGAN's round trip of ours: "
              f"{g['equal_after_biggan_round_trip_of_ours']}")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
