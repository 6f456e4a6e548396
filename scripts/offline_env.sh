# Sourced in the project's root on a machine that received .gpu-deps (scripts/offline_deps.sh):
# points CMake (libtorch inside the Python torch package, the unpacked Debian libraries), pkg-config,
# the compiler and the loader at them.
DEPS="$PWD/.gpu-deps/root"
# The Python that has torch there serves as the project's environment (scripts/venv.sh).
export HAMGAN_VENV="${HAMGAN_VENV:-$(python3 -c 'import sys; print(sys.prefix)')}"
TORCH_CMAKE=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
export CMAKE_PREFIX_PATH="$DEPS/usr:$TORCH_CMAKE${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export CPATH="$DEPS/usr/include:$DEPS/usr/include/x86_64-linux-gnu:$DEPS/usr/include/hdf5/serial${CPATH:+:$CPATH}"
export LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:$DEPS/usr/lib/x86_64-linux-gnu/hdf5/serial${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$LIBRARY_PATH:$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Debian lays serial HDF5 out for this root: include/ and lib/ are links beside the libraries.
export HDF5_ROOT="$DEPS/usr/lib/x86_64-linux-gnu/hdf5/serial"
export OPENSSL_ROOT_DIR="$DEPS/usr"
# pkg-config (pkgconf, carried) reads only the carried .pc files and prefixes their /usr paths with $DEPS.
export PATH="$DEPS/usr/bin:$PATH"
export PKG_CONFIG_LIBDIR="$DEPS/usr/lib/x86_64-linux-gnu/pkgconfig:$DEPS/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$DEPS"
echo "torch $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)'); nvcc $(nvcc --version 2>/dev/null | tail -1)"
