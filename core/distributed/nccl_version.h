#pragma once
// The NCCL this binary was compiled against must be the release the process loads (LibTorch's, from its
// nvidia-nccl wheel): ProcessGroupNCCL keeps NCCL's ncclConfig_t by value, and that struct grows between
// releases, so a header from another NCCL makes c10d write past what our code allocated.
// docs/building.md, "NCCL".
#include <string>

namespace hamgan {

// NCCL_VERSION_CODE of the nccl.h this build used; 0 in a build without NCCL.
int nccl_header_version();
// ncclGetVersion() of the NCCL loaded in this process; 0 when none is. Needs no GPU.
int nccl_loaded_version();
// "2.29.7" from a version code (major*10000 + minor*100 + patch since NCCL 2.9, major*1000 + … before).
std::string nccl_version_text(int code);
// Throws ConfigError, one line naming both releases and the fix, unless header == loaded.
void require_matching_nccl(int header, int loaded);

}  // namespace hamgan
