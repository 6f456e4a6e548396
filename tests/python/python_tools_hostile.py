"""Hostile use of `python -m hamgan.export_onnx` and `hamgan.export_torchscript`: outputs that would destroy
the input or lose work, opsets the exporter cannot write, a write that fails part way.

Usage: python_tools_hostile.py outputs|opset. outputs: the input as output (same path, a symlink), wrong
suffixes, a directory, a missing or read-only directory, a failed write, and a real TorchScript export over
an older file. opset: --opset 5 / 99 / abc refused before any work, and one real ONNX export at opset 19.
Exits 0 when all hold, 1 otherwise, 3 without torch, safetensors (or, for opset, onnxscript/onnxruntime)."""
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

from hostile_common import PACKAGE_ROOT, check, expect_refused, finish, make_generator, one_line_error, run_tool
import torch

NOBODY = 65534


@contextlib.contextmanager
def no_export_work():
    """Tracing or exporting fails the check: what is refused must be refused before either starts."""
    def reached(*args, **kwargs):
        raise AssertionError("the export started")
    with mock.patch.object(torch.jit, "trace", reached), mock.patch.object(torch.onnx, "export", reached):
        yield


def refused_in_process(label, fn, *words):
    with no_export_work():
        try:
            fn()
        except (ValueError, OSError) as e:
            text = str(e)
            return check(all(w in text for w in words) and "\n" not in text, f"{label}: refused before the export "
                                                                               f"work: {text}")
        except AssertionError as e:
            return check(False, f"{label}: {e}")
    return check(False, f"{label}: no error raised")


def read_only_case(work, g):
    """A directory the tool may not write in: as the nobody user when root (root writes anywhere)."""
    ro = work / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    user = None
    if os.geteuid() == 0:
        try:  # this Python and the package, as that user: an environment under /root is out of its reach
            subprocess.run([sys.executable, "-c", "import hamgan"], user=NOBODY, check=True, capture_output=True,
                           env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT), cwd="/")
        except (OSError, subprocess.SubprocessError):
            print(f"skip  read-only directory: the nobody user cannot run {sys.executable} with the package here")
            return
        work.chmod(0o755)
        os.chmod(g, 0o644)
        user = NOBODY
    expect_refused("read-only directory", "export_torchscript", [g, ro / "G.pt"], ["cannot write", "ro"], [g],
                   absent=[ro / "G.pt"], user=user)


def failed_write(work, g):
    """A save that fails half way (a full disk) leaves the previous output as it was and no temporary."""
    from hamgan.export_torchscript import export_torchscript
    out = work / "kept.pt"
    out.write_bytes(b"the previous export")

    class HalfWritten:
        def save(self, path):
            Path(path).write_bytes(b"half a file")
            raise OSError(28, "No space left on device")

        def named_buffers(self):
            return iter(())

    with mock.patch.object(torch.jit, "trace", lambda *a, **k: HalfWritten()):
        try:
            export_torchscript(g, str(out))
            check(False, "failed write: no error raised")
        except (ValueError, OSError) as e:
            check("No space left" in str(e) and "\n" not in str(e), f"failed write: one line: {e}")
    leftovers = [e for e in os.listdir(work) if e.startswith(".kept.pt.tmp")]
    check(out.read_bytes() == b"the previous export" and not leftovers,
          f"failed write: the previous output is intact and no temporary is left ({leftovers})")


def outputs(work):
    g = make_generator(work / "G.safetensors")
    victim = shutil.copy(g, work / "V.safetensors")  # the old tools wrote over it: the other cases keep G
    expect_refused("output named like the input", "export_torchscript", [victim, victim], ["V.safetensors", ".pt"],
                   [victim])
    as_pt = shutil.copy(g, work / "W.pt")  # weights under a TorchScript name, given as both
    expect_refused("output is the input", "export_torchscript", [as_pt, as_pt], ["W.pt", "input"], [as_pt])
    target, link = shutil.copy(g, work / "T.safetensors"), work / "L.onnx"
    link.symlink_to("T.safetensors")
    expect_refused("output is a link to the input", "export_onnx", [target, link], ["L.onnx", "input"], [target])
    check(link.is_symlink() and os.path.samefile(link, target), "output is a link to the input: the link is untouched")
    expect_refused("wrong suffix", "export_onnx", [g, work / "G.pt"], ["G.pt", ".onnx"], [g], absent=[work / "G.pt"])
    (work / "d.pt").mkdir()
    expect_refused("directory as output", "export_torchscript", [g, work / "d.pt"], ["d.pt", "directory"], [g])
    expect_refused("missing directory", "export_onnx", [g, work / "no" / "G.onnx"], ["no", "does not exist"], [g],
                   absent=[work / "no" / "G.onnx"])
    from hamgan.export_torchscript import export_torchscript
    refused_in_process("output is the input (library)", lambda: export_torchscript(as_pt, as_pt), "W.pt",
                       "input file")
    failed_write(work, g)
    read_only_case(work, g)
    # A real export over an older file, past a temporary a killed export left: replaced whole, temporary gone.
    out = work / "G.pt"
    out.write_bytes(b"an older export")
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = work / f".G.pt.tmp.{dead.pid}"
    stale.mkdir()
    (stale / "G.pt").write_bytes(b"half")
    rc, text, err = run_tool("export_torchscript", [g, out])
    check(rc == 0 and "max |TorchScript - PyTorch|" in text, f"TorchScript export: exit {rc} {text.strip()} {err}")
    check(out.read_bytes()[:2] == b"PK" and not stale.exists(),
          "TorchScript export: the older file is replaced by a TorchScript archive; the dead export's temporary "
          "is removed")


def opset(work):
    try:
        import onnx
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError as e:
        print(f"python_tools_hostile: {e.name} missing (scripts/install_deps.sh installs it)")
        sys.exit(3)
    from hamgan.export_onnx import export_onnx
    g = make_generator(work / "G.safetensors", with_d=False)
    out = work / "G.onnx"
    for bad in ("5", "99"):
        expect_refused(f"--opset {bad}", "export_onnx", [g, out, "--opset", bad], [f"--opset {bad}", "from 18 to"],
                       [g], absent=[out])
        refused_in_process(f"opset {bad} (library)", lambda: export_onnx(g, str(out), opset=int(bad)), str(bad))
    rc, _, err = run_tool("export_onnx", [g, out, "--opset", "abc"])
    one_line_error("--opset abc", "hamgan.export_onnx: error: ", rc, err, ["--opset", "abc"], status=2)
    rc, text, err = run_tool("export_onnx", [g, out, "--opset", "19"])
    check(rc == 0, f"--opset 19: exit {rc}: {text.strip()} {err.strip()[-300:]}")
    if rc == 0:
        written = {o.domain: o.version for o in onnx.load(str(out)).opset_import}.get("")
        delta = float(text.split("on a batch of 3: ")[1].split(")")[0])
        check(written == 19 and delta <= 1e-5, f"--opset 19: the file's opset is {written}, max |ONNX - PyTorch| "
                                               f"{delta}")
    check(not [e for e in os.listdir(work) if ".tmp." in e], "--opset 19: no temporary left")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("outputs", "opset"):
        print("usage: python_tools_hostile.py outputs|opset")
        return 1
    torch.set_num_threads(min(2, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as d:
        (outputs if sys.argv[1] == "outputs" else opset)(Path(d))
    return finish(f"python_tools_hostile {sys.argv[1]}")


if __name__ == "__main__":
    sys.exit(main())
