#include "core/safetensors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/checked_file.h"
#include "core/errors.h"

namespace hamgan {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // the reference reader's own limit
constexpr uint64_t kMaxElements = 1ull << 40;       // per shape, counting only its non-zero sizes

struct DtypeName {
  torch::ScalarType type;
  const char* name;
};
constexpr DtypeName kDtypes[] = {{torch::kFloat, "F32"},  {torch::kDouble, "F64"}, {torch::kHalf, "F16"},
                                 {torch::kBFloat16, "BF16"}, {torch::kLong, "I64"},  {torch::kInt, "I32"},
                                 {torch::kShort, "I16"},  {torch::kChar, "I8"},    {torch::kByte, "U8"},
                                 {torch::kBool, "BOOL"}};

const char* dtype_name(torch::ScalarType t, const std::string& path, const std::string& tensor) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.name;
  throw Error(path + ": tensor '" + tensor + "' has dtype " + c10::toString(t) +
              ", which safetensors files here do not hold (F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

uint64_t read_le64(const std::string& bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return v;
}

}  // namespace

void write_safetensors(const std::string& path, const SafetensorsFile& file) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::vector<torch::Tensor> data;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : file.tensors) {
    if (name == "__metadata__" || !names.insert(name).second)
      throw Error(path + ": tensor name '" + name + "' is reserved or given twice");
    const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
    const uint64_t end = offset + t.nbytes();
    header[name] = {{"dtype", dtype_name(t.scalar_type(), path, name)}, {"shape", t.sizes().vec()},
                    {"data_offsets", {offset, end}}};
    data.push_back(t);
    offset = end;
  }
  // Metadata are text; bytes that are not UTF-8 (a path, say) become U+FFFD rather than an unwritable header.
  std::string json = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  json.append((8 - json.size() % 8) % 8, ' ');  // the data then starts 8-byte aligned, as Python's writer does
  write_atomically(path, [&](const std::string& tmp) {
    CheckedFileWriter out(tmp, path);
    unsigned char length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(uint64_t(json.size()) >> (8 * i));
    out.write(length, 8);
    out.write(json.data(), json.size());
    for (const auto& t : data) out.write(t.data_ptr(), t.nbytes());  // little-endian, as every host built for
    out.finish();
  });
}

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return DataError(what + ": not a valid safetensors file (" + why + "); write it again with hamgan export or "
                            "safetensors.torch.save_file");
  };
  if (bytes.size() < 8) throw bad(std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
  const uint64_t n = read_le64(bytes);
  if (n > kMaxHeaderBytes) throw bad("header length " + std::to_string(n) + " exceeds the 100 MB limit");
  if (n > bytes.size() - 8)
    throw bad("header length " + std::to_string(n) + " exceeds the file's " + std::to_string(bytes.size()) + " bytes");
  // JSON parsers keep the last of repeated keys; a repeated tensor name would silently drop data.
  std::vector<std::set<std::string>> open_objects;
  std::string repeated;
  const nlohmann::json::parser_callback_t no_repeats = [&](int, nlohmann::json::parse_event_t event,
                                                           nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) open_objects.emplace_back();
    if (event == E::object_end) open_objects.pop_back();
    if (event == E::key && !open_objects.empty() && !open_objects.back().insert(parsed.get<std::string>()).second &&
        repeated.empty())
      repeated = parsed.get<std::string>();
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(n), no_repeats);
  } catch (const nlohmann::json::exception&) {
    throw bad("its header is not JSON");
  }
  if (!repeated.empty()) throw bad("the name '" + repeated + "' appears twice in its header");
  if (!header.is_object()) throw bad("its header is not a JSON object");
  SafetensorsFile file;
  struct Entry {
    std::string name;
    torch::ScalarType type;
    std::vector<int64_t> shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  const uint64_t data_size = bytes.size() - 8 - n;
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) throw bad("__metadata__ is not an object");
      for (const auto& [k, s] : v.items()) {
        if (!s.is_string()) throw bad("metadata '" + k + "' is not a string");
        file.metadata[k] = s.get<std::string>();
      }
      continue;
    }
    const auto dtype = v.is_object() ? v.find("dtype") : v.end();
    const auto shape = v.is_object() ? v.find("shape") : v.end();
    const auto offs = v.is_object() ? v.find("data_offsets") : v.end();
    if (!v.is_object() || dtype == v.end() || shape == v.end() || offs == v.end() || !dtype->is_string() ||
        !shape->is_array() || !offs->is_array() || offs->size() != 2 || !(*offs)[0].is_number_unsigned() ||
        !(*offs)[1].is_number_unsigned())
      throw bad("tensor '" + name + "' lacks dtype, shape or two data_offsets");
    Entry e{name, torch::kFloat, {}, (*offs)[0].get<uint64_t>(), (*offs)[1].get<uint64_t>()};
    bool known = false;
    for (const auto& d : kDtypes)
      if (dtype->get<std::string>() == d.name) e.type = d.type, known = true;
    if (!known) throw bad("tensor '" + name + "' has unknown dtype " + dtype->get<std::string>());
    // The product of the non-zero sizes is bounded before it can overflow, so an empty tensor of absurd
    // shape is refused too rather than handed to the allocator.
    uint64_t nonzero = 1;
    bool empty = false;
    for (const auto& d : *shape) {
      if (!d.is_number_unsigned()) throw bad("tensor '" + name + "' has a shape that is not a list of sizes");
      const uint64_t size = d.get<uint64_t>();
      if (size > 0 && nonzero > kMaxElements / size)
        throw bad("tensor '" + name + "' has a shape of more than 2^40 elements");
      nonzero *= size > 0 ? size : 1;
      empty = empty || size == 0;
      e.shape.push_back(static_cast<int64_t>(size));
    }
    const uint64_t count = empty ? 0 : nonzero;
    if (count > data_size) throw bad("tensor '" + name + "' has more elements than the file has bytes");
    const uint64_t expected = count * c10::elementSize(e.type);
    if (e.end < e.begin)
      throw bad("tensor '" + name + "' ends at byte " + std::to_string(e.end) + ", before its start " +
                std::to_string(e.begin));
    if (e.end - e.begin != expected)
      throw bad("tensor '" + name + "' has " + std::to_string(e.end - e.begin) + " bytes for shape " +
                shape_text(e.shape) + " " + dtype->get<std::string>() + " (" + std::to_string(expected) + " expected)");
    entries.push_back(std::move(e));
  }
  // The data are the tensors back to back, in offset order, with nothing before, between or after.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  for (const auto& e : entries) {
    if (e.begin != at) throw bad("tensor '" + e.name + "' starts at byte " + std::to_string(e.begin) + ", not " +
                                 std::to_string(at) + " (overlapping or gapped data)");
    at = e.end;
  }
  if (at != data_size)
    throw bad("the tensors cover " + std::to_string(at) + " of the " + std::to_string(data_size) + " data bytes");
  const char* data = bytes.data() + 8 + n;
  for (const auto& e : entries) {
    torch::Tensor t = torch::empty(e.shape, torch::TensorOptions().dtype(e.type));
    if (e.end > e.begin) std::memcpy(t.data_ptr(), data + e.begin, e.end - e.begin);
    file.tensors.emplace_back(e.name, t);
  }
  return file;
}

SafetensorsFile read_safetensors(const std::string& path) {
  // A directory opens as a stream on Linux and only fails inside the first read, with the stream's own text.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DataError(path + " is a directory, not a safetensors file; give the .safetensors file itself (hamgan "
                           "export --out F.safetensors writes one)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path + ": cannot open the safetensors file; check the path");
  std::string bytes;
  try {  // libstdc++'s filebuf throws on a failed read(2) whatever the stream's exception mask
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    in.setstate(std::ios::badbit);
  }
  if (in.bad()) throw DataError(path + ": read failed; check the file and the disk");
  return parse_safetensors(bytes, path);
}

}  // namespace hamgan
