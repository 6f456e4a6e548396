#include "gan/interop/generator_tensors.h"

#include <map>
#include <set>

#include "core/errors.h"

namespace hamgan {
namespace {

NamedTensors module_tensors(const torch::nn::Module& m, const std::string& prefix) {
  NamedTensors out;
  for (const auto& group : {m.named_parameters(), m.named_buffers()})
    for (const auto& item : group) out.emplace_back(prefix + item.key(), item.value().detach().to(torch::kCPU));
  return out;
}

void load_module_tensors(torch::nn::Module& m, const NamedTensors& tensors, const std::string& what,
                         const std::string& prefix, const std::string& network) {
  std::map<std::string, torch::Tensor> given;
  for (const auto& [name, t] : tensors)
    if (name.rfind(prefix, 0) == 0) given[name.substr(prefix.size())] = t;
  std::set<std::string> wanted;
  torch::NoGradGuard no_grad;
  for (const auto& group : {m.named_parameters(), m.named_buffers()})
    for (auto& item : group) {
      wanted.insert(item.key());
      const auto it = given.find(item.key());
      if (it == given.end())
        throw CheckpointError(what + ": tensor '" + prefix + item.key() + "' is missing; the file holds another " +
                              network + " than the model (expected shape " + c10::str(item.value().sizes()) + ")");
      const torch::Tensor& t = it->second;
      if (!t.is_floating_point())
        throw CheckpointError(what + ": tensor '" + prefix + item.key() + "' is " + c10::toString(t.scalar_type()) +
                              "; expected a float tensor (F32, or F16/BF16/F64)");
      if (t.sizes() != item.value().sizes())
        throw CheckpointError(what + ": tensor '" + prefix + item.key() + "' has shape " + c10::str(t.sizes()) +
                              ", expected " + c10::str(item.value().sizes()) +
                              " for this model; is the model configuration the one the file was made with?");
      item.value().copy_(t.to(item.value().dtype()));
    }
  for (const auto& [name, t] : given)
    if (!wanted.count(name))
      throw CheckpointError(what + ": tensor '" + prefix + name + "' is not part of this " + network +
                            " (shape " + c10::str(t.sizes()) + "); is the model configuration the one the file "
                            "was made with?");
}

}  // namespace

NamedTensors generator_tensors(const Generator& g, const std::string& prefix) { return module_tensors(*g, prefix); }

NamedTensors discriminator_tensors(const Discriminator& d, const std::string& prefix) {
  return module_tensors(*d, prefix);
}

void load_generator_tensors(Generator& g, const NamedTensors& tensors, const std::string& what,
                            const std::string& prefix) {
  load_module_tensors(*g, tensors, what, prefix, "generator");
}

void load_discriminator_tensors(Discriminator& d, const NamedTensors& tensors, const std::string& what,
                                const std::string& prefix) {
  load_module_tensors(*d, tensors, what, prefix, "discriminator");
}

}  // namespace hamgan
