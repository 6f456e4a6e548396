#include "core/config_file.h"

// The library's build settings, as its pkg-config file gives them: compiled, shared.
#define TOML_HEADER_ONLY 0
#define TOML_SHARED_LIB 1
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/field_text.h"
#include "core/errors.h"

namespace hamgan {
namespace {

std::string where(const std::string& source, const toml::source_region& r) {
  return source + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

// A scalar as option text; integral floats (1e9) as integers, so integer keys take them.
std::string scalar_text(const toml::node& n, const std::string& source, const std::string& key) {
  if (auto s = n.as_string()) return s->get();
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto b = n.as_boolean()) return b->get() ? "true" : "false";
  if (auto f = n.as_floating_point()) {
    const double v = f->get();
    if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9.007199254740992e15)
      return std::to_string(static_cast<long long>(v));
    return format_value(v);
  }
  throw ConfigError(where(source, n.source()) + ": " + key +
                    ": dates, times and nested arrays or tables are not config values; use a number, string or boolean");
}

// The key on line `line` (1-based) of `text`, if that line reads `key = ...`, so a
// value toml++ cannot read ("z_dim = seven") is named by its key.
std::string key_on_line(const std::string& text, int64_t line) {
  std::istringstream in(text);
  std::string l;
  for (int64_t i = 0; i < line && std::getline(in, l); ++i) {
  }
  const auto eq = l.find('=');
  if (eq == std::string::npos) return "";
  const auto first = l.find_first_not_of(" \t");
  const auto last = l.find_last_not_of(" \t", eq == 0 ? 0 : eq - 1);
  if (first == std::string::npos || last == std::string::npos || last < first || first >= eq) return "";
  const std::string key = l.substr(first, last - first + 1);
  const bool bare = key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
                    std::string::npos;
  return bare ? key : "";
}

// toml++'s description of a syntax error, with the fix.
std::string parse_problem(std::string what) {
  for (char& c : what) c = c == '\n' || c == '\r' ? ' ' : c;
  const std::string redefine = "cannot redefine existing ";
  const auto at = what.find(redefine);
  const auto quote = what.find('\'', at);
  if (at != std::string::npos && quote != std::string::npos && what.back() == '\'')
    return what.substr(quote) + " is set twice; keep one of the two";
  if (!what.empty() && what[0] == 'E') what[0] = 'e';  // "Error while parsing ..." mid-line
  return what + "; fix the TOML there (key = value; text in quotes)";
}

// Config tables are at most a few levels deep; a limit keeps "a.a.a...= 1" from
// building dotted names of quadratic total length.
constexpr int kMaxTableDepth = 16;

void flatten(const toml::table& table, const std::string& prefix, const std::string& source,
             std::vector<ConfigEntry>& out, int depth = 0) {
  for (const auto& [k, node] : table) {
    const std::string key(k.str());
    if (const auto* sub = node.as_table()) {
      if (depth == kMaxTableDepth)
        throw ConfigError(where(source, node.source()) + ": tables nested more than " +
                          std::to_string(kMaxTableDepth) + " deep; use flat keys (key = value)");
      flatten(*sub, prefix.empty() ? key : prefix + "." + key, source, out, depth + 1);
      continue;
    }
    ConfigEntry e;
    e.table = prefix;
    e.key = key;
    e.line = static_cast<int>(node.source().begin.line);
    if (const auto* arr = node.as_array()) {
      for (const auto& el : *arr) e.values.push_back(scalar_text(el, source, key));
    } else {
      e.is_bool = node.is_boolean();
      e.values.push_back(scalar_text(node, source, key));
    }
    out.push_back(std::move(e));
  }
}

}  // namespace

std::vector<ConfigEntry> parse_config_text(const std::string& text, const std::string& source_name) {
  toml::table table;
  try {
    table = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    std::string problem = parse_problem(std::string(e.description()));
    const std::string key = key_on_line(text, e.source().begin.line);
    if (!key.empty() && problem.find("is set twice") == std::string::npos)
      problem.insert(problem.find("; fix the TOML"), ", in the value of " + key);
    throw ConfigError(where(source_name, e.source()) + ": " + problem);
  }
  std::vector<ConfigEntry> entries;
  flatten(table, "", source_name, entries);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const ConfigEntry& a, const ConfigEntry& b) { return a.line < b.line; });  // file order
  return entries;
}

std::vector<ConfigEntry> read_config_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw ConfigError(path + ": is a directory; give a TOML file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": config file not found or unreadable; give the path of a readable TOML file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config_text(text.str(), path);
}

}  // namespace hamgan
