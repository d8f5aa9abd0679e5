// What a loaded model holds (ops/weight_matrix.h): each embedding table once, in the form the
// load keeps (binary16 for an F16 file under the binary16 load option, else binary32), a tied
// output projection being that same table, so that an F16 file loaded with binary16 holds its
// matrices in exactly the file's bytes; and the binary16 load (the default) encodes, steps and
// scores bit for bit as the binary32 one (binary16 = false, CLI --f32), in every family.
#include <gtest/gtest.h>

#include "analysis/induction.h"
#include "families/transformer/transformer.h"
#include "io/safetensors.h"
#include "model/encoder_only.h"
#include "test_support.h"

namespace attnscope {
namespace {

using ops::WeightMatrix;

std::string shipped(const std::string& name) {
  return std::string(ATTNSCOPE_GOLDEN_DIR) + "/../../models/" + name + ".safetensors";
}

std::shared_ptr<const Model> load(const std::string& path, bool binary16, bool int8 = false) {
  Model::LoadOptions options;
  options.binary16 = binary16;
  options.int8 = int8;
  return Model::load_file(path, options);
}

// The bytes the file stores its matrices in, the learned positions aside (kept as binary32).
std::size_t file_matrix_bytes(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  const SafetensorsFile file(bytes.data(), bytes.size());
  std::size_t total = 0;
  for (const auto& [name, info] : file.tensors())
    if (info.shape.size() == 2 && name.find("pos_embed") == std::string::npos) total += info.end - info.begin;
  return total;
}

// The bytes a transformer holds its matrices in: its tables, its output projection, every layer.
std::size_t held_matrix_bytes(const transformer::Weights& w) {
  std::size_t total = w.src_embed.bytes() + w.tgt_embed_.bytes() + w.output_weight_.bytes();
  auto add = [&](const MultiHeadAttention& a) {
    for (const Linear* l : {&a.q_proj, &a.k_proj, &a.v_proj, &a.out_proj}) total += l->weight.bytes();
  };
  for (const EncoderLayer& l : w.encoder_layers) add(l.self_attn), total += l.ffn.fc1.weight.bytes() + l.ffn.fc2.weight.bytes();
  for (const DecoderLayer& l : w.decoder_layers) {
    add(l.self_attn), add(l.cross_attn);
    total += l.ffn.fc1.weight.bytes() + l.ffn.fc2.weight.bytes();
  }
  return total;
}

// Multi30k en-de: one table for both sides, tied to the output (F16).
TEST(HeldWeights, ATiedTableIsHeldOnceAndIsTheOutputProjection) {
  const std::string path = shipped("multi30k-en-de");
  const std::size_t in_file = file_matrix_bytes(path);
  for (const bool binary16 : {true, false}) {
    SCOPED_TRACE(binary16 ? "binary16" : "binary32");
    const auto model = load(path, binary16);
    const transformer::Weights& w = transformer::of(*model).weights();
    EXPECT_EQ(&w.tgt_embed(), &w.src_embed);
    EXPECT_EQ(&w.output_weight(), &w.src_embed);
    EXPECT_EQ(&model->family->token_embeddings(Side::Target), &w.src_embed);
    EXPECT_TRUE(w.tgt_embed_.empty() && w.output_weight_.empty());
    EXPECT_EQ(w.src_embed.form(), WeightMatrix::Form::Packed);  // as a step reads it
    EXPECT_EQ(w.src_embed.half(), binary16);
    EXPECT_EQ(held_matrix_bytes(w), binary16 ? in_file : 2 * in_file);
  }
}

// An untied model (F16): its own output projection, tables read by lookups only.
TEST(HeldWeights, UntiedTablesAndOutputAreEachHeldOnce) {
  const std::string path = testing::golden_path("deep_post_learned_f16.safetensors");
  const std::size_t in_file = file_matrix_bytes(path);
  const auto half = load(path, true), full = load(path, false);
  const transformer::Weights& h = transformer::of(*half).weights();
  const transformer::Weights& f = transformer::of(*full).weights();
  EXPECT_EQ(held_matrix_bytes(h), in_file);
  EXPECT_EQ(held_matrix_bytes(f), 2 * in_file);
  EXPECT_TRUE(h.src_embed.half() && h.tgt_embed_.half() && h.output_weight_.half());
  EXPECT_EQ(f.src_embed.form(), WeightMatrix::Form::Plain);
  EXPECT_EQ(f.output_weight_.form(), WeightMatrix::Form::Packed);
  for (const Side side : {Side::Source, Side::Target})
    EXPECT_TRUE(half->family->token_embeddings(side).to_matrix() == full->family->token_embeddings(side).to_matrix());
}

// GPT on Multi30k: the token table tied to the output (F16).
TEST(HeldWeights, ADecoderOnlyTiedTableIsItsUnembedding) {
  const std::string path = shipped("multi30k-en-gpt");
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);
  const TensorInfo info = SafetensorsFile(bytes.data(), bytes.size()).info("embed.token.weight");
  const auto model = load(path, true);
  const WeightMatrix& table = model->family->token_embeddings(Side::Target);
  EXPECT_EQ(&model->family->output_embeddings(), &table);
  EXPECT_TRUE(table.half());
  EXPECT_EQ(table.bytes(), info.end - info.begin);
}

// The int8 option quantises a step's products only: a tied output gets its own int8 form, and
// the table the lookups read stays exact.
TEST(HeldWeights, Int8GivesATiedOutputItsOwnFormBesideTheExactTable) {
  const std::string path = shipped("multi30k-en-de");
  const auto exact = load(path, false), int8 = load(path, false, true);
  const transformer::Weights& w = transformer::of(*int8).weights();
  EXPECT_EQ(w.output_weight_.form(), WeightMatrix::Form::Int8);
  EXPECT_EQ(&w.output_weight(), &w.output_weight_);
  EXPECT_TRUE(w.src_embed.to_matrix() == transformer::of(*exact).weights().src_embed.to_matrix());
  const auto gpt = load(shipped("multi30k-en-gpt"), true, true);
  EXPECT_NE(&gpt->family->output_embeddings(), &gpt->family->token_embeddings(Side::Target));
  EXPECT_TRUE(gpt->family->token_embeddings(Side::Target).half());
}

// Every step's logits, the memory and the named vectors of a run over `ids` (the prompt of a
// decoder-only model, else the source), then `steps` tokens fed one by one.
std::vector<Matrix> run(const Model& model, const std::vector<int>& ids, const std::vector<int>& steps) {
  Capture capture;
  capture.attention = capture.vectors = true;
  EncoderTrace encoder;
  std::vector<Matrix> out = {model.family->encode(ids, capture, &encoder, {})};
  for (const auto& [name, vector] : encoder.vectors) out.push_back(vector);
  if (const EncoderOnly* head = model.family->encoder_only()) out.push_back(head->mlm_logits(out[0]));
  if (const Decoder* decoder = model.family->decoder()) {
    const auto state = decoder->start(out[0]);
    for (const int token : steps) {
      StepTrace trace;
      out.push_back(decoder->step({state.get()}, {token}, capture, {&trace}, {}));
      for (const auto& [name, vector] : trace.vectors) out.push_back(vector);
    }
  }
  return out;
}

TEST(HeldWeights, Binary16LoadsComputeTheBinary32LoadsBits) {
  for (const std::string& path : {shipped("multi30k-en-de"), shipped("multi30k-en-gpt"), shipped("multi30k-en-mlm"),
                                  shipped("multi30k-rnn-en-de"), testing::golden_path("deep_post_learned_f16.safetensors")}) {
    SCOPED_TRACE(path);
    const auto half = load(path, true), full = load(path, false);
    const std::vector<int> ids = {5, 9, 12, 7, 3}, steps = {2, 11, 6, 8};
    const std::vector<Matrix> a = run(*half, ids, steps), b = run(*full, ids, steps);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i] == b[i]) << "output " << i;
  }
  // The copying score reads rows of the tied unembedding.
  const auto half = load(shipped("multi30k-en-gpt"), true), full = load(shipped("multi30k-en-gpt"), false);
  const std::vector<std::vector<int>> probes = {{40, 41, 42, 43, 40, 41, 42, 43}};
  const std::vector<int> tokens = {40, 41, 42, 43, 44, 45};
  EXPECT_EQ(induction_scores(*half, probes, tokens).copying, induction_scores(*full, probes, tokens).copying);
}

}  // namespace
}  // namespace attnscope
