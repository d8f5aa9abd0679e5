// Malformed model files: each is derived from a good golden file by editing its bytes or
// header, and each must fail with a ModelFileError that names what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "decoding/session.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;
using Bytes = std::vector<std::uint8_t>;

const char* kGood = "tiny_post_sin.safetensors";

Bytes good_file() { return read_file_bytes(testing::golden_path(kGood)); }

std::uint64_t header_length(const Bytes& b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  return n;
}

json header_of(const Bytes& b) { return json::parse(b.begin() + 8, b.begin() + 8 + header_length(b)); }

Bytes with_header(const Bytes& b, const std::string& header_text) {
  Bytes out(8);
  const std::uint64_t n = header_text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  out.insert(out.end(), header_text.begin(), header_text.end());
  out.insert(out.end(), b.begin() + 8 + header_length(b), b.end());
  return out;
}

// The same file with its JSON header edited; the data section is kept as it is.
Bytes edited(const std::function<void(json&)>& edit) {
  const Bytes b = good_file();
  json h = header_of(b);
  edit(h);
  return with_header(b, h.dump());
}

// The same file with its JSON header edited and its data section rebuilt around the edit: each
// tensor's bytes (the first of its old range, as many as its new one needs) laid one after
// another, as the format requires (no gap where a tensor was removed or shrunk).
Bytes edited_packed(const std::function<void(json&)>& edit) {
  const Bytes b = good_file();
  const std::size_t data = 8 + header_length(b);
  json h = header_of(b);
  edit(h);
  Bytes section;
  for (auto& [name, t] : h.items()) {
    if (name == "__metadata__") continue;
    const std::size_t begin = t["data_offsets"][0], end = t["data_offsets"][1];
    t["data_offsets"] = {section.size(), section.size() + (end - begin)};
    section.insert(section.end(), b.begin() + data + begin, b.begin() + data + end);
  }
  Bytes out = with_header(Bytes(b.begin(), b.begin() + data), h.dump());
  out.insert(out.end(), section.begin(), section.end());
  return out;
}

Bytes with_config(const std::function<void(json&)>& edit) {
  return edited([&](json& h) {
    json c = json::parse(h["__metadata__"]["config"].get<std::string>());
    edit(c);
    h["__metadata__"]["config"] = c.dump();
  });
}

// Loads `bytes` and returns the error message, or fails the test if it loaded.
std::string load_error(const Bytes& bytes) {
  try {
    Model::load_bytes(bytes.data(), bytes.size());
  } catch (const ModelFileError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the malformed file loaded";
  return "";
}

#define EXPECT_LOAD_ERROR(bytes, fragment) EXPECT_THAT_MESSAGE(load_error(bytes), fragment)
#define EXPECT_THAT_MESSAGE(message, fragment)                                   \
  do {                                                                           \
    const std::string m_ = (message);                                            \
    EXPECT_NE(m_.find(fragment), std::string::npos) << "message was: " << m_;    \
  } while (0)

TEST(ModelFile, GoodFileLoadsFromPathAndFromMemory) {
  const Bytes b = good_file();
  const auto from_memory = Model::load_bytes(b.data(), b.size());
  const auto from_path = Model::load_file(testing::golden_path(kGood));
  EXPECT_EQ(from_memory->config.to_json(), from_path->config.to_json());
  EXPECT_TRUE(from_memory->family->token_embeddings(Side::Source).to_matrix() ==
              from_path->family->token_embeddings(Side::Source).to_matrix());
}

TEST(ModelFile, MissingFileNamesThePath) {
  try {
    Model::load_file("/nonexistent/model.safetensors");
    FAIL() << "loaded a file that does not exist";
  } catch (const Error& e) {
    EXPECT_THAT_MESSAGE(e.what(), "/nonexistent/model.safetensors");
  }
}

TEST(ModelFile, TruncatedAtManyOffsets) {
  const Bytes b = good_file();
  const std::size_t header_end = 8 + header_length(b);
  EXPECT_LOAD_ERROR(Bytes(b.begin(), b.begin() + 0), "too short");
  EXPECT_LOAD_ERROR(Bytes(b.begin(), b.begin() + 5), "too short");
  for (std::size_t cut : {std::size_t(8), std::size_t(40), header_end - 1})
    EXPECT_LOAD_ERROR(Bytes(b.begin(), b.begin() + cut), "exceeds");
  for (std::size_t cut : {header_end, header_end + 3, (header_end + b.size()) / 2, b.size() - 1})
    EXPECT_LOAD_ERROR(Bytes(b.begin(), b.begin() + cut), "outside");
  // Every 37th offset of the whole file: the message names what the cut leaves.
  for (std::size_t cut = 0; cut < b.size(); cut += 37) {
    const Bytes cut_file(b.begin(), b.begin() + cut);
    if (cut < 8) EXPECT_LOAD_ERROR(cut_file, std::to_string(cut) + " bytes, too short");
    else if (cut < header_end) EXPECT_LOAD_ERROR(cut_file, "exceeds the " + std::to_string(cut - 8) + " bytes after it");
    else EXPECT_LOAD_ERROR(cut_file, "outside the " + std::to_string(cut - header_end) + "-byte data section");
  }
}

TEST(ModelFile, HeaderLengthLargerThanFile) {
  Bytes b = good_file();
  const std::uint64_t huge = b.size() + 1000;
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(huge >> (8 * i));
  EXPECT_LOAD_ERROR(b, "header length");
  for (int i = 0; i < 8; ++i) b[i] = 0xff;
  EXPECT_LOAD_ERROR(b, "header length");
}

TEST(ModelFile, BadJson) {
  const Bytes b = good_file();
  std::string text(b.begin() + 8, b.begin() + 8 + header_length(b));
  text[text.size() / 2] = '{';
  text.replace(0, 1, "[");
  EXPECT_LOAD_ERROR(with_header(b, text), "not valid JSON");
  EXPECT_LOAD_ERROR(with_header(b, "[1, 2, 3]"), "not a JSON object");
}

TEST(ModelFile, MissingTensor) {
  EXPECT_LOAD_ERROR(edited_packed([](json& h) { h.erase("encoder.layers.0.ffn.fc1.bias"); }),
                    "missing tensor 'encoder.layers.0.ffn.fc1.bias'");
  EXPECT_LOAD_ERROR(edited_packed([](json& h) { h.erase("output.weight"); }), "missing tensor 'output.weight'");
}

TEST(ModelFile, WrongShape) {
  // Same byte count, dimensions swapped: only the shape check can catch it.
  EXPECT_LOAD_ERROR(edited([](json& h) {
                      auto& s = h["src_embed.weight"]["shape"];
                      std::swap(s[0], s[1]);
                    }),
                    "tensor 'src_embed.weight' has shape");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["decoder.layers.0.cross_attn.q_proj.weight"]["shape"] = {8, 32}; }),
                    "decoder.layers.0.cross_attn.q_proj.weight");
}

TEST(ModelFile, WrongShapeForItsBytes) {
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["shape"] = {3}; }), "bytes but its dtype and shape need");
}

TEST(ModelFile, WrongDtype) {
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["dtype"] = "F64"; }),
                    "tensor 'output.bias' has dtype F64; attnscope reads F32, F16 and BF16");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["dtype"] = "I64"; }), "has dtype I64");
  // F16 or BF16 with F32's byte count: caught by the size check.
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["dtype"] = "F16"; }), "output.bias");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["dtype"] = "BF16"; }), "bytes but its dtype and shape need");
}

TEST(ModelFile, NaNAndInfWeights) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    Bytes b = good_file();
    const json h = header_of(b);
    const std::size_t at = 8 + header_length(b) + h["encoder.layers.0.ffn.fc2.weight"]["data_offsets"][0].get<std::size_t>() + 4 * 7;
    std::memcpy(&b[at], &bad, 4);
    EXPECT_LOAD_ERROR(b, std::string("tensor 'encoder.layers.0.ffn.fc2.weight' contains ") +
                             (std::isnan(bad) ? "NaN" : "Inf") + " at flat index 7");
  }
}

TEST(ModelFile, OverlappingOrOutOfRangeOffsets) {
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["data_offsets"] = h["src_embed.weight"]["data_offsets"]; }),
                    "bytes but its dtype");
  EXPECT_LOAD_ERROR(edited([](json& h) {
                      const auto b = h["src_embed.weight"]["data_offsets"][0].get<std::size_t>();
                      const auto n = h["output.bias"]["data_offsets"][1].get<std::size_t>() -
                                     h["output.bias"]["data_offsets"][0].get<std::size_t>();
                      h["output.bias"]["data_offsets"] = {b, b + n};
                    }),
                    "overlap");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["data_offsets"] = {1u << 30, (1u << 30) + 64}; }),
                    "outside");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["output.bias"]["data_offsets"] = {-4, 60}; }), "data_offsets");
}

TEST(ModelFile, UnexpectedTensor) {
  EXPECT_LOAD_ERROR(edited([](json& h) { h["encoder.layers.7.extra"] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {0, 0}}}; }),
                    "unexpected tensor 'encoder.layers.7.extra'");
}

TEST(ModelFile, MetadataProblems) {
  EXPECT_LOAD_ERROR(edited([](json& h) { h.erase("__metadata__"); }), "metadata 'format' is missing");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["format"] = "gguf"; }), "expected 'attnscope'");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["format_version"] = "9"; }), "format_version '9'");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"].erase("config"); }), "metadata 'config' is missing");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["config"] = "{nope"; }), "config metadata is not valid JSON");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"].erase("tgt_vocab"); }), "metadata 'tgt_vocab' is missing");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["src_vocab"] = "[1, 2]"; }), "only strings");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["tokenizer"] = R"({"type":"unigram"})"; }),
                    "tokenizer type 'unigram'");
  EXPECT_LOAD_ERROR(edited([](json& h) { h["__metadata__"]["name"] = 5; }), "is not a string");
}

TEST(ModelFile, AbsurdConfig) {
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["n_heads"] = 0; }), "'n_heads' = 0 is outside");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["n_heads"] = 3; }), "not divisible by n_heads = 3");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["max_positions"] = 1000000000; }), "'max_positions' = 1000000000");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c.erase("d_ff"); }), "config field 'd_ff' is missing");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["d_model"] = "16"; }), "'d_model' must be an integer");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["activation"] = "tanh"; }), "'activation' must be");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["norm"] = nullptr; }), "'norm' must be");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["layer_norm_eps"] = -1; }), "layer_norm_eps");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["special_tokens"]["eos"] = 100000; }), "special token 'eos'");
  // A config that disagrees with the tensors (2 layers declared, 1 stored).
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["n_encoder_layers"] = 2; }), "missing tensor 'encoder.layers.1.");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["d_ff"] = 33; }), "has shape");
}

// config.architecture picks the model family: absent means the transformer (every file written
// before the field existed), and a family this engine lacks is named in the error.
TEST(ModelFile, ArchitectureSelectsTheFamily) {
  const Bytes plain = with_config([](json& c) { c.erase("architecture"); });
  const auto absent = Model::load_bytes(plain.data(), plain.size());
  EXPECT_EQ(absent->config.architecture, "transformer");
  const Bytes named = with_config([](json& c) { c["architecture"] = "transformer"; });
  const auto explicit_ = Model::load_bytes(named.data(), named.size());
  EXPECT_EQ(explicit_->sites().size(), absent->sites().size());
  std::vector<std::string> names;
  for (const AttentionSiteInfo& site : absent->sites()) names.push_back(site.name);
  EXPECT_EQ(names, (std::vector<std::string>{"encoder", "self", "cross"}));
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["architecture"] = "rnn-bahdanau"; }),
                    "config architecture 'rnn-bahdanau' is not supported (this engine reads transformer, rnn, bert, decoder_only)");
  EXPECT_LOAD_ERROR(with_config([](json& c) { c["architecture"] = 7; }), "'architecture' must be a non-empty string");
}

// The site table says what interventions may do to each site, so callers (the page's "Break
// the model" panel) read it instead of re-deriving it from names: the skip that switches its
// sub-layer off, whether custom weights fit it, whether the copied source encoding replaces it.
TEST(ModelFile, SiteTableCarriesTheInterventionFacts) {
  const Bytes plain = with_config([](json&) {});
  const auto model = Model::load_bytes(plain.data(), plain.size());
  std::vector<std::string> skips;
  std::vector<bool> custom, copied;
  for (const AttentionSiteInfo& site : model->sites()) {
    skips.push_back(site.skip);
    custom.push_back(site.takes_custom_weights());
    copied.push_back(site.copied_by_source_encoding);
  }
  EXPECT_EQ(skips, (std::vector<std::string>{"encoderSelfAttention", "decoderSelfAttention", "crossAttention"}));
  EXPECT_EQ(custom, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(copied, (std::vector<bool>{false, false, true}));
}

// Files that load but are hostile to decoding; both were found by fuzz_decode (their inputs are
// in tests/fuzz/regressions/decode/).
DecodeSession session_of(const Bytes& file, Strategy strategy, int min_length = 0) {
  DecodeOptions o;
  o.strategy = strategy;
  o.min_length = min_length;
  return DecodeSession(Model::load_bytes(file.data(), file.size()), "i eat", o);
}

// </s> the only target token and min_length > 0: greedy chose id 1 (a heap over-read one past the
// vocabulary) and sampling read order[-1]. Now min_length cannot ban the only token.
TEST(HostileModelFile, OnlyEosInTheTargetVocabularyWithMinLength) {
  const Bytes file = edited_packed([](json& h) {
    json c = json::parse(h["__metadata__"]["config"].get<std::string>());
    c["special_tokens"] = {{"pad", 0}, {"unk", 0}, {"bos", 0}, {"eos", 0}};
    h["__metadata__"]["config"] = c.dump();
    h["__metadata__"]["tgt_vocab"] = R"(["</s>"])";
    for (const char* name : {"tgt_embed.weight", "output.weight", "output.bias"}) {
      json& t = h[name];
      const std::size_t begin = t["data_offsets"][0], row = t["shape"].size() == 2 ? t["shape"][1].get<std::size_t>() : 1;
      t["shape"][0] = 1;
      t["data_offsets"] = {begin, begin + 4 * row};
    }
  });
  for (Strategy strategy : {Strategy::Greedy, Strategy::Sample, Strategy::Beam}) {
    DecodeSession s = session_of(file, strategy, 3);
    s.run();
    ASSERT_EQ(s.nbest().size(), 1u);
    EXPECT_EQ(s.nbest()[0].tokens, std::vector<int>{0});
    EXPECT_TRUE(s.nbest()[0].finished);
  }
}

// Finite weights that overflow float32 gave NaN logits, and decoding went on choosing token 0 with
// NaN scores: a translation of <pad>s that looked like any other. Now the step is an Error, and
// the session stays as it was.
TEST(HostileModelFile, OverflowingComputationIsAnError) {
  const Bytes file = with_config([](json& c) { c["embedding_scale"] = 3e38; });
  for (Strategy strategy : {Strategy::Greedy, Strategy::Sample, Strategy::Beam}) {
    DecodeSession s = session_of(file, strategy);
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        s.step();
        ADD_FAILURE() << "a step with NaN logits succeeded";
      } catch (const Error& e) {
        EXPECT_THAT_MESSAGE(e.what(), "the model's computation overflowed at step 0: its logits are NaN or infinite");
      }
      EXPECT_EQ(s.steps_taken(), 0);
      EXPECT_FALSE(s.done());
    }
    EXPECT_THROW(s.force(4), Error);
  }
}

}  // namespace
}  // namespace attnscope
