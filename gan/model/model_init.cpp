#include "gan/model/model_init.h"

#include "modules/spectral_norm.h"

namespace hamgan {
namespace {

void init_tensor(torch::Tensor& w, int64_t fan_in, int64_t fan_out, InitScheme scheme) {
  torch::NoGradGuard no_grad;
  switch (scheme) {
    case InitScheme::kXavier: xavier_uniform_init(w, fan_in, fan_out); break;
    case InitScheme::kOrthogonal: torch::nn::init::orthogonal_(w); break;  // rows of the (out, rest) view
    case InitScheme::kN02: w.normal_(0.0, 0.02); break;
  }
}

void zero(torch::Tensor& b) {
  torch::NoGradGuard no_grad;
  if (b.defined()) b.zero_();
}

void init_module(torch::nn::Module* m, InitScheme scheme) {
  if (auto* c = dynamic_cast<SNConv2dImpl*>(m)) {
    const int64_t k2 = c->options.kernel_size() * c->options.kernel_size();
    init_tensor(c->weight, c->options.in_channels() * k2, c->options.out_channels() * k2, scheme);
    zero(c->bias);
  } else if (auto* l = dynamic_cast<SNLinearImpl*>(m)) {
    init_tensor(l->weight, l->in_features, l->out_features, scheme);
    zero(l->bias);
  } else if (auto* e = dynamic_cast<SNEmbeddingImpl*>(m)) {
    init_tensor(e->weight, e->num_embeddings, e->embedding_dim, scheme);
  }
}

}  // namespace

void init_weights(torch::nn::Module& root, InitScheme scheme) {
  // include_self=false: the constructors call this before the root is owned by a shared_ptr.
  init_module(&root, scheme);
  for (const auto& m : root.modules(/*include_self=*/false)) init_module(m.get(), scheme);
}

}  // namespace hamgan
