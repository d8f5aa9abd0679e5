// Whether a decoder-only model reads <bos> before its prompt (decoding/source.h): the model file's
// rule (config prepend_bos, absent: true), the prependBos override, the empty prompt (<bos> alone
// whatever either says), the messages about the context in both cases, and that the first step
// reads exactly the source's ids. The numbers of a prompt read without <bos> are checked against
// Hugging Face's GPT-2 by models/convert/check_hf_gpt2.py; here, that the two readings are the
// two different computations they should be.
#include <gtest/gtest.h>

#include <optional>

#include "analysis/attribution_session.h"
#include "decoding/session.h"
#include "decoding/source.h"
#include "hostile_support.h"
#include "model/seq2seq.h"
#include "train/differentiable.h"

namespace attnscope {
namespace {

using testing::json;

const char* const kModel = "decoder_only/pre_learned_gelu_tanh.safetensors";  // word-level, a context of 16

// The golden model with its config's prepend_bos set (nullopt: as written, without the field).
std::shared_ptr<const Model> model_with(std::optional<bool> prepend_bos) {
  const hostile::Bytes bytes = hostile::golden_bytes(kModel);
  json header = hostile::header_of(bytes);
  json config = json::parse(header["__metadata__"]["config"].get<std::string>());
  EXPECT_FALSE(config.contains("prepend_bos"));  // a file written before the field
  if (prepend_bos) config["prepend_bos"] = *prepend_bos;
  header["__metadata__"]["config"] = config.dump();
  const hostile::Bytes edited = hostile::with_header(bytes, header.dump());
  return Model::load_bytes(edited.data(), edited.size());
}

std::string words(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "i ";
  return text;
}

DecodeOptions first_step_only(std::optional<bool> prepend_bos = std::nullopt) {
  DecodeOptions o;
  o.capture.attention = o.capture.logits = true;
  o.max_length = 1;
  o.prepend_bos = prepend_bos;
  return o;
}

TEST(PromptBos, TheModelFileDecidesAndAFileWithoutTheFieldReadsBos) {
  const auto absent = model_with(std::nullopt), with = model_with(true), without = model_with(false);
  const int bos = absent->config.special.bos;
  EXPECT_TRUE(absent->config.prepend_bos);
  const Source a = prepare_source(*absent, "i want to");
  ASSERT_EQ(a.ids.size(), 4u);
  EXPECT_EQ(a.ids[0], bos);
  EXPECT_EQ(a.pieces[0], "<s>");
  EXPECT_TRUE(a.bos);
  EXPECT_EQ(prepare_source(*with, "i want to").ids, a.ids);
  const Source b = prepare_source(*without, "i want to");
  EXPECT_EQ(b.ids, std::vector<int>(a.ids.begin() + 1, a.ids.end()));
  EXPECT_EQ(b.pieces, std::vector<std::string>(a.pieces.begin() + 1, a.pieces.end()));
  EXPECT_FALSE(b.bos);

  // The architecture's words say what the context holds.
  EXPECT_NE(absent->family->describe(*absent).words.find("(16: <s>, the prompt and the continuation)"), std::string::npos);
  EXPECT_NE(without->family->describe(*without).words.find("(16: the prompt and the continuation)"), std::string::npos);
}

TEST(PromptBos, TheOverrideWinsAndAnEmptyPromptIsBosAlone) {
  const auto with = model_with(true), without = model_with(false);
  const int bos = with->config.special.bos;
  EXPECT_EQ(prepare_source(*without, "i want to", true).ids, prepare_source(*with, "i want to").ids);
  EXPECT_EQ(prepare_source(*with, "i want to", false).ids, prepare_source(*without, "i want to").ids);
  for (const auto& model : {with, without})
    for (std::optional<bool> prepend : {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)})
      for (const char* text : {"", "   "}) {
        const Source s = prepare_source(*model, text, prepend);
        EXPECT_EQ(s.ids, std::vector<int>{bos}) << "'" << text << "'";
        EXPECT_EQ(s.pieces, std::vector<std::string>{"<s>"});
        EXPECT_TRUE(s.bos);
      }
  // An empty prompt is continued from <bos>: its first step reads one position.
  DecodeSession empty(without, "", first_step_only());
  empty.step();
  EXPECT_EQ(empty.expansion(0, 0).trace.attention.at(0).shape, (std::vector<int>{2, 2, 1, 1}));

  // A model that reads a source has no <bos> to put there, and still no empty sentence.
  const auto toy = Model::load_file(testing::frozen_toy_path());
  EXPECT_NE(testing::thrown_message<InputError>([&] { prepare_source(*toy, "a dog", true); }).find("prependBos"),
            std::string::npos);
  EXPECT_NO_THROW(prepare_source(*toy, "a dog"));
  EXPECT_EQ(testing::thrown_message<InputError>([&] { prepare_source(*toy, "  "); }),
            "the sentence is empty: type some words to translate");
  EXPECT_THROW(DecodeSession(toy, "a dog", first_step_only(false)), InputError);
}

// The first step reads exactly the source's ids: a prompt without <bos> is a context of its own
// tokens (a 3 x 3 map), not <bos> and the prompt; the override gives the bits the file's rule does.
TEST(PromptBos, TheFirstStepReadsExactlyTheSourceIds) {
  const auto with = model_with(true), without = model_with(false);
  auto first = [](const std::shared_ptr<const Model>& m, std::optional<bool> prepend) {
    DecodeSession s(m, "i want to", first_step_only(prepend));
    s.step();
    return s.expansion(0, 0);
  };
  const Expansion read_with = first(with, std::nullopt), read_without = first(without, std::nullopt);
  EXPECT_EQ(read_with.trace.attention.at(0).shape, (std::vector<int>{2, 2, 4, 4}));
  EXPECT_EQ(read_without.trace.attention.at(0).shape, (std::vector<int>{2, 2, 3, 3}));
  EXPECT_EQ(first(with, false).logits, read_without.logits);
  EXPECT_EQ(first(without, true).logits, read_with.logits);
  EXPECT_EQ(first(without, true).trace.attention.at(0).data, read_with.trace.attention.at(0).data);
  double worst = 0.0;
  for (std::size_t v = 0; v < read_with.logits.size(); ++v)
    worst = std::max(worst, static_cast<double>(std::abs(read_with.logits[v] - read_without.logits[v])));
  EXPECT_GT(worst, 1e-2);  // <bos> changes what the model predicts

  // The same logits from the family directly, on the ids as the source has them.
  const Source s = prepare_source(*without, "i want to");
  const auto state = start_decoder(*without, encode(*without, s.ids, Capture{}, nullptr));
  const Matrix logits = decode_step(*without, *state, without->config.special.bos, Capture{}, nullptr);
  EXPECT_EQ(std::vector<float>(logits.data(), logits.data() + logits.cols()), read_without.logits);
}

// Every message about the context says what the model reads: with <bos> where it reads one.
TEST(PromptBos, ContextMessagesAreTrueWithAndWithoutBos) {
  const auto with = model_with(true), without = model_with(false);
  EXPECT_NO_THROW(prepare_source(*with, words(15)));
  EXPECT_EQ(testing::thrown_message<InputError>([&] { prepare_source(*with, words(16)); }),
            "the prompt has more than 15 tokens but this model reads at most 16 (with <bos>); shorten it");
  EXPECT_NO_THROW(prepare_source(*without, words(16)));
  EXPECT_EQ(testing::thrown_message<InputError>([&] { prepare_source(*without, words(17)); }),
            "the prompt has more than 16 tokens but this model reads at most 16; shorten it");
  EXPECT_EQ(testing::thrown_message<InputError>([&] { prepare_source(*with, words(16), false); }), "(nothing thrown)");

  // A prompt that fills the context is read, and its one token generated; the step after it is refused.
  for (const auto& model : {with, without}) {
    const Source s = prepare_source(*model, words(model->config.prepend_bos ? 15 : 16));
    ASSERT_EQ(s.ids.size(), 16u);
    DecodeSession session(model, s, DecodeOptions{});
    session.run();
    EXPECT_EQ(session.steps_taken(), 1);
    const auto state = start_decoder(*model, encode(*model, s.ids, Capture{}, nullptr));
    decode_step(*model, *state, model->config.special.bos, Capture{}, nullptr);
    EXPECT_EQ(testing::thrown_message<InputError>([&] { decode_step(*model, *state, 5, Capture{}, nullptr); }),
              "the model's context of 16 positions is full (a prompt of 16 tokens, its <bos> counted where it has "
              "one, and 1 generated): it cannot continue");
  }
}

TEST(PromptBos, TheFieldMustBeABoolean) {
  const hostile::Bytes bytes = hostile::golden_bytes(kModel);
  json header = hostile::header_of(bytes);
  json config = json::parse(header["__metadata__"]["config"].get<std::string>());
  config["prepend_bos"] = "yes";
  header["__metadata__"]["config"] = config.dump();
  EXPECT_NE(hostile::load_error(hostile::with_header(bytes, header.dump()))
                .find("config field 'prepend_bos' must be true or false"),
            std::string::npos);
}

// Attribution scores what the model read: a prompt without <bos> has no leading token to keep in
// the baseline, so its first token gets a score of its own from integrated gradients.
TEST(PromptBos, AttributionScoresTheFirstTokenOfAPromptWithoutBos) {
  AttributionOptions ig;
  ig.method = AttributionMethod::IntegratedGradients;
  ig.steps = 16;
  for (const bool prepend : {true, false}) {
    const auto model = model_with(prepend);
    DecodeSession session(model, "i want to", first_step_only());
    session.step();
    const auto pass = train::differentiable_for(model);
    const TokenAttribution a = session_attribution(session, *pass, 0, 0, ig);
    EXPECT_EQ(a.tokens.target, session.source().ids);
    if (prepend) EXPECT_EQ(a.scores.target[0], 0.0f);  // <bos>: kept as it is in the baseline
    else EXPECT_NE(a.scores.target[0], 0.0f);
  }
}

}  // namespace
}  // namespace attnscope
