#include "core/build_info.h"

namespace hamgan {
namespace {

std::string& stored_command_line() {
  static std::string line;
  return line;
}

std::vector<std::string>& stored_arguments() {
  static std::vector<std::string> args;
  return args;
}

// Single quotes around anything a shell would split or expand.
std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") ==
                          std::string::npos)
    return arg;
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

void set_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quoted(argv[i]);
  stored_command_line() = line;
  stored_arguments().assign(argv, argv + argc);
}

const std::string& command_line() { return stored_command_line(); }
const std::vector<std::string>& command_arguments() { return stored_arguments(); }

}  // namespace hamgan
