#include "train/options_json.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace attnscope::train {
namespace {

using json = nlohmann::json;

double number(const json& v, const std::string& key) {
  if (!v.is_number()) throw InputError("training option '" + key + "' must be a number, got " + v.dump());
  return v.get<double>();
}

long long integer(const json& v, const std::string& key, long long max) {
  const double x = number(v, key);
  // Range first: casting a double outside long long's range is undefined behaviour.
  if (!(x >= 0 && x <= static_cast<double>(max)) || x != static_cast<double>(static_cast<long long>(x)))
    throw InputError("training option '" + key + "' must be an integer in [0, " + std::to_string(max) + "], got " +
                     v.dump());
  return static_cast<long long>(x);
}

}  // namespace

TrainSetup train_setup_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(std::string("training options are not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError("training options must be a JSON object");
  TrainSetup s;
  constexpr long long kInt = 1'000'000'000;
  for (const auto& [key, v] : j.items()) {
    const bool arch = key == "layers" || key == "heads" || key == "dModel" || key == "dFf";
    s.has_architecture |= arch;
    if (key == "layers") s.architecture.layers = static_cast<int>(integer(v, key, kInt));
    else if (key == "heads") s.architecture.heads = static_cast<int>(integer(v, key, kInt));
    else if (key == "dModel") s.architecture.d_model = static_cast<int>(integer(v, key, kInt));
    else if (key == "dFf") s.architecture.d_ff = static_cast<int>(integer(v, key, kInt));
    // A JS number holds integers exactly up to 2^53: the seed stays below it.
    else if (key == "seed") s.options.seed = static_cast<std::uint64_t>(integer(v, key, (1LL << 53) - 1));
    else if (key == "lr") s.options.lr = number(v, key);
    else if (key == "batchTokens") s.options.batch_tokens = static_cast<int>(integer(v, key, kInt));
    else if (key == "labelSmoothing") s.options.label_smoothing = static_cast<float>(number(v, key));
    else if (key == "dropout") s.options.dropout = static_cast<float>(number(v, key));
    else if (key == "clipNorm") s.options.clip_norm = number(v, key);
    else if (key == "warmup") {
      const int warmup = static_cast<int>(integer(v, key, kInt));
      if (warmup > 0) s.options.schedule = {Schedule::Kind::InverseSqrt, warmup};
    } else {
      throw InputError("unknown training option '" + key +
                       "' (layers, heads, dModel, dFf, seed, lr, batchTokens, labelSmoothing, dropout, clipNorm, warmup)");
    }
  }
  return s;
}

}  // namespace attnscope::train
