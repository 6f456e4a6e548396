// `hamgan import` against hostile files and places: values no training writes,
// metadata that promise gigabytes, a directory as the file, and an --out that
// cannot be written. Each is one line naming the file or --out, and leaves nothing.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/import/import_fixture.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// Address space for a command that must refuse forged sizes before allocating: far below the gigabytes
// they promise, far above what the import of the fixture's tiny model needs.
const char* kMemoryLimit = "ulimit -v 6000000; ";

class ImportReliability : public test::ImportFixture {
 protected:
  // Imports `file` written to NAME.safetensors: exit 1, one line, which is returned; no run directory left.
  std::string refused(const SafetensorsFile& file, const std::string& name, const std::string& args = "") {
    const std::string path = dir_ + "/" + name + ".safetensors";
    write_safetensors(path, file);
    const std::string out_dir = dir_ + "/rel_" + name;
    std::string out;
    const std::string command = std::string(kMemoryLimit) + test::hamgan_bin() + " import " + path + " --out " + out_dir;
    EXPECT_EQ(test::run_command(command + args, &out), 1) << out;
    EXPECT_TRUE(test::one_error_line(out)) << out;
    EXPECT_FALSE(fs::exists(out_dir)) << out;
    return out;
  }
  static torch::Tensor& tensor(SafetensorsFile& f, const std::string& name) {
    for (auto& [n, t] : f.tensors)
      if (n == name) return t;
    ADD_FAILURE() << "no tensor " << name;
    return f.tensors.front().second;
  }
};

// Before: all three imported; sample then gave black images (exit 0) or advice about options that do not
// exist, and a fine-tune stopped as "diverged" on a run that never trained.
TEST_F(ImportReliability, NonFiniteOverflowingAndNegativeVarianceTensorsAreRefusedNamingTheTensor) {
  SafetensorsFile nan = exported(dir_ + "/run");
  tensor(nan, "G.linear.weight").view(-1)[3] = std::numeric_limits<float>::quiet_NaN();
  std::string out = refused(nan, "nan");
  EXPECT_NE(out.find("nan.safetensors: tensor 'G.linear.weight' holds nan at element 3"), std::string::npos) << out;

  SafetensorsFile wide = exported(dir_ + "/run");
  torch::Tensor& w = tensor(wide, "G.conv_out.weight");
  w = w.to(torch::kDouble);
  w.view(-1)[1] = 1e300;  // finite in F64, infinite once the model holds it in float32
  out = refused(wide, "overflow");
  EXPECT_NE(out.find("overflow.safetensors: tensor 'G.conv_out.weight' holds 1e+300 at element 1, beyond float32's "
                     "range"),
            std::string::npos)
      << out;

  SafetensorsFile negative = exported(dir_ + "/run");
  tensor(negative, "G.block2.bn1.running_var").view(-1)[0] = -0.5f;
  out = refused(negative, "negative_var");
  EXPECT_NE(out.find("negative_var.safetensors: tensor 'G.block2.bn1.running_var' holds a negative variance, -0.5 at "
                     "element 0"),
            std::string::npos)
      << out;
}

// Before: the networks were built from the metadata first: 23 GB for num_classes = 10000000 before the OOM
// killer, or under a memory limit the allocator's line, naming no file.
TEST_F(ImportReliability, MetadataSizesAreCheckedAgainstTheTensorsBeforeAnythingIsAllocated) {
  SafetensorsFile f = exported(dir_ + "/run");
  ModelConfig forged = model_config_from_text(f.metadata.at("model"));
  forged.num_classes = 10000000;
  f.metadata["model"] = model_config_to_text(forged);
  std::string out = refused(f, "classes");
  EXPECT_NE(out.find("classes.safetensors: its metadata say num_classes = 10000000, but tensor 'G.block1.bn1.gain' "
                     "has shape [10, 32]"),
            std::string::npos)
      << out;

  // No tensor shows d_ch when the file holds no D (import draws a fresh one): the bound on parameters holds it.
  ModelConfig wide_d = model_config_from_text(exported(dir_ + "/run").metadata.at("model"));
  wide_d.d_ch = 1000000;
  SafetensorsFile g_only = exported(dir_ + "/run");
  g_only.metadata["model"] = model_config_to_text(wide_d);
  out = refused(g_only, "wide_d");
  EXPECT_NE(out.find("wide_d.safetensors: its metadata say d_ch = 1000000, which makes a discriminator of"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("tensor 'D.block1.conv1.weight' alone would be [1000000, 1, 3, 3]"), std::string::npos) << out;

  // A model given by --config for a file without metadata is checked the same way, and named as --config's.
  SafetensorsFile bare = exported(dir_ + "/run");
  bare.metadata.clear();
  std::ofstream(dir_ + "/classes.toml") << test::kImportModelToml;
  out = refused(bare, "bare_classes", " --config " + dir_ + "/classes.toml --num_classes 10000000");
  EXPECT_NE(out.find("bare_classes.safetensors: --config says num_classes = 10000000, but tensor 'G.block1.bn1.gain'"),
            std::string::npos)
      << out;
}

// Before: the stream's raw "basic_filebuf::underflow error reading the file: Is a directory".
TEST_F(ImportReliability, ADirectoryAsTheFileIsNamedAsOne) {
  fs::create_directories(dir_ + "/a_dir.safetensors");
  std::string out;
  EXPECT_EQ(run("import " + dir_ + "/a_dir.safetensors --out " + dir_ + "/rel_dir", &out), 1) << out;
  EXPECT_TRUE(test::one_error_line(out)) << out;
  EXPECT_NE(out.find(dir_ + "/a_dir.safetensors is a directory, not a safetensors file"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ + "/rel_dir"));
}

// A tmpfs mounted read-only, or filled up: the line names --out, never the temporary sibling the run is
// built in (before: "filesystem error: cannot create directories: Read-only file system [DIR.import.PID/...]").
TEST_F(ImportReliability, AnOutOnAReadOnlyOrFullDiskIsNamedAsOutNotItsTemporary) {
  const std::string mnt = dir_ + "/mnt";
  fs::create_directories(mnt);
  if (::getuid() != 0 || ::mount("tmpfs", mnt.c_str(), "tmpfs", MS_RDONLY, "size=4m") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  std::string out;
  EXPECT_EQ(run("import " + dir_ + "/G.safetensors --out " + mnt + "/run", &out), 1) << out;
  ::umount2(mnt.c_str(), MNT_DETACH);
  EXPECT_TRUE(test::one_error_line(out)) << out;
  EXPECT_NE(out.find("import: cannot write the new run to --out " + mnt + "/run: Read-only file system"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find(".import."), std::string::npos) << out;

  ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k"), 0);
  test::run_command("dd if=/dev/zero of=" + mnt + "/filler bs=4k 2>/dev/null");  // until the disk is full
  EXPECT_EQ(run("import " + dir_ + "/G.safetensors --out " + mnt + "/run", &out), 1) << out;
  const bool left = fs::exists(mnt + "/run");
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(mnt)) entries.push_back(e.path().filename().string());
  ::umount2(mnt.c_str(), MNT_DETACH);
  EXPECT_TRUE(test::one_error_line(out)) << out;
  EXPECT_NE(out.find("import: cannot write the new run to --out " + mnt + "/run: "), std::string::npos) << out;
  EXPECT_NE(out.find("cannot write ("), std::string::npos) << out;
  EXPECT_EQ(out.find(".import."), std::string::npos) << out;
  EXPECT_FALSE(left);
  EXPECT_EQ(entries, std::vector<std::string>{"filler"});
}

}  // namespace
}  // namespace hamgan
