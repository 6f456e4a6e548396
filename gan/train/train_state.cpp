#include "gan/train/train_state.h"

#include <random>

#include "core/errors.h"
#include "core/finite.h"
#include "core/rng.h"
#include "core/seeds.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/train/ema.h"

namespace hamgan {
namespace {

std::unique_ptr<FusedAdam> make_adam(torch::nn::Module& m, double lr, const TrainConfig& cfg) {
  return std::make_unique<FusedAdam>(m.parameters(),
                                     torch::optim::AdamOptions(lr).betas({cfg.beta1, cfg.beta2}).eps(cfg.adam_eps));
}

std::string random_run_id() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
  return buf;
}

}  // namespace

void seed_initial_weights(uint64_t seed) { torch::manual_seed(derived_seed(seed, SeedPurpose::kWeights)); }

TrainState::TrainState(const TrainConfig& cfg, torch::Device device_, int64_t rank_, int64_t world_size_,
                       bool shared_noise)
    : model(cfg.model), device(device_),
      noise_rank(shared_noise ? 0 : rank_),
      noise(make_cpu_generator(rank_noise_seed(cfg.seed, noise_rank))),
      run_id(random_run_id()), config_text(cfg.config_text), rank(rank_), world_size(world_size_), seed(cfg.seed),
      device_rng(device_generator(device_)), recipe(cfg.recipe, device_) {
  g = Generator(cfg.model);
  d = Discriminator(cfg.model);
  g->to(device);
  d->to(device);
  if (cfg.ema) {
    g_ema = Generator(cfg.model);
    g_ema->to(device);
    ema_update(*g, *g_ema, 0.0);
    g_ema->eval();
  }
  g_opt = make_adam(*g, cfg.g_lr, cfg);
  d_opt = make_adam(*d, cfg.d_lr, cfg);
}

void TrainState::save(const std::string& path) {
  CheckpointWriter w;
  w.put("model_config", model_config_to_text(model));
  w.put("config_text", config_text);
  w.put("run_id", run_id);
  w.put("step", step);
  w.put("data_epoch", data_position.epoch);
  w.put("data_index", data_position.index);
  w.put("best_metric", best.metric);
  w.put("best_value", best.value);
  w.put("best_step", best.step);
  write_rng_state(w, capture_rng_state());
  {
    std::lock_guard<std::mutex> lock(noise.mutex());
    w.put("noise_rng", noise.get_state());
  }
  w.put("world_size", world_size);
  // One row is this rank's own stream, already saved as noise_rng (a single
  // process, or rank 0 writing alone after a failure).
  if (rank_noise_states.defined() && rank_noise_states.size(0) > 1) w.put("rank_noise_rngs", rank_noise_states);
  if (device_rng.defined())
    w.put("device_rng", generator_state(device_rng));
  else if (carried_device_rng.defined())
    w.put("device_rng", carried_device_rng);
  if (rank_device_rng_states.defined() && rank_device_rng_states.size(0) > 1)
    w.put("rank_device_rngs", rank_device_rng_states);
  w.put_module("G", *g);
  w.put_module("D", *d);
  if (g_ema) w.put_module("G_ema", *g_ema);
  g_opt->store_steps();
  d_opt->store_steps();
  w.put_optimizer("G_opt", *g_opt);
  w.put_optimizer("D_opt", *d_opt);
  recipe.save(w);
  w.save(path);
}

void TrainState::load(const std::string& path) {
  CheckpointReader r(path, device);
  if (model_config_to_text(model_config_from_text(r.get_string("model_config"))) != model_config_to_text(model))
    throw CheckpointError(path + ": the configured model differs from the checkpoint's; resume with the run's own config");
  if (!g_ema && r.has_module("G_ema"))
    throw CheckpointError(path + ": the checkpoint has an EMA generator but ema = false; resume with the run's own config");
  r.load_module("G", *g);
  r.load_module("D", *d);
  if (g_ema) r.load_module("G_ema", *g_ema);
  r.load_optimizer("G_opt", *g_opt);
  r.load_optimizer("D_opt", *d_opt);
  g_opt->load_steps();
  d_opt->load_steps();
  config_text = r.get_string("config_text");
  run_id = r.get_string("run_id");
  step = r.get_int("step");
  data_position.epoch = r.get_int("data_epoch");
  data_position.index = r.get_int("data_index");
  best.metric = r.get_string("best_metric");
  best.value = r.get_double("best_value");
  best.step = r.get_int("best_step");
  restore_rng_state(read_rng_state(r));
  loaded_world_size = r.has("world_size") ? r.get_int("world_size") : 1;
  recipe.load(r, rank, loaded_world_size == world_size ? world_size : -1);
  const torch::Tensor noise_state = own_row(r, "rank_noise_rngs", "noise_rng");
  const torch::Tensor device_state = own_row(r, "rank_device_rngs", "device_rng");
  if (device_rng.defined()) {
    device_rng_restored = device_state.defined();
    if (device_rng_restored) set_generator_state(device_rng, device_state);
  } else {
    carried_device_rng = device_state;  // a GPU run's generator, kept for its next save
  }
  noise_restored = noise_state.defined();
  if (noise_restored) check_cpu_rng_state(noise_state, r.path(), "noise_rng");
  std::lock_guard<std::mutex> lock(noise.mutex());
  if (noise_restored)
    noise.set_state(noise_state.cpu());
  else
    noise.set_current_seed(rank_noise_seed(rank_noise_seed(seed, noise_rank), step));
}

torch::Tensor TrainState::own_row(CheckpointReader& r, const std::string& all_key, const std::string& own_key) const {
  if (r.has(all_key) && loaded_world_size == world_size) {
    const torch::Tensor all = r.get_tensor(all_key).cpu();
    return all.size(0) == world_size ? all[rank].clone() : torch::Tensor();
  }
  if (!r.has(own_key)) return {};
  if (world_size == 1 && loaded_world_size == 1) return r.get_tensor(own_key);
  if (rank == 0 && loaded_world_size == world_size) return r.get_tensor(own_key);  // saved by rank 0 alone
  return {};
}

void TrainState::set_learning_rates(double g_lr, double d_lr) {
  for (auto& group : g_opt->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(g_lr);
  for (auto& group : d_opt->param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(d_lr);
}

bool TrainState::all_finite() const {
  return first_nonfinite_tensor(*g, /*buffers=*/false).empty() && first_nonfinite_tensor(*d, false).empty();
}

}  // namespace hamgan
