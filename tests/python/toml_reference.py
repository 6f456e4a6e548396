"""Prints every top-level key of a TOML file as `key<TAB>value` with Python's own
TOML 1.0 parser (tomllib), the independent reference for core/config_file.h.
Integral floats print as integers and other floats with repr, as HamGAN renders them."""
import sys
import tomllib


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


with open(sys.argv[1], "rb") as f:
    data = tomllib.load(f)
for key, value in data.items():
    values = value if isinstance(value, list) else [value]
    print(key + "\t" + "\x1f".join(text(v) for v in values))
