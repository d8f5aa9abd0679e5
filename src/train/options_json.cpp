#include "train/options_json.h"

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"

namespace attnscope::train {
namespace {

using json = nlohmann::json;

double number(const json& v, const std::string& key) {
  if (!v.is_number()) throw InputError("training option '" + key + "' must be a number, got " + json_excerpt(v));
  return v.get<double>();
}

long long integer(const json& v, const std::string& key, long long max) {
  const double x = number(v, key);
  // Range first: casting a double outside long long's range is undefined behaviour.
  if (!(x >= 0 && x <= static_cast<double>(max)) || x != static_cast<double>(static_cast<long long>(x)))
    throw InputError("training option '" + key + "' must be an integer in [0, " + std::to_string(max) + "], got " +
                     json_excerpt(v));
  return static_cast<long long>(x);
}

bool boolean(const json& v, const std::string& key) {
  if (!v.is_boolean()) throw InputError("training option '" + key + "' must be true or false, got " + json_excerpt(v));
  return v.get<bool>();
}

std::string string_value(const json& v, const std::string& key) {
  if (!v.is_string()) throw InputError("training option '" + key + "' must be a string, got " + json_excerpt(v));
  return v.get<std::string>();
}

// Fields of the transformer's width, which a decoder-only model shares.
bool is_transformer_field(const std::string& key) { return key == "heads" || key == "dModel" || key == "dFf"; }
bool is_decoder_only_field(const std::string& key) {
  return key == "activation" || key == "norm" || key == "positions" || key == "tiedOutput";
}
bool is_rnn_field(const std::string& key) {
  for (const char* k : {"cell", "attention", "score", "dEmbed", "dHidden", "dEncoder", "dAttention", "bidirectional",
                        "inputFeeding", "localWindow"})
    if (key == k) return true;
  return false;
}

}  // namespace

TrainSetup train_setup_from_json(const std::string& text) {
  const json j = parse_json(text, "training options", JsonSource::Input, /*plural=*/true);
  if (!j.is_object()) throw InputError("training options must be a JSON object");
  TrainSetup s;
  constexpr long long kInt = 1'000'000'000;
  // One given of each family's own, for the message when the chosen family has no such field.
  std::string transformer_field, rnn_field, decoder_only_field;
  for (const auto& [key, v] : j.items()) {
    const bool arch = key == "layers" || key == "family" || is_transformer_field(key) || is_rnn_field(key) ||
                      is_decoder_only_field(key);
    s.has_architecture |= arch;
    if (is_transformer_field(key)) transformer_field = key;
    if (is_rnn_field(key)) rnn_field = key;
    if (is_decoder_only_field(key)) decoder_only_field = key;
    if (key == "family") s.family = string_value(v, key);
    else if (key == "layers")
      s.architecture.layers = s.rnn.layers = s.decoder_only.layers = static_cast<int>(integer(v, key, kInt));
    else if (key == "cell") s.rnn.cell = string_value(v, key);
    else if (key == "attention") s.rnn.attention = string_value(v, key);
    else if (key == "score") s.rnn.score = string_value(v, key);
    else if (key == "dEmbed") s.rnn.d_embed = static_cast<int>(integer(v, key, kInt));
    else if (key == "dHidden") s.rnn.d_hidden = static_cast<int>(integer(v, key, kInt));
    else if (key == "dEncoder") s.rnn.d_encoder = static_cast<int>(integer(v, key, kInt));
    else if (key == "dAttention") s.rnn.d_attention = static_cast<int>(integer(v, key, kInt));
    else if (key == "bidirectional") s.rnn.bidirectional = boolean(v, key);
    else if (key == "inputFeeding") s.rnn.input_feeding = boolean(v, key);
    else if (key == "localWindow") s.rnn.local_window = static_cast<int>(integer(v, key, kInt));
    else if (key == "heads") s.architecture.heads = s.decoder_only.heads = static_cast<int>(integer(v, key, kInt));
    else if (key == "dModel") s.architecture.d_model = s.decoder_only.d_model = static_cast<int>(integer(v, key, kInt));
    else if (key == "dFf") s.architecture.d_ff = s.decoder_only.d_ff = static_cast<int>(integer(v, key, kInt));
    else if (key == "activation") s.decoder_only.activation = string_value(v, key);
    else if (key == "norm") s.decoder_only.norm = string_value(v, key);
    else if (key == "positions") s.decoder_only.positions = string_value(v, key);
    else if (key == "tiedOutput") s.decoder_only.tied_output = boolean(v, key);
    // A JS number holds integers exactly up to 2^53: the seed stays below it.
    else if (key == "seed") s.options.seed = static_cast<std::uint64_t>(integer(v, key, (1LL << 53) - 1));
    else if (key == "lr") s.options.lr = number(v, key);
    else if (key == "batchTokens") s.options.batch_tokens = static_cast<int>(integer(v, key, kInt));
    else if (key == "labelSmoothing") s.options.label_smoothing = static_cast<float>(number(v, key));
    else if (key == "dropout") s.options.dropout = static_cast<float>(number(v, key));
    else if (key == "clipNorm") s.options.clip_norm = number(v, key);
    else if (key == "countExact") s.options.count_exact = boolean(v, key);
    else if (key == "warmup") {
      const int warmup = static_cast<int>(integer(v, key, kInt));
      if (warmup > 0) s.options.schedule = {Schedule::Kind::InverseSqrt, warmup};
    } else {
      throw InputError("unknown training option " + quote(key) +
                       " (family, layers, heads, dModel, dFf, cell, attention, score, dEmbed, dHidden, dEncoder, "
                       "dAttention, bidirectional, inputFeeding, localWindow, activation, norm, positions, tiedOutput, "
                       "seed, lr, batchTokens, labelSmoothing, dropout, clipNorm, warmup, countExact)");
    }
  }
  if (s.family != "transformer" && s.family != "rnn" && s.family != "decoder_only")
    throw InputError("training option 'family' must be \"transformer\", \"rnn\" or \"decoder_only\", got \"" +
                     excerpt(s.family) + "\"");
  if (s.family == "rnn" && !transformer_field.empty())
    throw InputError("training option '" + transformer_field + "' is the transformer's: an RNN has none");
  if (s.family != "rnn" && !rnn_field.empty())
    throw InputError("training option '" + rnn_field + "' is the RNN's: add \"family\": \"rnn\"");
  if (s.family != "decoder_only" && !decoder_only_field.empty())
    throw InputError("training option '" + decoder_only_field + "' is the decoder-only model's: add \"family\": "
                     "\"decoder_only\"");
  // The width is split evenly over the heads (a transformer's and a decoder-only model's, which share these
  // fields), said in the options' names; a count below 1 is refused with the architecture's other checks.
  const Architecture& width = s.architecture;
  if (!transformer_field.empty() && width.heads >= 1 && width.d_model % width.heads != 0)
    throw InputError("dModel " + std::to_string(width.d_model) + " must be divisible by heads " +
                     std::to_string(width.heads));
  return s;
}

}  // namespace attnscope::train
