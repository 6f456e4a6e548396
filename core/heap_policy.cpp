#include "core/heap_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>

#include <climits>
#endif

namespace hamgan {

bool keep_freed_heap_memory() {
#if defined(__GLIBC__)
  constexpr int kLargestMmapThreshold = 32 * 1024 * 1024;  // glibc's HEAP_MAX_SIZE / 2 on 64-bit
  // Setting either also stops glibc's dynamic threshold adjustment, which would otherwise undo it.
  const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, kLargestMmapThreshold) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return mmap_ok && trim_ok;
#else
  return false;
#endif
}

}  // namespace hamgan
