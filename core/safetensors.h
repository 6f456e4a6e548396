#pragma once
// The safetensors file format (huggingface/safetensors, "Format"): an 8-byte
// little-endian header length N, N bytes of JSON mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end)} (offsets into the data that
// follows, contiguous, in order) plus an optional "__metadata__" object of
// string values, then the raw little-endian tensor bytes. What Python's
// `safetensors.torch.load_file` reads and `save_file` writes.
#include <torch/torch.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hamgan {

struct SafetensorsFile {
  std::vector<std::pair<std::string, torch::Tensor>> tensors;  // in file order, CPU, contiguous
  std::map<std::string, std::string> metadata;                 // "__metadata__" (empty when absent)
};

// Writes `file` to `path` atomically (core/atomic_file.h). Tensors are written
// in the order given (moved to the CPU, made contiguous); dtypes F32, F64, F16,
// BF16, I64, I32, I16, I8, U8 and BOOL. Throws Error naming the path or tensor.
void write_safetensors(const std::string& path, const SafetensorsFile& file);

// Reads and validates the whole file: header length within the file, valid
// JSON, known dtypes, shapes matching byte ranges, ranges contiguous and
// covering the data exactly, no duplicate names. Any fault throws DataError in
// one line naming the path (and the tensor) and what was expected.
SafetensorsFile read_safetensors(const std::string& path);

// The same checks on bytes in memory (`what` names them in errors): for the fuzzer.
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& what);

}  // namespace hamgan
