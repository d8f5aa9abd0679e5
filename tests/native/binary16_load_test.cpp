// The load option binary16 is the default, and a whole beam search (several rows a step, the
// kernels' matrix path; held_weights_test.cpp steps one row at a time) gives the binary32 load's
// (binary16 = false, CLI --f32) tokens, scores, logits, attention and named vectors bit for bit,
// for each family that decodes. The goldens run on the default load; this keeps the binary32
// one covered by the same numbers.
#include <gtest/gtest.h>

#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

std::shared_ptr<const Model> load(const std::string& path, bool binary16) {
  Model::LoadOptions options;
  options.binary16 = binary16;
  return Model::load_file(path, options);
}

std::string shipped(const std::string& name) { return testing::golden_path("../../models/" + name + ".safetensors"); }

void expect_same_tensors(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].shape, b[i].shape) << what << " " << i;
    EXPECT_TRUE(a[i].data == b[i].data) << what << " " << i << " differs";
  }
}

void expect_same_vectors(const NamedVectors& a, const NamedVectors& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [name, value] : a) {
    ASSERT_TRUE(b.count(name)) << what << " " << name;
    EXPECT_TRUE(value == b.at(name)) << what << " " << name << " differs";
  }
}

// A beam of 3 (several rows a step) capturing everything, on both loads.
void expect_same_decoding(const std::string& path, const std::vector<std::string>& texts) {
  const auto half = load(path, true), single = load(path, false);
  DecodeOptions options;
  options.strategy = Strategy::Beam;
  options.beam_size = 3;
  options.max_length = 12;
  options.capture = {true, true, true};
  for (const std::string& text : texts) {
    SCOPED_TRACE(path + ": " + text);
    DecodeSession a(half, text, options), b(single, text, options);
    a.run();
    b.run();
    expect_same_tensors(a.encoder_trace().attention, b.encoder_trace().attention, "encoder attention");
    expect_same_vectors(a.encoder_trace().vectors, b.encoder_trace().vectors, "encoder vectors");
    ASSERT_FALSE(a.history().empty());
    ASSERT_EQ(a.history().size(), b.history().size());
    for (std::size_t s = 0; s < a.history().size(); ++s) {
      const std::vector<Expansion>& x = a.history()[s].expansions;
      const std::vector<Expansion>& y = b.history()[s].expansions;
      ASSERT_EQ(x.size(), y.size()) << "step " << s;
      for (std::size_t e = 0; e < x.size(); ++e) {
        ASSERT_FALSE(x[e].logits.empty());
        ASSERT_FALSE(x[e].trace.attention.empty());
        EXPECT_TRUE(x[e].logits == y[e].logits) << "step " << s << " logits differ";
        EXPECT_EQ(x[e].score, y[e].score) << "step " << s;
        expect_same_tensors(x[e].trace.attention, y[e].trace.attention, "step attention");
        expect_same_vectors(x[e].trace.vectors, y[e].trace.vectors, "step vectors");
      }
    }
    ASSERT_EQ(a.nbest().size(), b.nbest().size());
    for (std::size_t i = 0; i < a.nbest().size(); ++i) {
      EXPECT_EQ(a.nbest()[i].tokens, b.nbest()[i].tokens);
      EXPECT_EQ(a.nbest()[i].score, b.nbest()[i].score);
    }
  }
}

// The option reaches the weights: binary16 on an F16 file, binary32 without it or on an F32 file.
TEST(Binary16Load, KeepsAnF16FilesWeightsInBinary16) {
  const auto layer = [](const Model& m) { return m.family->attention_layer(0, 0); };
  const std::string f16 = testing::golden_path("deep_post_learned_f16.safetensors");
  ASSERT_NE(layer(*load(f16, true)), nullptr);
  EXPECT_TRUE(layer(*load(f16, true))->q_proj.weight.half());
  EXPECT_FALSE(layer(*load(f16, false))->q_proj.weight.half());
  EXPECT_TRUE(layer(*Model::load_file(f16))->q_proj.weight.half()) << "binary16 is the default";
  EXPECT_FALSE(layer(*load(testing::golden_path("deep_pre_sin_bpe.safetensors"), true))->q_proj.weight.half());
  // Model::binary16 (JS info.binary16) says whether weights are kept in binary16, not what was asked.
  EXPECT_TRUE(load(f16, true)->binary16);
  EXPECT_FALSE(load(f16, false)->binary16);
  EXPECT_FALSE(load(testing::golden_path("deep_pre_sin_bpe.safetensors"), true)->binary16) << "an F32 file";
}

TEST(Binary16Load, TransformerDecodesTheSameBits) {
  expect_same_decoding(testing::golden_path("deep_post_learned_f16.safetensors"), {"we can read book", "the cat eat fish"});
  expect_same_decoding(shipped("multi30k-en-de"), {"A man is riding a bike.", "Two dogs play in the snow."});
}

TEST(Binary16Load, DecoderOnlyGeneratesTheSameBits) {
  expect_same_decoding(shipped("multi30k-en-gpt"), {"A man is riding", "Two dogs"});
}

TEST(Binary16Load, RnnDecodesTheSameBits) {
  expect_same_decoding(shipped("multi30k-rnn-en-de"), {"A man is riding a bike."});
}

}  // namespace
}  // namespace attnscope
