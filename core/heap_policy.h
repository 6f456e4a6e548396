#pragma once
// How the process's C heap hands memory back to the kernel.
//
// glibc returns freed memory early: a block above its mmap threshold is unmapped on free(), and
// the top of the heap is trimmed once enough of it is free. A training step frees and re-allocates
// the same activations every step, so each step then page-faults them in again, zeroed by the
// kernel: on the 2-core machines measured, thousands of faults per Fashion-MNIST step
// (docs/training.md, "Training speed"). PyTorch's CPU tuning guide suggests swapping in jemalloc
// or tcmalloc for the same reason; this asks glibc itself to keep what it has.
namespace hamgan {

// glibc: blocks up to 32 MiB (its largest mmap threshold) come from the heap, and free memory at the
// top of it is never trimmed, so resident memory stays at the process's peak. Elsewhere: nothing.
// Returns whether the policy was applied.
bool keep_freed_heap_memory();

}  // namespace hamgan
