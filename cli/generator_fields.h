#pragma once
// The options every command that loads a generator checkpoint shares (`sample`,
// `class-consistency`), for any config struct with the members seed, raw,
// standing_stats, device and resample_conv.
#include <memory>
#include <string>

#include "cli/field_options.h"
#include "core/config_fields.h"
#include "gan/sample/load_generator.h"

namespace hamgan::cli {

// --resample_conv: G's up-blocks as the checkpoint saved them, or in the given form (the same images).
inline FieldSpec resample_conv_field() {
  return choice_field("resample_conv", resample_conv_choices(),
                      "Run G's upsampling separate from or folded into its convolutions (checkpoint: as saved; "
                      "the same images either way)");
}

// --resample_conv on a command whose inputs may be generator checkpoints among other things (fid,
// fid-stats), outside its config struct: the value it is given, "checkpoint" until then.
inline std::shared_ptr<std::string> add_resample_conv_option(CLI::App* sub) {
  auto value = std::make_shared<std::string>("checkpoint");
  add_field_option(sub, resample_conv_field(), [value](const std::string& v) { *value = v; }, "checkpoint", "Options");
  return value;
}

template <class C>
FieldTable<C> generator_checkpoint_fields() {
  return {
      member_field(int_field("seed", "Seed of z", at_least(0)), &C::seed),
      member_field(flag_field("raw", "Use the raw G weights instead of the EMA"), &C::raw),
      member_field(int_field("standing_stats", "Batches of 64 to recompute G's BN statistics over (0: stored moving "
                                               "averages)",
                             at_least(0)),
                   &C::standing_stats),
      member_field(string_field("device", "auto | cpu | cuda | cuda:N"), &C::device),
      member_field(resample_conv_field(), &C::resample_conv),
  };
}

}  // namespace hamgan::cli
