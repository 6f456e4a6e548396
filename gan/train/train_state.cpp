#include "gan/train/train_state.h"

#include <random>

#include "core/errors.h"
#include "core/rng.h"
#include "core/seeds.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/train/step_settings.h"

namespace hamgan {
namespace {

std::string random_run_id() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
  return buf;
}

// This rank's row of `all_key` (every rank's, same world size), or `own_key` where the
// file holds this rank's alone; undefined where it holds neither.
torch::Tensor own_row(const TrainState& s, CheckpointReader& r, const std::string& all_key, const std::string& own_key) {
  if (r.has(all_key) && s.loaded_world_size == s.world_size) {
    const torch::Tensor all = r.get_tensor(all_key).cpu();
    return all.size(0) == s.world_size ? all[s.rank].clone() : torch::Tensor();
  }
  if (!r.has(own_key)) return {};
  if (s.world_size == 1 && s.loaded_world_size == 1) return r.get_tensor(own_key);
  if (s.rank == 0 && s.loaded_world_size == s.world_size) return r.get_tensor(own_key);  // saved by rank 0 alone
  return {};
}

void save_identity(TrainState& s, CheckpointWriter& w) {
  w.put("model_config", model_config_to_text(s.model));
  w.put("config_text", s.config_text);
  w.put("run_id", s.run_id);
}
void load_identity(TrainState& s, CheckpointReader& r) {
  if (model_identity_text(model_config_from_text(r.get_string("model_config"))) != model_identity_text(s.model))
    throw CheckpointError(r.path() + ": the configured model differs from the checkpoint's; resume with the run's own config");
  if (!s.g_ema && r.has_module("G_ema"))
    throw CheckpointError(r.path() + ": the checkpoint has an EMA generator but ema = false; resume with the run's own config");
  s.config_text = r.get_string("config_text");
  s.run_id = r.get_string("run_id");
}

void save_models(TrainState& s, CheckpointWriter& w) {
  w.put_module("G", *s.g);
  w.put_module("D", *s.d);
  if (s.g_ema) w.put_module("G_ema", *s.g_ema);
}
void load_models(TrainState& s, CheckpointReader& r) {
  r.load_module("G", *s.g);
  r.load_module("D", *s.d);
  if (s.g_ema) r.load_module("G_ema", *s.g_ema);
}

void save_optimisers(TrainState& s, CheckpointWriter& w) {
  s.g_opt->store_steps();
  s.d_opt->store_steps();
  w.put_optimizer("G_opt", *s.g_opt);
  w.put_optimizer("D_opt", *s.d_opt);
}
void load_optimisers(TrainState& s, CheckpointReader& r) {
  r.load_optimizer("G_opt", *s.g_opt);
  r.load_optimizer("D_opt", *s.d_opt);
  s.g_opt->load_steps();
  s.d_opt->load_steps();
}

void save_progress(TrainState& s, CheckpointWriter& w) {
  w.put("step", s.step);
  w.put("world_size", s.world_size);
  w.put("best_metric", s.best.metric);
  w.put("best_value", s.best.value);
  w.put("best_step", s.best.step);
}
void load_progress(TrainState& s, CheckpointReader& r) {
  s.step = r.get_int("step");
  s.loaded_world_size = r.has("world_size") ? r.get_int("world_size") : 1;
  s.best.metric = r.get_string("best_metric");
  s.best.value = r.get_double("best_value");
  s.best.step = r.get_int("best_step");
}

void save_data_position(TrainState& s, CheckpointWriter& w) {
  w.put("data_epoch", s.data_position.epoch);
  w.put("data_index", s.data_position.index);
}
void load_data_position(TrainState& s, CheckpointReader& r) {
  s.data_position.epoch = r.get_int("data_epoch");
  s.data_position.index = r.get_int("data_index");
}

// The global generators and this rank's device generator (every rank's rows in a job).
void save_rng(TrainState& s, CheckpointWriter& w) {
  write_rng_state(w, capture_rng_state());
  if (s.device_rng.defined())
    w.put("device_rng", generator_state(s.device_rng));
  else if (s.carried_device_rng.defined())
    w.put("device_rng", s.carried_device_rng);
  if (s.rank_device_rng_states.defined() && s.rank_device_rng_states.size(0) > 1)
    w.put("rank_device_rngs", s.rank_device_rng_states);
}
void load_rng(TrainState& s, CheckpointReader& r) {
  restore_rng_state(read_rng_state(r));
  const torch::Tensor device_state = own_row(s, r, "rank_device_rngs", "device_rng");
  if (s.device_rng.defined()) {
    s.device_rng_restored = device_state.defined();
    if (s.device_rng_restored) set_generator_state(s.device_rng, device_state);
  } else {
    s.carried_device_rng = device_state;  // a GPU run's generator, kept for its next save
  }
}

void save_noise(TrainState& s, CheckpointWriter& w) {
  {
    std::lock_guard<std::mutex> lock(s.noise.mutex());
    w.put("noise_rng", s.noise.get_state());
  }
  // One row is this rank's own stream, already saved as noise_rng (a single
  // process, or rank 0 writing alone after a failure).
  if (s.rank_noise_states.defined() && s.rank_noise_states.size(0) > 1) w.put("rank_noise_rngs", s.rank_noise_states);
}
void load_noise(TrainState& s, CheckpointReader& r) {
  const torch::Tensor noise_state = own_row(s, r, "rank_noise_rngs", "noise_rng");
  s.noise_restored = noise_state.defined();
  if (s.noise_restored) check_cpu_rng_state(noise_state, r.path(), "noise_rng");
  std::lock_guard<std::mutex> lock(s.noise.mutex());
  if (s.noise_restored)
    s.noise.set_state(noise_state.cpu());
  else
    s.noise.set_current_seed(rank_noise_seed(rank_noise_seed(s.seed, s.noise_rank), s.step));
}

void save_objective(TrainState& s, CheckpointWriter& w) { s.objective.save(w); }
void load_objective(TrainState& s, CheckpointReader& r) {
  s.objective.load(r, s.rank, s.loaded_world_size == s.world_size ? s.world_size : -1);
}

// The components of a checkpoint, each owning its keys. Loaded in this order: the model's
// identity is checked before anything is read into it, and the progress (step, world size)
// comes before the rank-local rows and the noise stream that depend on it.
struct Component {
  const char* name;
  void (*save)(TrainState&, CheckpointWriter&);
  void (*load)(TrainState&, CheckpointReader&);
};
const Component kComponents[] = {
    {"identity", save_identity, load_identity},       {"models", save_models, load_models},
    {"optimisers", save_optimisers, load_optimisers}, {"progress", save_progress, load_progress},
    {"data_position", save_data_position, load_data_position},
    {"rng", save_rng, load_rng},                      {"objective", save_objective, load_objective},
    {"noise", save_noise, load_noise},
};

}  // namespace

void seed_initial_weights(uint64_t seed) { torch::manual_seed(derived_seed(seed, SeedPurpose::kWeights)); }

TrainState::TrainState(const TrainConfig& cfg, torch::Device device_, int64_t rank_, int64_t world_size_,
                       bool shared_noise)
    : StepState(cfg.model, device_, adam_settings(cfg), cfg.ema, objective_config(cfg),
                make_cpu_generator(rank_noise_seed(cfg.seed, shared_noise ? 0 : rank_))),
      noise_rank(shared_noise ? 0 : rank_), run_id(random_run_id()), config_text(cfg.config_text), rank(rank_),
      seed(cfg.seed), device_rng(device_generator(device_)) {
  world_size = world_size_;
}

void TrainState::save(const std::string& path) {
  CheckpointWriter w;
  for (const Component& c : kComponents) c.save(*this, w);
  w.save(path);
}

void TrainState::load(const std::string& path) {
  CheckpointReader r(path, device);
  for (const Component& c : kComponents) c.load(*this, r);
}

}  // namespace hamgan
