// Each family describes its own architecture (ModelFamily::describe, model/architecture_description.h):
// the page and the CLI show these words and blocks without knowing the family. The expected
// texts are written out here from the description's templates, one model per shape: every
// family, with and without the options that change its words (bidirectional, attention style
// and score, local window, input feeding, pooler, segments, activation, no FFN, untied output,
// word or subword vocabulary).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>

#include "io/safetensors.h"
#include "model/model.h"
#include "test_support.h"

namespace attnscope {
namespace {

std::string shipped(const std::string& name) { return testing::golden_path("../../models/" + name + ".safetensors"); }

// A block as one line, "id | column | label | detail", so a mismatch shows all of it.
std::vector<std::string> blocks_of(const ArchitectureDescription& d) {
  std::vector<std::string> out;
  for (const ArchitectureDescription::Block& b : d.blocks)
    out.push_back(b.id + " | " + b.column + " | " + b.label + " | " + b.detail);
  return out;
}

std::vector<std::string> links_of(const ArchitectureDescription& d) {
  std::vector<std::string> out;
  for (const ArchitectureDescription::Link& l : d.links) out.push_back(l.from + " -> " + l.to + " | " + l.label);
  return out;
}

ArchitectureDescription described(const std::string& path) {
  const auto model = Model::load_file(path);
  return model->family->describe(*model);
}

using testing::json;
using Bytes = std::vector<std::uint8_t>;

// The description of the model file at `path` after `edit` changed its header (as JSON) and its
// data section: the shapes no golden file has.
ArchitectureDescription described_after(const std::string& path, const std::function<void(json&, Bytes&)>& edit) {
  const Bytes file = read_file_bytes(path);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[static_cast<std::size_t>(i)];
  const auto data_start = file.begin() + 8 + static_cast<std::ptrdiff_t>(n);
  json header = json::parse(file.begin() + 8, data_start);
  Bytes data(data_start, file.end());
  edit(header, data);
  const std::string text = header.dump();
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(text.size() >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), data.begin(), data.end());
  const auto model = Model::load_bytes(out.data(), out.size());
  return model->family->describe(*model);
}

// `header`'s config with `field` set to `value`.
void set_config(json& header, const std::string& field, const json& value) {
  json config = json::parse(header["__metadata__"]["config"].get<std::string>());
  config[field] = value;
  header["__metadata__"]["config"] = config.dump();
}

TEST(ArchitectureDescription, Transformer) {
  const ArchitectureDescription toy = described(shipped("toy-en-de"));
  EXPECT_EQ(toy.family, "Transformer encoder-decoder");
  EXPECT_EQ(toy.words,
            "Transformer encoder-decoder: 1 encoder layer and 1 decoder layer, 1 head per attention, d_model 64, "
            "FFN 128 (relu), post-LayerNorm, sinusoidal positions; vocabulary 18 source, 17 target words.");
  EXPECT_EQ(blocks_of(toy), (std::vector<std::string>{
                                "src | Encoder | Source embedding | d_model 64 + sinusoidal positions",
                                "enc | Encoder | Encoder layer × 1 | self-attention (1 head) · FFN 128",
                                "tgt | Decoder | Target embedding | d_model 64 + sinusoidal positions",
                                "dec | Decoder | Decoder layer × 1 | masked self-attn · cross-attn (1 head) · FFN 128",
                                "out | Decoder | Linear + softmax | 17 target tokens",
                            }));
  EXPECT_EQ(links_of(toy), (std::vector<std::string>{"enc -> dec | memory"}));

  const ArchitectureDescription learned = described(testing::golden_path("small_pre_learned.safetensors"));
  EXPECT_EQ(learned.words,
            "Transformer encoder-decoder: 2 encoder layers and 2 decoder layers, 4 heads per attention, d_model 32, "
            "FFN 64 (gelu), pre-LayerNorm, learned positions; vocabulary 31 source, 31 target words.");
  EXPECT_EQ(learned.blocks[0].detail, "d_model 32 + learned positions");
  EXPECT_EQ(learned.blocks[3].detail, "masked self-attn · cross-attn (4 heads) · FFN 64");

  const ArchitectureDescription bpe = described(testing::golden_path("deep_pre_sin_bpe.safetensors"));
  EXPECT_EQ(bpe.words,
            "Transformer encoder-decoder: 3 encoder layers and 2 decoder layers, 8 heads per attention, d_model 64, "
            "FFN 96 (gelu), pre-LayerNorm, sinusoidal positions; vocabulary 383 source, 383 target pieces.");
  EXPECT_EQ(bpe.blocks[1].label, "Encoder layer × 3");
  EXPECT_EQ(bpe.blocks[4].detail, "383 target tokens");

  // Every subword tokenizer's vocabulary holds pieces, not only BPE's: here SentencePiece (Marian).
  const ArchitectureDescription marian = described(testing::golden_path("hf/opus-mt-en-de-tiny.safetensors"));
  EXPECT_EQ(marian.words,
            "Transformer encoder-decoder: 2 encoder layers and 2 decoder layers, 4 heads per attention, d_model 64, "
            "FFN 256 (swish), post-LayerNorm, sinusoidal_halves positions; vocabulary 452 source, 452 target "
            "pieces.");
  EXPECT_EQ(marian.blocks[0].detail, "d_model 64 + sinusoidal_halves positions");
}

TEST(ArchitectureDescription, RnnBahdanauAdditive) {
  const ArchitectureDescription d = described(shipped("toy-rnn-bahdanau-additive"));
  EXPECT_EQ(d.family, "RNN encoder-decoder");
  EXPECT_EQ(d.words,
            "RNN encoder-decoder: bidirectional GRU encoder (1 layer, 32 units per direction), GRU decoder (1 layer, "
            "64 units), Bahdanau attention, additive (concat, with v) score, 64 units, global; vocabulary 18 source, "
            "17 target words.");
  EXPECT_EQ(blocks_of(d), (std::vector<std::string>{
                              "src | Encoder | Source embedding | 32 values",
                              "enc | Encoder | Bi-GRU × 1 | 32 units per direction",
                              "tgt | Decoder | Target embedding | 32 values",
                              "attn | Decoder | Bahdanau attention | additive (concat, with v); scores s(i−1)",
                              "dec | Decoder | GRU × 1 | 64 units; input: embedding + context",
                              "out | Decoder | Linear + softmax | 17 target tokens",
                          }));
  EXPECT_EQ(links_of(d), (std::vector<std::string>{"enc -> attn | encoder states"}));
}

TEST(ArchitectureDescription, RnnBahdanauLocalUnidirectional) {
  const ArchitectureDescription d = described(testing::golden_path("rnn/gru_bahdanau_general_local.safetensors"));
  EXPECT_EQ(d.words,
            "RNN encoder-decoder: GRU encoder (2 layers, 6 units), GRU decoder (1 layer, 6 units), Bahdanau "
            "attention, general (bilinear) score, local-p window ±2; vocabulary 18 source, 17 target words.");
  EXPECT_EQ(blocks_of(d), (std::vector<std::string>{
                              "src | Encoder | Source embedding | 4 values",
                              "enc | Encoder | GRU × 2 | 6 units",
                              "tgt | Decoder | Target embedding | 4 values",
                              "attn | Decoder | Bahdanau attention | general (bilinear), local ±2; scores s(i−1)",
                              "dec | Decoder | GRU × 1 | 6 units; input: embedding + context",
                              "out | Decoder | Linear + softmax | 17 target tokens",
                          }));
}

TEST(ArchitectureDescription, RnnLuong) {
  const ArchitectureDescription dot = described(shipped("toy-rnn-luong-dot"));
  EXPECT_EQ(dot.words,
            "RNN encoder-decoder: bidirectional GRU encoder (1 layer, 32 units per direction), GRU decoder (1 layer, "
            "64 units), Luong attention, dot score, global; vocabulary 18 source, 17 target words.");
  EXPECT_EQ(blocks_of(dot), (std::vector<std::string>{
                                "src | Encoder | Source embedding | 32 values",
                                "enc | Encoder | Bi-GRU × 1 | 32 units per direction",
                                "tgt | Decoder | Target embedding | 32 values",
                                "dec | Decoder | GRU × 1 | 64 units",
                                "attn | Decoder | Luong attention | dot; scores h(t) → h̃",
                                "out | Decoder | Linear + softmax | 17 target tokens",
                            }));
  EXPECT_EQ(links_of(dot), (std::vector<std::string>{"enc -> attn | encoder states"}));

  const ArchitectureDescription fed = described(testing::golden_path("rnn/lstm_luong_dot_feed_local.safetensors"));
  EXPECT_EQ(fed.words,
            "RNN encoder-decoder: bidirectional LSTM encoder (1 layer, 3 units per direction), LSTM decoder (1 layer, "
            "6 units), Luong attention, dot score, local-p window ±2, input feeding; vocabulary 18 source, 17 target "
            "words.");
  EXPECT_EQ(blocks_of(fed), (std::vector<std::string>{
                                "src | Encoder | Source embedding | 4 values",
                                "enc | Encoder | Bi-LSTM × 1 | 3 units per direction",
                                "tgt | Decoder | Target embedding | 4 values",
                                "dec | Decoder | LSTM × 1 | 6 units; input: embedding + last h̃",
                                "attn | Decoder | Luong attention | dot, local ±2; scores h(t) → h̃",
                                "out | Decoder | Linear + softmax | 17 target tokens",
                            }));
}

TEST(ArchitectureDescription, RnnWithoutAttention) {
  const ArchitectureDescription d = described(shipped("toy-rnn-none"));
  EXPECT_EQ(d.words,
            "RNN encoder-decoder: bidirectional GRU encoder (1 layer, 32 units per direction), GRU decoder (1 layer, "
            "64 units), no attention: the decoder starts from, and is fed at every step, the encoder's final state; "
            "vocabulary 18 source, 17 target words.");
  EXPECT_EQ(blocks_of(d), (std::vector<std::string>{
                              "src | Encoder | Source embedding | 32 values",
                              "enc | Encoder | Bi-GRU × 1 | 32 units per direction",
                              "tgt | Decoder | Target embedding | 32 values",
                              "dec | Decoder | GRU × 1 | 64 units; input: embedding + final state",
                              "out | Decoder | Linear + softmax | 17 target tokens",
                          }));
  EXPECT_EQ(links_of(d), (std::vector<std::string>{"enc -> dec | final state only"}));
}

TEST(ArchitectureDescription, Bert) {
  const ArchitectureDescription pooler = described(testing::golden_path("bert/tiny_pooler.safetensors"));
  EXPECT_EQ(pooler.family, "BERT encoder-only");
  EXPECT_EQ(pooler.words,
            "BERT encoder-only: 2 layers, 2 heads each, d_model 8, FFN 16 (gelu), post-LayerNorm, learned positions "
            "(24) and 2 segments, a pooler, a masked-language-model head; vocabulary 27 WordPiece pieces.");
  EXPECT_EQ(blocks_of(pooler), (std::vector<std::string>{
                                   "src | Encoder | Token + position + segment | d_model 8, 24 positions, LayerNorm",
                                   "enc | Encoder | Encoder layer × 2 | self-attention (2 heads) · FFN 16 (gelu)",
                                   "mlm | Encoder | MLM head | transform + LayerNorm, tied decoder: 27 pieces",
                               }));
  EXPECT_TRUE(pooler.links.empty());

  const ArchitectureDescription mlm = described(testing::golden_path("bert/small_mlm.safetensors"));
  EXPECT_EQ(mlm.words,
            "BERT encoder-only: 3 layers, 3 heads each, d_model 12, FFN 20 (gelu), post-LayerNorm, learned positions "
            "(32) and 2 segments, a masked-language-model head; vocabulary 27 WordPiece pieces.");

  // The segments are the config's token types: tiny_pooler with the second segment row dropped.
  const ArchitectureDescription one_segment =
      described_after(testing::golden_path("bert/tiny_pooler.safetensors"), [](json& header, Bytes& data) {
        set_config(header, "n_segments", 1);
        json& segment = header["embed.segment.weight"];
        const std::uint64_t begin = segment["data_offsets"][0], end = segment["data_offsets"][1];
        const std::uint64_t row = (end - begin) / 2;
        segment["shape"][0] = 1;
        segment["data_offsets"][1] = begin + row;
        for (auto& [name, tensor] : header.items())
          if (name != "__metadata__" && tensor["data_offsets"][0].get<std::uint64_t>() >= end)
            for (json& offset : tensor["data_offsets"]) offset = offset.get<std::uint64_t>() - row;
        const auto at = [&](std::uint64_t offset) { return data.begin() + static_cast<std::ptrdiff_t>(offset); };
        data.erase(at(begin + row), at(end));
      });
  EXPECT_EQ(one_segment.words,
            "BERT encoder-only: 2 layers, 2 heads each, d_model 8, FFN 16 (gelu), post-LayerNorm, learned positions "
            "(24) and 1 segment, a pooler, a masked-language-model head; vocabulary 27 WordPiece pieces.");
}

TEST(ArchitectureDescription, DecoderOnly) {
  const ArchitectureDescription tanh = described(testing::golden_path("decoder_only/pre_learned_gelu_tanh.safetensors"));
  EXPECT_EQ(tanh.family, "Decoder-only (GPT)");
  EXPECT_EQ(tanh.words,
            "Decoder-only language model (GPT): 2 layers, 2 heads each, d_model 16, FFN 32 (gelu_tanh), "
            "pre-LayerNorm, learned positions (16: <s>, the prompt and the continuation), no encoder; vocabulary 18 "
            "words.");
  EXPECT_EQ(blocks_of(tanh), (std::vector<std::string>{
                                 "emb | Decoder | Token + position | d_model 16, learned positions (16)",
                                 "dec | Decoder | Decoder layer × 2 | causal self-attention (2 heads) · FFN 32 (gelu_tanh)",
                                 "out | Decoder | Linear + softmax | tied: 18 words",
                             }));
  EXPECT_TRUE(tanh.links.empty());

  const ArchitectureDescription untied = described(testing::golden_path("decoder_only/post_sin_relu_untied.safetensors"));
  EXPECT_EQ(untied.words,
            "Decoder-only language model (GPT): 2 layers, 3 heads each, d_model 12, FFN 20 (relu), post-LayerNorm, "
            "sinusoidal positions (16: <s>, the prompt and the continuation), no encoder; vocabulary 18 words.");
  EXPECT_EQ(blocks_of(untied), (std::vector<std::string>{
                                   "emb | Decoder | Token + position | d_model 12, sinusoidal positions (16)",
                                   "dec | Decoder | Decoder layer × 2 | causal self-attention (3 heads) · FFN 20 (relu)",
                                   "out | Decoder | Linear + softmax | 18 words",
                               }));

  const ArchitectureDescription attention_only =
      described(testing::golden_path("decoder_only/attention_only_gelu.safetensors"));
  EXPECT_EQ(attention_only.words,
            "Decoder-only language model (GPT): 3 layers, 2 heads each, d_model 8, no FFN, pre-LayerNorm, learned "
            "positions (12: <s>, the prompt and the continuation), no encoder; vocabulary 18 words.");
  EXPECT_EQ(attention_only.blocks[1].detail, "causal self-attention (2 heads) · no FFN");
  EXPECT_EQ(attention_only.blocks[2].detail, "tied: 18 words");

  // The activation as the config spells it, as the transformer's description has it too: the
  // exact GELU is no golden's with an FFN, so pre_learned_gelu_tanh's config names it.
  const ArchitectureDescription gelu = described_after(
      testing::golden_path("decoder_only/pre_learned_gelu_tanh.safetensors"),
      [](json& header, Bytes&) { set_config(header, "activation", "gelu"); });
  EXPECT_EQ(gelu.words,
            "Decoder-only language model (GPT): 2 layers, 2 heads each, d_model 16, FFN 32 (gelu), pre-LayerNorm, "
            "learned positions (16: <s>, the prompt and the continuation), no encoder; vocabulary 18 words.");
  EXPECT_EQ(gelu.blocks[1].detail, "causal self-attention (2 heads) · FFN 32 (gelu)");

  const ArchitectureDescription bpe = described(shipped("multi30k-en-gpt"));
  EXPECT_EQ(bpe.words,
            "Decoder-only language model (GPT): 4 layers, 4 heads each, d_model 256, FFN 1024 (gelu_tanh), "
            "pre-LayerNorm, learned positions (64: <s>, the prompt and the continuation), no encoder; vocabulary "
            "4084 pieces.");
  EXPECT_EQ(bpe.blocks[2].detail, "tied: 4084 pieces");
}

// A family that does not describe itself gets its site table's description: the base class's.
TEST(ArchitectureDescription, DefaultIsTheSiteTable) {
  const auto toy = Model::load_file(shipped("toy-en-de"));
  const ArchitectureDescription d = toy->family->ModelFamily::describe(*toy);
  EXPECT_EQ(d.family, "transformer model");
  EXPECT_EQ(d.words,
            "transformer model with encoder self-attention (1 layer × 1 head), decoder self-attention (1 layer × 1 "
            "head), cross-attention (1 layer × 1 head); vocabulary 18 source, 17 target words.");
  EXPECT_EQ(blocks_of(d), (std::vector<std::string>{
                              "encoder | Encoder | Encoder self-attention | 1 layer × 1 head",
                              "self | Decoder | Decoder self-attention | 1 layer × 1 head",
                              "cross | Decoder | Cross-attention | 1 layer × 1 head",
                          }));
  EXPECT_TRUE(d.links.empty());

  const auto rnn = Model::load_file(shipped("toy-rnn-luong-dot"));
  EXPECT_EQ(rnn->family->ModelFamily::describe(*rnn).words,
            "rnn model with attention (1 layer × 1 head); vocabulary 18 source, 17 target words.");
}

// Every golden model's description is a drawable diagram: unique ids, links between blocks
// that exist, a column each, a sentence of words.
TEST(ArchitectureDescription, EveryGoldenModelIsADiagram) {
  int seen = 0;
  for (const std::string folder : {"", "rnn", "bert", "decoder_only", "hf"}) {
    for (const auto& entry : std::filesystem::directory_iterator(testing::golden_path(folder))) {
      if (entry.path().extension() != ".safetensors") continue;
      const ArchitectureDescription d = described(entry.path().string());
      const std::string what = entry.path().filename().string();
      std::set<std::string> ids;
      for (const ArchitectureDescription::Block& b : d.blocks) {
        EXPECT_TRUE(ids.insert(b.id).second) << what << ": block id " << b.id << " twice";
        EXPECT_TRUE(b.column == "Encoder" || b.column == "Decoder") << what << ": " << b.column;
        EXPECT_FALSE(b.label.empty() || b.detail.empty()) << what << ": " << b.id;
      }
      for (const ArchitectureDescription::Link& l : d.links)
        EXPECT_TRUE(ids.count(l.from) && ids.count(l.to)) << what << ": " << l.from << " -> " << l.to;
      EXPECT_FALSE(d.family.empty()) << what;
      EXPECT_EQ(d.words.back(), '.') << what;
      ++seen;
    }
  }
  EXPECT_GE(seen, 30);
}

}  // namespace
}  // namespace attnscope
