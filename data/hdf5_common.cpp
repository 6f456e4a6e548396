#include "data/hdf5_common.h"

#include <atomic>

namespace hamgan::hdf5 {
namespace {
std::atomic<int64_t> g_decompressions{0};
}  // namespace

int64_t chunk_decompressions() { return g_decompressions.load(); }
void count_chunk_decompression() { ++g_decompressions; }

void quiet_errors() {
  // Thread-safe HDF5 keeps the error stack, and its auto-print setting, per
  // thread: every thread that calls HDF5 (loader and prepare workers) needs it.
  thread_local bool done = false;
  if (!done) {
    H5::Exception::dontPrint();
    done = true;
  }
}

std::string detail(const H5::Exception& e) {
  std::string d = e.getDetailMsg();
  return d.empty() ? std::string("HDF5 error") : d;
}

}  // namespace hamgan::hdf5
