// Every fuzz corpus file (tests/fuzz/corpus/<target>/: real seeds and each
// input a fuzzer ever found failing) replayed through its reader in the normal
// build: a clean result or a HamGAN error, never another exception or a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/readers.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

const std::string kCorpus = std::string(HAMGAN_SOURCE_DIR) + "/tests/fuzz/corpus";

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "" for a clean read, the HamGAN error's text otherwise; other exceptions escape.
std::string replay(const std::string& target, const std::string& bytes) {
  try {
    fuzz::readers().at(target)(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FuzzCorpus, EveryFileReadsCleanlyOrGivesAHamganError) {
  int files = 0;
  for (const auto& [target, reader] : fuzz::readers()) {
    const fs::path dir = fs::path(kCorpus) / target;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& e : fs::directory_iterator(dir)) {
      ++files;
      EXPECT_NO_THROW(replay(target, bytes_of(e.path()))) << e.path();
    }
  }
  EXPECT_GE(files, 15);
}

TEST(FuzzCorpus, TheSeedsOfRealFilesReadCleanly) {
  for (const auto& [target, reader] : fuzz::readers())
    for (const auto& e : fs::directory_iterator(fs::path(kCorpus) / target))
      if (e.path().filename().string().rfind("finding-", 0) != 0)
        EXPECT_EQ(replay(target, bytes_of(e.path())), "") << e.path();
}

// The findings, each with the error it now gets (before: the crash named).
TEST(FuzzFindings, ACheckpointWithADamagedCodeSectionIsACheckpointError) {
  // Before: TorchScript's ErrorReport escaped the reader (std::terminate).
  const std::string msg = replay("fuzz_checkpoint", bytes_of(kCorpus + "/fuzz_checkpoint/finding-crash-d068dcb8485814"));
  EXPECT_NE(msg.find("not a readable HamGAN checkpoint"), std::string::npos) << msg;
}

TEST(FuzzFindings, AnHdf5DatasetShorterThanItsShapeIsRefused) {
  // Before: HDF5 read past the end of its own buffer for a short compact dataset (ASan heap-buffer-overflow).
  const std::string msg = replay("fuzz_hdf5", bytes_of(kCorpus + "/fuzz_hdf5/finding-crash-2c05fd701aca91"));
  EXPECT_NE(msg.find("but its shape needs"), std::string::npos) << msg;
}

TEST(FuzzFindings, AnNpzMemberClaimingGigabytesIsRefusedBeforeAllocating) {
  // Before: the member's forged size was allocated (over 2 GB).
  const std::string msg = replay("fuzz_npz", bytes_of(kCorpus + "/fuzz_npz/finding-oom-01e4c84cada0eca8"));
  EXPECT_NE(msg.find("claims"), std::string::npos) << msg;
}

TEST(FuzzFindings, ACheckpointRecordClaimingGigabytesIsRefusedBeforeAllocating) {
  // Before: LibTorch allocated the record's forged size (4.3 GB).
  const std::string msg = replay("fuzz_checkpoint", bytes_of(kCorpus + "/fuzz_checkpoint/finding-oom-86d3167c5d8c7acd"));
  EXPECT_NE(msg.find("not a readable HamGAN checkpoint"), std::string::npos) << msg;
}

TEST(FuzzFindings, AnHdf5ImageShapeBeyondAnyImageIsRefused) {
  // Before: a forged image shape reached LibTorch's allocator (c10::Error escaped: std::terminate).
  const std::string msg = replay("fuzz_hdf5", bytes_of(kCorpus + "/fuzz_hdf5/finding-crash-15a870dc7b74aa"));
  EXPECT_NE(msg.find("are outside what a data set can hold"), std::string::npos) << msg;
}

TEST(FuzzFindings, AnLzfChunkSizeThatIsNotTheDatasetsIsRefused) {
  // Before: the LZF filter trusted the chunk size the file records and HDF5 copied a whole chunk out of a
  // smaller buffer (ASan heap-buffer-overflow).
  const std::string msg = replay("fuzz_hdf5", bytes_of(kCorpus + "/fuzz_hdf5/finding-crash-319baa83708515"));
  EXPECT_FALSE(msg.empty());
}

TEST(FuzzFindings, AnHdf5LabelTypeOfGigabytesIsRefused) {
  // Before: HDF5 allocated a conversion buffer for a forged 4 GB integer type (out of memory).
  const std::string msg = replay("fuzz_hdf5", bytes_of(kCorpus + "/fuzz_hdf5/finding-oom-eb41c5b426f650"));
  EXPECT_FALSE(msg.empty());
}

TEST(FuzzFindings, AnIdxHeaderPromisingGigabytesCostsOnlyWhatTheFileHolds) {
  // Before: the header's N x rows x cols (9.9 GB) was allocated before reading.
  const std::string msg = replay("fuzz_idx", bytes_of(kCorpus + "/fuzz_idx/finding-oom-34e78f514543fc3e"));
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

}  // namespace
}  // namespace hamgan
