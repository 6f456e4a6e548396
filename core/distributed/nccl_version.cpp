#include "core/distributed/nccl_version.h"

#include <dlfcn.h>

#ifdef HAMGAN_WITH_NCCL
#include <nccl.h>
#endif

#include "core/errors.h"

namespace hamgan {

int nccl_header_version() {
#ifdef HAMGAN_WITH_NCCL
  return NCCL_VERSION_CODE;
#else
  return 0;
#endif
}

int nccl_loaded_version() {
  // Looked up rather than linked: LibTorch loads libnccl.so.2 itself, and a build without NCCL still asks.
  using GetVersion = int (*)(int*);
  void* symbol = dlsym(RTLD_DEFAULT, "ncclGetVersion");
  if (!symbol) {
    void* lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (lib) symbol = dlsym(lib, "ncclGetVersion");
  }
  int version = 0;
  if (!symbol || reinterpret_cast<GetVersion>(symbol)(&version) != 0) return 0;
  return version;
}

std::string nccl_version_text(int code) {
  const bool wide = code >= 20900;  // NCCL 2.9 widened the minor field
  const int major = wide ? code / 10000 : code / 1000, minor = wide ? code / 100 % 100 : code / 100 % 10;
  const int patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

void require_matching_nccl(int header, int loaded) {
  if (header == loaded) return;
  if (header == 0)
    throw ConfigError("dist_backend: this build has no NCCL (configured with HAMGAN_WITH_NCCL=OFF or without a CUDA "
                      "LibTorch) while NCCL " + nccl_version_text(loaded) +
                      " is loaded; rebuild from a clean build folder, or use dist_backend = \"gloo\"");
  if (loaded == 0)
    throw ConfigError("dist_backend: NCCL " + nccl_version_text(header) +
                      " was compiled in but no NCCL library is loaded; check that LibTorch's CUDA libraries load "
                      "(ldd hamgan), or use dist_backend = \"gloo\"");
  throw ConfigError("dist_backend: this build was compiled against NCCL " + nccl_version_text(header) +
                    " but the process loaded NCCL " + nccl_version_text(loaded) +
                    "; rebuild from a clean build folder (scripts/build.sh takes nccl.h from the NCCL torch loads)");
}

}  // namespace hamgan
