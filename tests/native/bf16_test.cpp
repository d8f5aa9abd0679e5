// BF16 tensors: bfloat16 -> binary32 for every pattern, and a model stored as BF16 loads and
// translates exactly as the same model stored as F32 with the same (bf16-representable) values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "decoding/session.h"
#include "io/half.h"
#include "io/safetensors.h"
#include "io/staged_bytes.h"
#include "model/model.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;
using Bytes = std::vector<std::uint8_t>;

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(BFloat16, EveryPatternIsTheBinary32WithZerosBelow) {
  for (std::uint32_t p = 0; p <= 0xffffu; ++p) ASSERT_EQ(bits_of(bfloat16_to_float(static_cast<std::uint16_t>(p))), p << 16);
  EXPECT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0xc000), -2.0f);
  EXPECT_TRUE(std::isinf(bfloat16_to_float(0x7f80)));
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0x7fc0)));
}

std::uint64_t header_length(const Bytes& b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  return n;
}

Bytes assemble(const json& header, const Bytes& data) {
  const std::string text = header.dump();
  Bytes out;
  out.reserve(8 + text.size() + data.size());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i)));
  for (char c : text) out.push_back(static_cast<std::uint8_t>(c));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// The golden file twice, every F32 value truncated to bfloat16's precision: once stored as F32,
// once as BF16 (the upper two bytes of each value).
struct TwoFiles {
  Bytes f32, bf16;
};

TwoFiles truncated_model(const std::string& name) {
  const Bytes b = read_file_bytes(testing::golden_path(name));
  const std::size_t data = 8 + header_length(b);
  const json h = json::parse(b.begin() + 8, b.begin() + static_cast<std::ptrdiff_t>(data));
  json h32 = h, h16 = h;
  Bytes d32, d16;
  for (auto& [tensor, t] : h.items()) {
    if (tensor == "__metadata__") continue;
    EXPECT_EQ(t["dtype"], "F32") << tensor;
    const std::size_t begin = t["data_offsets"][0], end = t["data_offsets"][1];
    h32[tensor]["data_offsets"] = {d32.size(), d32.size() + (end - begin)};
    h16[tensor]["data_offsets"] = {d16.size(), d16.size() + (end - begin) / 2};
    h16[tensor]["dtype"] = "BF16";
    for (std::size_t at = data + begin; at < data + end; at += 4) {
      // Little-endian: bytes 2 and 3 are the upper half, the bfloat16; bytes 0 and 1 become zeros.
      d32.insert(d32.end(), {0, 0, b[at + 2], b[at + 3]});
      d16.insert(d16.end(), {b[at + 2], b[at + 3]});
    }
  }
  return {assemble(h32, d32), assemble(h16, d16)};
}

TEST(BFloat16, ReadsAsTheF32ItTruncates) {
  const TwoFiles files = truncated_model("tiny_post_sin.safetensors");
  const SafetensorsFile f32(files.f32.data(), files.f32.size()), bf16(files.bf16.data(), files.bf16.size());
  ASSERT_EQ(f32.tensors().size(), bf16.tensors().size());
  for (const auto& [name, info] : bf16.tensors()) {
    EXPECT_EQ(info.dtype, DType::BF16);
    EXPECT_EQ(f32.read_f32(name), bf16.read_f32(name)) << name;
  }
}

TEST(BFloat16, AModelStoredAsBF16TranslatesAsItsF32) {
  const TwoFiles files = truncated_model("tiny_post_sin.safetensors");
  const auto a = Model::load_bytes(files.f32.data(), files.f32.size());
  const auto b = Model::load_bytes(files.bf16.data(), files.bf16.size());
  DecodeOptions options;
  options.capture.logits = true;
  DecodeSession sa(a, "the cat", options), sb(b, "the cat", options);
  sa.run();
  sb.run();
  EXPECT_EQ(sa.nbest().at(0).tokens, sb.nbest().at(0).tokens);
  ASSERT_EQ(sa.history().size(), sb.history().size());
  for (std::size_t i = 0; i < sa.history().size(); ++i)
    EXPECT_EQ(sa.history()[i].expansions[0].logits, sb.history()[i].expansions[0].logits) << "step " << i;
}

// Its weights stay in bfloat16, as the file holds them (half the bytes of binary32), read
// from the file or streamed in; binary16: false expands them.
TEST(BFloat16, AModelStoredAsBF16KeepsItsWeightsInBfloat16) {
  const TwoFiles files = truncated_model("tiny_post_sin.safetensors");
  const auto f32 = Model::load_bytes(files.f32.data(), files.f32.size());
  const auto held = Model::load_bytes(files.bf16.data(), files.bf16.size());
  Model::LoadOptions expand;
  expand.binary16 = false;
  const auto expanded = Model::load_bytes(files.bf16.data(), files.bf16.size(), expand);
  auto staged = std::make_shared<StagedBytes>(files.bf16.size());
  for (std::size_t at = 0; at < files.bf16.size(); at += 777)
    staged->append(files.bf16.data() + at, std::min<std::size_t>(777, files.bf16.size() - at));
  const auto streamed = Model::load(staged, Model::LoadOptions());
  EXPECT_EQ(staged->staged_tensor_bytes(), 0u);

  EXPECT_TRUE(held->bfloat16 && streamed->bfloat16);
  EXPECT_FALSE(held->binary16 || f32->bfloat16 || expanded->bfloat16);
  for (const Side side : {Side::Source, Side::Target}) {
    const ops::WeightMatrix& table = held->family->token_embeddings(side);
    EXPECT_EQ(table.half_format(), ops::simd::HalfFormat::Bfloat16);
    EXPECT_EQ(table.bytes(), static_cast<std::size_t>(table.rows()) * table.cols() * 2);
    EXPECT_EQ(streamed->family->token_embeddings(side).half_format(), ops::simd::HalfFormat::Bfloat16);
    EXPECT_EQ(expanded->family->token_embeddings(side).half_format(), ops::simd::HalfFormat::None);
    EXPECT_TRUE(table.to_matrix() == f32->family->token_embeddings(side).to_matrix());
  }
  DecodeOptions options;
  options.capture.logits = true;
  DecodeSession a(f32, "the cat", options), b(streamed, "the cat", options);
  a.run();
  b.run();
  ASSERT_EQ(a.history().size(), b.history().size());
  for (std::size_t i = 0; i < a.history().size(); ++i)
    EXPECT_EQ(a.history()[i].expansions[0].logits, b.history()[i].expansions[0].logits) << "step " << i;
}

// A NaN or Inf in a BF16 weight is refused, naming the tensor, whichever way it arrives.
TEST(BFloat16, ANonFiniteBF16WeightIsRefused) {
  TwoFiles files = truncated_model("tiny_post_sin.safetensors");
  Bytes& b = files.bf16;
  const std::size_t data = 8 + header_length(b);
  const json h = json::parse(b.begin() + 8, b.begin() + static_cast<std::ptrdiff_t>(data));
  const std::string name = "encoder.layers.0.self_attn.q_proj.weight";
  ASSERT_TRUE(h.contains(name));
  const std::size_t at = data + static_cast<std::size_t>(h[name]["data_offsets"][0]) + 6;
  b[at] = 0xc0;  // 0x7fc0: a NaN
  b[at + 1] = 0x7f;
  const std::string bytes_message =
      testing::thrown_message<ModelFileError>([&] { Model::load_bytes(b.data(), b.size()); });
  EXPECT_NE(bytes_message.find(name), std::string::npos) << bytes_message;
  EXPECT_NE(bytes_message.find("NaN"), std::string::npos) << bytes_message;
  auto staged = std::make_shared<StagedBytes>(b.size());
  staged->append(b.data(), b.size());
  EXPECT_EQ(testing::thrown_message<ModelFileError>([&] { Model::load(staged, Model::LoadOptions()); }), bytes_message);
}

}  // namespace
}  // namespace attnscope
