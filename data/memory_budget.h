#pragma once
// How much of the machine's memory a data set may take when read whole
// (HDF5 in_memory, prepare --shuffle of a chunked file): 80 %, so the process
// and the page cache keep room.
#include <unistd.h>

#include <cstdint>

namespace hamgan {

inline uint64_t physical_memory_bytes() {
  return uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGE_SIZE));
}

inline bool fits_in_memory(uint64_t bytes) { return bytes <= physical_memory_bytes() / 10 * 8; }

}  // namespace hamgan
