// Registry of context blocks by name (docs/modules.md, "Context blocks"): each
// entry is a name, a factory, the block's option fields and its MAC count.
// Built-ins are added on first use from this file, never by static registrars
// (which a static library would drop at link time).
#include <mutex>
#include <utility>

#include "core/errors.h"
#include "modules/attention.h"
#include "modules/builtin_blocks.h"
#include "modules/context_block.h"
#include "modules/context_block_options.h"
#include "modules/ea_block.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

struct Entry {
  std::string name;
  ContextBlockFactory factory;
  std::vector<FieldSpec> options;
  ContextBlockMacs macs;  // empty: not counted
};

struct Registry {
  std::mutex mutex;
  std::vector<Entry> entries;  // registration order
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    reg->entries = {
        {"none", make_none_block, {}, none_block_macs},
        {"sa", make_sa_block, {}, sa_block_macs},
        {"ylg", make_ylg_block, {}, ylg_block_macs},
        {"ham", make_ham_block, ham_block_options(), ham_block_macs},
        {"sa_dense", make_sa_dense_block, {}, sa_dense_block_macs},
        {"ea", make_ea_block, ea_block_options(), ea_block_macs},
    };
    return reg;
  }();
  return *r;
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> context_block_names() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& e : r.entries) names.push_back(e.name);
  return names;
}

std::vector<FieldSpec> context_block_option_fields() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<FieldSpec> fields;
  for (const auto& e : r.entries) fields.insert(fields.end(), e.options.begin(), e.options.end());
  return fields;
}

std::vector<FieldSpec> context_block_option_fields(const std::string& name) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& e : r.entries) {
    if (e.name == name) return e.options;
    names.push_back(e.name);
  }
  throw ModelError("unknown context block '" + name + "'; registered: " + join(names));
}

void register_context_block(const std::string& name, ContextBlockFactory factory, std::vector<FieldSpec> options,
                            ContextBlockMacs macs) {
  if (name.empty() || !factory) throw ModelError("context block registration needs a name and a factory");
  for (const auto& o : options) {
    std::string v = o.default_value;
    const std::string problem = field_problem(o, v);
    if (!problem.empty())
      throw ModelError("context block '" + name + "': default of option '" + o.key + "' " + problem +
                       "; set FieldSpec::default_value");
  }
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& e : r.entries) {
    if (e.name == name) throw ModelError("context block '" + name + "' is already registered");
    for (const auto& taken : e.options)
      for (const auto& o : options)
        if (o.key == taken.key)
          throw ModelError("context block '" + name + "': option key '" + o.key + "' is already used by block '" +
                           e.name + "'; prefix the key with the block name");
  }
  r.entries.push_back({name, std::move(factory), std::move(options), std::move(macs)});
}

int64_t module_macs(const ContextOptions& options, const std::vector<int64_t>& shape) {
  ContextBlockMacs macs;
  {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& e : r.entries)
      if (e.name == options.name) macs = e.macs;
  }
  return macs ? macs(options, shape) : -1;
}

ContextBlock make_context_block(const ContextOptions& options, int64_t channels) {
  ContextBlockFactory factory;
  {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& e : r.entries)
      if (e.name == options.name) factory = e.factory;
  }
  if (!factory)
    throw ConfigError("unknown context block '" + options.name + "'; known blocks: " + join(context_block_names()));
  if (channels <= 0)
    throw ModelError("context block " + options.name + ": channels must be positive, got " + std::to_string(channels));
  return factory(options, channels);
}

// ---------------------------------------------------------------- option values

std::string ContextOptions::value(const std::string& key) const {
  const auto it = values.find(key);
  if (it != values.end()) return it->second;
  for (const auto& f : context_block_option_fields())
    if (f.key == key) return f.default_value;
  throw ConfigError("context block " + name + ": no block has an option '" + key + "'");
}

namespace {
// The value of `key`, checked against its registered field (so typed reads never see junk).
std::string checked(const ContextOptions& o, const std::string& key) {
  std::string v = o.value(key);
  for (const auto& f : context_block_option_fields())
    if (f.key == key) check_field(o.name, f, v);
  return v;
}
}  // namespace

int64_t ContextOptions::get_int(const std::string& key) const {
  int64_t v = 0;
  parse_value(checked(*this, key), v);
  return v;
}

double ContextOptions::get_float(const std::string& key) const {
  double v = 0;
  parse_value(checked(*this, key), v);
  return v;
}

bool ContextOptions::get_bool(const std::string& key) const {
  bool v = false;
  parse_value(checked(*this, key), v);
  return v;
}

}  // namespace hamgan
