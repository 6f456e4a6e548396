// The Hamburger's option table; see ham_options.h.
#include "modules/ham_options.h"

#include "core/errors.h"
#include "modules/block_options.h"

namespace hamgan {

const FieldTable<HamOptions>& ham_option_table() {
  using H = HamOptions;
  static const FieldTable<HamOptions> table = {
      enum_field("ham_type", ham_type_names(), "Matrix decomposition of the ham block: nmf, vq or cd", &H::type),
      member_field(int_field("ham_train_steps", "Ham iterations K while training", at_least(1)), &H::train_steps),
      member_field(int_field("ham_eval_steps", "Ham iterations K in eval", at_least(1)), &H::eval_steps),
      member_field(int_field("ham_rank", "Ham rank r; 0 = d/8", at_least(0)), &H::rank),
      enum_field("ham_gradient", ham_gradient_names(), "Ham gradient: one-step or bptt", &H::gradient),
      member_field(float_field("ham_temperature", "Ham softmax temperature; 0 = reference (NMF 1, VQ/CD 0.01)",
                               at_least(0)),
                   &H::temperature),
      member_field(float_field("ham_beta", "CD ridge term", above(0)), &H::beta),
      enum_field("ham_init", ham_init_names(), "Ham bases: random (fresh each forward) or online", &H::init),
  };
  return table;
}

std::vector<FieldSpec> ham_block_options() { return option_specs(ham_option_table()); }

HamOptions parse_ham_options(const ContextOptions& o) {
  return parse_block_options("ham", ham_option_table(), o);
}

ContextOptions ham_context_options(const HamOptions& h, int64_t num_classes) {
  return block_context_options("ham", ham_option_table(), h, num_classes);
}

}  // namespace hamgan
