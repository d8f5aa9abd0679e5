// The Training panel presets each family registers (model/registry.h TrainingPreset): every one's
// trainer options, as the page builds them for a recipe, are its own family's, which trains a
// fresh model from them; the ids are unique names a trained model's name can carry; the first is
// the default family's (the one such a name leaves unnamed).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "train/family_options.h"
#include "train/options_json.h"
#include "train/trainer.h"

namespace attnscope::train {
namespace {

// The trainer options web/app/state/trained.js trainerOptions builds for a recipe.
nlohmann::json options_for(const TrainingPreset& p, int layers, int heads, int width) {
  nlohmann::json o = nlohmann::json::parse(p.options);
  o["layers"] = layers;
  if (p.has_heads) o["heads"] = heads;
  o[p.width] = width;
  o["seed"] = 1;
  o["lr"] = p.proposed_lr;
  return o;
}

TEST(TrainingPresets, EachIsItsFamilysAndTrains) {
  const std::vector<RegisteredPreset> presets = training_presets();
  ASSERT_FALSE(presets.empty());
  const std::vector<TrainPair> pairs = {{"i eat", "ich esse"}, {"you eat", "du isst"}};
  for (const RegisteredPreset& r : presets) {
    const TrainingPreset& p = *r.preset;
    SCOPED_TRACE(p.id);
    EXPECT_TRUE(nlohmann::json::parse(p.options).is_object());
    EXPECT_GT(std::string(p.label).size(), 0u);
    EXPECT_GT(std::string(p.width_label).size(), 0u);
    EXPECT_TRUE(p.proposed_lr > 0 && p.proposed_lr <= 1);
    const TrainSetup setup = train_setup_from_json(options_for(p, 2, 2, 8).dump());
    EXPECT_EQ(setup.family, r.family->architecture);  // the options name the family that registers it
    EXPECT_NO_THROW(check_architecture_options(*r.family, setup.architecture));
    EXPECT_EQ(setup.architecture.contains("heads"), p.has_heads);
    EXPECT_EQ(setup.architecture.at(p.width), 8);
    // The family takes the values too, and the trainer its own options.
    EXPECT_NO_THROW({
      const Trainer trainer(fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed), pairs,
                            setup.options);
    });
  }
}

TEST(TrainingPresets, IdsAreUniqueNamesAndTheDefaultFamilysComesFirst) {
  const std::vector<RegisteredPreset> presets = training_presets();
  ASSERT_FALSE(presets.empty());
  EXPECT_EQ(presets.front().family, &default_trainable_family());
  std::set<std::string> ids;
  // A trained model's name ends ".<preset>" before an optional ".p<8 hex digits>" (the pairs' hash).
  const std::regex form("[a-z][a-z0-9-]*");
  const std::regex hash("p[0-9a-f]{8}");
  for (const RegisteredPreset& r : presets) {
    EXPECT_TRUE(ids.insert(r.preset->id).second) << "two presets are named " << r.preset->id;
    EXPECT_TRUE(std::regex_match(r.preset->id, form)) << r.preset->id;
    EXPECT_FALSE(std::regex_match(r.preset->id, hash)) << r.preset->id;
  }
}

}  // namespace
}  // namespace attnscope::train
