#pragma once
// What a run records about the program that made it (provenance): the source
// revision it was built from and the command line it was started with.
#include <string>
#include <vector>

namespace hamgan {

// The git revision of the source tree at build time ("unknown" outside a
// checkout) and whether tracked files differed from it; generated into the
// build directory by scripts/git_revision.cmake.
const char* build_git_revision();
bool build_git_dirty();

// The command line of this process, as main() recorded it ("" in library use).
void set_command_line(int argc, const char* const* argv);
const std::string& command_line();
const std::vector<std::string>& command_arguments();  // argv as given, program name first

}  // namespace hamgan
