#pragma once
// The options every command that loads a generator checkpoint shares (`sample`,
// `class-consistency`), for any config struct with the members seed, raw,
// standing_stats and device.
#include "core/config_fields.h"

namespace hamgan::cli {

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
  };
}

}  // namespace hamgan::cli
