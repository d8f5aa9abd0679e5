// The trainer handle's calls (trainer_handle.h): each converts its arguments, calls the engine
// and converts the result. No math lives here.
#include "trainer_handle.h"

#include <utility>

#include "train/family_options.h"

namespace attnscope::bindings {

val TrainerHandle::create(const val& sources, const val& targets, const std::string& options) {
  return guarded([&] {
    const train::TrainSetup setup = train::train_setup_from_json(options);
    auto pairs = pairs_of(sources, targets);
    start(train::fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed), std::move(pairs), setup);
    return val::undefined();
  });
}

val TrainerHandle::resume(const val& array, const val& sources, const val& targets,
                          const std::string& options) {  // a Uint8Array
                          return guarded([&] {
    const train::TrainSetup setup = train::train_setup_from_json(options);
    if (setup.has_architecture)
      throw InputError("the family and architecture come from the model being continued: leave them out");
    const std::vector<std::uint8_t> bytes = bytes_of(array);
    start(train::trainable_from_bytes_any(bytes.data(), bytes.size()),
          pairs_of(sources, targets), setup);
    return val::undefined();
  });
}

val TrainerHandle::epoch(ModelHandle& into) {
  return guarded([&] {
    const train::EpochReport r = trainer().epoch();
    into.adopt(r.model);
    val out = val::object();
    out.set("epoch", r.epoch);
    out.set("loss", r.loss);
    out.set("exact", r.exact < 0 ? val::null() : val(r.exact));
    out.set("total", r.total);
    out.set("seconds", r.seconds);
    out.set("updates", trainer().updates_done());
    return out;
  });
}

val TrainerHandle::epochs_done() const {
  return guarded([&] { return val(trainer().epochs_done()); });
}

val TrainerHandle::set_pairs(const val& sources, const val& targets) {
  return guarded([&] {
    trainer().set_pairs(pairs_of(sources, targets));
    return val::undefined();
  });
}

val TrainerHandle::export_bytes() {
  return guarded([&] {
    const std::vector<std::uint8_t> bytes = trainer().export_bytes();
    return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  });
}

std::vector<train::TrainPair> TrainerHandle::pairs_of(const val& sources, const val& targets) {
  const auto src = emscripten::vecFromJSArray<std::string>(sources);
  const auto tgt = emscripten::vecFromJSArray<std::string>(targets);
  if (src.size() != tgt.size()) throw InputError("sources and targets must have the same length");
  std::vector<train::TrainPair> pairs;
  for (std::size_t i = 0; i < src.size(); ++i) pairs.push_back({src[i], tgt[i]});
  train::check_pairs(pairs);  // the limits a CSV line is held to
  return pairs;
}

void TrainerHandle::start(std::unique_ptr<train::Trainable> model, std::vector<train::TrainPair> pairs,
                          const train::TrainSetup& setup) {
  trainer_ = std::make_unique<train::Trainer>(std::move(model), std::move(pairs), setup.options);
}

train::Trainer& TrainerHandle::trainer() const {
  if (!trainer_) throw Error("the trainer was not created");
  return *trainer_;
}

val training_presets() {
  return guarded([] {
    val out = val::array();
    const std::vector<train::RegisteredPreset> presets = train::training_presets();
    for (std::size_t i = 0; i < presets.size(); ++i) {
      const TrainingPreset& p = *presets[i].preset;
      val preset = val::object();
      preset.set("id", std::string(p.id));
      preset.set("label", std::string(p.label));
      preset.set("family", std::string(presets[i].family->architecture));
      preset.set("heads", p.has_heads);
      preset.set("width", std::string(p.width));
      preset.set("widthLabel", std::string(p.width_label));
      preset.set("proposedLr", p.proposed_lr);
      preset.set("options", std::string(p.options));
      preset.set("task", std::string(p.task));
      out.set(i, preset);
    }
    return out;
  });
}

}  // namespace attnscope::bindings
