"""What the hostile checks of the Python package share: a small generator file made with the package itself,
tampered copies of it (safetensors' own writer), the export tools run as processes of this Python, and the
checks of a refusal: exit status 1, one line `hamgan.<tool>: error: ...` naming what the test expects, no
traceback, the input byte-identical and nothing written.

HAMGAN_PACKAGE_ROOT (default: the repository's python/) chooses the package tested, so the same checks can
run against another version of it."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

try:
    import torch
    import safetensors.torch  # noqa: F401
except ImportError as e:
    print(f"hostile checks: {e.name} missing (pip install torch safetensors)")
    sys.exit(3)

REPO = Path(__file__).resolve().parents[2]
PACKAGE_ROOT = os.environ.get("HAMGAN_PACKAGE_ROOT", str(REPO / "python"))
sys.path.insert(0, PACKAGE_ROOT)
import hamgan  # noqa: E402

CONFIG = {"resolution": 32, "image_channels": 3, "num_classes": 5, "z_dim": 16, "g_ch": 8, "d_ch": 8}
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def finish(name):
    print(f"{name}: {len(failures)} failure(s)" if failures else f"{name}: all passed")
    return 1 if failures else 0


def make_generator(path, with_d=True):
    """A small trained-looking G (and D): BN statistics away from their init so a mis-load would show."""
    torch.manual_seed(0)
    G, D = hamgan.build_generator(CONFIG), hamgan.build_discriminator(CONFIG)
    with torch.no_grad():
        for net in (G, D):
            for name, t in net.state_dict().items():
                if name.endswith("running_var"):
                    t.copy_(0.5 + torch.rand(t.shape))
    hamgan.save_generator(G, str(path), D=D if with_d else None)
    return str(path)


def tamper(src, dst, change):
    """dst = src with change(tensors, metadata) applied, written by safetensors itself."""
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file
    with safe_open(str(src), "pt") as f:
        meta = f.metadata()
    tensors = load_file(str(src))
    change(tensors, meta)
    save_file(tensors, str(dst), metadata=meta)
    return str(dst)


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if os.path.isfile(path) else None


def run_tool(tool, args, user=None, preexec=None):
    """python -m hamgan.<tool> ARGS -> (exit status, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, OMP_NUM_THREADS="2")
    kwargs = {"user": user, "group": user, "extra_groups": []} if user is not None else {}
    r = subprocess.run([sys.executable, "-m", f"hamgan.{tool}", *map(str, args)], capture_output=True, text=True,
                       env=env, preexec_fn=preexec, **kwargs)
    return r.returncode, r.stdout, r.stderr


def one_line_error(label, prefix, rc, err, words, status=1):
    """The refusal: `status`, exactly one stderr line starting with `prefix` and naming every word."""
    lines = err.splitlines()
    ok = rc == status and len(lines) == 1 and lines[0].startswith(prefix) and all(w in err for w in words)
    return check(ok and "Traceback" not in err, f"{label}: exit {rc}, one line naming {words}: {err.strip()[:300]}")


def expect_refused(label, tool, args, words, inputs, absent=(), status=1, user=None, preexec=None):
    """The tool refuses in one line; `inputs` are byte-identical afterwards; nothing in `absent` exists and no
    temporary is left beside them."""
    before = {p: digest(p) for p in inputs}
    rc, out, err = run_tool(tool, args, user=user, preexec=preexec)
    one_line_error(label, f"hamgan.{tool}: error: ", rc, err, words, status)
    check(all(digest(p) == d for p, d in before.items()), f"{label}: the input is byte-identical afterwards")
    for p in absent:
        parent = os.path.dirname(p) or "."
        leftovers = [e for e in (os.listdir(parent) if os.path.isdir(parent) else [])
                     if e.startswith(f".{os.path.basename(p)}.tmp")]
        check(not os.path.exists(p) and not leftovers, f"{label}: {os.path.basename(p)} not written, no temporary "
                                                       f"left ({leftovers})")
    return rc, out, err
