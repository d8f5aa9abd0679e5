// The model-file additions Marian checkpoints need (models/FORMAT.md), each against an
// independent computation: "sinusoidal_halves" positions, the swish activation, suppress_tokens,
// the forced end and renormalisation, the power length penalty, base64, the "sentencepiece"
// tokenizer through Tokenizer::from_json, the `generation` defaults, and hostile metadata.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/base64.h"
#include "decoding/logits_processors.h"
#include "decoding/processors/forced_eos.h"
#include "decoding/processors/suppress_tokens.h"
#include "decoding/session.h"
#include "hostile_support.h"
#include "ops/ops.h"
#include "test_support.h"
#include "text/sentencepiece_tokenizer.h"

namespace attnscope {
namespace {

using testing::json;

const char* kMarian = "hf/opus-mt-en-de-tiny.safetensors";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// RFC 4648 base64, written here independently of core/base64.cpp.
std::string to_base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::vector<int> bans(const LogitsProcessor& rule, const std::vector<int>& tokens, int vocab) {
  std::vector<int> banned;
  rule.ban(tokens, vocab, banned);
  std::sort(banned.begin(), banned.end());
  return banned;
}

TEST(MarianFormat, SinusoidHalvesFollowTheFormula) {
  const int P = 40, d = 16;
  const Matrix pe = sinusoidal_halves_positions(P, d);
  ASSERT_EQ(pe.rows(), P);
  ASSERT_EQ(pe.cols(), d);
  std::vector<float> want;
  for (int p = 0; p < P; ++p)
    for (int c = 0; c < d; ++c) {
      const int i = c < d / 2 ? c : c - d / 2;
      const long double omega = std::pow(10000.0L, -2.0L * i / d);
      want.push_back(static_cast<float>(c < d / 2 ? std::sin(p * omega) : std::cos(p * omega)));
    }
  double worst = 0;
  std::size_t at = 0;
  ASSERT_TRUE(testing::max_abs_difference(want.data(), pe.data(), want.size(), "halves", worst, at));
  EXPECT_LE(worst, 1e-6) << "at flat index " << at;
  // Not the interleaved layout: column 1 of position 1 is cos(1) there, sin(ω_1) here.
  EXPECT_GT(std::abs(sinusoidal_positions(P, d)(1, 1) - pe(1, 1)), 0.1);
}

TEST(MarianFormat, SwishIsXTimesSigmoid) {
  Matrix x(1, 7);
  x << -100.0f, -3.5f, -0.25f, 0.0f, 0.5f, 2.0f, 30.0f;
  const Matrix in = x;
  ops::activate(x, Activation::Swish);
  for (int i = 0; i < in.cols(); ++i) {
    const double v = in(0, i);
    EXPECT_NEAR(x(0, i), v / (1.0 + std::exp(-v)), 1e-6 * std::max(1.0, std::abs(v))) << "x = " << v;
  }
}

TEST(MarianFormat, SuppressTokensBansTheIdsAtEveryStep) {
  const SuppressTokens rule({7, 2, 30});
  EXPECT_EQ(bans(rule, {}, 10), (std::vector<int>{2, 7}));  // 30 is past this vocabulary
  EXPECT_EQ(bans(rule, {1, 2, 3}, 10), (std::vector<int>{2, 7}));
  DecodeOptions o;
  const LogitsProcessorList list = make_logits_processors(o, /*eos=*/0, {4});
  EXPECT_EQ(list.banned({}, 6), (std::vector<int>{4}));
  // Together with another Ban rule it may not leave nothing to choose: that rule is skipped.
  o.min_length = 3;
  EXPECT_EQ(make_logits_processors(o, 0, {1}).banned({}, 2), (std::vector<int>{1}));
}

TEST(MarianFormat, ForcedEosLeavesOnlyEosOneStepBeforeTheLimit) {
  const ForcedEos rule(/*limit=*/4, /*eos=*/2);
  EXPECT_EQ(bans(rule, {5, 6}, 6), (std::vector<int>{}));
  EXPECT_EQ(bans(rule, {5, 6, 7}, 6), (std::vector<int>{0, 1, 3, 4, 5}));
  DecodeOptions o;
  o.forced_eos = true;
  EXPECT_EQ(make_logits_processors(o, 2, {}, 0).size(), 0u);  // no limit known: no rule
  EXPECT_EQ(make_logits_processors(o, 2, {}, 4).size(), 1u);
}

TEST(MarianFormat, PowerLengthPenaltyDividesByLengthToAlpha) {
  EXPECT_DOUBLE_EQ(penalized_score(-6.0, 4, LengthPenalty::Power, 0.5), -3.0);
  EXPECT_DOUBLE_EQ(penalized_score(-6.0, 4, LengthPenalty::Power, 1.0), -1.5);
  EXPECT_DOUBLE_EQ(penalized_score(-6.0, 4, LengthPenalty::Power, 0.0), -6.0);
  EXPECT_EQ(parse_length_penalty("power"), LengthPenalty::Power);
  EXPECT_EQ(parse_early_stopping("heuristic"), EarlyStopping::Heuristic);
  EXPECT_THROW(parse_early_stopping("false"), InputError);
}

TEST(MarianFormat, Base64DecodesAndRefusesMalformedText) {
  EXPECT_EQ(base64_decode("", "x"), "");
  EXPECT_EQ(base64_decode("TWFu", "x"), "Man");
  EXPECT_EQ(base64_decode("TWE=", "x"), "Ma");
  EXPECT_EQ(base64_decode("TQ==", "x"), "M");
  const std::string bytes("\x00\xff\x10 binary\x80", 11);
  EXPECT_EQ(base64_decode(to_base64(bytes), "x"), bytes);
  auto error = [](const std::string& text) {
    try {
      base64_decode(text, "field 'model'");
    } catch (const ModelFileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("TWF").find("field 'model' is not valid base64: its length 3"), std::string::npos);
  EXPECT_NE(error("TW@u").find("character 2 is not in the base64 alphabet"), std::string::npos);
  EXPECT_NE(error("T===").find("not in the base64 alphabet"), std::string::npos);
  EXPECT_NE(error("=AAA").find("character 0"), std::string::npos);
  EXPECT_NE(error("TQ==TWFu").find("character 2"), std::string::npos);  // padding only at the end
  EXPECT_NE(error("TWF=").find("bits after the last byte"), std::string::npos);
  EXPECT_NE(error("TWFu\n").find("length"), std::string::npos);
}

TEST(MarianFormat, SentencePieceTokenizerFromJsonAgreesWithTheLibrary) {
  const std::string dir = testing::golden_path("sentencepiece/");
  const std::string model = read_text(dir + "identity.model");
  // The vocabulary in the model's own order, so that ids are the library's.
  const SentencePieceTokenizer direct(model);
  std::vector<std::string> pieces;
  for (int i = 0; i < direct.piece_count(); ++i) pieces.push_back(direct.id_to_piece(i));
  const Vocabulary vocab(pieces);
  const json spec = {{"type", "sentencepiece"}, {"model", to_base64(model)}, {"language_codes", true}};
  const auto tok = Tokenizer::from_json(spec.dump(), vocab);
  std::istringstream inputs(read_text(dir + "inputs.txt")), expected(read_text(dir + "identity.expected.txt"));
  std::string input, line;
  int checked = 0;
  while (checked < 200 && std::getline(inputs, input) && std::getline(expected, line)) {
    std::vector<int> want;
    std::istringstream ids(line.substr(0, line.find('\t')));
    for (int id; ids >> id;) want.push_back(id);
    if (input.rfind(">>", 0) == 0) continue;  // a language code would be split off first
    EXPECT_EQ(encode(*tok, vocab, input, direct.unk_id()).ids, want) << input;
    ++checked;
  }
  EXPECT_GE(checked, 100);
  // Language codes: ">>" up to the first "<<" is one piece; the rest is the model's.
  const std::vector<std::string> split = tok->split(">>fra<< A dog.");
  ASSERT_FALSE(split.empty());
  EXPECT_EQ(split[0], ">>fra<<");
  EXPECT_EQ(std::vector<std::string>(split.begin() + 1, split.end()), direct.split(" A dog."));
  EXPECT_EQ(tok->split(">>fra A")[0], direct.split(">>fra A")[0]);  // no "<<": no code
  // Decoding: the unk piece named in the spec is left out; the ends are stripped.
  const json with_unk = {{"type", "sentencepiece"}, {"model", to_base64(model)}, {"unk", "<unk>"}};
  const auto tok_unk = Tokenizer::from_json(with_unk.dump(), vocab);
  EXPECT_EQ(tok_unk->join({"\xE2\x96\x81" "A", "<unk>", "\xE2\x96\x81" "dog"}), "A dog");
  EXPECT_EQ(tok_unk->join({"\xE2\x96\x81" "not\xE2\x96\x81" "known"}), "not known");
}

TEST(MarianFormat, GenerationDefaultsParseAndApply) {
  const GenerationDefaults g = GenerationDefaults::from_json(
      R"({"strategy": "beam", "beam_size": 4, "max_length": 511, "length_penalty": "power", "alpha": 1.0,
          "early_stopping": "heuristic", "forced_eos": true, "renormalize": true})");
  const DecodeOptions o = with_generation_defaults(DecodeOptions{}, g);
  EXPECT_EQ(o.strategy, Strategy::Beam);
  EXPECT_EQ(o.beam_size, 4);
  EXPECT_EQ(o.max_length, 511);
  EXPECT_EQ(o.length_penalty, LengthPenalty::Power);
  EXPECT_EQ(o.alpha, 1.0);
  EXPECT_EQ(o.early_stopping, EarlyStopping::Heuristic);
  EXPECT_TRUE(o.forced_eos);
  EXPECT_TRUE(o.renormalize);
  EXPECT_EQ(json::parse(GenerationDefaults::from_json(g.to_json()).to_json()), json::parse(g.to_json()));
  EXPECT_TRUE(GenerationDefaults::from_json("{}").empty());
}

// Renormalisation (HF's renormalize_logits): the score of a greedy token is its logit minus the
// log-sum-exp over the tokens not suppressed, recomputed here from the reported raw logits.
TEST(MarianFormat, RenormalizedGreedyScoresAreLogProbsOverTheAllowedTokens) {
  const auto model = Model::load_file(testing::golden_path(kMarian));
  const int pad = model->config.special.pad;
  DecodeOptions o;
  o.max_length = 6;
  o.renormalize = true;
  o.capture.logits = true;
  DecodeSession session(model, "A man is eating an apple.", o);
  session.run();
  double want = 0.0;
  const FinishedHypothesis best = session.nbest().at(0);
  for (std::size_t t = 0; t < session.history().size(); ++t) {
    const std::vector<float>& z = session.history()[t].expansions.at(0).logits;
    double max = -INFINITY, sum = 0.0;
    for (std::size_t i = 0; i < z.size(); ++i)
      if (static_cast<int>(i) != pad) max = std::max(max, static_cast<double>(z[i]));
    for (std::size_t i = 0; i < z.size(); ++i)
      if (static_cast<int>(i) != pad) sum += std::exp(z[i] - max);
    want += z[best.tokens[t]] - max - std::log(sum);
    EXPECT_NE(best.tokens[t], pad);
  }
  EXPECT_NEAR(best.score, want, 1e-4);
}

// Hostile metadata in a converted Marian file: each is a ModelFileError naming what is wrong.
TEST(MarianFormat, HostileMetadataIsAModelFileError) {
  const hostile::Bytes bytes = hostile::golden_bytes(kMarian);
  const json header = hostile::header_of(bytes);
  auto with = [&](const std::string& key, const std::string& value) {
    json h = header;
    h["__metadata__"][key] = value;
    return hostile::load_error(hostile::with_header(bytes, h.dump()));
  };
  auto config_with = [&](const std::string& field, const json& value) {
    json c = json::parse(header["__metadata__"]["config"].get<std::string>());
    c[field] = value;
    return with("config", c.dump());
  };
  json tok = json::parse(header["__metadata__"]["tgt_tokenizer"].get<std::string>());
  tok["model"] = "not base64!";
  EXPECT_NE(with("tgt_tokenizer", tok.dump()).find("tgt_tokenizer"), std::string::npos);
  tok["model"] = to_base64("not a sentencepiece model");
  EXPECT_NE(with("tokenizer", tok.dump()).find("invalid model file"), std::string::npos);
  tok.erase("model");
  EXPECT_NE(with("tokenizer", tok.dump()).find("'model'"), std::string::npos);
  EXPECT_NE(with("generation", R"({"beam_size": 0})").find("'beam_size'"), std::string::npos);
  EXPECT_NE(with("generation", R"({"strategy": "best"})").find("'strategy'"), std::string::npos);
  EXPECT_NE(with("generation", R"({"temperature": 0.5})").find("unknown field"), std::string::npos);
  EXPECT_NE(with("generation", R"({"beam_size": 2, "nbest": 3})").find("'nbest'"), std::string::npos);
  EXPECT_NE(with("generation", "[1]").find("'generation'"), std::string::npos);
  EXPECT_NE(with("generation", "{").find("generation"), std::string::npos);
  EXPECT_NE(config_with("suppress_tokens", json::array({100000})).find("suppress_tokens"), std::string::npos);
  EXPECT_NE(config_with("suppress_tokens", json::array({-1})).find("suppress_tokens"), std::string::npos);
  EXPECT_NE(config_with("suppress_tokens", "pad").find("suppress_tokens"), std::string::npos);
  EXPECT_NE(config_with("positions", "halves").find("sinusoidal_halves"), std::string::npos);
  EXPECT_NE(config_with("activation", "silu").find("swish"), std::string::npos);
}

// The CLI reports a converted checkpoint's defaults, and its flags reproduce generate()'s beam.
TEST(MarianFormat, CliReportsTheDefaultsAndItsFlagsReproduceTheBeam) {
  const std::string model = testing::golden_path(kMarian);
  const hostile::CliRun info = hostile::run_cli("info --model " + model);
  ASSERT_EQ(info.status, 0) << info.err;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["generation"]["beam_size"], 4);
  EXPECT_EQ(j["generation"]["early_stopping"], "heuristic");
  EXPECT_EQ(j["tgt_tokenizer"]["type"], "sentencepiece");
  EXPECT_EQ(j["config"]["positions"], "sinusoidal_halves");
  const json golden = testing::load_json(testing::golden_path("hf/opus-mt-en-de-tiny.json"));
  for (const json& c : golden["cases"]) {
    const hostile::CliRun run = hostile::run_cli(
        "translate --model " + model + " --beam 4 --length-norm power --length-penalty 1 --early-stopping heuristic"
        " --forced-eos --renormalize --max-length " + std::to_string(c["beam"]["max_new_tokens"].get<int>()) + " '" +
        c["source"].get<std::string>() + "'");
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, c["beam"]["text"].get<std::string>() + "\n") << c["source"];
  }
}

}  // namespace
}  // namespace attnscope
