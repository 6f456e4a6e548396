#include "gan/step/recipe_config.h"

#include "core/errors.h"

namespace hamgan {
namespace {

// Far above any published gamma (StyleGAN2 and R3GAN use 0.01-100); larger values overflow the
// float32 loss and would read as a divergence, with the wrong advice to lower the learning rates.
constexpr double kMaxPenaltyWeight = 1e5;

std::string policy_problem(const std::string& text) {
  try {
    parse_augment_policy(text);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

}  // namespace

const FieldTable<RecipeConfig>& recipe_config_fields() {
  using R = RecipeConfig;
  constexpr ResumeRule kMust = ResumeRule::kMustMatch;
  static const FieldTable<RecipeConfig> table = {
      member_field(float_field("r1_gamma", "Zero-centred R1 penalty on D's gradient at real images (0: off)",
                               between(0, kMaxPenaltyWeight)),
                   &R::r1_gamma)
          .on_resume(kMust),
      member_field(float_field("r2_gamma", "Zero-centred R2 penalty on D's gradient at generated images (0: off)",
                               between(0, kMaxPenaltyWeight)),
                   &R::r2_gamma)
          .on_resume(kMust),
      member_field(int_field("reg_every", "D updates between penalties (lazy: gamma scaled by it)", at_least(1)),
                   &R::reg_every)
          .on_resume(kMust),
      enum_field("augment", augment_mode_names(),
                 "Augmentation of every image D sees: none | diffaug (DiffAugment) | ada (adaptive p)", &R::augment)
          .on_resume(kMust),
      member_field(string_field("augment_policy", "Transforms, in order: color, translation, cutout", policy_problem),
                   &R::augment_policy)
          .on_resume(kMust),
      member_field(float_field("ada_target", "ADA: E[sign D(real)] above which p rises", between(-1, 1)),
                   &R::ada_target)
          .on_resume(kMust),
      member_field(float_field("ada_kimg", "ADA: thousands of images for p to move by 1", above(0)), &R::ada_kimg)
          .on_resume(kMust),
      member_field(int_field("ada_interval", "ADA: D updates between adjustments of p", at_least(1)),
                   &R::ada_interval)
          .on_resume(kMust),
      member_field(float_field("lecam_weight", "LeCam regularisation of D's logits (0: off)",
                               between(0, kMaxPenaltyWeight)),
                   &R::lecam_weight)
          .on_resume(kMust),
      member_field(float_field("lecam_decay", "LeCam: decay of the EMA anchors of D's mean logits", in_range(0, 1)),
                   &R::lecam_decay)
          .on_resume(kMust),
  };
  return table;
}

}  // namespace hamgan
