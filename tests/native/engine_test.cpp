// Engine behaviour that the goldens do not pin down: input errors, the KV cache, observation.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "families/transformer/transformer.h"
#include "model/seq2seq.h"
#include "test_support.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

std::shared_ptr<const Model> load(const std::string& name) {
  return Model::load_file(testing::golden_path(name + ".safetensors"));
}

TEST(Engine, EmptyAndWhitespaceSentencesAreInputErrors) {
  const auto model = load("tiny_post_sin");
  for (const char* text : {"", "   ", "\t\n"}) {
    EXPECT_THROW(prepare_source(*model, text), InputError) << "'" << text << "'";
    EXPECT_NE(testing::thrown_message<Error>([&] { prepare_source(*model, text); }).find("empty"), std::string::npos);
  }
}

TEST(Engine, SentenceLongerThanPositionsIsRefusedWithLengths) {
  const auto model = load("tiny_post_sin");  // max_positions 16, </s> appended
  std::string text;
  for (int i = 0; i < 15; ++i) text += "i ";
  EXPECT_NO_THROW(prepare_source(*model, text));  // 15 + </s> = 16 fits
  text += "i";
  const std::string message = testing::thrown_message<Error>([&] { prepare_source(*model, text); });
  EXPECT_NE(message.find("more than 16 tokens"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 16"), std::string::npos) << message;
  EXPECT_NE(testing::thrown_message<Error>([&] { DecodeSession(model, text, {}); }), "(nothing thrown)");
}

TEST(Engine, UnknownWordsAreReportedNotFatal) {
  const auto model = load("tiny_post_sin");
  DecodeSession session(model, "i can eat zzyzx quux", {});
  session.run();
  EXPECT_EQ(session.source().unknown, (std::vector<std::string>{"zzyzx", "quux"}));
  EXPECT_EQ(session.source().ids[3], model->config.special.unk);
  EXPECT_FALSE(session.nbest().at(0).tokens.empty());
}

TEST(Engine, OutputNeverExceedsPositions) {
  const auto model = load("small_pre_learned");
  DecodeSession session(model, "i can eat apple", {});
  session.run();
  const FinishedHypothesis best = session.nbest().at(0);
  EXPECT_LE(static_cast<int>(best.tokens.size()), model->config.max_positions - 1);
  EXPECT_NE(best.finished, session.hit_max_length());
}

TEST(Engine, DecoderRejectsBadTokenAndPositionPastTheEnd) {
  const auto model = load("tiny_post_sin");
  std::unique_ptr<DecoderState> state = start_decoder(*model, encode(*model, prepare_source(*model, "i eat").ids, {}, nullptr));
  EXPECT_THROW(decode_step(*model, *state, model->tgt_vocab.size(), {}, nullptr), IndexError);
  EXPECT_THROW(decode_step(*model, *state, -1, {}, nullptr), IndexError);
  EXPECT_EQ(state->length(), 0) << "a rejected token must not enter the cache";
  for (int t = 0; t < model->config.max_positions; ++t) decode_step(*model, *state, model->config.special.bos, {}, nullptr);
  EXPECT_THROW(decode_step(*model, *state, model->config.special.bos, {}, nullptr), InputError);
}

// Stepping back is truncating the self-attention caches; the next step must then equal the
// step first computed at that position, bit for bit.
TEST(Engine, TruncatedCacheReproducesEarlierStepsExactly) {
  for (const char* name : {"tiny_post_sin", "deep_pre_sin_bpe"}) {
    const auto model = load(name);
    const Source src = prepare_source(*model, "we want to drink beer");
    std::unique_ptr<DecoderState> state = start_decoder(*model, encode(*model, src.ids, {}, nullptr));
    std::vector<int> tokens = {model->config.special.bos, 5, 7, 6};
    std::vector<Matrix> first;
    for (int tok : tokens) first.push_back(decode_step(*model, *state, tok, {}, nullptr));
    state->truncate(2);
    EXPECT_EQ(state->length(), 2);
    for (std::size_t t = 2; t < tokens.size(); ++t)
      EXPECT_EQ(decode_step(*model, *state, tokens[t], {}, nullptr), first[t]) << name << " step " << t;
  }
}

TEST(Engine, AttentionRowsAreDistributions) {
  const auto model = load("deep_post_learned_f16");
  DecodeOptions options;
  options.capture.attention = true;
  options.max_length = 4;
  DecodeSession session(model, "we can read book", options);
  session.run();
  const Tensor& enc = session.encoder_trace().attention[kEncoderSelf];
  const int rows = enc.shape[0] * enc.shape[1] * enc.shape[2];
  for (int r = 0; r < rows; ++r) {
    float sum = 0;
    for (int k = 0; k < enc.shape[3]; ++k) sum += enc.data[r * enc.shape[3] + k];
    EXPECT_NEAR(sum, 1.0f, 1e-5f);
  }
  for (const StepRecord& r : session.history()) {
    const StepTrace& trace = r.expansions.at(0).trace;
    EXPECT_EQ(trace.attention[kCross].shape[2], static_cast<int>(session.source().ids.size()));
    EXPECT_THROW(trace.attention[kCross].at({transformer::of(*model).config().n_decoder_layers, 0, 0}), IndexError);
  }
}

}  // namespace
}  // namespace attnscope
