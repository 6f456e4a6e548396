// .npy/.npz reading and writing (format notes in npz.h).
#include "metrics/npz.h"

#include <filesystem>

#include <zip.h>

#include <cstring>
#include <memory>
#include <regex>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace hamgan {
namespace {

const char kMagic[] = "\x93NUMPY";

struct DtypeInfo {
  torch::ScalarType type;
  int64_t bytes;
};

bool dtype_from_descr(std::string d, DtypeInfo* out) {
  if (d.size() < 2) return false;
  char order = d[0];
  std::string code = d.substr(1);
  if (order == '>' && code != "i1" && code != "u1" && code != "b1") return false;  // big-endian
  static const std::map<std::string, DtypeInfo> table = {
      {"f8", {torch::kFloat64, 8}}, {"f4", {torch::kFloat32, 4}}, {"f2", {torch::kFloat16, 2}},
      {"i8", {torch::kInt64, 8}},   {"i4", {torch::kInt32, 4}},   {"i2", {torch::kInt16, 2}},
      {"i1", {torch::kInt8, 1}},    {"u1", {torch::kUInt8, 1}},   {"b1", {torch::kBool, 1}}};
  auto it = table.find(code);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

std::string descr_of(torch::ScalarType t) {
  switch (t) {
    case torch::kFloat64: return "<f8";
    case torch::kFloat32: return "<f4";
    case torch::kFloat16: return "<f2";
    case torch::kInt64: return "<i8";
    case torch::kInt32: return "<i4";
    case torch::kInt16: return "<i2";
    case torch::kInt8: return "|i1";
    case torch::kUInt8: return "|u1";
    case torch::kBool: return "|b1";
    default: throw DataError(std::string("npy: cannot store dtype ") + c10::toString(t));
  }
}

// The value following 'key': in the header dict, as raw text up to the next
// top-level comma (shape tuples keep their commas).
std::string header_value(const std::string& header, const std::string& key, const std::string& what) {
  auto pos = header.find("'" + key + "'");
  if (pos == std::string::npos) throw DataError(what + ": npy header has no '" + key + "'");
  pos = header.find(':', pos);
  if (pos == std::string::npos) throw DataError(what + ": malformed npy header");
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  if (pos < header.size() && header[pos] == '(') {
    auto end = header.find(')', pos);
    if (end == std::string::npos) throw DataError(what + ": malformed npy shape");
    return header.substr(pos, end - pos + 1);
  }
  auto end = header.find_first_of(",}", pos);
  std::string v = header.substr(pos, end - pos);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

}  // namespace

torch::Tensor parse_npy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    throw DataError(what + ": not a .npy array (bad magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw DataError(what + ": truncated .npy header");
    for (int i = 0; i < 4; ++i) header_len |= size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    throw DataError(what + ": unsupported .npy version " + std::to_string(major));
  }
  if (bytes.size() < offset + header_len) throw DataError(what + ": truncated .npy header");
  std::string header = bytes.substr(offset, header_len);
  offset += header_len;

  std::string descr = header_value(header, "descr", what);
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
    throw DataError(what + ": unsupported npy dtype " + descr + " (structured arrays are not supported)");
  descr = descr.substr(1, descr.size() - 2);
  DtypeInfo dt;
  if (!dtype_from_descr(descr, &dt))
    throw DataError(what + ": unsupported npy dtype '" + descr + "' (little-endian float/int/uint8/bool only)");
  bool fortran = header_value(header, "fortran_order", what) == "True";

  std::vector<int64_t> shape;
  std::string shape_text = header_value(header, "shape", what);
  static const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), number); it != std::sregex_iterator(); ++it)
    shape.push_back(std::stoll(it->str()));
  int64_t count = 1;
  for (auto s : shape) count *= s;
  if (bytes.size() - offset != size_t(count * dt.bytes))
    throw DataError(what + ": .npy data has " + std::to_string(bytes.size() - offset) + " bytes, header promises " +
                    std::to_string(count * dt.bytes));

  // Fortran order = C order of the reversed shape, transposed back.
  std::vector<int64_t> stored_shape = shape;
  if (fortran) std::reverse(stored_shape.begin(), stored_shape.end());
  auto t = torch::empty(stored_shape, torch::TensorOptions().dtype(dt.type));
  if (count) std::memcpy(t.data_ptr(), bytes.data() + offset, count * dt.bytes);
  if (fortran && shape.size() > 1) {
    std::vector<int64_t> perm(shape.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = int64_t(perm.size() - 1 - i);
    t = t.permute(perm).contiguous();
  }
  return t;
}

std::string format_npy(const torch::Tensor& array) {
  auto a = array.to(torch::kCPU).contiguous();
  std::string shape = "(";
  for (int64_t i = 0; i < a.dim(); ++i) shape += std::to_string(a.size(i)) + (a.dim() == 1 ? "," : (i + 1 < a.dim() ? ", " : ""));
  shape += ")";
  std::string dict = "{'descr': '" + descr_of(a.scalar_type()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so magic + version + length + dict + '\n' is a multiple of 64 (numpy >= 1.x convention).
  size_t prefix = 10;
  bool v2 = dict.size() + 1 + prefix > 65535;
  if (v2) prefix = 12;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict += std::string(padded - total, ' ') + "\n";
  std::string out(kMagic, 6);
  out += char(v2 ? 2 : 1);
  out += char(0);
  size_t hl = dict.size();
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out += char((hl >> (8 * i)) & 0xff);
  out += dict;
  size_t nbytes = a.numel() * a.element_size();
  out.append(static_cast<const char*>(a.data_ptr()), nbytes);
  return out;
}

NpzArrays read_npz(const std::string& path, const std::vector<std::string>& only) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string msg = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    throw DataError(path + ": cannot open as .npz (" + msg + ")");
  }
  std::unique_ptr<zip_t, decltype(&zip_discard)> guard(za, &zip_discard);
  NpzArrays out;
  zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    std::string name = zip_get_name(za, i, 0);
    if (name.size() < 4 || name.substr(name.size() - 4) != ".npy") continue;
    std::string key = name.substr(0, name.size() - 4);
    if (!only.empty() && std::find(only.begin(), only.end(), key) == only.end()) continue;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
      throw DataError(path + ": cannot stat member " + name);
    // The header's size is allocated below: bound it by what the stored bytes can
    // expand to (deflate's 1032:1), so a forged header cannot ask for gigabytes.
    constexpr uint64_t kDeflateMaxRatio = 1032;
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(path, ec);
    const uint64_t stored = std::min<uint64_t>((st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0, ec ? 0 : file_bytes);
    if (st.size > stored * kDeflateMaxRatio + 4096)
      throw DataError(path + ": member " + name + " claims " + std::to_string(st.size) + " bytes from " +
                      std::to_string(stored) + " stored (corrupt or not an .npz written by numpy)");
    zip_file_t* f = zip_fopen_index(za, i, 0);
    if (!f) throw DataError(path + ": cannot read member " + name + " (" + zip_strerror(za) + ")");
    std::string bytes(st.size, '\0');
    zip_int64_t got = zip_fread(f, bytes.data(), st.size);
    zip_fclose(f);
    if (got != zip_int64_t(st.size)) throw DataError(path + ": member " + name + " is truncated or corrupt");
    out[key] = parse_npy(bytes, path + ":" + name);
  }
  return out;
}

void write_npz(const std::string& path, const NpzArrays& arrays, bool compressed) {
  std::vector<std::string> blobs;
  blobs.reserve(arrays.size());
  for (auto& [k, v] : arrays) blobs.push_back(format_npy(v));
  write_atomically(path, [&](const std::string& tmp) {
    int err = 0;
    zip_t* za = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!za) throw DataError(path + ": cannot create .npz (libzip error " + std::to_string(err) + ")");
    size_t i = 0;
    for (auto& [key, value] : arrays) {
      const std::string& blob = blobs[i++];
      zip_source_t* src = zip_source_buffer(za, blob.data(), blob.size(), 0);
      zip_int64_t idx = src ? zip_file_add(za, (key + ".npy").c_str(), src, ZIP_FL_OVERWRITE) : -1;
      if (idx < 0) {
        if (src) zip_source_free(src);
        std::string msg = zip_strerror(za);
        zip_discard(za);
        throw DataError(path + ": cannot add " + key + ".npy (" + msg + ")");
      }
      zip_set_file_compression(za, idx, compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    }
    if (zip_close(za) != 0) {
      std::string msg = zip_strerror(za);
      zip_discard(za);
      throw DataError(path + ": cannot write .npz (" + msg + ")");
    }
  });
}

}  // namespace hamgan
