#pragma once
// Config files are TOML 1.0, read by toml++ (a complete parser: literal
// strings, 1_000, 1e9, inline comments, arrays), flattened into the `key =
// value` entries the option parsers take. Errors name the file, line and
// column and what is wrong.
#include <string>
#include <vector>

namespace hamgan {

struct ConfigEntry {
  std::string table;                // "" at top level, else the dotted table name
  std::string key;
  std::vector<std::string> values;  // one for a scalar, one per element of an array
  bool is_bool = false;
  int line = 0;
};

// Throws ConfigError "<source_name>:<line>:<column>: <problem>" for text that
// is not TOML or holds what a config cannot (nested arrays, arrays of tables, dates).
std::vector<ConfigEntry> parse_config_text(const std::string& text, const std::string& source_name);
// parse_config_text of the file's contents; a missing or unreadable file is a ConfigError.
std::vector<ConfigEntry> read_config_file(const std::string& path);

}  // namespace hamgan
