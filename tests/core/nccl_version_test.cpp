// The NCCL compiled in against the NCCL loaded: checked on CPU (ncclGetVersion needs no GPU), against
// the version PyTorch's Python side reports for the same library, and the refusal of a mismatch.
#include <gtest/gtest.h>

#include <string>

#include "core/distributed/nccl_version.h"
#include "core/errors.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

TEST(NcclVersion, BuildHasNcclWheneverLibTorchLoadsIt) {
  // A CUDA LibTorch loads NCCL at start-up; a build that compiled NCCL out beside it is the silent failure.
  const int loaded = nccl_loaded_version();
  if (loaded == 0) GTEST_SKIP() << "this LibTorch loads no NCCL (a CPU build)";
  EXPECT_EQ(nccl_header_version(), loaded) << "compiled against " << nccl_version_text(nccl_header_version())
                                           << ", loaded " << nccl_version_text(loaded);
}

TEST(NcclVersion, LoadedVersionIsTheOnePytorchReports) {
  const int loaded = nccl_loaded_version();
  if (loaded == 0) GTEST_SKIP() << "this LibTorch loads no NCCL (a CPU build)";
  std::string out;
  const int rc = test::run_command(HAMGAN_PYTHON " -W ignore -c \"import torch; "
                                   "print('.'.join(map(str, torch.cuda.nccl.version())))\"", &out);
  if (rc != 0) REFERENCE_MISSING("torch.cuda.nccl.version() failed: " << out);
  EXPECT_EQ(nccl_version_text(loaded) + "\n", out);
}

TEST(NcclVersion, VersionCodesReadAsNcclDefinesThem) {
  EXPECT_EQ(nccl_version_text(22907), "2.29.7");  // NCCL_VERSION(2, 29, 7) since 2.9: x*10000 + y*100 + z
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");  // before 2.9: x*1000 + y*100 + z
}

TEST(NcclVersion, MismatchIsRefusedInOneLineNamingBoth) {
  EXPECT_NO_THROW(require_matching_nccl(22907, 22907));
  try {
    require_matching_nccl(22809, 22907);
    FAIL() << "a mismatch was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("compiled against NCCL 2.28.9"), std::string::npos) << what;
    EXPECT_NE(what.find("loaded NCCL 2.29.7"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(require_matching_nccl(0, 22907), ConfigError);  // NCCL compiled out beside a loaded one
  EXPECT_THROW(require_matching_nccl(22907, 0), ConfigError);
}

}  // namespace
}  // namespace hamgan
