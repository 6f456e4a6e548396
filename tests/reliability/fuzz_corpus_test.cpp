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
    for (const auto& e : fs::directory_iterator(fs::path(kCorpus) / target)) {
      if (e.path().filename().string().rfind("finding-", 0) == 0) continue;
      EXPECT_EQ(replay(target, bytes_of(e.path())), "") << e.path();
    }
}

// The findings, each with the one-line error it now gets (before: the crash named). The
// readers copy each input to a scratch file (tests/fuzz/readers.h), whose path starts the line.
std::string finding_error(const std::string& target, const std::string& finding) {
  return replay(target, bytes_of(kCorpus + "/" + target + "/" + finding));
}

const std::string kUnreadableCheckpoint =
    ": not a readable HamGAN checkpoint (truncated or corrupt archive); use an earlier checkpoint of the run";

TEST(FuzzFindings, ACheckpointWithADamagedCodeSectionIsACheckpointError) {
  // Before: TorchScript's ErrorReport escaped the reader (std::terminate).
  EXPECT_EQ(finding_error("fuzz_checkpoint", "finding-crash-d068dcb8485814"),
            fuzz::scratch_path("input.pt") + kUnreadableCheckpoint);
}

TEST(FuzzFindings, AnHdf5DatasetShorterThanItsShapeIsRefused) {
  // Before: HDF5 read past the end of its own buffer for a short compact dataset (ASan heap-buffer-overflow).
  EXPECT_EQ(finding_error("fuzz_hdf5", "finding-crash-2c05fd701aca91"),
            fuzz::scratch_path("input.hdf5") +
                ": \"imgs\" stores 65 bytes in chunk 0 but its shape needs 384 (file truncated or damaged)");
}

TEST(FuzzFindings, AnNpzMemberClaimingGigabytesIsRefusedBeforeAllocating) {
  // Before: the member's forged size was allocated (over 2 GB).
  EXPECT_EQ(finding_error("fuzz_npz", "finding-oom-01e4c84cada0eca8"),
            fuzz::scratch_path("input.npz") +
                ": member sigma.npy claims 1355335952 bytes from 689 stored (corrupt or not an .npz written by numpy)");
}

TEST(FuzzFindings, ACheckpointRecordClaimingGigabytesIsRefusedBeforeAllocating) {
  // Before: LibTorch allocated the record's forged size (4.3 GB).
  EXPECT_EQ(finding_error("fuzz_checkpoint", "finding-oom-86d3167c5d8c7acd"),
            fuzz::scratch_path("input.pt") + kUnreadableCheckpoint);
}

TEST(FuzzFindings, AnHdf5ImageShapeBeyondAnyImageIsRefused) {
  // Before: a forged image shape reached LibTorch's allocator (c10::Error escaped: std::terminate).
  EXPECT_EQ(finding_error("fuzz_hdf5", "finding-crash-15a870dc7b74aa"),
            fuzz::scratch_path("input.hdf5") +
                ": images of 4398046511112x8 are outside what a data set can hold (at most 8192x8192 pixels; damaged "
                "header?)");
}

TEST(FuzzFindings, AnHdf5LabelTypeOfMegabytesIsRefused) {
  // Before: the LZF filter trusted the chunk size the file records and HDF5 copied a whole chunk out of a
  // smaller buffer (ASan heap-buffer-overflow). The file's labels also carry a forged type (4 MB integers),
  // and that check, made when the file is opened, refuses it first.
  EXPECT_EQ(finding_error("fuzz_hdf5", "finding-crash-319baa83708515"),
            fuzz::scratch_path("input.hdf5") + ": \"labels\" must hold integers of at most 64 bits");
}

TEST(FuzzFindings, AnHdf5ChunkOfGigabytesIsRefusedBeforeItIsAllocated) {
  // Before: HDF5 allocated a buffer for a forged 4 GB chunk (out of memory). The file forges the
  // labels' stored chunk size (0xFF000000 bytes): refused before HDF5 allocates it.
  EXPECT_EQ(finding_error("fuzz_hdf5", "finding-oom-eb41c5b426f650"),
            fuzz::scratch_path("input.hdf5") +
                ": \"labels\" stores 4278190080 bytes in chunk 0 but its shape needs 24 (file truncated or damaged)");
}

TEST(FuzzFindings, AnIdxHeaderPromisingGigabytesCostsOnlyWhatTheFileHolds) {
  // Before: the header's N x rows x cols (9.9 GB) was allocated before reading.
  EXPECT_EQ(finding_error("fuzz_idx", "finding-oom-34e78f514543fc3e"),
            fuzz::scratch_path("idx") + "/train-images-idx3-ubyte.gz: file is truncated (ends inside the data)");
}

}  // namespace
}  // namespace hamgan
