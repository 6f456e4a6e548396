// HamGAN's safetensors reader and writer against the safetensors library's own
// (tests/python/safetensors_reference.py), and damaged files refused in one line.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <string>

#include "core/errors.h"
#include "core/safetensors.h"
#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

TEST(Safetensors, ReadsWhatTheLibraryWritesAndTheLibraryReadsWhatItWrites) {
  const std::string dir = test::scratch_dir("export", "safetensors_roundtrip");
  RUN_REFERENCE("safetensors_reference.py", "write " + dir + "/py.safetensors");
  const SafetensorsFile py = read_safetensors(dir + "/py.safetensors");
  EXPECT_EQ(py.metadata.at("format"), "hamgan");
  EXPECT_EQ(py.metadata.at("note"), "\xc3\xbcn\xc3\xaf" "code");
  std::map<std::string, torch::Tensor> t(py.tensors.begin(), py.tensors.end());
  ASSERT_EQ(t.size(), 10u);
  EXPECT_EQ(t.at("scalar").dim(), 0);
  EXPECT_EQ(t.at("scalar").item<float>(), 2.5f);
  EXPECT_EQ(t.at("empty").sizes(), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(torch::equal(t.at("ids"), torch::arange(-3, 9, torch::kLong).reshape({3, 4})));
  EXPECT_EQ(t.at("half").scalar_type(), torch::kHalf);
  EXPECT_EQ(t.at("brain").scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(t.at("flags"), torch::tensor({true, false, true})));
  EXPECT_TRUE(torch::equal(t.at("bytes"), torch::arange(250, 256, torch::kLong).to(torch::kByte)));
  // Written back by HamGAN, in another order, then read by the library: equal to its own.
  SafetensorsFile back;
  back.metadata = py.metadata;
  for (auto it = py.tensors.rbegin(); it != py.tensors.rend(); ++it) back.tensors.push_back(*it);
  write_safetensors(dir + "/cpp.safetensors", back);
  RUN_REFERENCE("safetensors_reference.py", "check " + dir + "/cpp.safetensors");
  // The header is padded with spaces to a multiple of 8 bytes, so the data start aligned, as the library pads.
  std::ifstream in(dir + "/cpp.safetensors", std::ios::binary);
  unsigned char length[8];
  in.read(reinterpret_cast<char*>(length), 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | length[i];
  std::string header(n, '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}')) << header;
  // A name given twice is refused when writing, naming it.
  SafetensorsFile twice;
  twice.tensors = {{"w", torch::zeros({1})}, {"w", torch::ones({1})}};
  EXPECT_THROW(write_safetensors(dir + "/twice.safetensors", twice), Error);
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

std::string file_of(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

TEST(Safetensors, DamagedFilesAreOneLineNamingTheFile) {
  const std::string good_header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  const std::string data(8, '\1');
  EXPECT_NO_THROW(parse_safetensors(file_of(good_header, data), "ok.safetensors"));
  const std::pair<std::string, std::string> cases[] = {
      {"", "shorter than the 8-byte header length"},
      {le64(1 << 20) + "{}", "exceeds the file"},
      {file_of("{not json", ""), "not JSON"},
      {file_of(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", data), "unknown dtype Q7"},
      {file_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data), "has 8 bytes for shape [3] F32"},
      {file_of(good_header, data.substr(0, 4)), "cover 8 of the 4 data bytes"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],)"
               R"("data_offsets":[0,4]}})",
               data),
       "overlapping or gapped"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data), "starts at byte 4"},
      {file_of(good_header, data + "xx"), "cover 8 of the 10 data bytes"},
      {file_of(R"({"__metadata__":{"k":5}})", ""), "metadata 'k' is not a string"},
      {le64(200ull << 20) + "{}", "exceeds the 100 MB limit"},
      {file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],)"
               R"("data_offsets":[4,8]}})",
               data),
       "the name 'a' appears twice"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data),
       "ends at byte 0, before its start 8"},
      {file_of(R"({"a":{"dtype":"U8","shape":[0,4294967296,4294967296],"data_offsets":[0,0]}})", ""),
       "more than 2^40 elements"},
      {file_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data), "not a list of sizes"},
      {file_of(R"([1,2])", ""), "not a JSON object"},
  };
  for (const auto& [bytes, expected] : cases) {
    try {
      parse_safetensors(bytes, "G.safetensors");
      ADD_FAILURE() << "accepted a file that should fail with: " << expected;
    } catch (const DataError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind("G.safetensors: not a valid safetensors file (", 0), 0u) << m;
      EXPECT_NE(m.find(expected), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
  EXPECT_THROW(read_safetensors(test::scratch_dir("export", "missing") + "/none.safetensors"), DataError);
}

}  // namespace
}  // namespace hamgan
