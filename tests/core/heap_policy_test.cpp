// core/heap_policy: after keep_freed_heap_memory(), memory a step frees is mapped again for the next
// step without page faults. Counted with getrusage's minor faults, an independent view of the kernel.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/heap_policy.h"

namespace hamgan {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Allocates `count` blocks of `bytes`, writes every page, frees them all: one "step" of activations.
void touch_and_free(int count, size_t bytes) {
  std::vector<char*> blocks;
  for (int i = 0; i < count; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(bytes)));
    ASSERT_NE(blocks.back(), nullptr);
    std::memset(blocks.back(), i + 1, bytes);
  }
  for (char* b : blocks) std::free(b);
}

TEST(HeapPolicy, FreedBlocksAreReusedWithoutPageFaults) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "the policy applies to glibc's allocator only";
#endif
  ASSERT_TRUE(keep_freed_heap_memory());
  // 20 blocks of 4 MiB: above glibc's default mmap threshold, so by default the first step maps and
  // unmaps them and a later step finds the heap's top trimmed: either way the pages fault again.
  constexpr int kBlocks = 20;
  constexpr size_t kBytes = 4u << 20;
  touch_and_free(kBlocks, kBytes);
  const long before = minor_faults();
  touch_and_free(kBlocks, kBytes);
  const long faults = minor_faults() - before;
  const long pages = kBlocks * static_cast<long>(kBytes) / sysconf(_SC_PAGESIZE);
  EXPECT_LT(faults, pages / 20) << faults << " minor faults re-using " << pages << " pages";
}

}  // namespace
}  // namespace hamgan
