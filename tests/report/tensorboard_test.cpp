// TensorBoard event files: the CRC against published vectors and a file read back
// through tensorboard's own reader.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "data/image_io.h"
#include "gan/report/tensorboard.h"
#include "tests/common/report_test_util.h"

namespace hamgan {
namespace {

TEST(TensorBoard, Crc32cMatchesPublishedTestVectors) {
  // RFC 3720 B.4 / the CRC catalogue's check value for CRC-32C.
  const std::string check = "123456789";
  EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
  const std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c(inc.data(), inc.size()), 0x46DD794Eu);
  const uint32_t c = crc32c(check.data(), check.size());
  EXPECT_EQ(masked_crc32c(check.data(), check.size()), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

TEST(TensorBoard, EventFileReadsBackThroughTensorboardsOwnReader) {
  if (test::run_command(HAMGAN_PYTHON " -c 'import tensorboard'") != 0) REFERENCE_MISSING("python tensorboard not installed");
  const std::string dir = test::temp_dir("tb");
  std::string png_path = dir + "/img.png";
  save_png(torch::arange(2 * 3 * 5, torch::kUInt8).reshape({3, 2, 5}), png_path);
  const std::string png = test::file_contents(png_path);
  std::string event_file;
  {
    TensorBoardWriter w(dir + "/run");
    w.add_scalar("loss/d", 1.25, 7);
    w.add_scalar("loss/g", -3.5e-3, 123456789012LL);
    w.add_image("samples", png, 2, 5, 3, 8);
    w.flush();
    event_file = w.path();
  }
  EXPECT_NE(std::filesystem::path(event_file).filename().string().find("tfevents"), std::string::npos);
  std::string out;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("read_tfevents.py") + " " + event_file, &out), 0) << out;
  std::ostringstream want;
  want << std::setprecision(17) << "version brain.Event:2\n"
       << "scalar 7 loss/d 1.25\n"
       << "scalar 123456789012 loss/g " << static_cast<double>(-3.5e-3f) << "\n"
       << "image 8 samples 2 5 3 " << png.size() << "\n";
  // The script prints floats with repr(); compare numerically line by line.
  std::istringstream got_lines(out), want_lines(want.str());
  std::string g, w;
  while (std::getline(want_lines, w)) {
    ASSERT_TRUE(static_cast<bool>(std::getline(got_lines, g))) << out;
    std::istringstream gs(g), ws(w);
    std::string gt, wt;
    while (ws >> wt) {
      ASSERT_TRUE(static_cast<bool>(gs >> gt)) << g;
      char* e1 = nullptr;
      char* e2 = nullptr;
      const double a = std::strtod(gt.c_str(), &e1), b = std::strtod(wt.c_str(), &e2);
      if (*e1 == '\0' && *e2 == '\0' && !gt.empty()) EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(b))) << g;
      else EXPECT_EQ(gt, wt) << g;
    }
  }
  // A flipped payload byte must be caught by the reader's CRC check.
  std::string bytes = test::file_contents(event_file);
  bytes[bytes.size() - 10] ^= 0x20;
  {
    std::ofstream f(event_file, std::ios::binary | std::ios::trunc);
    f << bytes;
  }
  EXPECT_NE(test::run_command(HAMGAN_PYTHON " " + test::python_script("read_tfevents.py") + " " + event_file), 0);
}

}  // namespace
}  // namespace hamgan
