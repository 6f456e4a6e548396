#include "data/hdf5_common.h"

namespace hamgan::hdf5 {

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
