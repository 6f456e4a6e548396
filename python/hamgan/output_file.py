"""The export tools' output: checked before any work (its suffix, not the input, not a directory, a directory
that exists and takes files), then written into a temporary directory beside it and renamed into place only
when complete, so a failed or interrupted export leaves the previous file (or none), never half of one."""
import contextlib
import os
import shutil


def check_output(source, out, suffixes, kind):
    """ValueError / FileNotFoundError in one line for an output the export would fail on or lose work to."""
    if not os.path.isfile(source):
        if os.path.isdir(source):
            raise ValueError(f"{source} is a directory; give a .safetensors file written by `hamgan export`")
        raise FileNotFoundError(f"{source}: no such file; give a .safetensors file written by `hamgan export`")
    if os.path.isdir(out):
        raise ValueError(f"{out} is a directory; give a file name ending in {suffixes[0]}")
    if not out.endswith(suffixes):
        stem = os.path.splitext(out)[0] or "G"
        article = "an" if kind[0] in "AEIOU" else "a"
        raise ValueError(f"{out}: {article} {kind} file is named *{' or *'.join(suffixes)}; name the output "
                         f"{stem}{suffixes[0]}")
    if os.path.realpath(out) == os.path.realpath(source) or (os.path.exists(out) and os.path.samefile(out, source)):
        raise ValueError(f"{out} is the input file {source}; writing it would destroy the weights, give another "
                         f"output name")
    parent = os.path.dirname(out) or "."
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{out}: the directory {parent} does not exist; create it or write elsewhere")


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(parent, name):
    """Temporaries of this output left by killed exports (`.NAME.tmp.PID` of a process that is gone)."""
    prefix = f".{name}.tmp."
    for entry in os.listdir(parent):
        pid = entry[len(prefix):]
        if entry.startswith(prefix) and pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            shutil.rmtree(os.path.join(parent, entry), ignore_errors=True)


@contextlib.contextmanager
def atomic_output(out):
    """Yields the path to write. The temporary directory is made first, which proves the directory takes
    files before any work; on success every file written there (an ONNX file's external data too) is renamed
    beside `out`, `out` itself last; on any exception the temporary is removed and `out` is untouched."""
    parent, name = os.path.split(out)
    parent = parent or "."
    tmp = os.path.join(parent, f".{name}.tmp.{os.getpid()}")
    try:
        _remove_stale(parent, name)
        shutil.rmtree(tmp, ignore_errors=True)
        os.mkdir(tmp)
    except OSError as e:
        raise ValueError(f"{out}: cannot write in {parent} ({e.strerror or e}); choose a writable directory") from None
    try:
        yield os.path.join(tmp, name)
        written = sorted(os.listdir(tmp), key=lambda f: f == name)  # the file readers open goes last
        for f in written:
            os.replace(os.path.join(tmp, f), os.path.join(parent, f))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_failed(out, e):
    """The one line for a save that failed part way (a full disk, a vanished directory)."""
    text = " ".join(str(e).split()) or type(e).__name__
    return ValueError(f"{out}: writing failed ({text}); nothing was written, check the space and permissions "
                      f"in {os.path.dirname(out) or '.'}")
