// The Hamburger's enum names (see ham_types.h).
#include "modules/ham_types.h"

namespace hamgan {

const EnumNames<HamType>& ham_type_names() {
  static const EnumNames<HamType> names("ham_type", {{HamType::kNMF, "nmf"}, {HamType::kVQ, "vq"}, {HamType::kCD, "cd"}});
  return names;
}

const EnumNames<HamGradient>& ham_gradient_names() {
  static const EnumNames<HamGradient> names("ham_gradient", {{HamGradient::kOneStep, "one-step"},
                                                             {HamGradient::kBPTT, "bptt"},
                                                             {HamGradient::kOneStep, "one_step", true},
                                                             {HamGradient::kOneStep, "onestep", true}});
  return names;
}

const EnumNames<HamInit>& ham_init_names() {
  static const EnumNames<HamInit> names("ham_init", {{HamInit::kRandom, "random"}, {HamInit::kOnline, "online"}});
  return names;
}

HamType parse_ham_type(const std::string& s) { return ham_type_names().parse(s); }
HamGradient parse_ham_gradient(const std::string& s) { return ham_gradient_names().parse(s); }
HamInit parse_ham_init(const std::string& s) { return ham_init_names().parse(s); }
std::string to_string(HamType t) { return ham_type_names().name(t); }
std::string to_string(HamGradient g) { return ham_gradient_names().name(g); }
std::string to_string(HamInit i) { return ham_init_names().name(i); }

}  // namespace hamgan
