// A beam steps all its hypotheses in one batched decoder step (Decoder::step, model/seq2seq.h decode_steps).
// These tests pin down that batching changes nothing: each hypothesis gets, bit for bit, the
// logits and attention it gets when stepped alone, and hypotheses share the projections of
// the encoder output instead of copying them.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "model/seq2seq.h"
#include "ops/ops.h"
#include "test_support.h"
#include "families/transformer/transformer.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

std::shared_ptr<const Model> load(const std::string& name) {
  return Model::load_file(testing::golden_path(name + ".safetensors"));
}

// A fresh decoder state as its concrete type, so tests can copy it as a beam does (clone()).
transformer::State started(const Model& model, const Matrix& memory) {
  return static_cast<const transformer::State&>(*start_decoder(model, memory));
}

// Three hypotheses with different histories (so different positions and caches), fed in a batch
// and one by one from copies of the same states.
TEST(BatchedDecode, EachRowEqualsTheHypothesisSteppedAlone) {
  for (const char* name : {"deep_pre_sin_bpe", "tiny_post_sin", "small_pre_learned"}) {
    const auto model = load(name);
    const Matrix memory = encode(*model, prepare_source(*model, "i can eat an apple").ids, {}, nullptr);
    const int bos = model->config.special.bos;
    std::vector<transformer::State> batch(3, started(*model, memory));
    for (int i = 0; i < 3; ++i)
      for (int t = 0; t < i; ++t) decode_step(*model, batch[i], 4 + t + i, {}, nullptr);  // histories of 0, 1, 2 tokens
    std::vector<transformer::State> alone = batch;

    Capture capture;
    capture.attention = true;
    for (int step = 0; step < 3; ++step) {
      const std::vector<int> tokens{bos, 5 + step, 7 + step};
      std::vector<StepTrace> batch_traces(3), alone_traces(3);
      const Matrix logits = decode_steps(*model, {&batch[0], &batch[1], &batch[2]}, tokens, capture,
                                         {&batch_traces[0], &batch_traces[1], &batch_traces[2]});
      ASSERT_EQ(logits.rows(), 3);
      for (int i = 0; i < 3; ++i) {
        const Matrix one = decode_step(*model, alone[i], tokens[i], capture, &alone_traces[i]);
        EXPECT_TRUE(logits.row(i) == one) << name << " step " << step << " hypothesis " << i;
        EXPECT_EQ(batch_traces[i].attention[kDecoderSelf].data, alone_traces[i].attention[kDecoderSelf].data) << name << " hypothesis " << i;
        EXPECT_EQ(batch_traces[i].attention[kDecoderSelf].shape, alone_traces[i].attention[kDecoderSelf].shape);
        EXPECT_EQ(batch_traces[i].attention[kCross].data, alone_traces[i].attention[kCross].data) << name << " hypothesis " << i;
        EXPECT_EQ(batch[i].length(), alone[i].length());
      }
    }
  }
}

TEST(BatchedDecode, NamedVectorsAreRecordedPerHypothesis) {
  const auto model = load("small_pre_learned");
  const Matrix memory = encode(*model, prepare_source(*model, "i eat").ids, {}, nullptr);
  std::vector<transformer::State> batch(2, started(*model, memory));
  std::vector<transformer::State> alone = batch;
  Capture capture;
  capture.vectors = true;
  std::vector<StepTrace> batch_traces(2), alone_traces(2);
  const Matrix logits = decode_steps(*model, {&batch[0], &batch[1]}, {4, 6}, capture, {&batch_traces[0], &batch_traces[1]});
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(logits.row(i) == decode_step(*model, alone[i], i == 0 ? 4 : 6, capture, &alone_traces[i]));
    ASSERT_FALSE(batch_traces[i].vectors.empty());
    EXPECT_EQ(batch_traces[i].vectors.size(), alone_traces[i].vectors.size());
    for (const auto& [key, value] : alone_traces[i].vectors) EXPECT_TRUE(batch_traces[i].vectors.at(key) == value) << key;
  }
}

TEST(BatchedDecode, HypothesesShareTheCrossAttentionMemory) {
  const auto model = load("deep_pre_sin_bpe");
  const Matrix memory = encode(*model, prepare_source(*model, "i can eat an apple").ids, {}, nullptr);
  transformer::State state = started(*model, memory);
  decode_step(*model, state, model->config.special.bos, {}, nullptr);
  const transformer::State copy = state;  // what a beam does when a hypothesis has two children
  ASSERT_FALSE(state.layers.empty());
  for (std::size_t l = 0; l < state.layers.size(); ++l) {
    EXPECT_EQ(copy.layers[l].cross.get(), state.layers[l].cross.get());  // a pointer, not a copy
    EXPECT_TRUE(state.layers[l].cross->k == transformer::of(*model).weights().decoder_layers[l].cross_attn.k_proj(memory));
  }
}

TEST(BatchedDecode, MismatchedArgumentsAreErrors) {
  const auto model = load("tiny_post_sin");
  const Matrix memory = encode(*model, prepare_source(*model, "i eat").ids, {}, nullptr);
  transformer::State state = started(*model, memory);
  EXPECT_THROW(decode_steps(*model, {&state}, {2, 3}, {}, {nullptr}), Error);
  EXPECT_THROW(decode_steps(*model, {&state}, {2}, {}, {}), Error);
  EXPECT_EQ(state.length(), 0);
}

}  // namespace
}  // namespace attnscope
