// Registry of context blocks by name (style.md lesson 5) and the Hamburger
// option parsers. Built-ins are added on first use from this file, never by
// static registrars (which a static library would drop at link time).
#include <mutex>
#include <utility>

#include "core/errors.h"
#include "modules/builtin_blocks.h"
#include "modules/context_block.h"
#include "modules/ham_block.h"

namespace hamgan {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<std::string, ContextBlockFactory>> entries;  // registration order
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    reg->entries = {{"none", make_none_block}, {"sa", make_sa_block}, {"ylg", make_ylg_block}, {"ham", make_ham_block}};
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
  for (const auto& e : r.entries) names.push_back(e.first);
  return names;
}

void register_context_block(const std::string& name, ContextBlockFactory factory) {
  if (name.empty() || !factory) throw ModelError("context block registration needs a name and a factory");
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& e : r.entries)
    if (e.first == name) throw ModelError("context block '" + name + "' is already registered");
  r.entries.emplace_back(name, std::move(factory));
}

ContextBlock make_context_block(const ContextOptions& options, int64_t channels) {
  ContextBlockFactory factory;
  {
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& e : r.entries)
      if (e.first == options.name) factory = e.second;
  }
  if (!factory)
    throw ConfigError("unknown context block '" + options.name + "'; known blocks: " + join(context_block_names()));
  if (channels <= 0)
    throw ModelError("context block " + options.name + ": channels must be positive, got " + std::to_string(channels));
  return factory(options, channels);
}

// ---------------------------------------------------------------- option parsing

HamType parse_ham_type(const std::string& s) {
  if (s == "nmf") return HamType::kNMF;
  if (s == "vq") return HamType::kVQ;
  if (s == "cd") return HamType::kCD;
  throw ConfigError("unknown ham type '" + s + "'; use nmf, vq or cd");
}

HamGradient parse_ham_gradient(const std::string& s) {
  if (s == "one-step" || s == "one_step" || s == "onestep") return HamGradient::kOneStep;
  if (s == "bptt") return HamGradient::kBPTT;
  throw ConfigError("unknown ham gradient '" + s + "'; use one-step or bptt");
}

HamInit parse_ham_init(const std::string& s) {
  if (s == "random") return HamInit::kRandom;
  if (s == "online") return HamInit::kOnline;
  throw ConfigError("unknown ham init '" + s + "'; use random or online");
}

std::string to_string(HamType t) {
  switch (t) {
    case HamType::kNMF: return "nmf";
    case HamType::kVQ: return "vq";
    case HamType::kCD: return "cd";
  }
  return "?";
}

std::string to_string(HamGradient g) { return g == HamGradient::kOneStep ? "one-step" : "bptt"; }

std::string to_string(HamInit i) { return i == HamInit::kRandom ? "random" : "online"; }

}  // namespace hamgan
