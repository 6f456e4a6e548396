// libFuzzer entry for one reader of outside bytes (see readers.h and scripts/fuzz.sh).
#include "tests/fuzz/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return hamgan::fuzz::expect_project_errors_only([&] { hamgan::fuzz::read_safetensors_input(data, size); });
}
