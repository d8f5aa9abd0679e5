// libFuzzer target: the decoding engine on hostile but loadable models. The input bytes choose a
// tiny model (shape, vocabularies, special ids, dtype, weights including huge finite values),
// writes it as a .safetensors file, loads it, then decodes with options and a sequence of API
// calls (step, back, force, run, observation and analyses) also taken from the input.
//
// Allowed outcomes: attnscope::Error (an option, index or model the engine refuses, with a
// message). Anything else (another exception, a sanitizer report, a FUZZ_CHECK) is a bug.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/scoring.h"
#include "analysis/session_analysis.h"
#include "analysis/vectors.h"
#include "core/error.h"
#include "decoding/options_json.h"
#include "decoding/session.h"
#include "fuzz_check.h"
#include "model/model.h"

using namespace attnscope;
using json = nlohmann::json;

namespace {

// Reads the fuzz input front to back; past its end every read is 0.
struct Input {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  int range(int lo, int hi) { return lo + byte() % (hi - lo + 1); }
  bool flag() { return byte() & 1; }
  float weight() {
    const std::uint8_t b = byte();
    switch (b >> 5) {
      case 0: return 0.0f;
      case 1: return (b & 16 ? -1.0f : 1.0f) * std::pow(10.0f, static_cast<float>(b & 15) * 2.5f);  // up to 1e37
      default: return (static_cast<float>(b) - 128.0f) / 64.0f;
    }
  }
};

std::uint16_t to_half(float f) {  // round toward zero; saturates to the largest finite half
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = (x >> 16) & 0x8000;
  const int exponent = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0) return sign;
  if (exponent >= 31) return sign | 0x7bff;
  return sign | static_cast<std::uint16_t>(exponent << 10) | ((x >> 13) & 0x3ff);
}

std::vector<std::uint8_t> make_model(Input& in) {
  const int heads = in.range(1, 3), d = heads * in.range(1, 3), ff = in.range(1, 5);
  const int enc = in.range(1, 2), dec = in.range(1, 2);
  const bool shared = in.flag(), tied = in.flag(), pre = in.flag(), learned = in.flag(), f16 = in.flag();
  const int vs = in.range(1, 7), vt = shared ? vs : in.range(1, 7);
  const int specials = std::min(vs, vt);
  json config = {{"d_model", d}, {"n_heads", heads}, {"d_ff", ff}, {"n_encoder_layers", enc}, {"n_decoder_layers", dec},
                 {"activation", in.flag() ? "relu" : "gelu"}, {"norm", pre ? "pre" : "post"},
                 {"positions", learned ? "learned" : "sinusoidal"}, {"max_positions", in.range(2, 9)},
                 {"embedding_scale", in.weight()}, {"shared_embeddings", shared}, {"tied_output", tied},
                 {"layer_norm_eps", in.flag() ? 1e-5 : 1e-30}, {"src_append_eos", in.flag()},
                 {"special_tokens", {{"pad", in.range(0, specials - 1)}, {"unk", in.range(0, specials - 1)},
                                     {"bos", in.range(0, specials - 1)}, {"eos", in.range(0, specials - 1)}}}};
  auto vocab = [](const char* prefix, int n) {
    std::vector<std::string> v;
    for (int i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
    return v;
  };
  const auto src_vocab = vocab("s", vs);
  const auto tgt_vocab = shared ? src_vocab : vocab("t", vt);

  std::vector<std::pair<std::string, std::vector<int>>> tensors = {{"src_embed.weight", {vs, d}}};
  if (!shared) tensors.push_back({"tgt_embed.weight", {vt, d}});
  auto linear = [&](const std::string& p, int out, int inp) {
    tensors.push_back({p + ".weight", {out, inp}});
    tensors.push_back({p + ".bias", {out}});
  };
  auto norm = [&](const std::string& p) {
    tensors.push_back({p + ".weight", {d}});
    tensors.push_back({p + ".bias", {d}});
  };
  for (const char* side : {"encoder", "decoder"}) {
    const bool decoder = side[0] == 'd';
    for (int i = 0; i < (decoder ? dec : enc); ++i) {
      const std::string p = std::string(side) + ".layers." + std::to_string(i);
      for (const char* attn : {"self_attn", "cross_attn"}) {
        if (!decoder && attn[0] == 'c') continue;
        for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) linear(p + "." + attn + "." + proj, d, d);
        norm(p + "." + attn + "_norm");
      }
      linear(p + ".ffn.fc1", ff, d);
      linear(p + ".ffn.fc2", d, ff);
      norm(p + ".ffn_norm");
    }
    if (pre) norm(std::string(side) + ".final_norm");
    if (learned) tensors.push_back({std::string(side) + ".pos_embed.weight", {config["max_positions"].get<int>(), d}});
  }
  if (!tied) tensors.push_back({"output.weight", {vt, d}});
  tensors.push_back({"output.bias", {vt}});

  json header = {{"__metadata__",
                  {{"format", "attnscope"}, {"format_version", "1"}, {"config", config.dump()},
                   {"tokenizer", json{{"type", "word"}}.dump()}, {"src_vocab", json(src_vocab).dump()},
                   {"tgt_vocab", json(tgt_vocab).dump()}}}};
  std::vector<std::uint8_t> data;
  for (const auto& [name, shape] : tensors) {
    std::size_t count = 1;
    for (int s : shape) count *= static_cast<std::size_t>(s);
    const std::size_t begin = data.size();
    for (std::size_t i = 0; i < count; ++i) {
      const float w = in.weight();
      if (f16) {
        const std::uint16_t h = to_half(w);
        data.push_back(h & 0xff);
        data.push_back(h >> 8);
      } else {
        std::uint8_t b[4];
        std::memcpy(b, &w, 4);
        data.insert(data.end(), b, b + 4);
      }
    }
    header[name] = {{"dtype", f16 ? "F16" : "F32"}, {"shape", shape}, {"data_offsets", {begin, data.size()}}};
  }
  const std::string text = header.dump();
  std::vector<std::uint8_t> file(8 + text.size() + data.size());
  for (int i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
  std::copy(text.begin(), text.end(), file.begin() + 8);
  std::copy(data.begin(), data.end(), file.begin() + 8 + static_cast<std::ptrdiff_t>(text.size()));
  return file;
}

std::string options_json(Input& in, const Model& m) {
  static const char* strategies[] = {"greedy", "beam", "sample"};
  static const char* penalties[] = {"none", "average", "gnmt"};
  static const char* sites[] = {"encoder", "self", "cross"};
  static const char* patterns[] = {"uniform", "beginning", "end", "custom"};
  static const char* skips[] = {"encoderSelfAttention", "decoderSelfAttention", "crossAttention", "ffn", "layerNorm"};
  const int V = m.tgt_vocab.size();
  json o = {{"strategy", strategies[in.range(0, 2)]}, {"beamSize", in.range(1, 6)}, {"lengthPenalty", penalties[in.range(0, 2)]},
            {"alpha", in.range(0, 20) / 2.0}, {"temperature", std::pow(10.0, in.range(-3, 3))}, {"topK", in.range(0, V + 1)},
            {"topP", in.range(1, 10) / 10.0}, {"seed", in.byte()}, {"alternatives", in.range(0, V + 1)},
            {"capture", {{"attention", in.flag()}, {"vectors", in.flag()}, {"logits", in.flag()}}}};
  o["nbest"] = in.range(1, o["beamSize"].get<int>());
  if (in.flag()) o["maxLength"] = in.range(0, 10);
  if (in.flag()) o["minLength"] = in.range(0, 6);
  if (in.flag()) {
    o["maxLengthA"] = in.range(0, 4) / 2.0;
    o["maxLengthB"] = in.range(-3, 3);
  }
  if (in.flag()) {
    o["prefix"] = json::array();
    for (int i = in.range(0, 3); i > 0; --i) o["prefix"].push_back(in.range(-1, V));
  }
  if (in.flag()) {
    json iv = json::object();
    for (int i = in.range(0, 2); i > 0; --i) {
      json a = {{"site", sites[in.range(0, 2)]}, {"layer", in.range(-1, 2)}, {"head", in.range(-1, 3)},
                {"pattern", patterns[in.range(0, 3)]}};
      if (a["layer"] == -1) a["layer"] = "*";
      if (a["head"] == -1) a["head"] = "*";
      if (a["pattern"] == "custom") {
        json rows = json::array();
        for (int r = in.range(1, 3); r > 0; --r) {
          json row = json::array();
          for (int k = in.range(1, 10); k > 0; --k) row.push_back(in.range(0, 3));
          rows.push_back(row);
        }
        a["weights"] = in.flag() ? rows : rows[0];
      }
      iv["attention"].push_back(a);
    }
    for (int i = in.range(0, 2); i > 0; --i)
      iv["maskHeads"].push_back({{"site", sites[in.range(0, 2)]}, {"layer", in.range(0, 2)}, {"head", in.range(0, 3)}});
    for (int i = in.range(0, 2); i > 0; --i) iv["skip"].push_back(skips[in.range(0, 4)]);
    if (in.flag()) iv["copySourceEncoding"] = true;
    o["interventions"] = iv;
  }
  return o.dump();
}

void check_session(const DecodeSession& s) {
  const int V = s.model().tgt_vocab.size();
  FUZZ_CHECK(s.steps_taken() == static_cast<int>(s.history().size()));
  FUZZ_CHECK(s.steps_taken() <= s.max_length());
  for (const Hypothesis& h : s.live())
    for (int t : h.tokens) FUZZ_CHECK(t >= 0 && t < V);
  for (const FinishedHypothesis& f : s.finished()) {
    for (int t : f.tokens) FUZZ_CHECK(t >= 0 && t < V);
    s.detokenize(f.tokens);
  }
  for (const BeamNode& n : s.tree()) {
    FUZZ_CHECK(n.parent < static_cast<int>(s.tree().size()) && (n.token == -1 || n.token < V));
    FUZZ_CHECK(!std::isnan(n.score));
  }
  // A step either fails with an Error or reports numbers: finite logits, log-probabilities that
  // are no NaN (a probability may underflow to 0, i.e. -inf).
  for (const StepRecord& r : s.history())
    for (const Expansion& e : r.expansions) {
      for (const Alternative& a : e.top) FUZZ_CHECK(std::isfinite(a.logit) && !std::isnan(a.log_prob));
      for (float x : e.logits) FUZZ_CHECK(std::isfinite(x));
      for (float x : e.log_probs) FUZZ_CHECK(!std::isnan(x));
    }
}

// One API call chosen by the input; attnscope::Error is an allowed answer.
// A site name of the model's table, or sometimes one it does not have.
std::string site_name(Input& in, const DecodeSession& s) {
  const SiteTable& sites = s.model().sites();
  const int k = in.range(0, static_cast<int>(sites.size()));
  return k < static_cast<int>(sites.size()) ? sites[k].name : std::string("no such site");
}

void act(Input& in, DecodeSession& s) {
  const int i = in.range(0, 2 * std::max(1, s.steps_taken())) - 1;  // sometimes out of range
  const int h = in.range(0, 3) - 1;
  try {
    switch (in.range(0, 11)) {
      case 0: case 1: case 2: s.step(); break;
      case 3: s.back(); break;
      case 4: s.force(in.range(0, s.model().tgt_vocab.size() + 1) - 1, h); break;
      case 5: s.run(); break;
      case 6: s.nbest(); break;
      case 7: encoder_rollout(s); break;
      case 8: value_weighted_attention(s, site_name(in, s), i, h); break;
      case 9: encoder_patterns(s); break;
      case 10: attention_logits(s, site_name(in, s), in.range(-1, 2), in.range(-1, 3), in.range(-1, 9), i, h); break;
      case 11: score_target(s.model(), s.source(), s.live().empty() ? std::vector<int>{} : s.live()[0].tokens); break;
    }
  } catch (const Error&) {
  }
  check_session(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  const std::vector<std::uint8_t> file = make_model(in);
  std::shared_ptr<const Model> model;
  try {
    model = Model::load_bytes(file.data(), file.size());
  } catch (const ModelFileError& e) {
    std::fprintf(stderr, "a generated model did not load: %s\n", e.what());
    FUZZ_CHECK(!"every generated model is valid");
  }
  const Model& m = *model;
  Source source;
  const int length = in.range(1, m.config.max_positions);
  for (int k = 0; k < length; ++k) {
    source.ids.push_back(in.range(0, m.src_vocab.size() - 1));
    source.pieces.push_back(m.src_vocab.token(source.ids.back()));
  }
  std::unique_ptr<DecodeSession> session;
  try {
    session = std::make_unique<DecodeSession>(model, source, decode_options_from_json(options_json(in, m)));
  } catch (const Error&) {
    return 0;
  }
  check_session(*session);
  for (int k = in.range(1, 24); k > 0; --k) act(in, *session);
  return 0;
}
