#pragma once
// The families that train and their architecture options, as the registry (model/registry.h)
// lists them: what the JSON training options (train/options_json.h) and attnscope-cli train's
// flags accept, and the words both use when an option does not fit the chosen family.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "model/registry.h"

namespace attnscope::train {

// The family of that name if it trains, else nullptr.
const FamilyRegistration* trainable_family(const std::string& name);
// The first that trains: a fresh model's family when none is named.
const FamilyRegistration& default_trainable_family();
// Their names, each between `mark`s: `between` them, or `last` before the last one
// ("\"transformer\", \"rnn\" or \"decoder_only\"").
std::string trainable_family_names(const std::string& mark, const std::string& last,
                                   const std::string& between = ", ");

// A preset of the demo page's Training panel (model/registry.h TrainingPreset) and the family
// that registers it.
struct RegisteredPreset {
  const FamilyRegistration* family = nullptr;
  const TrainingPreset* preset = nullptr;
};
// Every family's presets, in the registry's order: the default family's first comes first.
std::vector<RegisteredPreset> training_presets();

// An architecture option of any family that trains, with the first such family declaring it (its
// owner); option nullptr when none has it.
struct OwnedOption {
  const ArchitectureOption* option = nullptr;
  const FamilyRegistration* owner = nullptr;
};
OwnedOption architecture_option_named(const std::string& name);
OwnedOption architecture_option_of_flag(const std::string& flag);
// Every family's option names, each once, in the registry's order ("layers, heads, ...").
std::string architecture_option_names();

// Empty when `family` takes every option named in `given` (JSON names, in the order given); else
// the message for one it does not: the last given of the first owner (in the registry's order)
// with one, `shown(option)` saying which, e.g. "'heads' is the transformer's: an RNN has none"
// (an option of the default family) or "'cell' is the RNN's: " + `add_family(owner)`.
std::string misplaced_option(const FamilyRegistration& family, const std::vector<std::string>& given,
                             const std::function<std::string(const ArchitectureOption&)>& shown,
                             const std::function<std::string(const FamilyRegistration&)>& add_family);

// `architecture` (a JSON object, or null for none) holds only options `family` takes, each of its kind (InputError
// in the JSON options' words otherwise).
void check_architecture_options(const FamilyRegistration& family, const nlohmann::json& architecture);

}  // namespace attnscope::train
