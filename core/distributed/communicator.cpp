// What every communicator shares: the backend names, the single-process
// implementation and the differentiable all-reduce. The c10d process group is
// in process_group.cpp.
#include "core/distributed/communicator.h"

namespace hamgan {

const EnumNames<DistBackendChoice>& dist_backend_choice_names() {
  static const EnumNames<DistBackendChoice> names(
      "dist_backend",
      {{DistBackendChoice::kAuto, "auto"}, {DistBackendChoice::kGloo, "gloo"}, {DistBackendChoice::kNccl, "nccl"}});
  return names;
}

const EnumNames<DistBackend>& dist_backend_names() {
  static const EnumNames<DistBackend> names("dist_backend",
                                            {{DistBackend::kGloo, "gloo"}, {DistBackend::kNccl, "nccl"}});
  return names;
}

DistBackend resolve_dist_backend(DistBackendChoice choice, bool cuda_device) {
  switch (choice) {
    case DistBackendChoice::kGloo: return DistBackend::kGloo;
    case DistBackendChoice::kNccl: return DistBackend::kNccl;
    case DistBackendChoice::kAuto: break;
  }
  return cuda_device ? DistBackend::kNccl : DistBackend::kGloo;
}

namespace {

class Done final : public Communicator::Pending {
 public:
  void wait() override {}
};

}  // namespace

std::unique_ptr<Communicator::Pending> LocalCommunicator::all_reduce_sum_async(torch::Tensor&, const std::string&) {
  return std::make_unique<Done>();
}

namespace {

struct AllReduceSumFn : torch::autograd::Function<AllReduceSumFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor t, Communicator* comm) {
    ctx->saved_data["comm"] = reinterpret_cast<int64_t>(comm);
    torch::Tensor out = t.clone();
    comm->all_reduce_sum_async(out, "synchronised batch-norm statistics")->wait();  // data: stream-ordered
    return out;
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    auto* comm = reinterpret_cast<Communicator*>(ctx->saved_data["comm"].toInt());
    torch::Tensor g = grads[0].contiguous().clone();
    comm->all_reduce_sum_async(g, "synchronised batch-norm gradients")->wait();
    return {g, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor differentiable_all_reduce_sum(Communicator& comm, const torch::Tensor& t) {
  return AllReduceSumFn::apply(t, &comm);
}

}  // namespace hamgan
