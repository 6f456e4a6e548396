#pragma once
// Repeatable elementwise math on the CPU from the first call of a process.
//
// On x86-64 LibTorch computes tanh, exp, log, sqrt and the other functions of ATen/cpu/vml.h
// through MKL's vector math library, one chunk of 2048 elements per thread. In about 2% of fresh
// processes the first such call a worker thread made gave its chunk a less accurate result (a
// relative error near 2^-14, the size of an unrefined reciprocal estimate) while the calling
// thread's chunk was exact; every later call was exact. Two runs of the same seed then part ways
// at the first step (the measurements: docs/training.md, "Repeatable runs").
namespace hamgan {

// Has every thread of the current intra-op team call each of those functions once, in float32 and
// float64, on values nothing reads. Cheap (microseconds); call it at start-up and whenever the
// thread count grows.
void warm_up_vector_math();

}  // namespace hamgan
