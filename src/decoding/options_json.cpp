#include "decoding/options_json.h"

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

double number(const json& v, const std::string& key) {
  if (!v.is_number()) throw InputError("decoding option '" + key + "' must be a number, got " + json_excerpt(v));
  return v.get<double>();
}

int integer(const json& v, const std::string& key) {
  const double x = number(v, key);
  // Range first: casting a double outside long long's range (1e300) is undefined behaviour.
  if (!(x >= -1e9 && x <= 1e9) || x != static_cast<double>(static_cast<long long>(x)))
    throw InputError("decoding option '" + key + "' must be an integer, got " + json_excerpt(v));
  return static_cast<int>(x);
}

bool boolean(const json& v, const std::string& key) {
  if (!v.is_boolean()) throw InputError("decoding option '" + key + "' must be true or false, got " + json_excerpt(v));
  return v.get<bool>();
}

std::string string(const json& v, const std::string& key) {
  if (!v.is_string()) throw InputError("decoding option '" + key + "' must be a string, got " + json_excerpt(v));
  return v.get<std::string>();
}

int index_or_all(const json& v, const std::string& key) {
  if (v.is_string() && v == "*") return -1;
  return integer(v, key);
}

// Custom attention weights: one row [w, ...] (every query) or a matrix [[w, ...], ...] (row i
// for query i).
std::vector<std::vector<float>> weight_rows(const json& v) {
  const char* what = "interventions.attention weights must be an array of numbers or an array of rows";
  if (!v.is_array() || v.empty()) throw InputError(what);
  const bool matrix = v[0].is_array();
  std::vector<std::vector<float>> rows;
  for (const json& row : matrix ? v : json::array({v})) {
    if (!row.is_array() || row.empty()) throw InputError(what);
    rows.emplace_back();
    for (const json& w : row) rows.back().push_back(static_cast<float>(number(w, "weights")));
  }
  return rows;
}

// {"attention": [{"site": <a name from the model's site table>, "layer": 0, "head": "*", "pattern": "uniform",
//                 "weights": [...] or [[...], ...]}],
//  "maskHeads": [{"site": <site name>, "layer": 0, "head": 3}],
//  "skip": ["encoderSelfAttention", "decoderSelfAttention", "crossAttention", "ffn", "layerNorm"],
//  "copySourceEncoding": true, "lastSourceState": true}
Interventions interventions_from_json(const json& j) {
  if (!j.is_object()) throw InputError("decoding option 'interventions' must be an object");
  Interventions iv;
  for (const auto& [key, v] : j.items()) {
    if (key == "attention" || key == "maskHeads") {
      if (!v.is_array()) throw InputError("interventions." + key + " must be an array");
      for (const json& e : v) {
        if (!e.is_object()) throw InputError("interventions." + key + " entries must be objects");
        // A site name from the model's table, checked when a session starts; none: the default
        // site (model/interventions.h).
        const std::string site = e.contains("site") ? string(e["site"], "site") : std::string();
        const int layer = e.contains("layer") ? index_or_all(e["layer"], "layer") : -1;
        const int head = e.contains("head") ? index_or_all(e["head"], "head") : -1;
        if (key == "maskHeads") {
          iv.masked_heads.push_back({site, layer, head});
          continue;
        }
        AttentionOverride o{site, layer, head, parse_attention_pattern(e.contains("pattern") ? string(e["pattern"], "pattern") : "uniform"), {}};
        if (e.contains("weights")) o.custom = weight_rows(e["weights"]);
        iv.attention.push_back(std::move(o));
      }
    } else if (key == "skip") {
      if (!v.is_array()) throw InputError("interventions.skip must be an array");
      for (const json& name : v) {
        const std::string what = string(name, "skip");
        if (what == "encoderSelfAttention") iv.skip_encoder_self_attention = true;
        else if (what == "decoderSelfAttention") iv.skip_decoder_self_attention = true;
        else if (what == "crossAttention") iv.skip_cross_attention = true;
        else if (what == "ffn") iv.skip_ffn = true;
        else if (what == "layerNorm") iv.skip_layer_norm = true;
        else throw InputError("unknown skip " + quote(what) + " (encoderSelfAttention, decoderSelfAttention, crossAttention, ffn, layerNorm)");
      }
    } else if (key == "copySourceEncoding") {
      iv.copy_source_encoding = boolean(v, "interventions.copySourceEncoding");
    } else if (key == "lastSourceState") {
      iv.last_source_state = boolean(v, "interventions.lastSourceState");
    } else {
      throw InputError("unknown intervention " + quote(key) +
                       " (attention, maskHeads, skip, copySourceEncoding, lastSourceState)");
    }
  }
  return iv;
}

json parse_object(const std::string& text, const char* what) {
  return text.empty() ? json::object() : parse_json(text, what, JsonSource::Input, /*plural=*/true);
}

}  // namespace

Interventions interventions_from_json(const std::string& text) {
  return interventions_from_json(parse_object(text, "interventions"));
}

DecodeOptions decode_options_from_json(const std::string& text, const DecodeOptions& base) {
  const json j = parse_object(text, "decoding options");
  if (!j.is_object()) throw InputError("decoding options must be an object");

  DecodeOptions o = base;
  for (const auto& [key, v] : j.items()) {
    if (v.is_null()) continue;  // undefined fields from JS
    if (key == "strategy") o.strategy = parse_strategy(string(v, key));
    else if (key == "beamSize") o.beam_size = integer(v, key);
    else if (key == "nbest") o.nbest = integer(v, key);
    else if (key == "lengthPenalty") o.length_penalty = parse_length_penalty(string(v, key));
    else if (key == "alpha") o.alpha = number(v, key);
    else if (key == "earlyStopping") o.early_stopping = parse_early_stopping(string(v, key));
    else if (key == "maxLength") o.max_length = integer(v, key);
    else if (key == "maxLengthA") o.max_length_a = number(v, key);
    else if (key == "maxLengthB") o.max_length_b = number(v, key);
    else if (key == "minLength") o.min_length = integer(v, key);
    else if (key == "forcedEos") o.forced_eos = boolean(v, key);
    else if (key == "renormalize") o.renormalize = boolean(v, key);
    else if (key == "noRepeatNgram") o.no_repeat_ngram_size = integer(v, key);
    else if (key == "repetitionPenalty") o.repetition_penalty = number(v, key);
    else if (key == "temperature") o.temperature = number(v, key);
    else if (key == "topK") o.top_k = integer(v, key);
    else if (key == "topP") o.top_p = number(v, key);
    else if (key == "seed") {
      const double seed = number(v, key);
      if (seed < 0 || seed > 9007199254740991.0 || seed != static_cast<double>(static_cast<std::uint64_t>(seed)))
        throw InputError("decoding option 'seed' must be an integer in [0, 2^53)");
      o.seed = static_cast<std::uint64_t>(seed);
    } else if (key == "prefix") {
      if (!v.is_array()) throw InputError("decoding option 'prefix' must be an array of token ids");
      for (const json& id : v) o.prefix.push_back(integer(id, "prefix"));
    } else if (key == "prependBos") o.prepend_bos = boolean(v, key);
    else if (key == "alternatives") o.alternatives = integer(v, key);
    else if (key == "capture") {
      if (!v.is_object()) throw InputError("decoding option 'capture' must be an object");
      for (const auto& [what, flag] : v.items()) {
        if (what == "attention") o.capture.attention = boolean(flag, "capture.attention");
        else if (what == "vectors") o.capture.vectors = boolean(flag, "capture.vectors");
        else if (what == "logits") o.capture.logits = boolean(flag, "capture.logits");
        else throw InputError("unknown capture option " + quote(what) + " (attention, vectors, logits)");
      }
    } else if (key == "interventions") {
      o.interventions = interventions_from_json(v);
    } else {
      throw InputError("unknown decoding option " + quote(key));
    }
  }
  o.validate();
  return o;
}

}  // namespace attnscope
