#include "train/options_json.h"

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "model/architecture_options.h"
#include "train/family_options.h"

namespace attnscope::train {

using json = nlohmann::json;

TrainSetup train_setup_from_json(const std::string& text) {
  const json j = parse_json(text, "training options", JsonSource::Input, /*plural=*/true);
  if (!j.is_object()) throw InputError("training options must be a JSON object");
  TrainSetup s;
  s.family = default_trainable_family().architecture;
  std::vector<std::string> given;  // the architecture options, in the order given
  for (const auto& [key, v] : j.items()) {
    const OwnedOption architecture = architecture_option_named(key);
    s.has_architecture |= key == "family" || architecture.option;
    if (architecture.option) {
      check_architecture_option(*architecture.option, v);
      s.architecture[key] = v;
      given.push_back(key);
    } else if (key == "family") s.family = option_string(v, key);
    // A JS number holds integers exactly up to 2^53: the seed stays below it.
    else if (key == "seed") s.options.seed = static_cast<std::uint64_t>(option_integer(v, key, (1LL << 53) - 1));
    else if (key == "lr") s.options.lr = option_number(v, key);
    else if (key == "batchTokens") s.options.batch_tokens = static_cast<int>(option_integer(v, key, kMaxOptionInteger));
    else if (key == "labelSmoothing") s.options.label_smoothing = static_cast<float>(option_number(v, key));
    else if (key == "dropout") s.options.dropout = static_cast<float>(option_number(v, key));
    else if (key == "clipNorm") s.options.clip_norm = option_number(v, key);
    else if (key == "countExact") s.options.count_exact = option_boolean(v, key);
    else if (key == "warmup") {
      const int warmup = static_cast<int>(option_integer(v, key, kMaxOptionInteger));
      if (warmup > 0) s.options.schedule = {Schedule::Kind::InverseSqrt, warmup};
    } else {
      throw InputError("unknown training option " + quote(key) + " (family, " + architecture_option_names() +
                       ", seed, lr, batchTokens, labelSmoothing, dropout, clipNorm, warmup, countExact)");
    }
  }
  const FamilyRegistration* family = trainable_family(s.family);
  if (!family)
    throw InputError("training option 'family' must be " + trainable_family_names("\"", " or ") + ", got \"" +
                     excerpt(s.family) + "\"");
  check_architecture_options(*family, s.architecture);  // an option of another family
  return s;
}

}  // namespace attnscope::train
