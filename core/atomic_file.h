#pragma once
// Write-to-temporary-then-rename, so a crash never leaves a half-written file
// where a good one was (checkpoints, prepared datasets, statistics files).
#include <functional>
#include <string>
#include <vector>

namespace hamgan {

// Calls write(tmp_path) with a temporary path next to `final_path`, fsyncs the
// result and renames it over `final_path`. If `write` throws, the temporary
// file is removed and the exception propagates; `final_path` is untouched.
void write_atomically(const std::string& final_path,
                      const std::function<void(const std::string& tmp_path)>& write);

// Writes `text` to `path` with write_atomically; a failed write throws Error naming the path.
void write_text_atomically(const std::string& path, const std::string& text);

// The temporary name used for `final_path` (same directory, so rename is atomic):
// `<final_path>.tmp.<pid>`.
std::string temporary_path_for(const std::string& final_path);

// Removes the temporaries in `dir` left by processes that no longer exist (a
// SIGKILL mid-write leaves one; at ImageNet sizes they fill disks) and returns
// their paths. Temporaries of live processes are left alone.
std::vector<std::string> remove_stale_temporaries(const std::string& dir);

}  // namespace hamgan
