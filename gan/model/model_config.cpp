// The ModelConfig field table (text, CLI keys), init-scheme names and the reference presets.
// ModelConfig::validate() lives in model_plan.cpp: the block position needs the channel plans.
#include "gan/model/model_config.h"

#include <algorithm>
#include <sstream>

#include "core/errors.h"

namespace hamgan {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A block option: its value lives in block_options, else it is the registered default.
Field<ModelConfig> block_option_field(const FieldSpec& spec) {
  return {spec,
          [key = spec.key, def = spec.default_value](const ModelConfig& c) {
            const auto it = c.block_options.find(key);
            return it == c.block_options.end() ? def : it->second;
          },
          [key = spec.key](ModelConfig& c, const std::string& s) { c.block_options[key] = s; }};
}

}  // namespace

int64_t ModelConfig::context_side() const {
  return block_resolution != 0 ? block_resolution : std::min<int64_t>(32, resolution / 2);
}

ContextOptions ModelConfig::g_context() const {
  ContextOptions o;
  o.name = g_block.name;
  o.values = block_options;
  return o;
}

ContextOptions ModelConfig::d_context() const {
  ContextOptions o = g_context();
  o.name = d_block.name;
  return o;
}

FieldTable<ModelConfig> model_config_fields() {
  using M = ModelConfig;
  const auto blocks = context_block_names();
  FieldTable<ModelConfig> t = {
      member_field(int_field("resolution", "Image side (32, 64 or 128)", one_of({32, 64, 128})), &M::resolution),
      member_field(int_field("image_channels", "Image channels (1 grey, 3 RGB)", at_least(1)), &M::image_channels),
      member_field(int_field("num_classes", "Number of classes", at_least(1)), &M::num_classes),
      member_field(int_field("z_dim", "Latent dimension", at_least(1)), &M::z_dim),
      member_field(int_field("g_ch", "Generator channel multiplier (reference 64)", at_least(1)), &M::g_ch),
      member_field(int_field("d_ch", "Discriminator channel multiplier (reference 64)", at_least(1)), &M::d_ch),
      member_field(int_field("block_resolution",
                             "Feature-map side of the context block in G and D (8..resolution/2); "
                             "0 = min(32, resolution/2)",
                             one_of({0, 8, 16, 32, 64})),
                   &M::block_resolution),
      make_field<M>(choice_field("g_block", blocks, "Context block of G"), [](const M& c) { return c.g_block.name; },
                    [](M& c, const std::string& s) { c.g_block.name = s; }),
      make_field<M>(choice_field("d_block", blocks, "Context block of D"), [](const M& c) { return c.d_block.name; },
                    [](M& c, const std::string& s) { c.d_block.name = s; }),
      enum_field("init", init_scheme_names(), "Weight init of SN layers: xavier (reference), orthogonal or n02",
                 &M::init),
      enum_field("resample_conv", resample_conv_names(),
                 "Up- and downsampling beside the 3x3 convolutions (separate) or folded into them (folded: "
                 "one strided 4x4 convolution, the same parameters and results)",
                 &M::resample_conv)
          .on_resume(ResumeRule::kMayChange),
  };
  // Block options apply to both networks' blocks (in HamGAN, G and D differ only in d and r = d/8).
  for (const auto& spec : context_block_option_fields()) t.push_back(block_option_field(spec));
  return t;
}

std::string model_config_to_text(const ModelConfig& c) { return fields_to_text(model_config_fields(), c); }

std::string model_identity_text(const ModelConfig& c) {
  FieldTable<ModelConfig> identity;
  for (const auto& f : model_config_fields())
    if (f.spec.resume != ResumeRule::kMayChange) identity.push_back(f);
  return fields_to_text(identity, c);
}

ModelConfig model_config_from_text(const std::string& text) {
  ModelConfig c;
  fields_from_text("model", model_config_fields(), text, c);
  return c;
}

const EnumNames<InitScheme>& init_scheme_names() {
  static const EnumNames<InitScheme> names(
      "init", {{InitScheme::kXavier, "xavier"}, {InitScheme::kOrthogonal, "orthogonal"}, {InitScheme::kN02, "n02"}});
  return names;
}

InitScheme parse_init_scheme(const std::string& s) { return init_scheme_names().parse(s); }

std::string to_string(InitScheme s) { return init_scheme_names().name(s); }

std::vector<std::string> model_preset_names() { return {"sagan128", "hamgan128", "ylg128", "sngan128"}; }

ModelConfig model_preset(const std::string& name) {
  ModelConfig c;
  c.resolution = 128;
  c.image_channels = 3;
  c.num_classes = 1000;
  c.z_dim = 128;
  c.g_ch = c.d_ch = 64;
  c.block_resolution = 32;
  std::string block;
  if (name == "sagan128") block = "sa";
  else if (name == "hamgan128") block = "ham";  // NMF, K = 6/6, r = d/8, one-step gradient (HamGAN's scripts)
  else if (name == "ylg128") block = "ylg";
  else if (name == "sngan128") block = "none";
  else throw ConfigError("model: preset '" + name + "' is unknown; use one of: " + join(model_preset_names()));
  c.g_block.name = c.d_block.name = block;
  return c;
}

}  // namespace hamgan
