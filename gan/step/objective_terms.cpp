// The table of objective terms (gan/step/objective_term.h): one row per term.
#include "gan/step/lecam_term.h"
#include "gan/step/penalty_term.h"

namespace hamgan {

const std::vector<ObjectiveTermRow>& objective_terms() {
  static const std::vector<ObjectiveTermRow> rows = {
      {"lecam",
       [](const RecipeConfig& r, torch::Device device) -> std::unique_ptr<ObjectiveTerm> {
         if (r.lecam_weight <= 0) return nullptr;
         return std::make_unique<LecamTerm>(r.lecam_weight, r.lecam_decay, device);
       }},
      {"penalties",
       [](const RecipeConfig& r, torch::Device) -> std::unique_ptr<ObjectiveTerm> {
         if (!r.penalised()) return nullptr;
         return std::make_unique<PenaltyTerm>(r.r1_gamma, r.r2_gamma, r.reg_every);
       }},
  };
  return rows;
}

}  // namespace hamgan
